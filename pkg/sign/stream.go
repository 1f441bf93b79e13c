package sign

import (
	"bytes"
	"context"
	"io"
)

// StreamOptions configure SignStream.
type StreamOptions struct {
	// Workers parse and sign the events; <= 1 does it all on the
	// caller's goroutine.
	Workers int
	// MaxEventSize bounds one event (0: DefaultMaxEventSize).
	MaxEventSize int
	// Live says that the input may wait for more (a pipe, a terminal):
	// what has arrived is passed on at once, and Idle called, rather than
	// held back until a batch is full. A regular file needs none of it.
	Live bool
	// LeaveRead: a run that stops early returns at once, even while the
	// reader waits for more of the input (pipeline.Options.LeaveRead); the
	// input must then be left alone.
	LeaveRead bool
}

// StreamHandler receives what SignStream makes, in input order, on the
// caller's goroutine. An error it returns stops the run and is returned.
type StreamHandler struct {
	// Output receives the output's bytes, in order: the signed events and
	// every byte of the input around them. b is valid during the call and
	// never empty. Nothing is passed on after the first bad event.
	Output func(b []byte) error
	// Bad receives an event that cannot be signed, with its index and the
	// position of what is wrong (*EventError).
	Bad func(e *EventError) error
	// Idle, when not nil, is called where a live input (StreamOptions.Live)
	// has nothing more buffered: a place to flush the output.
	Idle func() error
}

// SignStream reads the trace events of in (NDJSON, any JSON values one after
// another, or one JSON array of events; see Reader), signs each with s, and
// passes the input on to h.Output with each event's signature in
// meta.signature and in a top-level signature (AppendSigned): every other
// byte is kept, and the output ends with a line break, CR LF when the lines
// before end so, added when the input's last line has none.
//
// An event that cannot be signed goes to h.Bad; from the first one on,
// nothing more is passed to h.Output, but every event is still read and
// checked. SignStream returns how many events were bad, and the first
// error that stopped it: malformed input (*jsonv.SyntaxError), an event
// over the size limit (*jsonv.TooLargeError), a read error, or h's. What
// was passed on before it is the output of every event before the error.
//
// With opts.Workers > 1 the events are parsed and signed on that many
// goroutines (pkg/pipeline), each with its own clone of s, and the output,
// the bad events and the errors are those of one worker, in the same order.
// Memory is bounded by a fixed number of batches in flight.
func SignStream(ctx context.Context, in io.Reader, s *Signer, opts StreamOptions, h StreamHandler) (bad int, err error) {
	rd := NewReader(in, opts.MaxEventSize)
	var buf []byte
	var last byte // the last byte passed on
	crlf := false // the last line break passed on was CR LF
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		last = buf[len(buf)-1]
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			crlf = i > 0 && buf[i-1] == '\r'
		}
		err := h.Output(buf)
		buf = buf[:0]
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return bad, err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ferr := flush(); ferr != nil {
				return bad, ferr
			}
			return bad, err
		}
		ev, err := s.Event(rec)
		if err != nil {
			if bad == 0 {
				if err := flush(); err != nil {
					return bad, err
				}
			}
			bad++
			if err := h.Bad(eventError(rec, err)); err != nil {
				return bad, err
			}
			continue
		}
		if bad > 0 {
			continue // nothing more is written; the rest is still checked
		}
		buf = append(buf, rec.Gap...)
		buf = AppendSigned(buf, ev, s.Sign(ev))
		if idle := rd.Buffered() == 0; (idle && opts.Live) || len(buf) > 256<<10 {
			if err := flush(); err != nil {
				return bad, err
			}
			if idle && opts.Live && h.Idle != nil {
				if err := h.Idle(); err != nil {
					return bad, err
				}
			}
		}
	}
	if bad > 0 {
		return bad, nil
	}
	buf = append(buf, rd.Tail()...)
	if err := flush(); err != nil {
		return bad, err
	}
	if last != 0 && last != '\n' {
		buf = append(buf, '\n')
		if crlf {
			buf = append(buf[:0], "\r\n"...)
		}
	}
	return bad, flush()
}

// eventError places an event's FieldError in the stream.
func eventError(rec *Record, err error) *EventError {
	e := &EventError{Index: rec.Index, Pos: rec.Pos}
	if fe, ok := err.(*FieldError); ok {
		e.Field = fe
		e.Pos = rec.PosAt(fe.Offset)
	} else {
		e.Field = &FieldError{Msg: err.Error()}
	}
	return e
}
