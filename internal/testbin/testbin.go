// Package testbin builds the real toonkit binary once per test process, for
// tests that run it through a shell (README and --help examples).
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
