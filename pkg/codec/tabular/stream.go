package tabular

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"

	"github.com/toonkit/toonkit/internal/inbuf"
	"github.com/toonkit/toonkit/internal/readahead"
	"github.com/toonkit/toonkit/pkg/pipeline"
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

var errRest = errors.New("tabular: the single-worker loop takes over")

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
	batchBytes := opts.BatchBytes
	if batchBytes <= 0 {
		batchBytes = 256 << 10
	}
	maxBatch := max(4*batchBytes, 1<<20)
	workers := max(opts.Workers, 1)
	in := d.in.R
	var (
		journal readahead.Journal                          // the batches read and not yet written
		carry   = bytes.Clone(d.in.Buf[d.in.Pos:d.in.End]) // read after the header
		eof     = d.in.EOF
		readErr error
		over    bool
		// The last read of in came back short (the header's read, say,
		// which may have taken the first rows with it).
		lastShort = true
	)
	free := make(chan *rowBatch, 2*workers+4)
	read := func() (*rowBatch, error) {
		if !journal.Reading() {
			return nil, io.EOF // the run is over
		}
		defer journal.DoneReading()
		if over {
			return nil, io.EOF
		}
		var b *rowBatch
		select {
		case b = <-free:
		default:
			b = &rowBatch{}
		}
		b.raw, b.final, b.rest, b.idle, b.done = append(b.raw[:0], carry...), false, false, false, false
		carry = carry[:0]
		short := lastShort
		for {
			if eof {
				b.final, over = true, true
				break
			}
			if readErr != nil {
				b.rest, over = true, true // the caller's loop meets the error where d would
				break
			}
			if len(b.raw) >= batchBytes || short && opts.Live && len(b.raw) > 0 {
				if cut := bytes.LastIndexByte(b.raw, '\n') + 1; cut > 0 {
					carry = append(carry, b.raw[cut:]...)
					b.raw = b.raw[:cut]
					b.idle = short && opts.Live
					break
				}
			}
			if len(b.raw) >= maxBatch {
				b.rest, over = true, true // a long line: one worker's
				break
			}
			want := max(batchBytes-len(b.raw), min(32<<10, batchBytes))
			if cap(b.raw)-len(b.raw) < want {
				b.raw = slices.Grow(b.raw, max(want, len(b.raw)))
			}
			n, err := in.Read(b.raw[len(b.raw) : len(b.raw)+want])
			b.raw = b.raw[:len(b.raw)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				readErr = err
			}
			short = n < want
			lastShort = short
		}
		journal.Add(b.raw)
		return b, nil
	}
	// The workers' decoders share d's keys, which none of them changes.
	decoders := make(chan *Decoder, workers)
	for range workers {
		decoders <- &Decoder{max: d.max, keys: d.keys, names: d.names, line: 2}
	}
	work := func(b *rowBatch) (*rowBatch, error) {
		if b.rest {
			return b, nil
		}
		wd := <-decoders
		defer func() { decoders <- wd }()
		b.out, b.ends, b.lines = b.out[:0], b.ends[:0], 0
		for rest := b.raw; len(rest) > 0; {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else if !b.final {
				return b, nil // cannot be: batches end at line ends
			} else {
				rest = nil
			}
			b.lines++
			if len(line) > wd.max {
				return b, nil
			}
			wd.text = bytes.TrimSuffix(line, []byte{'\r'})
			if checkUTF8(wd) != nil {
				return b, nil
			}
			var err error
			if b.out, err = wd.row(b.out); err != nil {
				return b, nil
			}
			b.ends = append(b.ends, len(b.out))
		}
		b.done = true
		return b, nil
	}
	line, offset := d.line, d.in.Base+int64(d.in.Pos) // at the start of the next batch to write
	write := func(b *rowBatch) error {
		if b.rest || !b.done {
			return errRest
		}
		journal.Written()
		var err error
		if len(b.ends) > 0 {
			err = h.Rows(b.out, b.ends)
		}
		line, offset = line+b.lines, offset+int64(len(b.raw))
		if err == nil && b.idle && h.Idle != nil {
			err = h.Idle()
		}
		select {
		case free <- b:
		default:
		}
		return err
	}
	err := pipeline.Run(ctx, pipeline.Options{Workers: workers, LeaveRead: opts.LeaveRead}, read, work, write)
	if err != errRest {
		return nil, err
	}
	rest := journal.Rest(opts.Live, func() ([]byte, io.Reader) { return carry, readahead.Then(in, eof, readErr) })
	nd := &Decoder{max: d.max, keys: d.keys, names: d.names, line: line,
		in: inbuf.Buffer{R: rest, Base: offset, First: d.in.First, Steady: d.in.Steady, Max: d.in.Max}}
	return nd, nil
}
