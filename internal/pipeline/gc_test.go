package pipeline

import (
	"runtime/debug"
	"testing"
)

func TestSetGCPercent(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	for _, c := range []struct {
		percent int
		set     bool
		want    int
	}{{200, false, 200}, {0, false, 100}, {200, true, 100}} {
		restore := SetGCPercent(c.percent, func() bool { return c.set })
		got := debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		restore()
		after := debug.SetGCPercent(100)
		if got != c.want || after != 100 {
			t.Errorf("SetGCPercent(%d) with GOGC set %v: GC percent %d, %d after restore; want %d, 100", c.percent, c.set, got, after, c.want)
		}
	}
}
