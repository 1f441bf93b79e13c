package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
)

// decodeCapture writes the frames of a packet capture (pcap or pcapng) as
// decode's records with their capture source, or to array; WebSocket text
// messages get a record of their own (not with --payload). Problems stop
// the run unless --keep-going; notes go to stderr. With -j N the payloads
// are checked and formatted on N workers (capture.Stream), the output the
// same.
func (d *decodeRun) capture(in *cli.Input, br *bufio.Reader) error {
	opts, rep, out, array := d.opts, d.rep, d.out, d.array
	sopts := capture.StreamOptions{
		Options: opts.CaptureFlags.options(opts.MaxFrameSize),
		Workers: opts.Jobs,
		// A pipe (tcpdump -w - | toonkit decode): records go out as they come.
		Live:      !in.Regular(),
		LeaveRead: true,
		Append: func(dst []byte, r *capture.Record) []byte {
			switch {
			case opts.Payload && r.Kind == capture.Text:
				return dst
			case opts.Payload:
				dst = append(dst, r.JSON...)
			default:
				dst = capture.AppendRecord(dst, r)
			}
			if array == nil {
				dst = append(dst, '\n')
			}
			return dst
		},
	}
	// A file can be read again: the workers may check the frames that end
	// their segments too (capture.StreamOptions.Reopen).
	sopts.Reopen = capture.ReopenFile(in.File)
	h := capture.StreamHandler{
		Records: func(b []byte, ends []int, n int) error {
			d.frames += n
			return writeBatch(out, array, b, ends)
		},
		Other: func(r *capture.Record) error {
			if r.Kind == capture.Note {
				rep.Notef("%s: %v", in.Name, r.Err)
				return nil
			}
			return d.problem(cli.CaptureError(in.Name, r.Err, opts.KeepGoing), r.Err, r.Moved)
		},
		Idle: out.Flush,
	}
	err := capture.Stream(context.Background(), br, sopts, h)
	var fe *capture.FormatError
	if cerr, ok := cli.NoConnError(in.Name, err); ok {
		return cerr
	}
	switch {
	case err == nil:
	case errors.As(err, &fe):
		err = cli.InvalidError(fmt.Errorf("%s: %w", in.Name, err), "")
	case cli.IsExitError(err): // a problem, or the output failing
	default:
		err = cli.ReadError(in.Name, err)
	}
	return err
}
