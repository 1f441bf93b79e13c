package version

import (
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	vcs := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/toonkit/toonkit", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	const rev = "0baba40c1e2f5d6a7b8c9d0e1f2a3b4c5d6e7f80"
	for _, c := range []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"make build on a tag", "v0.2.0", vcs("(devel)", "vcs.revision", rev), "v0.2.0"},
		{"make build after a tag, changed", "v0.2.0-3-g0baba40-dirty", vcs("(devel)"), "v0.2.0-3-g0baba40-dirty"},
		{"the stamp wins over the module version", "v0.2.1", vcs("v0.2.0"), "v0.2.1"},
		{"go install @v0.2.0", "", vcs("v0.2.0"), "v0.2.0"},
		{"go install @commit (pseudo-version)", "", vcs("v0.2.1-0.20261125080000-0baba40c1e2f"), "v0.2.1-0.20261125080000-0baba40c1e2f"},
		{"go build (Go 1.24+) in a changed checkout", "", vcs("v0.2.1-0.20261125080000-0baba40c1e2f+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v0.2.1-0.20261125080000-0baba40c1e2f+dirty"},
		{"go build (Go < 1.24) in a clean checkout", "", vcs("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.modified", "false"), "devel+0baba40c1e2f"},
		{"go build (Go < 1.24) in a changed checkout", "", vcs("(devel)", "vcs.modified", "true", "vcs.revision", rev), "devel+0baba40c1e2f-dirty"},
		{"a short revision", "", vcs("", "vcs.revision", "abc"), "devel+abc"},
		{"go build -buildvcs=false", "", vcs("(devel)"), "devel"},
		{"no build info", "", nil, "devel"},
	} {
		if got := From(c.stamped, c.bi); got != c.want {
			t.Errorf("%s: From(%q, ...) = %q, want %q", c.name, c.stamped, got, c.want)
		}
	}
}

// A test binary has build info; String falls back to it when nothing is
// stamped and returns the stamp when one is.
func TestString(t *testing.T) {
	old := Stamped
	defer func() { Stamped = old }()
	Stamped = ""
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("a test binary built in module mode has build info")
	}
	if got, want := String(), From("", bi); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	Stamped = "v9.9.9"
	if got := String(); got != "v9.9.9" {
		t.Fatalf("String() = %q with a stamp, want v9.9.9", got)
	}
}
