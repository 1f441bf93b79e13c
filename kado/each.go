package kado

import (
	"errors"
	"fmt"
	"io"
)

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

// Notes says in words how the reader moved on past the bad frame of err (a
// *FrameError), one sentence a line, as decode --keep-going reports it:
// where it resynchronised from when a payload's length was not trusted,
// and how many bytes it skipped to which header, or to the end. There are
// none when err is not a frame error, or when a bad payload was passed over
// by its length.
func (m Moved) Notes(err error) []string {
	var fe *FrameError
	if !errors.As(err, &fe) {
		return nil
	}
	var notes []string
	if fe.Kind == BadPayload {
		if m.Skipped == 0 {
			return nil
		}
		notes = append(notes, fmt.Sprintf("the frame's payloadLength does not lead to a header; resynchronising from byte %d", fe.Offset+1))
	}
	bytes := plural(int(m.Skipped), "byte", "bytes")
	if !m.Found {
		return append(notes, fmt.Sprintf("skipped %d %s to the end: no further frame found", m.Skipped, bytes))
	}
	return append(notes, fmt.Sprintf("skipped %d %s to the next plausible header at byte %d", m.Skipped, bytes, fe.Offset+m.Skipped))
}
