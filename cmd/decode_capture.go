package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/toonkit/toonkit/pkg/records"

	"github.com/toonkit/toonkit/pkg/capture"
	"github.com/toonkit/toonkit/pkg/codec/binary"
)

// decodeCapture writes the frames of a packet capture (pcap or pcapng) as
// decode's records with their capture source, or to array; WebSocket text
// messages get a record of their own (not with --payload). Problems stop
// the run unless --keep-going; notes go to stderr. It returns the frames
// written and the problems reported.
func decodeCapture(opts *DecodeOptions, rep *reporter, in *input, br *bufio.Reader, out *output, array *records.JSONSink) (frames, bad int, err error) {
	var line []byte
	live := !in.regular() // a pipe (tcpdump -w - | toonkit decode): records go out as they come
	copts := capture.Options{MaxFrameSize: opts.MaxFrameSize, Ports: opts.Ports}
	_, err = capture.Read(br, copts, func(r *capture.Record) error {
		switch r.Kind {
		case capture.Frame, capture.Text:
			if r.Kind == capture.Frame {
				frames++
			}
			switch {
			case opts.Payload && r.Kind == capture.Text:
				return nil
			case opts.Payload:
				line = append(line[:0], r.JSON...)
			default:
				line = capture.AppendRecord(line[:0], r)
			}
			if array != nil {
				array.Write(line)
			} else {
				out.Write(append(line, '\n'))
			}
			if live && out.failed == nil && br.Buffered() == 0 {
				out.Flush()
			}
			return out.failed
		case capture.Note:
			rep.notef("%s: %v", in.Name, r.Err)
			return nil
		}
		bad++
		cerr := captureError(in.Name, r.Err, opts.KeepGoing)
		if !opts.KeepGoing {
			return cerr
		}
		rep.report(cerr, true)
		if r.Moved != nil {
			moveNotes(rep.notef, r.Err, *r.Moved)
		}
		return nil
	})
	var fe *capture.FormatError
	switch {
	case err == nil:
	case errors.As(err, &fe):
		err = invalidError(fmt.Errorf("%s: %w", in.Name, err), "")
	case isExitError(err): // a problem, or the output failing
	default:
		err = readError(in.Name, err)
	}
	return frames, bad, err
}

// captureError is a problem in a capture as the user sees it.
func captureError(name string, err error, keepGoing bool) error {
	hint := ""
	var fe *binary.FrameError
	switch {
	case keepGoing:
	case errors.As(err, &fe) && (fe.Kind == binary.TooLarge || errors.Is(err, binary.ErrTooLarge)):
		hint = "raise --max-frame-size if such frames are expected"
	case errors.Is(err, capture.ErrTooManyConns):
		hint = "--port N reads only the connections on port N"
	default:
		hint = "--keep-going reports each problem and goes on"
	}
	return invalidError(fmt.Errorf("%s: %w", name, err), hint)
}

func isExitError(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee)
}
