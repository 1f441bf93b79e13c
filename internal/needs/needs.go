// Package needs lets a test ask for an outside program it compares toonkit
// with (python3 for CPython's json.dumps, node and npm for the reference
// TOON library).
//
// On a developer's machine a missing program skips the test, saying so. In
// CI (.ci/run sets TOONKIT_CI=1 and installs the programs) a missing program
// fails the test: a comparison that did not run must not pass as one that
// did.
package needs

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Strict reports whether a missing program fails the test (TOONKIT_CI is
// set) rather than skipping it.
func Strict() bool { return os.Getenv("TOONKIT_CI") != "" }

// Program returns the path of the program name, or skips the test (fails
// it under TOONKIT_CI) with why when it is not on the PATH. For python3 it
// is the interpreter's own path (sys.executable), not that of a version
// manager's shim: pyenv's is a shell script that adds a third of a second
// to each run, and tests run python3 many times.
func Program(tb testing.TB, name, why string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, name+" is not installed: "+why)
	}
	if name == "python3" {
		return pythonExecutable(p)
	}
	return p
}

var python struct {
	once sync.Once
	path string
}

// pythonExecutable is sys.executable of the python3 at path, found once per
// test process, or path itself when python3 does not say.
func pythonExecutable(path string) string {
	python.once.Do(func() {
		python.path = path
		out, err := exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
		if exe := strings.TrimSpace(string(out)); err == nil && exe != "" {
			if info, err := os.Stat(exe); err == nil && !info.IsDir() {
				python.path = exe
			}
		}
	})
	return python.path
}

// Missing skips the test with msg, or fails it under TOONKIT_CI.
func Missing(tb testing.TB, msg string) {
	tb.Helper()
	if Strict() {
		tb.Fatal(msg + " (TOONKIT_CI is set: a comparison that cannot run is a failure)")
	}
	tb.Skip(msg)
}

// Slow skips the test under -short, which make test runs with, saying why;
// make test-slow (which .ci/run runs too) runs it. For comparisons that are
// long (many runs of the binary, big inputs) or that run another program
// over a corpus, whose quick counterpart make test keeps.
func Slow(tb testing.TB, why string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: " + why + " (make test-slow runs it)")
	}
}
