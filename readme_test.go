package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
)

// example is one "$ command" line of a ```console block and the lines
// below it: its output, stdout and stderr together.
type example struct{ cmd, want string }

// consoleExamples returns the examples of the ```console blocks of a
// Markdown file, in order.
func consoleExamples(t *testing.T, path string) []example {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var examples []example
	inBlock := false
	for _, line := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			inBlock = true
		case strings.HasPrefix(line, "```"):
			inBlock = false
		case inBlock && strings.HasPrefix(line, "$ "):
			examples = append(examples, example{cmd: line[2:]})
		case inBlock && len(examples) > 0:
			examples[len(examples)-1].want += line + "\n"
		}
	}
	return examples
}

// run runs the example by bash (with pipefail) in dir with env, and
// checks that its output is exactly the one documented in doc.
func (ex example) run(t *testing.T, doc, dir string, env []string) {
	t.Helper()
	sh := exec.Command("bash", "-o", "pipefail", "-c", ex.cmd)
	sh.Dir = dir
	sh.Env = env
	got, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if diff := cmp.Diff(ex.want, string(got)); diff != "" {
		t.Fatalf("output differs from %s (-doc +actual):\n%s", doc, diff)
	}
}

// Every example in README.md runs: each "$ command" line of a ```console
// block is run by bash (with pipefail) from the top of the repository, and its output
// (stdout and stderr together) must be exactly the lines below it.
func TestReadmeExamples(t *testing.T) {
	t.Parallel()
	bin := testbin.Build(t, ".")
	examples := consoleExamples(t, "README.md")
	if len(examples) < 5 {
		t.Fatalf("only %d examples found in README.md", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.cmd, func(t *testing.T) {
			ex.run(t, "README.md", "", testbin.Env(bin))
		})
	}
}

// Every example in docs/scaling.md runs, in order, in one folder holding
// the sample files of testdata/demo, with toonkit and scripts/genbench (the
// generator of the logs it shards) on the PATH: an example may use the
// files an earlier one wrote, so the first failure stops the rest. An
// example that runs GNU parallel is skipped, saying so, where parallel is
// not installed (the doc does not need it elsewhere). Without jq the test
// is skipped (a failure under TOONKIT_CI: .ci/run installs it).
func TestScalingExamples(t *testing.T) {
	needs.Slow(t, "runs docs/scaling.md's examples, jq's among them")
	const doc = "docs/scaling.md"
	needs.Program(t, "jq", "docs/scaling.md combines the shards' reports with jq")
	bin := testbin.Build(t, ".")
	tools := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(tools, "genbench"), "./scripts/genbench").CombinedOutput(); err != nil {
		t.Fatalf("go build ./scripts/genbench: %v\n%s", err, out)
	}
	env := testbin.Env(bin)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + tools + string(os.PathListSeparator) + kv[len("PATH="):]
		}
	}
	dir := testbin.Demo(t, "testdata/demo")
	examples := consoleExamples(t, doc)
	if len(examples) < 8 {
		t.Fatalf("only %d examples found in %s", len(examples), doc)
	}
	_, lookErr := exec.LookPath("parallel")
	for _, ex := range examples {
		ok := t.Run(ex.cmd, func(t *testing.T) {
			if strings.HasPrefix(ex.cmd, "parallel ") && lookErr != nil {
				t.Skip("GNU parallel is not installed")
			}
			ex.run(t, doc, dir, env)
		})
		if !ok {
			break
		}
	}
}
