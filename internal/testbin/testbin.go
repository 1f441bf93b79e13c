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

var (
	once sync.Once
	bin  string
	err  error
	out  []byte
)

// Build builds the main package in dir (relative to the test's package)
// and returns the binary's path.
func Build(t testing.TB, dir string) string {
	t.Helper()
	once.Do(func() {
		var tmp string
		if tmp, err = os.MkdirTemp("", "toonkit-bin-"); err != nil {
			return
		}
		bin = filepath.Join(tmp, "toonkit")
		// Under go test -race the binary is built with -race too: the
		// commands it runs are checked for data races (a race found
		// makes it fail, exit status 66).
		args := []string{"build", "-o", bin}
		if raceflag.Enabled {
			args = append(args, "-race")
		}
		out, err = exec.Command("go", append(args, dir)...).CombinedOutput()
	})
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
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
