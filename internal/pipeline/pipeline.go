// Package pipeline runs independent batches of records over several workers
// and hands the results on strictly in input order.
//
// A caller supplies three functions: read, which cuts the input into
// batches at record boundaries and returns io.EOF at the end; work, which
// turns one batch into a result and may run on any goroutine; and write,
// which receives the results one at a time, in the order read returned the
// batches, on the goroutine that called Run.
//
// Memory is bounded: at most Options.InFlight batches exist at once (read
// but not yet written), whatever the size of the input.
//
// Errors behave as with one worker. When work fails on batch k, write still
// receives batch k's result (the partial output one worker would have
// produced before the failure), then Run returns that error; nothing of
// batches after k is written. An error from read is returned after every
// batch before it has been written. An error from write stops the run too.
// Of several failures the first in input order is the one returned. With
// one worker (Options.Workers <= 1) Run calls read, work and write in turn
// on the calling goroutine.
//
// Run returns only when its goroutines have stopped, so that read, work and
// write never run after it. A read blocked on a slow input delays that
// return until the read returns, unless Options.LeaveRead says otherwise.
package pipeline

import (
	"context"
	"io"
	"sync"
)

// Options configure Run.
type Options struct {
	// Workers is the number of goroutines that run work; <= 1 runs
	// everything on the caller's goroutine.
	Workers int
	// InFlight bounds the batches read but not yet written; 0 means
	// 2*Workers+2. It is at least Workers+1.
	InFlight int
	// LeaveRead lets Run return, when the run stops early, without waiting
	// for a call of read in progress: a read from a pipe or a terminal may
	// wait for input that does not come, where one worker would already
	// have stopped. That call's batch is dropped and read is not called
	// again; work and write never run after Run returns. The caller must
	// leave read's own state alone until the call has returned.
	LeaveRead bool
}

type slot[B, R any] struct {
	b    B
	r    R
	err  error // work's error
	rerr error // read's error (io.EOF at the end); b and r unset
	done chan struct{}
}

// Run reads batches with read, processes them with work on Options.Workers
// goroutines and passes the results to write in input order. It returns the
// first error in input order, or ctx's error when ctx is done first; it
// returns nil when read reports io.EOF and every result was written.
func Run[B, R any](ctx context.Context, opts Options, read func() (B, error), work func(B) (R, error), write func(R) error) error {
	if opts.Workers <= 1 {
		return serial(ctx, read, work, write)
	}
	inflight := opts.InFlight
	if inflight <= 0 {
		inflight = 2*opts.Workers + 2
	}
	inflight = max(inflight, opts.Workers+1)

	stop := make(chan struct{})
	tokens := make(chan struct{}, inflight)   // one per batch read and not yet written
	order := make(chan *slot[B, R], inflight) // every batch, in input order, to the writer
	jobs := make(chan *slot[B, R], inflight)  // batches to the workers
	var wg, reader sync.WaitGroup
	var mu sync.Mutex // guards stopped and reading
	var stopped bool  // read is not to be called again
	var reading bool  // a call of read is in progress

	reader.Add(1)
	go func() {
		defer reader.Done()
		defer close(order)
		defer close(jobs)
		for {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				return
			}
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			reading = true
			mu.Unlock()
			s := &slot[B, R]{done: make(chan struct{})}
			s.b, s.rerr = read()
			mu.Lock()
			reading = false
			mu.Unlock()
			if s.rerr != nil {
				close(s.done)
				order <- s // room: a token was taken
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
				var s *slot[B, R]
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
					s.r, s.err = work(s.b)
				}
				close(s.done)
			}
		}()
	}

	err := func() error {
		for s := range order {
			select {
			case <-s.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if s.rerr != nil {
				if s.rerr == io.EOF {
					return nil
				}
				return s.rerr
			}
			werr := write(s.r)
			<-tokens
			if werr != nil {
				return werr
			}
			if s.err != nil {
				return s.err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}()
	close(stop) // the reader and the workers never block on a send: tokens bound the channels
	wg.Wait()
	mu.Lock()
	stopped = true
	leave := opts.LeaveRead && reading
	mu.Unlock()
	if !leave {
		reader.Wait()
	}
	return err
}

func serial[B, R any](ctx context.Context, read func() (B, error), work func(B) (R, error), write func(R) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		r, err := work(b)
		if werr := write(r); werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
	}
}
