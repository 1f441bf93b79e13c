package main

import (
	"testing"

	"github.com/toonkit/toonkit/internal/testbin"
)

// Every example of the command pages listed here runs as the README's do:
// each "$ command" line of a ```console block is run by bash (with
// pipefail), in a folder holding the sample files of testdata/demo, with
// toonkit on the PATH, and its output (stdout and stderr together) must be
// exactly the lines below it. An example may use the files an earlier one
// of its page wrote.
func TestCommandDocExamples(t *testing.T) {
	t.Parallel()
	bin := testbin.Build(t, ".")
	for doc, least := range map[string]int{"docs/commands/query.md": 10, "docs/commands/stats.md": 5, "docs/commands/validate.md": 1, "docs/commands/fmt.md": 7, "docs/commands/lsp.md": 1, "docs/commands/mcp.md": 3, "docs/commands/decode.md": 1} {
		t.Run(doc, func(t *testing.T) {
			examples := consoleExamples(t, doc)
			if len(examples) < least {
				t.Fatalf("only %d examples found in %s", len(examples), doc)
			}
			dir := testbin.Demo(t, "testdata/demo")
			for _, ex := range examples {
				t.Run(ex.cmd, func(t *testing.T) {
					ex.run(t, doc, dir, testbin.Env(bin))
				})
			}
		})
	}
}
