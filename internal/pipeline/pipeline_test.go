package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// batches of numbers: batch i holds the records i*per .. i*per+per-1.
type counter struct {
	n, per, i int
	live      atomic.Int64 // batches read and not yet written
	peak      atomic.Int64
}

func (c *counter) read() ([]int, error) {
	if c.i == c.n {
		return nil, io.EOF
	}
	b := make([]int, c.per)
	for j := range b {
		b[j] = c.i*c.per + j
	}
	c.i++
	l := c.live.Add(1)
	for {
		p := c.peak.Load()
		if l <= p || c.peak.CompareAndSwap(p, l) {
			break
		}
	}
	return b, nil
}

// work writes each record as a line and fails at record bad (when >= 0),
// after writing the records before it: the partial output of one worker.
func work(bad int, jitter bool) func([]int) (string, error) {
	return func(b []int) (string, error) {
		if jitter {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
		}
		var s strings.Builder
		for _, r := range b {
			if r == bad {
				return s.String(), fmt.Errorf("record %d is bad", r)
			}
			fmt.Fprintf(&s, "%d\n", r)
		}
		return s.String(), nil
	}
}

func run(t *testing.T, workers, inflight, n, per, bad int) (string, *counter, error) {
	t.Helper()
	c := &counter{n: n, per: per}
	var out strings.Builder
	err := Run(context.Background(), Options{Workers: workers, InFlight: inflight}, c.read, work(bad, workers > 1),
		func(s string) error {
			out.WriteString(s)
			c.live.Add(-1)
			return nil
		})
	return out.String(), c, err
}

func TestOrderAndErrorsMatchOneWorker(t *testing.T) {
	for _, bad := range []int{-1, 0, 7, 8, 9, 55, 199} {
		want, _, wantErr := run(t, 1, 0, 25, 8, bad)
		for _, workers := range []int{2, 4, 9} {
			got, _, err := run(t, workers, 0, 25, 8, bad)
			if got != want {
				t.Errorf("bad %d, %d workers: output differs from one worker's\n got %q\nwant %q", bad, workers, got, want)
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("bad %d, %d workers: error %v, one worker's %v", bad, workers, err, wantErr)
			}
		}
		if bad >= 0 {
			// Exactly the records before the bad one, and nothing after.
			var exp strings.Builder
			for r := range bad {
				fmt.Fprintf(&exp, "%d\n", r)
			}
			if want != exp.String() || wantErr == nil {
				t.Errorf("bad %d: one worker wrote %q, %v", bad, want, wantErr)
			}
		}
	}
}

func TestFirstErrorInInputOrder(t *testing.T) {
	// Batches 3 and 9 fail; 9 is fast and 3 slow: batch 3's error wins.
	read := func() func() (int, error) {
		i := 0
		return func() (int, error) {
			if i == 12 {
				return 0, io.EOF
			}
			i++
			return i - 1, nil
		}
	}()
	var wrote []int
	err := Run(context.Background(), Options{Workers: 4}, read, func(b int) (int, error) {
		switch b {
		case 3:
			time.Sleep(20 * time.Millisecond)
			return b, errors.New("three")
		case 9:
			return b, errors.New("nine")
		}
		return b, nil
	}, func(r int) error {
		wrote = append(wrote, r)
		return nil
	})
	if err == nil || err.Error() != "three" || fmt.Sprint(wrote) != "[0 1 2 3]" {
		t.Fatalf("err %v, wrote %v; want three after [0 1 2 3]", err, wrote)
	}
}

func TestReadErrorAfterEarlierBatches(t *testing.T) {
	i := 0
	read := func() (int, error) {
		if i == 5 {
			return 0, errors.New("disk on fire")
		}
		i++
		return i - 1, nil
	}
	var wrote []int
	err := Run(context.Background(), Options{Workers: 3}, read, func(b int) (int, error) { return b, nil },
		func(r int) error { wrote = append(wrote, r); return nil })
	if err == nil || err.Error() != "disk on fire" || fmt.Sprint(wrote) != "[0 1 2 3 4]" {
		t.Fatalf("err %v, wrote %v", err, wrote)
	}
}

func TestWriteErrorStops(t *testing.T) {
	c := &counter{n: 1000, per: 1}
	var writes int
	err := Run(context.Background(), Options{Workers: 3}, c.read, work(-1, false), func(string) error {
		writes++
		c.live.Add(-1)
		if writes == 4 {
			return errors.New("disk full")
		}
		return nil
	})
	if err == nil || err.Error() != "disk full" || writes != 4 {
		t.Fatalf("err %v after %d writes", err, writes)
	}
	if c.i >= 1000 {
		t.Fatalf("the whole input was read after the write failed")
	}
}

func TestInFlightIsBounded(t *testing.T) {
	for _, inflight := range []int{0, 3, 5} {
		workers := 3
		_, c, err := run(t, workers, inflight, 400, 2, -1)
		if err != nil {
			t.Fatal(err)
		}
		limit := inflight
		if limit == 0 {
			limit = 2*workers + 2
		}
		limit = max(limit, workers+1)
		if p := c.peak.Load(); p > int64(limit) {
			t.Errorf("InFlight %d: %d batches were alive at once, limit %d", inflight, p, limit)
		}
	}
}

// goroutines is the number of goroutines once those that are ending have
// ended: Run's goroutines call wg.Done in a defer and still have to return
// after Run's wg.Wait, and the race build makes that last step slower (a
// goroutine was still counted, now and then, under go test -race). It waits
// until the count stays the same, at most about a tenth of a second; a
// goroutine that leaked, blocked, stays counted.
func goroutines() int {
	n := runtime.NumGoroutine()
	for range 100 {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}

func TestCancelAndNoLeak(t *testing.T) {
	before := goroutines()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	read := func() (int, error) { n++; return n, nil } // endless
	err := Run(ctx, Options{Workers: 4}, read, func(b int) (int, error) { return b, nil }, func(r int) error {
		if r == 50 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	for range 5 {
		run(t, 4, 0, 30, 3, 44)
	}
	// Run returns after its goroutines have stopped.
	if after := settled(before); after > before {
		t.Fatalf("%d goroutines before, %d after", before, after)
	}
}

func TestOneWorkerRunsOnTheCaller(t *testing.T) {
	before := goroutines()
	got, _, err := run(t, 1, 0, 10, 3, 17)
	var exp strings.Builder
	for r := range 17 {
		fmt.Fprintf(&exp, "%d\n", r)
	}
	if got != exp.String() || err == nil || err.Error() != "record 17 is bad" {
		t.Fatalf("got %q, %v", got, err)
	}
	if settled(before) > before {
		t.Fatal("one worker left goroutines")
	}
}

// settled is the number of goroutines once it is no more than want, or
// after a second: the test runner's own goroutines may take a moment to go.
func settled(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// BenchmarkRun: CPU-bound batches on one and on two workers; the overhead
// of the pipeline is the difference from the work itself.
func BenchmarkRun(b *testing.B) {
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)) * 64)
			for b.Loop() {
				n := 0
				read := func() ([]byte, error) {
					if n == 64 {
						return nil, io.EOF
					}
					n++
					return data, nil
				}
				work := func(d []byte) (uint32, error) {
					h := uint32(2166136261)
					for _, c := range d {
						h = (h ^ uint32(c)) * 16777619
					}
					return h, nil
				}
				if err := Run(context.Background(), Options{Workers: workers}, read, work, func(uint32) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// With LeaveRead, an error ends the run while a read still waits for
// input; that read's batch is dropped and read is not called again.
func TestLeaveRead(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int64
	read := func() (int, error) {
		n := calls.Add(1)
		if n == 4 {
			<-release // a pipe with nothing more to give for now
		}
		return int(n - 1), nil
	}
	var wrote []int
	err := Run(context.Background(), Options{Workers: 2, LeaveRead: true}, read, func(b int) (int, error) {
		if b == 2 {
			return b, errors.New("two")
		}
		return b, nil
	}, func(r int) error { wrote = append(wrote, r); return nil })
	if err == nil || err.Error() != "two" || fmt.Sprint(wrote) != "[0 1 2]" {
		t.Fatalf("err %v, wrote %v", err, wrote)
	}
	close(release)
	for range 20 { // let the reader run on, if it would
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if calls.Load() != 4 {
		t.Fatalf("read called %d times", calls.Load())
	}
}

// recs is a batch of Stream's tests: the records cut from the input, and
// the output a worker made of them.
type recs struct {
	in  []int
	out strings.Builder
	err error
}

// input is a random input: n records, cut into batches of random sizes; a
// record equal to bad fails (bad < 0: none does).
type input struct {
	sizes []int
	bad   int
}

func randomInput(r *rand.Rand) input {
	in := input{bad: -1}
	for range 1 + r.IntN(60) {
		in.sizes = append(in.sizes, 1+r.IntN(9))
	}
	if r.IntN(3) > 0 {
		in.bad = r.IntN(300)
	}
	return in
}

// streamRun reads an input.s batches into recycled recs (counting those made and
// those alive), works them with jitter, and writes their lines to out.
type streamRun struct {
	out          strings.Builder
	made, live   atomic.Int64
	peak         atomic.Int64
	stoppedAt    int
	batchesWrote int
}

func (ru *streamRun) stages(in input, jitter bool) Stages[recs] {
	next, rec := 0, 0
	return Stages[recs]{
		New: func() *recs { ru.made.Add(1); return &recs{} },
		Read: func(b *recs) error {
			if next == len(in.sizes) {
				return io.EOF
			}
			b.in, b.err = b.in[:0], nil
			b.out.Reset()
			for range in.sizes[next] {
				b.in = append(b.in, rec)
				rec++
			}
			next++
			if l := ru.live.Add(1); l > ru.peak.Load() {
				ru.peak.Store(l) // one reader: no other store
			}
			return nil
		},
		Work: func(b *recs) error {
			if jitter {
				time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			}
			for _, r := range b.in {
				if r == in.bad {
					b.err = &posError{rec: r}
					return b.err
				}
				fmt.Fprintf(&b.out, "%d\n", r)
			}
			return nil
		},
		Write: func(b *recs) error {
			ru.out.WriteString(b.out.String())
			ru.batchesWrote++
			ru.live.Add(-1)
			return nil
		},
	}
}

// posError is a typed error with its position: the record's index.
type posError struct{ rec int }

func (e *posError) Error() string { return fmt.Sprintf("record %d is bad", e.rec) }

func (ru *streamRun) stream(t *testing.T, workers, inflight int, in input) error {
	t.Helper()
	ru.stoppedAt = -1
	return Stream(context.Background(), Options{Workers: workers, InFlight: inflight, Stopped: func(b int) { ru.stoppedAt = b }},
		ru.stages(in, workers > 1))
}

// -j 1 and -j N give the same bytes, the same error (the first in input
// order, with its position) from the same batch, on random inputs.
func TestStreamOneWorkerAndNAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	for range 150 {
		in := randomInput(r)
		var one streamRun
		wantErr := one.stream(t, 1, 0, in)
		// What one worker writes: every record before the bad one.
		var exp strings.Builder
		for i := range sum(in.sizes) {
			if i == in.bad {
				break
			}
			fmt.Fprintf(&exp, "%d\n", i)
		}
		if one.out.String() != exp.String() {
			t.Fatalf("one worker wrote %q, want %q", one.out.String(), exp.String())
		}
		if (wantErr != nil) != (in.bad >= 0 && in.bad < sum(in.sizes)) {
			t.Fatalf("bad %d of %d records: one worker's error %v", in.bad, sum(in.sizes), wantErr)
		}
		if one.made.Load() != 1 {
			t.Fatalf("one worker made %d batches", one.made.Load())
		}
		for _, workers := range []int{2, 3, 7} {
			var n streamRun
			err := n.stream(t, workers, 0, in)
			if n.out.String() != one.out.String() {
				t.Fatalf("%d workers: output differs from one worker's\n got %q\nwant %q", workers, n.out.String(), one.out.String())
			}
			var pe *posError
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || (wantErr != nil && !errors.As(err, &pe)) {
				t.Fatalf("%d workers: error %v (%T), one worker's %v", workers, err, err, wantErr)
			}
			if n.stoppedAt != one.stoppedAt {
				t.Fatalf("%d workers stopped at batch %d, one worker at %d", workers, n.stoppedAt, one.stoppedAt)
			}
		}
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// The engine makes at most InFlight batches and gives them back to Read:
// memory is bounded by the batches in flight, not by the input.
func TestStreamBatchesBoundedAndRecycled(t *testing.T) {
	in := input{bad: -1}
	for range 500 {
		in.sizes = append(in.sizes, 3)
	}
	for _, c := range []struct{ workers, inflight, limit int }{{2, 0, 6}, {3, 0, 8}, {3, 5, 5}, {4, 2, 5}} {
		var ru streamRun
		if err := ru.stream(t, c.workers, c.inflight, in); err != nil {
			t.Fatal(err)
		}
		if m := ru.made.Load(); m > int64(c.limit) {
			t.Errorf("%d workers, InFlight %d: %d batches made for 500, limit %d", c.workers, c.inflight, m, c.limit)
		}
		if p := ru.peak.Load(); p > int64(c.limit) {
			t.Errorf("%d workers, InFlight %d: %d batches alive at once, limit %d", c.workers, c.inflight, p, c.limit)
		}
		if ru.batchesWrote != 500 {
			t.Errorf("%d batches written of 500", ru.batchesWrote)
		}
	}
}

// ErrTakeOver from Write ends the run at that batch, after the batches
// before it; the caller's loop goes on from there. From Read, likewise.
func TestStreamTakeOver(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		for _, inRead := range []bool{false, true} {
			i := 0
			var wrote []int
			err := Stream(context.Background(), Options{Workers: workers}, Stages[int]{
				Read: func(b *int) error {
					if inRead && i == 6 {
						return ErrTakeOver
					}
					*b, i = i, i+1
					return nil
				},
				Work: func(b *int) error { *b *= 10; return nil },
				Write: func(b *int) error {
					if !inRead && *b == 60 {
						return ErrTakeOver
					}
					wrote = append(wrote, *b)
					return nil
				},
			})
			if err != ErrTakeOver || fmt.Sprint(wrote) != "[0 10 20 30 40 50]" {
				t.Errorf("%d workers, in read %v: %v after %v", workers, inRead, err, wrote)
			}
		}
	}
}

// ErrDone from Write ends the run as the end of the input would.
func TestStreamDone(t *testing.T) {
	for _, workers := range []int{1, 3} {
		i := 0
		var wrote []int
		err := Stream(context.Background(), Options{Workers: workers}, Stages[int]{
			Read:  func(b *int) error { *b, i = i, i+1; return nil }, // endless
			Work:  func(*int) error { return nil },
			Write: func(b *int) error { wrote = append(wrote, *b); return map[bool]error{true: ErrDone}[*b == 4] },
		})
		if err != nil || fmt.Sprint(wrote) != "[0 1 2 3 4]" {
			t.Errorf("%d workers: %v after %v", workers, err, wrote)
		}
	}
}

// A run taken over while a Read waits on a live input returns at once
// with LeaveRead; Read is not called again, and nothing runs after.
func TestStreamTakeOverLeavesRead(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int64
	var wrote []int
	err := Stream(context.Background(), Options{Workers: 2, LeaveRead: true}, Stages[int]{
		Read: func(b *int) error {
			n := calls.Add(1)
			if n == 4 {
				<-release
			}
			*b = int(n - 1)
			return nil
		},
		Work: func(*int) error { return nil },
		Write: func(b *int) error {
			if *b == 2 {
				return ErrTakeOver
			}
			wrote = append(wrote, *b)
			return nil
		},
	})
	if err != ErrTakeOver || fmt.Sprint(wrote) != "[0 1]" {
		t.Fatalf("%v after %v", err, wrote)
	}
	close(release)
	for range 20 {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if calls.Load() != 4 {
		t.Fatalf("Read called %d times", calls.Load())
	}
}

// Cancelling ctx ends an endless run with ctx's error, and leaves no
// goroutine behind; Stopped is not called.
func TestStreamCancel(t *testing.T) {
	before := goroutines()
	for _, workers := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		i := 0
		stopped := false
		err := Stream(ctx, Options{Workers: workers, Stopped: func(int) { stopped = true }}, Stages[int]{
			Read: func(b *int) error { *b, i = i, i+1; return nil },
			Work: func(*int) error { return nil },
			Write: func(b *int) error {
				if *b == 50 {
					cancel()
				}
				return nil
			},
		})
		if !errors.Is(err, context.Canceled) || stopped {
			t.Fatalf("%d workers: %v, Stopped called: %v", workers, err, stopped)
		}
	}
	if after := settled(before); after > before {
		t.Fatalf("%d goroutines before, %d after", before, after)
	}
}

// With a Pool, a caller that runs Stream again after ErrTakeOver (one
// worker takes over a record, then the workers go on) reuses the batches
// of the run before: no more than InFlight are ever made.
func TestStreamPoolAcrossTakeOvers(t *testing.T) {
	var pool Pool[int]
	made, i := 0, 0
	taken := map[int]bool{} // changed between runs only
	var wrote []int
	for runs := 0; ; runs++ {
		err := Stream(context.Background(), Options{Workers: 2, InFlight: 3}, Stages[int]{
			New: func() *int { made++; return new(int) },
			Read: func(b *int) error {
				switch {
				case i == 100:
					return io.EOF
				case i%10 == 9 && !taken[i]:
					return ErrTakeOver // record i is the caller's
				}
				*b, i = i, i+1
				return nil
			},
			Work:  func(*int) error { return nil },
			Write: func(b *int) error { wrote = append(wrote, *b); return nil },
			Pool:  &pool,
		})
		if err == nil {
			break
		}
		if err != ErrTakeOver || runs > 20 {
			t.Fatalf("run %d: %v", runs, err)
		}
		wrote = append(wrote, i) // the caller's loop takes record i
		taken[i] = true
		i++
	}
	if len(wrote) != 100 || wrote[0] != 0 || wrote[99] != 99 {
		t.Fatalf("wrote %v", wrote)
	}
	for k, r := range wrote {
		if r != k {
			t.Fatalf("record %d written as %d", k, r)
		}
	}
	if made > 3 {
		t.Fatalf("%d batches made over 10 runs, InFlight 3", made)
	}
}
