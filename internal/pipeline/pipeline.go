// Package pipeline is toonkit's record engine: it runs a stream of batches
// of records through N workers and hands the results on strictly in input
// order, in bounded memory, with the errors and the output of one worker.
//
// Stream is the engine. A caller supplies the Stages of its batches, of a
// type B of its own: Read cuts the next batch out of the input (at record
// boundaries) into a batch that the engine gives it; Work turns one batch
// into its result, in place, and may run on any goroutine; Write receives
// the batches one at a time, in the order Read filled them, on the
// goroutine that called Stream. The engine owns the batches: it makes at
// most Options.InFlight of them (Stages.New) and gives a batch back to
// Read once Write is done with it, so that its buffers serve again and
// memory stays bounded whatever the size of the input. A caller keeps no
// free list of its own.
//
// Errors behave as with one worker. When Work fails on batch k, Write still
// receives batch k (the partial output one worker would have produced
// before the failure), then Stream returns that error; nothing of the
// batches after k is written. An error from Read is returned after every
// batch before it has been written. An error from Write stops the run too.
// Of several failures the first in input order is the one returned, as the
// stage returned it: its position in the input is the one its type carries
// (a frame's offset, an event's line and column), and Options.Stopped, when
// set, learns the index of the batch it came from. With one worker
// (Options.Workers <= 1) Stream calls Read, Work and Write in turn on the
// calling goroutine, on one batch.
//
// Two errors are the engine's own. ErrDone, from Write, ends the run as
// the end of the input would: Stream returns nil (a command that stops at
// its first bad record, say). ErrTakeOver, from Read or Write, says that
// the workers cannot go on from this batch and that the caller's own
// single-worker loop takes over there (a record the workers cannot settle,
// a frame too large to copy into a batch); Stream returns ErrTakeOver once
// every batch before it has been written, and the caller reads on from the
// place it noted.
//
// Stream returns only when its goroutines have stopped, so that Read, Work
// and Write never run after it. A Read blocked on a slow input delays that
// return until the Read returns, unless Options.LeaveRead says otherwise.
//
// Run is the same engine for callers whose batch and result are values of
// their own (a read function that returns a new batch).
package pipeline

import (
	"context"
	"errors"
	"io"
	"sync"
)

// Options configure Stream and Run.
type Options struct {
	// Workers is the number of goroutines that run work; <= 1 runs
	// everything on the caller's goroutine.
	Workers int
	// InFlight bounds the batches read but not yet written (with Stream,
	// the batches that exist); 0 means 2*Workers+2. It is at least
	// Workers+1.
	InFlight int
	// LeaveRead lets the run return, when it stops early, without waiting
	// for a call of read in progress: a read from a pipe or a terminal may
	// wait for input that does not come, where one worker would already
	// have stopped. That call's batch is dropped and read is not called
	// again; work and write never run after the run returns. The caller
	// must leave read's own state alone until the call has returned.
	LeaveRead bool
	// Stopped, when not nil, receives the index (from 0, in input order)
	// of the batch whose error ended the run, before Stream returns it; it
	// is not called when the run ends at the end of the input (or at
	// ErrDone) or when ctx ends it.
	Stopped func(batch int)
}

var (
	// ErrDone, returned by Write, ends the run after that batch as the end
	// of the input would: Stream returns nil.
	ErrDone = errors.New("pipeline: done")
	// ErrTakeOver, returned by Read or Write, ends the run at that batch:
	// the caller's single-worker loop takes over from there. Stream
	// returns it once the batches before have been written.
	ErrTakeOver = errors.New("pipeline: one worker takes over")
)

// Stages are the steps of a Stream over batches of type B.
type Stages[B any] struct {
	// New makes a batch; nil: new(B). It is called at most InFlight
	// times (once with one worker).
	New func() *B
	// Read fills b with the next batch of the input; b may hold an
	// earlier batch, written: Read resets what it uses. io.EOF says that
	// there is no batch (b is dropped); ErrTakeOver and other errors end
	// the run there.
	Read func(b *B) error
	// Work makes the batch's result in b; it runs on a worker, never on
	// two batches at once with the same b.
	Work func(b *B) error
	// Write receives the batches, worked, in input order, on the caller's
	// goroutine. A batch whose Work or Write failed (ErrTakeOver too) is
	// not given to Read again: the caller may go on from it once Stream
	// has returned.
	Write func(b *B) error
	// Pool, when not nil, keeps the batches from one Stream to the next
	// (a caller that runs Stream again after ErrTakeOver): they are taken
	// from it before New is called, and the batches written go back to it
	// when Stream returns.
	Pool *Pool[B]
}

// Pool holds batches between runs of Stream (Stages.Pool).
type Pool[B any] struct{ free []*B }

func (p *Pool[B]) get(newB func() *B) *B {
	if p == nil || len(p.free) == 0 {
		return newB()
	}
	b := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return b
}

func (p *Pool[B]) put(b *B) {
	if p != nil {
		p.free = append(p.free, b)
	}
}

type slot[B any] struct {
	b    *B
	err  error // Work's error
	rerr error // Read's error (io.EOF at the end)
	idx  int
	done chan struct{} // one value once Work is done, or Read failed
}

// Stream runs the batches of st through Options.Workers workers and passes
// them to st.Write in input order. It returns the first error in input
// order, or ctx's error when ctx is done first; it returns nil when Read
// reports io.EOF (or Write ErrDone) and every batch before was written.
func Stream[B any](ctx context.Context, opts Options, st Stages[B]) error {
	newB := st.New
	if newB == nil {
		newB = func() *B { return new(B) }
	}
	if st.Pool != nil {
		made := newB
		newB = func() *B { return st.Pool.get(made) }
	}
	at := -1 // the batch whose error ends the run
	err := stream(ctx, opts, st, newB, &at)
	switch {
	case err == ErrDone:
		err = nil
	case err != nil && at >= 0 && opts.Stopped != nil:
		opts.Stopped(at)
	}
	return err
}

func stream[B any](ctx context.Context, opts Options, st Stages[B], newB func() *B, at *int) error {
	if opts.Workers <= 1 {
		b := newB()
		defer st.Pool.put(b)
		return serial(ctx, st, b, at)
	}
	inflight := opts.InFlight
	if inflight <= 0 {
		inflight = 2*opts.Workers + 2
	}
	inflight = max(inflight, opts.Workers+1)
	stop := make(chan struct{})
	free := make(chan *slot[B], inflight)  // batches written, for Read again
	order := make(chan *slot[B], inflight) // every batch, in input order, to the writer
	jobs := make(chan *slot[B], inflight)  // batches to the workers
	var wg, reader sync.WaitGroup
	var mu sync.Mutex // guards stopped and reading
	var stopped bool  // Read is not to be called again
	var reading bool  // a call of Read is in progress
	reader.Add(1)
	go func() {
		defer reader.Done()
		defer close(order)
		defer close(jobs)
		made := 0
		for idx := 0; ; idx++ {
			// At most inflight batches exist: a new one is made only while
			// fewer do; otherwise Read waits for one written.
			var s *slot[B]
			if made < inflight {
				select {
				case s = <-free:
				default:
					s = &slot[B]{b: newB(), done: make(chan struct{}, 1)}
					made++
				}
			} else {
				select {
				case s = <-free:
				case <-stop:
					return
				}
			}
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			reading = true
			mu.Unlock()
			s.idx, s.err = idx, nil
			s.rerr = st.Read(s.b)
			mu.Lock()
			reading = false
			mu.Unlock()
			if s.rerr != nil {
				s.done <- struct{}{}
				order <- s // room: at most inflight slots exist
				return
			}
			order <- s
			jobs <- s
		}
	}()
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var s *slot[B]
				select {
				case s = <-jobs:
				case <-stop: // the run is over: do no work nobody will write
					return
				}
				if s == nil { // the reader is done
					return
				}
				select {
				case <-stop:
					return
				default:
					s.err = st.Work(s.b)
				}
				s.done <- struct{}{}
			}
		}()
	}
	err := func() error {
		for s := range order {
			select {
			case <-s.done:
			case <-ctx.Done():
				*at = -1
				return ctx.Err()
			}
			*at = s.idx
			if rerr := s.rerr; rerr != nil {
				free <- s // for the Pool
				if rerr == io.EOF {
					return nil
				}
				return rerr
			}
			werr, err := st.Write(s.b), s.err
			if werr == nil && err == nil {
				// Read's again (room: at most inflight slots exist). A batch
				// whose error ends the run stays the caller's: it may take
				// over from it.
				free <- s
			}
			if werr != nil {
				return werr
			}
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				*at = -1
				return err
			}
		}
		return nil
	}()
	close(stop) // the reader and the workers never block on a send: at most inflight slots exist
	wg.Wait()
	mu.Lock()
	stopped = true
	leave := opts.LeaveRead && reading
	mu.Unlock()
	if !leave {
		reader.Wait()
	}
	if st.Pool != nil {
		for len(free) > 0 {
			st.Pool.put((<-free).b)
		}
	}
	return err
}

func serial[B any](ctx context.Context, st Stages[B], b *B, at *int) error {
	for idx := 0; ; idx++ {
		if err := ctx.Err(); err != nil {
			*at = -1
			return err
		}
		*at = idx
		err := st.Read(b)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = st.Work(b)
		if werr := st.Write(b); werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
	}
}

// Run reads batches with read, processes them with work on Options.Workers
// goroutines and passes the results to write in input order (Stream, whose
// batches are a B and its R). It returns the first error in input order,
// or ctx's error when ctx is done first; it returns nil when read reports
// io.EOF and every result was written.
func Run[B, R any](ctx context.Context, opts Options, read func() (B, error), work func(B) (R, error), write func(R) error) error {
	type pair struct {
		b B
		r R
	}
	var zb B
	var zr R
	return Stream(ctx, opts, Stages[pair]{
		Read: func(p *pair) (err error) {
			p.b, p.r = zb, zr
			p.b, err = read()
			return err
		},
		Work: func(p *pair) (err error) {
			p.r, err = work(p.b)
			return err
		},
		Write: func(p *pair) error { return write(p.r) },
	})
}
