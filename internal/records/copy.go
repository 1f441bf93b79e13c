package records

import (
	"context"
	"errors"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/kado"
)

// CopyOptions configure Copy.
type CopyOptions struct {
	// Workers: with 2 or more, Copy spreads the records over that many
	// workers where the source and the sink allow it (see Copy); 1 or 0
	// is the single-worker loop.
	Workers int
	// Record, when set, sees every record before the sink does (to count
	// it, say). Copy then runs the single-worker loop.
	Record func(rec []byte)
	// Idle, when set, is called when the source has nothing more buffered
	// (a live stream), after the records before have been written, so
	// that the caller may flush its output. Its error ends the copy.
	Idle func() error
}

// SinkFunc is a Sink of a function that takes each record; End does
// nothing.
type SinkFunc func(rec []byte) error

// Write calls f.
func (f SinkFunc) Write(rec []byte) error { return f(rec) }

// End does nothing.
func (f SinkFunc) End() error { return nil }

// Copy writes every record of src to snk, in input order, and says how
// many it gave the sink; it does not end the sink (End), so that several
// sources may be copied to one, and it closes src. It stops at the first
// error, the source's (an *Error) or the sink's.
//
// With opts.Workers of 2 or more (and no opts.Record), the work is spread
// over the workers where it can be: the records of a JSON or NDJSON source
// are compacted (and indented, for an indented JSONSink) on them for a
// JSONSink or NDJSONSink (Run), split into a table's cells for a
// TableSink (tabular.Rows), the rows of a table are decoded on them
// for a JSONSink or NDJSONSink (tabular.DecodeStream), and so are the
// frames of binary input, with Payload and Skip (kado.DecodeStream). The sink gets what
// the single-worker loop would give it; what the workers do not settle (a
// record that is not valid JSON or no object, a row that is not valid,
// and all after it) is left to the single-worker loop, which reads on
// from there with the same positions and errors.
func Copy(ctx context.Context, src *Source, snk Sink, opts CopyOptions) (n int, err error) {
	defer src.Close()
	if opts.Workers > 1 && opts.Record == nil {
		more := true
		json := src.format == codec.JSON || src.format == codec.NDJSON
		switch s := snk.(type) {
		case *JSONSink, *NDJSONSink:
			if src.bd != nil && !src.Flat {
				return n, copyFramesJobs(ctx, src, s, opts, &n)
			}
		}
		switch s := snk.(type) {
		case *JSONSink:
			if json {
				more, err = copyJobs(ctx, src, s, s, opts, &n)
			} else if src.format == codec.Tabular {
				more, err = copyRowsJobs(ctx, src, s, opts, &n)
			}
		case *NDJSONSink:
			if json {
				more, err = copyJobs(ctx, src, s, nil, opts, &n)
			} else if src.format == codec.Tabular {
				more, err = copyRowsJobs(ctx, src, s, opts, &n)
			}
		case *TableSink:
			if json {
				more, err = tableJobs(ctx, src, s, opts, &n)
			}
		}
		if !more {
			return n, err
		}
	}
	return n, src.Each(func(rec []byte) error {
		if opts.Record != nil {
			opts.Record(rec)
		}
		n++
		if err := snk.Write(rec); err != nil {
			return err
		}
		if opts.Idle != nil && src.Idle() {
			return opts.Idle()
		}
		return nil
	})
}

// runJobs runs h over the records of src, a JSON or NDJSON source, on
// opts.Workers workers (Run), with the members of each object noted when
// members says so, and opts.Idle called when idle says so. more says that the single-worker loop is to read the
// rest, from where the workers stopped (ReadOn); otherwise err is the
// run's.
func runJobs[R any](ctx context.Context, src *Source, h Handler[R], opts CopyOptions, members, idle bool) (more bool, err error) {
	if idle {
		h.Idle = opts.Idle
	}
	rest, err := Run(ctx, src.br, Options{Workers: opts.Workers, Elements: src.format == codec.JSON,
		MaxValueSize: int64(src.maxSize), Live: !src.regular, LeaveRead: true, Members: members}, h)
	if err != nil || rest == nil {
		return false, err
	}
	src.ReadOn(rest)
	return true, nil
}

// compacted is a batch of records compact, back to back, each ending at
// its end in ends, and for an indented JSONSink, each as an element of
// the indented array.
type compacted struct {
	buf, indented []byte
	ends, iends   []int
}

// copyJobs compacts the records of src (and indents them, for js not
// Compact) on the workers, and writes them to snk (js, if not nil).
func copyJobs(ctx context.Context, src *Source, snk Sink, js *JSONSink, opts CopyOptions, n *int) (bool, error) {
	indent := js != nil && !js.Compact
	h := Handler[compacted]{
		Work: func(b *Batch[compacted]) bool {
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
		Write: func(b *Batch[compacted]) error {
			o := &b.Out
			start, istart := 0, 0
			for i, end := range o.ends {
				*n++
				var err error
				if indent {
					err = js.WriteIndented(o.buf[start:end], o.indented[istart:o.iends[i]])
					istart = o.iends[i]
				} else {
					err = snk.Write(o.buf[start:end])
				}
				if err != nil {
					return err
				}
				start = end
			}
			return nil
		},
	}
	return runJobs(ctx, src, h, opts, false, true)
}

// tableJobs splits the records of src into rows on the workers
// (tabular.Rows) and writes them to ts.
func tableJobs(ctx context.Context, src *Source, ts *TableSink, opts CopyOptions, n *int) (bool, error) {
	h := Handler[tabular.Rows]{
		Work: func(b *Batch[tabular.Rows]) bool {
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
		Write: func(b *Batch[tabular.Rows]) error {
			*n += b.Out.Len()
			return ts.WriteRows(&b.Out)
		},
	}
	return runJobs(ctx, src, h, opts, true, false)
}

// copyRowsJobs decodes the rows of src, a table, on the workers
// (tabular.DecodeStream) and writes each to snk. When the workers stop
// short of the end, the source's table decoder is left at the first row
// they did not settle on, for the single-worker loop.
func copyRowsJobs(ctx context.Context, src *Source, snk Sink, opts CopyOptions, n *int) (bool, error) {
	h := tabular.StreamHandler{
		Rows: func(rows []byte, ends []int) error {
			start := 0
			for _, end := range ends {
				*n++
				if err := snk.Write(rows[start:end]); err != nil {
					return err
				}
				start = end
			}
			return nil
		},
		Idle: opts.Idle,
	}
	rest, err := tabular.DecodeStream(ctx, src.td, tabular.StreamOptions{Workers: opts.Workers, Live: !src.regular, LeaveRead: true}, h)
	src.SetTable(rest)
	return err == nil && rest != nil, err
}

// copyFramesJobs decodes the frames of src, binary, on the workers
// (kado.DecodeStream, which reads them as one Reader would) into the
// records the single-worker loop gives (Source.Next: the record, or the
// payload alone with Payload), and writes each to snk. A bad frame is the
// loop's *Error of Kind BadFrame, given to src.Skip when it is set.
func copyFramesJobs(ctx context.Context, src *Source, snk Sink, opts CopyOptions, n *int) error {
	var werr error // the sink's
	write := func(rec []byte) error {
		*n++
		if err := snk.Write(rec); err != nil {
			werr = err
			return err
		}
		return nil
	}
	// NDJSON lines are ended on the workers, and a batch written at once.
	nd, lines := snk.(*NDJSONSink)
	h := kado.StreamHandler{
		Records: func(out []byte, ends []int) error {
			if lines {
				*n += len(ends)
				if _, err := nd.W.Write(out); err != nil {
					werr = err
					return err
				}
				return nil
			}
			start := 0
			for _, end := range ends {
				if err := write(out[start:end]); err != nil {
					return err
				}
				start = end
			}
			return nil
		},
		Large: func(f *kado.Frame, js []byte) error { return write(src.frameRecord(f, js)) },
		Bad: func(err error, moved kado.Moved) error {
			e := &Error{Name: src.name, Kind: BadFrame, Err: err}
			if src.Skip == nil {
				return e
			}
			src.Skip(e, &moved)
			return nil
		},
		Idle: opts.Idle,
	}
	err := kado.DecodeStream(ctx, src.br, kado.StreamOptions{MaxFrameSize: src.maxSize, Workers: opts.Workers,
		KeepGoing: src.Skip != nil, LeaveRead: true, Live: !src.regular, Append: func(dst []byte, f *kado.Frame, js []byte) []byte {
			if src.Payload {
				dst = append(dst, js...)
			} else {
				dst = kado.AppendRecord(dst, f.Header, f.Compressed(), js)
			}
			if lines {
				dst = append(dst, '\n')
			}
			return dst
		}}, h)
	var e *Error
	if err == nil || err == werr || errors.As(err, &e) {
		return err
	}
	return &Error{Name: src.name, Kind: ReadFailed, Err: err}
}
