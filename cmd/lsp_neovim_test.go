package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
)

// A real editor: Debian's Neovim, headless, runs `toonkit lsp` on a
// broken document (testdata/neovim/lsp_test.lua), receives its
// diagnostics, fixes the count by a one-character edit (incremental
// sync), sees them clear, and formats the buffer.
func TestNeovimLSP(t *testing.T) {
	nvim := needs.Program(t, "nvim", "the language server is tried in Neovim (Debian's neovim; .ci/run installs it)")
	bin := testbin.Build(t, "..")
	dir := t.TempDir()
	doc := filepath.Join(dir, "agent.toon")
	src := "# the agent's tools\ntools[2]:\n  - name: search\n    timeout: 30\n  - name: \"fetch\"\n    timeout: 10.0\n  - name: read\n    timeout: 5\n"
	if err := os.WriteFile(doc, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/neovim/lsp_test.lua")
	if err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(dir, "out.txt")
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", doc, "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TOONKIT_BIN="+bin, "TOONKIT_OUT="+outFile, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	want := `diagnostic 7:3 TOON002 array declares 2 items, found a 3rd
fixed: no diagnostics
buffer: # the agent's tools
buffer: tools[3]{name,timeout}:
buffer:   search,30
buffer:   fetch,10
buffer:   read,5
`
	if string(got) != want {
		t.Fatalf("Neovim saw:\n%s\nwant:\n%s", got, want)
	}
	if b, _ := os.ReadFile(doc); string(b) != src {
		t.Errorf("the file changed on disk: only the buffer is formatted")
	}
}
