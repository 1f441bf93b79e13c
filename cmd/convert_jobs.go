package cmd

import (
	"context"

	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/tabular"
	"github.com/toonkit/toonkit/pkg/records"
)

// tableJobs writes the rows of src, a JSON or NDJSON input, on
// opts.Jobs workers (records.Run, tabular.Rows): the rows are split and
// their cells written on the workers, and joined to the table in input
// order. What the workers do not settle (a record that is not an object,
// that is not valid, and all after it) goes to f, the single-worker loop,
// from a Reader that reads on as the source's own would have. It closes
// src.
func tableJobs(opts *ConvertOptions, src *source, tw *tabular.RowWriter, rows *spool, lossy func(tabular.Lossy), f func([]byte) error) error {
	var line []byte
	h := records.Handler[tabular.Rows]{
		Work: func(b *records.Batch[tabular.Rows]) bool {
			b.Out.Reset()
			for i := range b.Len() {
				if b.Out.Split(b.Record(i)) != nil {
					return false
				}
			}
			return true
		},
		Write: func(b *records.Batch[tabular.Rows]) error {
			line = tw.AppendRows(line[:0], &b.Out, lossy)
			if _, err := rows.w.Write(line); err != nil {
				return rows.fail(err)
			}
			return nil
		},
	}
	rest, err := records.Run(context.Background(), src.br, records.Options{Workers: opts.Jobs, Elements: src.format == codec.JSON,
		MaxValueSize: int64(opts.MaxFrameSize), Live: !src.in.regular(), LeaveRead: true}, h)
	if err != nil || rest == nil {
		src.close()
		return err
	}
	src.jr = rest
	return src.each(f)
}
