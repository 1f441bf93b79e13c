package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/cmd"
)

// The committed completions and man pages must match the command tree:
// run `make completions man` after changing a command or flag.
func TestGeneratedFilesAreFresh(t *testing.T) {
	for _, c := range []struct {
		dir string
		gen func() (map[string][]byte, error)
		fix string
	}{
		{"../../completions", completions, "make completions"},
		{"../../docs/man", manPages, "make man"},
	} {
		want, err := c.gen()
		if err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(c.dir)
		if err != nil {
			t.Fatalf("%s: %v (run %s)", c.dir, err, c.fix)
		}
		var have, need []string
		for _, e := range entries {
			have = append(have, e.Name())
		}
		for name, b := range want {
			need = append(need, name)
			got, err := os.ReadFile(filepath.Join(c.dir, name))
			if err != nil {
				t.Errorf("%s is missing: run %s", filepath.Join(c.dir, name), c.fix)
				continue
			}
			if string(got) != string(b) {
				t.Errorf("%s is stale: run %s\n%s", filepath.Join(c.dir, name), c.fix, cmp.Diff(string(b), string(got)))
			}
		}
		sort.Strings(need)
		if diff := cmp.Diff(need, have); diff != "" {
			t.Errorf("%s holds other files than the generator writes (-want +have):\n%s", c.dir, diff)
		}
	}
}

// Generation is reproducible: two runs give the same bytes.
func TestManPagesReproducible(t *testing.T) {
	a, err := manPages()
	if err != nil {
		t.Fatal(err)
	}
	b, err := manPages()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("man pages differ between runs:\n%s", diff)
	}
	if len(a["toonkit.1"]) == 0 || len(a["toonkit-decode.1"]) == 0 {
		t.Fatalf("missing pages: %v", len(a))
	}
}

// `toonkit completion SHELL` prints the very scripts that make install
// installs from completions/.
func TestCompletionCommandPrintsTheFiles(t *testing.T) {
	files, err := completions()
	if err != nil {
		t.Fatal(err)
	}
	for shell, name := range map[string]string{"bash": "toonkit.bash", "zsh": "toonkit.zsh", "fish": "toonkit.fish", "powershell": "toonkit.ps1"} {
		ios, _, out, errOut := cmd.Test()
		if code := cmd.Run(ios, []string{"completion", shell}); code != 0 {
			t.Fatalf("completion %s: exit %d: %s", shell, code, errOut)
		}
		if out.String() != string(files[name]) {
			t.Errorf("toonkit completion %s differs from %s:\n%s", shell, name, cmp.Diff(string(files[name]), out.String()))
		}
	}
}

// The root help's table of formats is one line per row in the man page, as
// in the help; Markdown refilled it into a paragraph.
func TestManPageKeepsIndentedBlocks(t *testing.T) {
	pages, err := manPages()
	if err != nil {
		t.Fatal(err)
	}
	page := string(pages["toonkit.1"])
	for _, row := range []string{
		"\nformat                  name        commands\n",
		"\nKado binary frames      binary      encode, decode, convert, inspect, validate\n",
		"\nNarratoria tool events  narratoria  convert, validate, exec\n",
	} {
		if !strings.Contains(page, row) {
			t.Errorf("toonkit.1 lacks the line %q", row)
		}
	}
	if got, want := preformat("text\n\n  a  b\n  c  d\n\nmore\n  not a block"), "text\n\n    a  b\n    c  d\n\nmore\n  not a block"; got != want {
		t.Errorf("preformat = %q, want %q", got, want)
	}
}
