package cmd

import (
	"bufio"
	"context"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/records"

	"github.com/toonkit/toonkit/kado"
)

// framesJobs decodes the frames of one input on opts.Jobs workers
// (kado.DecodeStream) with the output and the messages of the
// single-worker loop (frameLoop).
func (d *decodeRun) framesJobs(in *cli.Input, br *bufio.Reader) error {
	opts, out, array := d.opts, d.out, d.array
	h := kado.StreamHandler{
		Records: func(b []byte, ends []int) error {
			d.frames += len(ends)
			return writeBatch(out, array, b, ends)
		},
		Large: func(f *kado.Frame, js []byte) error {
			// Written as the single-worker loop writes it: no copy.
			d.frames++
			writeFrame(out, array, opts.Payload, nil, f, js)
			return out.Err()
		},
		Bad: func(err error, moved kado.Moved) error {
			return d.problem(cli.FrameError(in.Name, err, opts.KeepGoing), err, &moved)
		},
		Idle: out.Flush,
	}
	err := kado.DecodeStream(context.Background(), br, kado.StreamOptions{MaxFrameSize: opts.MaxFrameSize,
		Workers: opts.Jobs, KeepGoing: opts.KeepGoing, Append: func(dst []byte, f *kado.Frame, js []byte) []byte {
			return appendOutput(dst, f, js, opts.Payload, array == nil)
		}, LeaveRead: true, Live: !in.Regular()}, h)
	if err != nil && !kado.IsFrameError(err) && err != out.Err() {
		if _, ok := err.(*cli.ExitError); !ok {
			err = cli.ReadError(in.Name, err)
		}
	}
	return err
}

// writeBatch writes a batch of records made by a worker pipeline (b, each
// record ending at one of ends) to out, or, for a JSON array, to array
// one record at a time.
func writeBatch(out *cli.Output, array *records.JSONSink, b []byte, ends []int) error {
	if array == nil {
		out.Write(b)
		return out.Err()
	}
	start := 0
	for _, end := range ends {
		array.Write(b[start:end])
		start = end
	}
	return out.Err()
}

// appendOutput appends what `toonkit decode` writes for the frame f whose
// payload is js (compact JSON, see Reader.JSON): its record
// (kado.AppendRecord), or with payloadOnly the payload alone; with line, a line
// end after it (NDJSON).
func appendOutput(dst []byte, f *kado.Frame, js []byte, payloadOnly, line bool) []byte {
	if payloadOnly {
		dst = append(dst, js...)
	} else {
		dst = kado.AppendRecord(dst, f.Header, f.Compressed(), js)
	}
	if line {
		dst = append(dst, '\n')
	}
	return dst
}
