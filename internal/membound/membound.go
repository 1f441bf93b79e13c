// Package membound bounds the memory of a computation that may hold ever
// more, such as a jq filter that recurses without end (def f: 1+f; f):
// Go's soft memory limit (debug.SetMemoryLimit) makes the collector keep
// the heap under the bound while it can, and a watcher ends the run's
// context, with an *ExceededError as its cause, once the heap's objects
// pass the bound all the same. The run is so ended with a message, not by
// Go's fatal "out of memory" or the system's out-of-memory killer; the
// computation must check its context (gojq does, at every instruction).
//
// The outcome does not depend on timing: the watcher polls, and a
// computation that keeps growing is stopped at one poll or the next.
package membound

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// ExceededError is the cause of a context ended by Watch: the heap passed
// Limit bytes.
type ExceededError struct{ Limit int64 }

func (e *ExceededError) Error() string {
	return fmt.Sprintf("used more than %s of memory", Format(e.Limit))
}

// Poll is how often Watch reads the heap's size.
const Poll = 5 * time.Millisecond

// heapObjects is the metric Watch reads: the bytes of the heap's objects,
// live or not yet swept.
const heapObjects = "/memory/classes/heap/objects:bytes"

// Watch bounds the memory of what runs under the returned context to limit
// bytes: it sets Go's soft memory limit to limit (or leaves a lower one, as
// GOMEMLIMIT sets), and ends the context, with cause *ExceededError, when
// the heap's objects pass limit. stop ends the watcher and restores the
// memory limit; call it when the run is over. A limit of 0 or less bounds
// nothing.
func Watch(ctx context.Context, limit int64) (context.Context, func()) {
	if limit <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	prev := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(prev, limit))
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: heapObjects}}
		t := time.NewTicker(Poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > uint64(limit) {
				cancel(&ExceededError{Limit: limit})
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		<-stopped
		cancel(nil)
		debug.SetMemoryLimit(prev)
	}
}

// Default is the bound a user who names none gets: half of the memory the
// process may have, the less of the system's (Linux: MemTotal of
// /proc/meminfo) and the cgroup's (memory.max), or 4 GiB where neither is
// known; under a limit of address space (ulimit -v), no more than a
// sixteenth of it, as Go reserves address space (arenas, thread stacks)
// far beyond the heap it uses (measured: under ulimit -v 2000000, a
// 128 MiB bound is met, a 256 MiB one dies of Go's "out of memory" first).
func Default() int64 {
	var total int64
	for _, n := range []int64{readMeminfo("/proc/meminfo"), readCgroupMax("/sys/fs/cgroup/memory.max")} {
		if n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	bound := total / 2
	if total <= 0 {
		bound = 4 << 30
	}
	if as := addressLimit(); as > 0 {
		bound = min(bound, as/16)
	}
	return bound
}

// readMeminfo is MemTotal of a /proc/meminfo, in bytes; 0 if unknown.
func readMeminfo(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 0
}

// readCgroupMax is a cgroup v2 memory.max in bytes; 0 for "max" or unknown.
func readCgroupMax(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Format writes a size in the largest binary unit it reaches: exactly
// (64 MiB) when the unit divides it, else to a tenth (1.5 MiB, 7.8 GiB).
func Format(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		switch {
		case n >= u.size && n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
