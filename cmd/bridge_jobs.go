package cmd

import (
	"context"
	"fmt"

	"github.com/toonkit/toonkit/pkg/bridge"
	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// bridgeJobs converts the messages of src, a JSON or NDJSON input, with
// conv on opts.Jobs workers (bridge.Stream) and writes what it makes to
// snk in input order, flushing the output when a live input is idle. What
// the workers do not settle (a record that is not valid JSON, and all
// after it) goes to pump, the single-worker loop, from a Reader that reads
// on as the source's own would have. It closes src.
func bridgeJobs(opts *ConvertOptions, src *source, out *output, conv *bridge.Converter, snk sink) error {
	h := bridge.StreamHandler{
		Emit: func(msg []byte) error {
			if err := snk.Write(msg); err != nil {
				return failure(out, err)
			}
			return out.failed
		},
		Idle: out.Flush,
	}
	rest, err := conv.Stream(context.Background(), src.Reader(), bridge.StreamOptions{Workers: opts.Jobs, Elements: src.Format() == codec.JSON,
		MaxValueSize: int64(opts.MaxFrameSize), Live: !src.in.regular(), LeaveRead: true,
		Where: func(pos jsonv.Position) string { return fmt.Sprintf("%s:%s", src.Name(), pos) }}, h)
	if err != nil || rest == nil {
		src.close()
		return bridgeError(err)
	}
	src.ReadOn(rest)
	return pump(src, out, nil, func(rec []byte) error { return bridgeError(conv.Convert(rec, src.Where, snk.Write)) })
}
