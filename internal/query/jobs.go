package query

import (
	"bytes"
	"context"
	"io"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/readahead"
)

// JobsOptions configure RunJobs.
type JobsOptions struct {
	// Workers run the filter; 1 runs it on the caller's goroutine.
	Workers int
	// MaxSize bounds an input value, as NewStream's maxSize.
	MaxSize int
	// Vars are the values of Options.Variables.
	Vars []any
	// Format is the workers' Encoders' (their Order is their own).
	Format Format
	// Encode appends what one result is to be written as (with the
	// worker's Encoder); it runs on the workers.
	Encode func(e *Encoder, dst []byte, v any) []byte
	// Decoder decodes the values of the Stream RunJobs returns: the
	// single-worker path's own.
	Decoder *Decoder
	// BatchBytes is the size after which a batch is cut; 0: 256 KiB.
	BatchBytes int
	// MaxOutput bounds the bytes of results a batch holds; a batch whose
	// results grow beyond it is left to the single-worker loop (which
	// writes them as they come), so that memory stays bounded by the
	// batches in flight. 0: 4 MiB.
	MaxOutput int
	// Live says that the input may wait (a pipe, a terminal): a batch is
	// then also cut at the last line end where a read comes back short,
	// and Idle called after it is written. Bytes with no line end that
	// wait for more are left to the single-worker loop, from there on.
	Live bool
	// Idle, when not nil, is called after a batch of a live input that
	// ends where the input had nothing more to give at once.
	Idle func() error
}

// Result is what the filter made of one input on a worker.
type Result struct {
	// Pos is the input value's place in the whole input, as
	// Stream.Position gives it.
	Pos jsonv.Position
	// Out holds the results, as JobsOptions.Encode wrote them, back to
	// back; Ends has the end of each in Out. They are valid until Write
	// returns.
	Out  []byte
	Ends []int
	// LastFalse says that the last result was false or null.
	LastFalse bool
	// Err is the error that ended the filter's run on the input: a
	// runtime error (the run goes on with the next input, as in jq), a
	// halt (Halted) or an error of the context, which end the run.
	Err error
}

// jobBatch is a batch of the input, cut after a line end, and its results.
type jobBatch struct {
	raw               []byte
	index             int
	final, rest, idle bool
	done              bool // every value was read and run
	stop              bool // a halt or the context ended the run within it
	lines             int  // its line ends
	out               []byte
	ends              []int
	res               []Result
	resOut, resEnds   []int // where each Result's Out and Ends end
}

// jobWorker is a worker's reader and coder, reused from batch to batch.
type jobWorker struct {
	stream *Stream
	dec    Decoder
	enc    Encoder
	src    bytes.Reader
}

// RunJobs runs the filter over the JSON values of in (JSON, NDJSON,
// values back to back), as the single-worker loop over a Stream of in
// would, on opts.Workers workers (internal/pipeline), and passes each input's
// Result to write in input order, on the caller's goroutine. The filter
// must be Parallel. Each worker reads its batch (cut after a line end)
// with a Stream of its own, which parses as the Stream of the whole input
// (repeated names, invalid UTF-8 and all), with the positions of the whole
// input, and remembers key orders in an Order of its own, forgotten after
// each input, as the single-worker loop forgets them (Order.Forget): every
// input comes out as it would on one worker.
//
// The run stops after a Result whose Err is a halt or the context's error,
// and at an error of write or Idle, which RunJobs returns. Where the
// workers cannot settle a batch (a value that is not valid JSON, or too
// large, a cut within a value, a byte order mark past the start, results
// beyond MaxOutput), RunJobs stops before it and returns a Stream, with the
// positions of the whole input, from which the single-worker loop reads on
// from the batch's first byte: it gives the same values and errors as a
// Stream of the whole input would have. A nil Stream: the run is over.
func (q *Query) RunJobs(ctx context.Context, in io.Reader, opts JobsOptions, write func(*Result) error) (*Stream, error) {
	workers := max(opts.Workers, 1)
	maxOut := opts.MaxOutput
	if maxOut <= 0 {
		maxOut = 4 << 20
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cut := func(raw []byte, live bool) int {
		// after the last line end that a value seems to start after (a
		// line that starts with neither white space nor a closing
		// bracket), else after the last line end; live, with no line
		// end, at the end (the single-worker loop takes that batch on)
		last := bytes.LastIndexByte(raw, '\n')
		if last < 0 && live {
			return len(raw)
		}
		for i := last; i >= 0; i = bytes.LastIndexByte(raw[:i], '\n') {
			if i+1 < len(raw) {
				if c := raw[i+1]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '}' && c != ']' {
					return i + 1
				}
			}
		}
		return last + 1
	}
	bt := &readahead.Batcher{In: in, BatchBytes: opts.BatchBytes, Live: opts.Live, Cut: cut}
	batches := 0
	read := func(b *jobBatch) error {
		nb, ok := bt.Next(func() []byte {
			b.index = batches
			batches++
			return b.raw
		})
		if !ok {
			return io.EOF
		}
		b.raw, b.final, b.rest, b.idle = nb.Raw, nb.Final, nb.Rest, nb.Idle
		return nil
	}
	pool := make(chan *jobWorker, workers)
	for range workers {
		w := &jobWorker{}
		o := q.NewOrder()
		w.dec.Order, w.dec.Need, w.enc.Order, w.enc.Format = o, q.need, o, opts.Format
		w.stream = NewStream(nil, &w.dec, opts.MaxSize)
		pool <- w
	}
	work := func(b *jobBatch) error {
		if b.rest {
			return nil
		}
		w := <-pool
		b.done = w.run(wctx, q, b, opts, maxOut)
		pool <- w
		return nil
	}
	var (
		off   int64 // of the next batch to write
		lines int   // before it
	)
	write1 := func(b *jobBatch) error {
		if b.rest || !b.done {
			return pipeline.ErrTakeOver // the single-worker loop reads from this batch on
		}
		bt.Written()
		start, estart := 0, 0
		for i := range b.res {
			r := &b.res[i]
			r.Out, r.Ends = b.out[start:b.resOut[i]], b.ends[estart:b.resEnds[i]]
			start, estart = b.resOut[i], b.resEnds[i]
			r.Pos.Offset += off
			r.Pos.Line += lines
			if err := write(r); err != nil {
				return err
			}
		}
		if b.stop {
			return pipeline.ErrDone // halted
		}
		off += int64(len(b.raw))
		lines += b.lines
		var err error
		if b.idle && opts.Idle != nil {
			err = opts.Idle()
		}
		return err
	}
	// (the context ends the filter's runs, whose errors come in order)
	err := pipeline.Stream(context.Background(), pipeline.Options{Workers: workers, LeaveRead: true},
		pipeline.Stages[jobBatch]{Read: read, Work: work, Write: write1})
	cancel()
	if err != pipeline.ErrTakeOver {
		return nil, err
	}
	s := NewStream(bt.Rest(), opts.Decoder, opts.MaxSize)
	s.reset(s.r, jsonv.Position{Offset: off, Line: lines + 1, Column: 1})
	return s, nil
}

// run reads the values of b and runs the filter on each, and reports
// whether it settled the batch: every value read as the Stream of the
// whole input reads it, and the results within maxOut bytes.
func (w *jobWorker) run(ctx context.Context, q *Query, b *jobBatch, opts JobsOptions, maxOut int) bool {
	b.out, b.ends, b.res, b.resOut, b.resEnds, b.stop = b.out[:0], b.ends[:0], b.res[:0], b.resOut[:0], b.resEnds[:0], false
	if b.index > 0 && bytes.HasPrefix(b.raw, []byte("\xef\xbb\xbf")) {
		return false // not a byte order mark past the start: the loop's error
	}
	if !b.final && !bytes.HasSuffix(b.raw, []byte{'\n'}) {
		return false // a live input's bytes with no line end: the loop passes them on
	}
	b.lines = bytes.Count(b.raw, []byte{'\n'})
	w.src.Reset(b.raw)
	// A batch after the first starts at a line's start past the input's:
	// its lines are counted from 2 (no byte order mark is taken there),
	// one less for the place within the batch.
	at := jsonv.Position{Line: 1, Column: 1}
	if b.index > 0 {
		at.Line = 2
	}
	w.stream.reset(&w.src, at)
	for {
		v, err := w.stream.Next()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		r := Result{Pos: w.stream.Position()}
		start := len(b.out)
		if b.index > 0 {
			r.Pos.Line-- // relative to the batch's first line
		}
		it := q.Run(ctx, v, opts.Vars...)
		for {
			x, ok := it.Next()
			if !ok {
				break
			}
			if e, ok := x.(error); ok {
				r.Err = e
				break
			}
			b.out = opts.Encode(&w.enc, b.out, x)
			b.ends = append(b.ends, len(b.out)-start)
			r.LastFalse = x == nil || x == false
			if len(b.out) > maxOut {
				w.dec.Order.Forget()
				return false
			}
		}
		w.dec.Order.Forget()
		b.res = append(b.res, r)
		b.resOut, b.resEnds = append(b.resOut, len(b.out)), append(b.resEnds, len(b.ends))
		if r.Err != nil {
			if _, _, _, halted := Halted(r.Err); halted || ctx.Err() != nil {
				b.stop = true
				return true
			}
		}
	}
}
