package cmd

import (
	"bufio"
	"context"
	"github.com/toonkit/toonkit/pkg/records"

	"github.com/toonkit/toonkit/pkg/codec/binary"
)

// decodeFramesJobs decodes the frames of one input on n workers
// (binary.DecodeStream) with the output and the messages of the
// single-worker loop in runDecode, and says how many frames were decoded
// and how many were bad.
func decodeFramesJobs(opts *DecodeOptions, n int, rep *reporter, in *input, br *bufio.Reader, out *output, array *records.JSONSink) (good, bad int, err error) {
	h := binary.StreamHandler{
		Records: func(b []byte, ends []int) error {
			good += len(ends)
			return writeBatch(out, array, b, ends)
		},
		Large: func(f *binary.Frame, js []byte) error {
			// Written as the single-worker loop writes it: no copy.
			good++
			writeFrame(out, array, opts.Payload, nil, f, js)
			return out.failed
		},
		Bad: func(err error, moved binary.Moved) error {
			bad++
			ferr := frameError(in.Name, err, opts.KeepGoing)
			if !opts.KeepGoing {
				return ferr
			}
			rep.report(ferr, true)
			moveNotes(rep.notef, err, moved)
			return nil
		},
		Idle: out.Flush,
	}
	err = binary.DecodeStream(context.Background(), br, binary.StreamOptions{MaxFrameSize: opts.MaxFrameSize,
		Workers: n, KeepGoing: opts.KeepGoing, Append: func(dst []byte, f *binary.Frame, js []byte) []byte {
			return binary.AppendOutput(dst, f, js, opts.Payload, array == nil)
		}, LeaveRead: true, Live: !in.regular()}, h)
	if err != nil && !binary.IsFrameError(err) && err != out.failed {
		if _, ok := err.(*ExitError); !ok {
			err = readError(in.Name, err)
		}
	}
	return good, bad, err
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
