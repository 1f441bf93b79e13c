// Package testbin builds the real toonkit binary once per test process, for
// tests that run it through a shell (README, docs/scaling.md and --help
// examples).
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toonkit/toonkit/internal/raceflag"
)

// build is one binary, built at most once per test process.
type build struct {
	once sync.Once
	bin  string
	err  error
	out  []byte
}

var plain, race build

// Build builds the main package in dir (relative to the test's package)
// and returns the binary's path. It is built without -race, under go test
// -race too: the shell examples check the commands' output, and the race
// build would only make them slower (the packages' own tests run under the
// race detector).
func Build(t testing.TB, dir string) string {
	t.Helper()
	return plain.get(t, dir, false)
}

// BuildRace is Build, but under go test -race the binary is built with
// -race too, so that what the test makes it do concurrently (signals,
// a child's output, a blocked stdout) is checked for data races: a race
// found makes it fail, exit status 66.
func BuildRace(t testing.TB, dir string) string {
	t.Helper()
	if !raceflag.Enabled {
		return Build(t, dir)
	}
	return race.get(t, dir, true)
}

func (b *build) get(t testing.TB, dir string, withRace bool) string {
	t.Helper()
	b.once.Do(func() {
		var tmp string
		if tmp, b.err = os.MkdirTemp("", "toonkit-bin-"); b.err != nil {
			return
		}
		b.bin = filepath.Join(tmp, "toonkit")
		// -pgo=off: the packages are then those the tests compiled, not a
		// second build of every one with default.pgo (minutes on a fresh
		// clone); the profile changes speed, not behaviour.
		args := []string{"build", "-pgo=off", "-o", b.bin}
		if withRace {
			args = append(args, "-race")
		}
		b.out, b.err = exec.Command("go", append(args, dir)...).CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.bin
}

// Env returns the environment with the binary's folder first on PATH and
// no color variables.
func Env(binPath string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case len(kv) > 5 && kv[:5] == "PATH=":
		case len(kv) > 9 && kv[:9] == "NO_COLOR=", len(kv) > 9 && kv[:9] == "CLICOLOR=", len(kv) > 15 && kv[:15] == "CLICOLOR_FORCE=":
		default:
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+filepath.Dir(binPath)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// Demo returns a fresh folder holding a copy of the sample files in demo
// (testdata/demo, relative to the test's package), for examples that name
// them. Key files are made readable by their owner only, as a key's owner
// keeps it (git gives every file 0644); an executable keeps its bit.
func Demo(t testing.TB, demo string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(demo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(demo, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if ext := filepath.Ext(e.Name()); ext == ".key" || ext == ".keyring" {
			mode = 0o600
		}
		if info, err := e.Info(); err == nil && info.Mode()&0o100 != 0 {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
