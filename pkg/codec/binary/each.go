package binary

import "io"

// FrameHandler receives what Reader.Each reads, in input order. An error a
// function returns stops Each and is returned by it.
type FrameHandler struct {
	// Good receives a good frame and its payload as compact JSON (see
	// Reader.JSON); js is valid until it returns.
	Good func(f *Frame, js []byte) error
	// Bad receives a bad frame's error (a *FrameError), before the reader
	// moves on past the frame.
	Bad func(err error) error
	// Moved, when not nil, receives, with keepGoing, the bad frame's error
	// again and how the reader moved on past it (MoveOn).
	Moved func(err error, m Moved)
}

// Each reads the frames of r to the end of the stream: each good frame goes
// to h.Good, each bad frame to h.Bad. With keepGoing the reader then moves
// on past the bad frame (MoveOn) and goes on; without it Each returns the
// frame's error (or h.Bad's) after h.Bad. A read error, or a payload error
// that is not a frame error, is returned as it is. Each returns nil at the
// clean end of the stream. It is the loop of one Reader that DecodeStream
// runs on workers.
func (r *Reader) Each(keepGoing bool, h FrameHandler) error {
	for {
		f, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			var js []byte
			if js, err = r.JSON(f); err == nil {
				if err := h.Good(f, js); err != nil {
					return err
				}
				continue
			}
		}
		if !IsFrameError(err) {
			return err
		}
		if berr := h.Bad(err); berr != nil || !keepGoing {
			if berr != nil {
				return berr
			}
			return err
		}
		m := r.MoveOn(f, err)
		if h.Moved != nil {
			h.Moved(err, m)
		}
	}
}
