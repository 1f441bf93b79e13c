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
