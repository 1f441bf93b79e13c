package cmd

import (
	"bufio"
	"context"
	"github.com/toonkit/toonkit/pkg/records"

	"github.com/toonkit/toonkit/pkg/codec/binary"
)

// framesJobs decodes the frames of one input on opts.Jobs workers
// (binary.DecodeStream) with the output and the messages of the
// single-worker loop (frameLoop).
func (d *decodeRun) framesJobs(in *input, br *bufio.Reader) error {
	opts, out, array := d.opts, d.out, d.array
	h := binary.StreamHandler{
		Records: func(b []byte, ends []int) error {
			d.frames += len(ends)
			return writeBatch(out, array, b, ends)
		},
		Large: func(f *binary.Frame, js []byte) error {
			// Written as the single-worker loop writes it: no copy.
			d.frames++
			writeFrame(out, array, opts.Payload, nil, f, js)
			return out.failed
		},
		Bad: func(err error, moved binary.Moved) error {
			return d.problem(frameError(in.Name, err, opts.KeepGoing), err, &moved)
		},
		Idle: out.Flush,
	}
	err := binary.DecodeStream(context.Background(), br, binary.StreamOptions{MaxFrameSize: opts.MaxFrameSize,
		Workers: opts.Jobs, KeepGoing: opts.KeepGoing, Append: func(dst []byte, f *binary.Frame, js []byte) []byte {
			return binary.AppendOutput(dst, f, js, opts.Payload, array == nil)
		}, LeaveRead: true, Live: !in.regular()}, h)
	if err != nil && !binary.IsFrameError(err) && err != out.failed {
		if _, ok := err.(*ExitError); !ok {
			err = readError(in.Name, err)
		}
	}
	return err
}

// writeBatch writes a batch of records made by a worker pipeline (b, each
// record ending at one of ends) to out, or, for a JSON array, to array
// one record at a time.
func writeBatch(out *output, array *records.JSONSink, b []byte, ends []int) error {
	if array == nil {
		out.Write(b)
		return out.failed
	}
	start := 0
	for _, end := range ends {
		array.Write(b[start:end])
		start = end
	}
	return out.failed
}
