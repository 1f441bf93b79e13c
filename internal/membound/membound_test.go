package membound

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// A computation that holds ever more is ended at the bound: its context
// ends with an *ExceededError, having held about the bound (and not the
// guard's gigabyte); stop restores the memory limit.
func TestWatchEndsGrowth(t *testing.T) {
	const limit = 64 << 20
	before := debug.SetMemoryLimit(-1)
	ctx, stop := Watch(context.Background(), limit)
	if got := debug.SetMemoryLimit(-1); got != min(before, limit) {
		t.Errorf("memory limit %d under Watch, want %d", got, min(before, limit))
	}
	var held [][]byte
	for ctx.Err() == nil {
		held = append(held, make([]byte, 64<<10))
		if len(held)*64<<10 > 1<<30 {
			t.Fatal("1 GiB held and the context has not ended")
		}
	}
	var ee *ExceededError
	if !errors.As(context.Cause(ctx), &ee) || ee.Limit != limit || ee.Error() != "used more than 64 MiB of memory" {
		t.Errorf("cause %v, want used more than 64 MiB", context.Cause(ctx))
	}
	if n := len(held) * 64 << 10; n < limit/2 {
		t.Errorf("ended after %d bytes, under half the bound", n)
	}
	held = nil
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("memory limit %d after stop, want %d", got, before)
	}
}

// A run that stays under the bound is not ended; 0 bounds nothing.
func TestWatchUnder(t *testing.T) {
	for _, limit := range []int64{0, 1 << 30} {
		ctx, stop := Watch(context.Background(), limit)
		b := make([]byte, 1<<20)
		_ = b
		stop()
		if context.Cause(ctx) != nil && limit == 0 {
			t.Errorf("limit %d: cause %v", limit, context.Cause(ctx))
		}
		var ee *ExceededError
		if errors.As(context.Cause(ctx), &ee) {
			t.Errorf("limit %d: exceeded", limit)
		}
	}
}

func TestDefault(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "meminfo")
	os.WriteFile(mem, []byte("MemTotal:       16303948 kB\nMemFree:         1000 kB\n"), 0o644)
	if got := readMeminfo(mem); got != 16303948<<10 {
		t.Errorf("readMeminfo %d", got)
	}
	cg := filepath.Join(dir, "memory.max")
	for text, want := range map[string]int64{"max\n": 0, "2147483648\n": 2 << 30} {
		os.WriteFile(cg, []byte(text), 0o644)
		if got := readCgroupMax(cg); got != want {
			t.Errorf("readCgroupMax(%q) %d, want %d", text, got, want)
		}
	}
	if d := Default(); d <= 0 {
		t.Errorf("Default %d", d)
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 4 << 30: "4 GiB", 1536 << 10: "1.5 MiB", 8347621376: "7.8 GiB", 1000: "1000 bytes"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
