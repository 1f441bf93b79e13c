package tabular

import (
	"bytes"
	"context"
	"io"

	"github.com/toonkit/toonkit/internal/inbuf"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/readahead"
)

// StreamOptions configure DecodeStream.
type StreamOptions struct {
	// Workers decode the rows; DecodeStream needs 2 or more to be worth
	// it, but works with 1.
	Workers int
	// BatchBytes is the size after which a batch of lines is cut; 0:
	// 256 KiB.
	BatchBytes int
	// Live says that the input may wait (a pipe, a terminal): a batch is
	// then also cut where a read comes back short, and Idle called after
	// it is written, so that rows are passed on as they come.
	Live bool
	// LeaveRead: a run that stops early returns at once, even while a
	// read waits for input (pipeline.Options.LeaveRead).
	LeaveRead bool
}

// StreamHandler receives the rows of DecodeStream in input order, on the
// caller's goroutine. An error returned stops the run and is returned.
type StreamHandler struct {
	// Rows receives consecutive rows as compact JSON objects back to
	// back in rows, each ending at its end in ends; rows is valid during
	// the call.
	Rows func(rows []byte, ends []int) error
	// Idle, when not nil, is called after a batch of a live input that
	// ends where the input had nothing more to give at once.
	Idle func() error
}

type rowBatch struct {
	raw   []byte
	final bool // raw ends at the end of the input
	rest  bool // the caller's loop reads from raw on
	idle  bool
	done  bool
	lines int
	out   []byte
	ends  []int
}

// DecodeStream decodes the rows of d on opts.Workers workers and passes
// them to h in input order: the lines of a table are cut into batches at
// line ends, and each worker turns its lines into objects as d would. It
// returns nil when every row was decoded and passed on; otherwise the
// Decoder from which the caller's single-worker loop reads the rest (from
// the first batch the workers did not settle on: a row that breaks a rule,
// a line over the limit, or the header itself), as d would have read it:
// the same rows, errors, lines and positions. d must not be used after.
func DecodeStream(ctx context.Context, d *Decoder, opts StreamOptions, h StreamHandler) (*Decoder, error) {
	if _, err := d.Keys(); err != nil || d.in.ReadErr != nil {
		return d, nil
	}
	workers := max(opts.Workers, 1)
	// Batches end at line ends; the first starts with what was read after
	// the header, whose read, short, may have taken the first rows with it.
	bt := &readahead.Batcher{In: d.in.R, BatchBytes: opts.BatchBytes, Live: opts.Live, Short: true,
		Carry: bytes.Clone(d.in.Buf[d.in.Pos:d.in.End]), EOF: d.in.EOF,
		Cut: func(raw []byte, _ bool) int { return bytes.LastIndexByte(raw, '\n') + 1 }}
	read := func(b *rowBatch) error {
		nb, ok := bt.Next(func() []byte { return b.raw })
		if !ok {
			return io.EOF
		}
		b.raw, b.final, b.rest, b.idle, b.done = nb.Raw, nb.Final, nb.Rest, nb.Idle, false
		return nil
	}
	// The workers' decoders share d's keys, which none of them changes.
	decoders := make(chan *Decoder, workers)
	for range workers {
		decoders <- &Decoder{max: d.max, keys: d.keys, names: d.names, line: 2}
	}
	work := func(b *rowBatch) error {
		if b.rest {
			return nil
		}
		wd := <-decoders
		defer func() { decoders <- wd }()
		b.out, b.ends, b.lines = b.out[:0], b.ends[:0], 0
		for rest := b.raw; len(rest) > 0; {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else if !b.final {
				return nil // cannot be: batches end at line ends
			} else {
				rest = nil
			}
			b.lines++
			if len(line) > wd.max {
				return nil
			}
			wd.text = bytes.TrimSuffix(line, []byte{'\r'})
			if checkUTF8(wd) != nil {
				return nil
			}
			var err error
			if b.out, err = wd.row(b.out); err != nil {
				return nil
			}
			b.ends = append(b.ends, len(b.out))
		}
		b.done = true
		return nil
	}
	line, offset := d.line, d.in.Base+int64(d.in.Pos) // at the start of the next batch to write
	write := func(b *rowBatch) error {
		if b.rest || !b.done {
			return pipeline.ErrTakeOver // the caller's loop reads from this batch on
		}
		bt.Written()
		var err error
		if len(b.ends) > 0 {
			err = h.Rows(b.out, b.ends)
		}
		line, offset = line+b.lines, offset+int64(len(b.raw))
		if err == nil && b.idle && h.Idle != nil {
			err = h.Idle()
		}
		return err
	}
	err := pipeline.Stream(ctx, pipeline.Options{Workers: workers, LeaveRead: opts.LeaveRead},
		pipeline.Stages[rowBatch]{Read: read, Work: work, Write: write})
	if err != pipeline.ErrTakeOver {
		return nil, err
	}
	nd := &Decoder{max: d.max, keys: d.keys, names: d.names, line: line,
		in: inbuf.Buffer{R: bt.Rest(), Base: offset, First: d.in.First, Steady: d.in.Steady, Max: d.in.Max}}
	return nd, nil
}
