// Command gendocs writes toonkit's shell completions and man pages:
//
//	go run ./scripts/gendocs -completions completions -man docs/man
//
// The man-page generator (cobra/doc and go-md2man) lives here, not in
// package cmd, so that it is not linked into the toonkit binary. A test
// (main_test.go) fails when the committed files are stale.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/toonkit/toonkit/cmd"
)

func main() {
	comp := flag.String("completions", "", "write completions to `DIR`")
	man := flag.String("man", "", "write man pages to `DIR`")
	flag.Parse()
	if *comp == "" && *man == "" {
		fmt.Fprintln(os.Stderr, "gendocs: give -completions DIR and/or -man DIR")
		os.Exit(2)
	}
	for _, job := range []struct {
		dir string
		gen func() (map[string][]byte, error)
	}{{*comp, completions}, {*man, manPages}} {
		if job.dir == "" {
			continue
		}
		files, err := job.gen()
		if err == nil {
			err = writeFiles(job.dir, files)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gendocs:", err)
			os.Exit(1)
		}
		fmt.Printf("wrote %d files to %s\n", len(files), job.dir)
	}
}

// docsRoot is the command tree as the generated files describe it: no
// terminal, default flags.
func docsRoot() *cobra.Command {
	ios, _, _, _ := cmd.Test()
	root := cmd.NewRootCmd(ios)
	root.DisableAutoGenTag = true
	return root
}

// completions returns the shell completion scripts by file name
// (toonkit.bash, toonkit.zsh, toonkit.fish, toonkit.ps1).
func completions() (map[string][]byte, error) {
	root := docsRoot()
	out := map[string][]byte{}
	for name, gen := range map[string]func(*bytes.Buffer) error{
		"toonkit.bash": func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		"toonkit.zsh":  func(b *bytes.Buffer) error { return root.GenZshCompletion(b) },
		"toonkit.fish": func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
		"toonkit.ps1":  func(b *bytes.Buffer) error { return root.GenPowerShellCompletionWithDesc(b) },
	} {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = b.Bytes()
	}
	return out, nil
}

// manDate is fixed so that the man pages are reproducible.
var manDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// manPages returns the man pages (section 1) by file name.
func manPages() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "toonkit-man-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	header := &doc.GenManHeader{Title: "TOONKIT", Section: "1", Date: &manDate, Source: "toonkit", Manual: "toonkit manual"}
	root := docsRoot()
	preformatIndented(root)
	if err := withReference(root); err != nil {
		return nil, err
	}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = b
	}
	return out, nil
}

// preformatIndented makes the indented blocks of each command's long help
// (tables, lists, sample output) Markdown code blocks, which the man page
// keeps line for line; as plain Markdown they were refilled into
// paragraphs. A block is a run of lines indented by two spaces or more
// after a blank line.
func preformatIndented(c *cobra.Command) {
	c.Long = preformat(c.Long)
	for _, sub := range c.Commands() {
		preformatIndented(sub)
	}
}

func preformat(long string) string {
	lines := strings.Split(long, "\n")
	inBlock := false
	for i, l := range lines {
		indented := strings.HasPrefix(l, "  ")
		switch {
		case indented && (inBlock || i == 0 || strings.TrimSpace(lines[i-1]) == ""):
			inBlock = true
			lines[i] = "  " + l
		case strings.TrimSpace(l) == "":
			// a blank line inside a block keeps it open
		default:
			inBlock = false
		}
	}
	return strings.Join(lines, "\n")
}

// withReference makes each command's man page carry the reference of
// docs/commands/NAME.md after the help's description, in place of the
// help's pointer to it: the help is short, the man page complete.
func withReference(root *cobra.Command) error {
	dir, err := repoRoot()
	if err != nil {
		return err
	}
	for _, c := range root.Commands() {
		b, err := os.ReadFile(filepath.Join(dir, "docs", "commands", c.Name()+".md"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		ref := string(b)
		if strings.HasPrefix(ref, "# ") { // the title: the man page has its own
			_, ref, _ = strings.Cut(ref, "\n")
		}
		long, _, _ := strings.Cut(c.Long, "\n\nThe full reference: ")
		c.Long = long + "\n\n# REFERENCE\n" + ref
	}
	return nil
}

// repoRoot is the folder of go.mod, from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// writeFiles replaces the files of dir with the given ones.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := os.ReadDir(dir)
	for _, e := range old {
		if _, keep := files[e.Name()]; !keep && !e.IsDir() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
