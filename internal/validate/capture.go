package validate

import (
	"errors"
	"io"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/kado"
)

// The codes of a capture's problems that are not frames.
const (
	codeGap       = "CAP001" // bytes missing from the capture (a hole in the sequence space)
	codeWebSocket = "CAP002" // a WebSocket protocol error: the rest of the direction is not read
	codeTooMany   = "CAP003" // a connection not followed: too many open
	codeNotFrames = "CAP004" // a direction that is not frames, on a port that Ports named
	codeCapture   = "CAP005" // another problem of a direction
	codeConflict  = "CAP006" // two copies of the same bytes that disagree (the first is kept)
	codePackets   = "CAP007" // packets of the capture not read: cut short, over the record size limit, fragments never whole
)

// Capture validates the Kado frames of a packet capture (pcap or pcapng,
// read by internal/capture with copts; its MaxFrameSize defaults to
// opts.MaxFrameSize): each frame as Binary checks a frame of a frame file
// (the four rules, the payload against its type's schema, RLE oddities),
// each finding naming the connection and direction (Finding.Conn, Dir),
// with the frame index and offsets of that direction's stream.
//
// The rules across frames (sequence ids go up, timestamps do not go back)
// apply to each direction of each connection on its own: the spec's run
// of frames is one sender's stream, and the two sides of a connection,
// like two connections, number their frames independently.
//
// The capture's own problems are errors too: a hole in a direction
// (CAP001, at the first missing byte), a WebSocket protocol error (CAP002),
// a connection not followed because too many were open (CAP003), a
// direction that is not frames when copts.Ports names its port (CAP004),
// two copies of the same bytes that disagree (CAP006, at the
// first byte where they do; the first copy is kept), and packets of the
// capture that were not read (CAP007, no connection: a record over the
// size limit, at its byte offset in the file, and the sum of the packets
// cut short, over the limit or fragments never made whole, after the last
// record). Notes (a connection already open when the capture began) and
// WebSocket text messages are not findings.
//
// It returns the number of frames. A file that cannot be read as a
// capture gives a *capture.FormatError (after the findings before it); an
// I/O error is returned as it is. opts.Workers is not used: a capture is
// checked on the caller's goroutine.
func Capture(r io.Reader, name string, opts Options, copts capture.Options, emit Emit) (int, error) {
	if copts.MaxFrameSize <= 0 {
		copts.MaxFrameSize = opts.MaxFrameSize
	}
	c := &captureRun{
		name: name, emit: emit, runs: map[runKey]*seqState{},
		dec: kado.NewReader(nil, kado.ReaderOptions{MaxFrameSize: copts.MaxFrameSize}),
	}
	stop := errors.New("stop")
	_, err := capture.Read(r, copts, func(rec *capture.Record) error {
		more, err := c.record(rec)
		if err != nil {
			return err
		}
		if !more {
			return stop
		}
		return nil
	})
	if err == stop {
		err = nil
	}
	return c.frames, err
}

// runKey is one sender's stream: a direction of a connection.
type runKey struct {
	conn string
	dir  capture.Dir
}

type captureRun struct {
	name   string
	emit   Emit
	dec    *kado.Reader
	runs   map[runKey]*seqState
	frames int
	found  []Finding
}

// located sets the capture's place on a finding: none for a record about
// the capture as a whole.
func located(f Finding, rec *capture.Record) Finding {
	if rec.Conn != "" {
		f.Conn, f.Dir = rec.Conn, rec.Dir.String()
	}
	return f
}

// record checks one record; more is false when emit asks to stop.
func (c *captureRun) record(rec *capture.Record) (more bool, _ error) {
	switch rec.Kind {
	case capture.Frame:
		f := rec.Frame
		c.frames++
		k := runKey{rec.Conn, rec.Dir}
		st := c.runs[k]
		if st == nil {
			st = &seqState{}
			c.runs[k] = st
		}
		emit := func(x Finding) bool { return c.emit(located(x, rec)) }
		if !st.order(Finding{File: c.name, Frame: f.Index, Offset: f.Offset, Record: f.Index, Severity: Warning}, f, emit) {
			return false, nil
		}
		var err error
		c.found, _, err = frameLocal(c.dec, f, c.name, c.found[:0])
		for _, x := range c.found {
			if !emit(x) {
				return false, nil
			}
		}
		return true, err
	case capture.Problem:
	default:
		return true, nil // text messages and notes
	}
	cause := rec.Err
	var ce *capture.Error
	if errors.As(cause, &ce) {
		cause = ce.Err
	}
	var fe *kado.FrameError
	if errors.As(cause, &fe) {
		if fe.Kind == kado.BadPayload {
			c.frames++
			return c.emit(located(badPayload(c.name, fe), rec)), nil
		}
		var m kado.Moved
		if rec.Moved != nil {
			m = *rec.Moved
		}
		fin, frame := headerFinding(c.name, fe, m.Skipped, m.Found)
		if frame {
			c.frames++
		}
		return c.emit(located(fin, rec)), nil
	}
	fin := Finding{File: c.name, Frame: -1, Record: -1, Severity: Error, Code: codeCapture, Message: cause.Error()}
	var ge *capture.GapError
	var we *capture.WebSocketError
	var ce2 *capture.ConflictError
	var rse *capture.RecordSizeError
	switch {
	case errors.As(cause, &ge):
		fin.Code, fin.Offset = codeGap, ge.Start
	case errors.As(cause, &we):
		fin.Code = codeWebSocket
	case errors.Is(cause, capture.ErrTooManyConns):
		fin.Code = codeTooMany
	case errors.Is(cause, capture.ErrNotFrames):
		fin.Code = codeNotFrames
	case errors.As(cause, &ce2):
		fin.Code, fin.Offset = codeConflict, ce2.Start
	case errors.As(cause, &rse):
		fin.Code, fin.Offset = codePackets, rse.Offset
	case errors.As(cause, new(*capture.SkipError)):
		fin.Code = codePackets
	}
	return c.emit(located(fin, rec)), nil
}
