package needs

import (
	"flag"
	"testing"
)

// A program that does not exist skips the test by default and fails it
// under TOONKIT_CI.
func TestMissingProgram(t *testing.T) {
	for _, ci := range []string{"", "1"} {
		t.Setenv("TOONKIT_CI", ci)
		ft := &fakeTB{TB: t}
		func() {
			defer func() { recover() }()
			Program(ft, "toonkit-no-such-program", "needed for nothing")
		}()
		if ci == "" && (!ft.skipped || ft.failed) {
			t.Errorf("TOONKIT_CI unset: skipped=%v failed=%v, want a skip", ft.skipped, ft.failed)
		}
		if ci != "" && (ft.skipped || !ft.failed) {
			t.Errorf("TOONKIT_CI=1: skipped=%v failed=%v, want a failure", ft.skipped, ft.failed)
		}
	}
	if p := Program(t, "sh", "a shell"); p == "" {
		t.Error("Program(sh) found no path")
	}
}

// fakeTB records Skip and Fatal; both stop the caller with a panic, as
// runtime.Goexit would.
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Skip(args ...any)  { f.skipped = true; panic("skip") }
func (f *fakeTB) Fatal(args ...any) { f.failed = true; panic("fatal") }

// Slow skips under -short (make test) and lets the test run without it
// (make test-slow), whatever TOONKIT_CI says.
func TestSlow(t *testing.T) {
	was := flag.Lookup("test.short").Value.String()
	defer flag.Set("test.short", was)
	t.Setenv("TOONKIT_CI", "1")
	for _, short := range []string{"true", "false"} {
		if err := flag.Set("test.short", short); err != nil {
			t.Fatal(err)
		}
		ft := &fakeTB{TB: t}
		func() {
			defer func() { recover() }()
			Slow(ft, "a long comparison")
		}()
		if want := short == "true"; ft.skipped != want || ft.failed {
			t.Errorf("-short=%s: skipped=%v failed=%v, want skipped=%v", short, ft.skipped, ft.failed, want)
		}
	}
}
