package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/testbin"
)

// Every example in README.md runs: each "$ command" line of a ```console
// block is run by bash (with pipefail) from the top of the repository, and its output
// (stdout and stderr together) must be exactly the lines below it.
func TestReadmeExamples(t *testing.T) {
	bin := testbin.Build(t, ".")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	type example struct{ cmd, want string }
	var examples []example
	inBlock := false
	for _, line := range strings.Split(string(readme), "\n") {
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
	if len(examples) < 5 {
		t.Fatalf("only %d examples found in README.md", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.cmd, func(t *testing.T) {
			sh := exec.Command("bash", "-o", "pipefail", "-c", ex.cmd)
			sh.Env = testbin.Env(bin)
			got, err := sh.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			if diff := cmp.Diff(ex.want, string(got)); diff != "" {
				t.Fatalf("output differs from README.md (-readme +actual):\n%s", diff)
			}
		})
	}
}
