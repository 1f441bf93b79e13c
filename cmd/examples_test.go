package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/testbin"
)

// Every example in every command's --help runs, in a folder holding the
// files the examples name (copied from testdata/demo), with the exit status
// its comment announces (0 unless the comment says "exit status N").
func TestHelpExamples(t *testing.T) {
	bin := testbin.Build(t, "..")
	root := NewRootCmd(func() *IOStreams { ios, _, _, _ := Test(); return ios }())
	status := regexp.MustCompile(`exit status (\d+)`)
	ran := 0
	for _, c := range append(root.Commands(), root) {
		want := 0
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if strings.HasPrefix(line, "#") {
				want = 0
				if m := status.FindStringSubmatch(line); m != nil {
					want, _ = strconv.Atoi(m[1])
				}
				continue
			}
			t.Run(c.Name()+"/"+line, func(t *testing.T) {
				dir := exampleDir(t)
				// pipefail: a failure anywhere in a pipeline counts.
				sh := exec.Command("bash", "-o", "pipefail", "-c", line)
				sh.Dir = dir
				sh.Env = testbin.Env(bin)
				out, err := sh.CombinedOutput()
				got := 0
				if ee, ok := err.(*exec.ExitError); ok {
					got = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("exit status %d, want %d\n%s", got, want, out)
				}
			})
			ran++
		}
	}
	if ran < 8 {
		t.Fatalf("only %d examples found", ran)
	}
}

// exampleDir is a fresh folder with the sample files the examples use.
func exampleDir(t *testing.T) string {
	dir := t.TempDir()
	entries, err := os.ReadDir("../testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("../testdata/demo", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// A key file is kept from others, as its owner would keep it
		// (git gives every file 0644).
		mode := os.FileMode(0o644)
		if filepath.Ext(e.Name()) == ".key" {
			mode = 0o600
		}
		// A tool (tool.sh, for exec) keeps its executable bit.
		if info, err := e.Info(); err == nil && info.Mode()&0o100 != 0 {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
