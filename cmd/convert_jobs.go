package cmd

import (
	"context"

	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
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
func tableJobs(opts *ConvertOptions, src *source, ts *records.TableSink, rows *spool, f func([]byte) error) error {
	h := records.Handler[tabular.Rows]{
		Work: func(b *records.Batch[tabular.Rows]) bool {
			b.Out.Reset()
			for i := range b.Len() {
				if mems, ok := b.Members(i); ok {
					b.Out.SplitMembers(b.Record(i), mems)
				} else if b.Out.Split(b.Record(i)) != nil {
					return false
				}
			}
			return true
		},
		Write: func(b *records.Batch[tabular.Rows]) error {
			if err := ts.WriteRows(&b.Out); err != nil {
				return rows.fail(err)
			}
			return nil
		},
	}
	if more, err := recordsRun(opts, src, h, true); !more {
		return err
	}
	return src.each(f)
}

// recordsRun runs h over the records of src on opts.Jobs workers
// (records.Run), with the members of each object noted when members says
// so (records.Options.Members). more says that the single-worker loop is to read the
// rest, from src.jr, which then reads on as the source's own Reader would
// have; otherwise src is closed and err is the run's.
func recordsRun[R any](opts *ConvertOptions, src *source, h records.Handler[R], members bool) (more bool, err error) {
	rest, err := records.Run(context.Background(), src.Reader(), records.Options{Workers: opts.Jobs, Elements: src.Format() == codec.JSON,
		MaxValueSize: int64(opts.MaxFrameSize), Live: !src.in.regular(), LeaveRead: true, Members: members}, h)
	if err != nil || rest == nil {
		src.close()
		return false, err
	}
	src.ReadOn(rest)
	return true, nil
}

// recordsOut is a batch of records compact, back to back, each ending at
// its end in ends, and with --to json, each as an element of the indented
// array.
type recordsOut struct {
	buf, indented []byte
	ends, iends   []int
}

// streamJobs converts the records of src, a JSON or NDJSON input, to JSON
// or NDJSON on opts.Jobs workers (records.Run): the workers compact (and
// indent) them, snk writes them in input order. What the workers do not
// settle goes to pump, the single-worker loop, from a Reader that reads on
// as the source's own would have. It closes src.
func streamJobs(opts *ConvertOptions, src *source, out *output, snk sink) error {
	js, _ := snk.(*records.JSONSink)
	indent := js != nil && !js.Compact
	h := records.Handler[recordsOut]{
		Work: func(b *records.Batch[recordsOut]) bool {
			o := &b.Out
			o.buf, o.ends, o.indented, o.iends = o.buf[:0], o.ends[:0], o.indented[:0], o.iends[:0]
			for i := range b.Len() {
				start := len(o.buf)
				o.buf = append(o.buf, b.Record(i)...)
				o.buf = o.buf[:start+len(jsonv.CompactInPlace(o.buf[start:]))]
				o.ends = append(o.ends, len(o.buf))
				if indent {
					o.indented = jsonv.AppendIndent(o.indented, o.buf[start:], "  ", "  ")
					o.iends = append(o.iends, len(o.indented))
				}
			}
			return true
		},
		Write: func(b *records.Batch[recordsOut]) error {
			o := &b.Out
			start, istart := 0, 0
			for i, end := range o.ends {
				var err error
				switch {
				case indent:
					err = js.WriteIndented(o.buf[start:end], o.indented[istart:o.iends[i]])
					istart = o.iends[i]
				default:
					err = snk.Write(o.buf[start:end])
				}
				if err != nil {
					return failure(out, err)
				}
				start = end
			}
			return out.failed
		},
		Idle: out.Flush,
	}
	if more, err := recordsRun(opts, src, h, false); !more {
		return err
	}
	return pump(src, out, nil, snk.Write)
}

// tableRowsJobs decodes the rows of src, a table, on jobs workers
// (tabular.DecodeStream) and passes each to write in input order, flushing
// the output when a live input is idle; it says how many rows it passed.
// When the workers stop short of the end, src.Table() is left at the first row
// they did not settle on, for the single-worker loop; at the end it is
// nil, and src closed.
func tableRowsJobs(src *source, jobs int, out *output, write func([]byte) error) (int, error) {
	n := 0
	h := tabular.StreamHandler{
		Rows: func(rows []byte, ends []int) error {
			start := 0
			for _, end := range ends {
				if err := write(rows[start:end]); err != nil {
					return failure(out, err)
				}
				start = end
				n++
			}
			return out.failed
		},
		Idle: out.Flush,
	}
	rest, err := tabular.DecodeStream(context.Background(), src.Table(), tabular.StreamOptions{Workers: jobs, Live: !src.in.regular(), LeaveRead: true}, h)
	src.SetTable(rest)
	if err != nil || rest == nil {
		src.close()
	}
	return n, err
}
