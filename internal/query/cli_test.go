package query

import (
	"reflect"
	"runtime/debug"
	"testing"
)

// jq's two-value flags reach the flag parser as NAME=VALUE, for query only.
func TestQueryArgs(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"query", "--arg", "x", "1", "."}, []string{"query", "--arg=x=1", "."}},
		{[]string{"-q", "--color", "never", "query", "--argjson", "x", "{}", "--slurpfile", "f", "a.json", ".", "--rawfile", "r", "b"},
			[]string{"-q", "--color", "never", "query", "--argjson=x={}", "--slurpfile=f=a.json", ".", "--rawfile=r=b"}},
		{[]string{"query", ".", "--", "--arg", "x", "1"}, []string{"query", ".", "--", "--arg", "x", "1"}},
		{[]string{"query", "--arg", "x"}, []string{"query", "--arg", "x"}},
		{[]string{"decode", "--arg", "x", "1"}, []string{"decode", "--arg", "x", "1"}},
		// after --args and --jsonargs, the arguments but the filter are values
		{[]string{"query", "--indent", "1", "-c", "f.json", "--args", "a", "--jsonargs", "1", "-"},
			[]string{"query", "--indent", "1", "-c", "f.json", "--args", "--positional=s:a", "--jsonargs", "--positional=j:1", "--positional=j:-"}},
		{[]string{"query", "--args", "$ARGS", "a"}, []string{"query", "--args", "$ARGS", "--positional=s:a"}},
		{[]string{"query", "-f", "p.jq", "in.json", "--args", "a"}, []string{"query", "-f", "p.jq", "in.json", "--args", "--positional=s:a"}},
	}
	for _, c := range cases {
		if got := Args(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Args(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The collector runs half as often on one worker only, never over GOGC.
func TestTuneGC(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	for _, c := range []struct {
		jobs        int
		slurp, gogc bool
		want        int
	}{{1, false, false, 200}, {2, false, false, 100}, {1, true, false, 100}, {1, false, true, 100}} {
		restore := TuneGC(c.jobs, c.slurp, c.gogc)
		got := debug.SetGCPercent(100)
		debug.SetGCPercent(got)
		restore()
		if after := debug.SetGCPercent(100); got != c.want || after != 100 {
			t.Errorf("TuneGC(%d, %v, %v): GC percent %d, %d after restore; want %d, 100", c.jobs, c.slurp, c.gogc, got, after, c.want)
		}
	}
}

func TestHintNamesQueryFlags(t *testing.T) {
	got := Hint("raise --max-frame-size if such frames are expected; --keep-going skips bad frames")
	if want := "raise --max-size if such frames are expected; --keep-going skips bad frames"; got != want {
		t.Errorf("Hint = %q, want %q", got, want)
	}
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, " 0 ": 0, "512MiB": 512 << 20, "8GiB": 8 << 30, "1024": 1024} {
		if n, err := ParseMemory(in); err != nil || n != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	if _, err := ParseMemory("lots"); err == nil || err.Error() != `invalid size "lots" (want 0, auto, or a size such as 512MiB or 8GiB)` {
		t.Errorf("ParseMemory(lots): %v", err)
	}
}
