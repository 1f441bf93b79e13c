package main

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

// The command corpus: every command line of testdata/corpus/commands.txt is
// run, and its stdout, stderr, exit status and the files it writes are
// compared with testdata/corpus/golden.txtar, which the binary of the main
// a change starts from wrote (issue 32, "Outputs unchanged"):
//
//	TOONKIT_CORPUS_BIN=/tmp/base/toonkit go test -run TestCorpus -update-corpus .
//
// Without TOONKIT_CORPUS_BIN the binary run is this test binary as toonkit
// (TestMain's testscript.Main), that is the current tree.
var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/corpus/golden.txtar with the outputs of the binary run")

const (
	corpusCommands = "testdata/corpus/commands.txt"
	corpusGolden   = "testdata/corpus/golden.txtar"
)

// corpusEntry is one run: its line in commands.txt (after {j} expansion),
// the arguments and the file given as stdin, if any.
type corpusEntry struct {
	line  string
	args  []string
	stdin string
	// pair names the entry with the other worker count of the same line
	// ({j} expansion), whose outputs must be the same.
	pair string
}

// parseCorpus reads commands.txt: one command line each (toonkit's
// arguments, no shell), '#' comments and blank lines skipped; 'single
// quotes' keep spaces; a last "< FILE" is the standard input. {j} expands
// the line twice, with -j 1 and -j 2, and {jobs} with --jobs 1 and --jobs 2.
func parseCorpus(t *testing.T, text string) []corpusEntry {
	t.Helper()
	var out []corpusEntry
	seen := map[string]bool{}
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		variants := []string{line}
		for tok, flagName := range map[string]string{"{j}": "-j", "{jobs}": "--jobs"} {
			if strings.Contains(line, tok) {
				variants = []string{
					strings.Replace(line, tok, flagName+" 1", 1),
					strings.Replace(line, tok, flagName+" 2", 1),
				}
			}
		}
		var group []corpusEntry
		for _, v := range variants {
			words, err := splitWords(v)
			if err != nil {
				t.Fatalf("%s:%d: %v", corpusCommands, n+1, err)
			}
			e := corpusEntry{line: v}
			if len(words) >= 2 && words[len(words)-2] == "<" {
				e.stdin = words[len(words)-1]
				words = words[:len(words)-2]
			}
			e.args = words
			if seen[v] {
				t.Fatalf("%s:%d: %q is there twice", corpusCommands, n+1, v)
			}
			seen[v] = true
			group = append(group, e)
		}
		if len(group) == 2 {
			group[0].pair, group[1].pair = group[1].line, group[0].line
		}
		out = append(out, group...)
	}
	return out
}

// splitWords splits a line at spaces; 'single quotes' hold a word with spaces.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, inQuote := false, false
	for _, r := range s {
		switch {
		case inQuote && r == '\'':
			inQuote = false
		case inQuote:
			cur.WriteRune(r)
		case r == '\'':
			inQuote, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unclosed quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// corpusResult is what one run produced, as golden sections: stdout,
// stderr, status and each file written in the working directory.
type corpusResult map[string][]byte

// versionLine is the output of --version, whose version depends on how the
// binary was built (the base is stamped "devel", a test binary is not).
var versionLine = regexp.MustCompile(`(?m)^toonkit version \S+$|^toonkit \S+( \(TOON spec v[0-9.]+\))?\n\z`)

// versionWord is the version in versionLine's match.
var versionWord = regexp.MustCompile(`^toonkit \S+`)

// keyMode is the mode in the warning about a key file others can read: the
// mode of testdata/demo/audit.key is the checkout's (git keeps no more than
// the executable bit), 0644 or 0664 by the umask.
var keyMode = regexp.MustCompile(`readable by group or others \(mode 0[0-7]{3}\)`)

// runCorpusEntry runs one entry in a directory of its own, where testdata
// is a link to the repository's testdata, so that every path the commands
// see is relative and files they write land there. Normalised, and only
// these: the working directory's path (as $WORK), the version of
// --version (as $VERSION) and the mode of a key file (as $MODE). The clock
// of seal's sealed_at and of junit's times is stopped (SOURCE_DATE_EPOCH),
// exec's request id is given (--request-id), encode's timestamps too.
func runCorpusEntry(t *testing.T, bin, testdata string, e corpusEntry) corpusResult {
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Symlink(testdata, filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, e.args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=", "CLICOLOR=", "CLICOLOR_FORCE=", "TERM=dumb", "TZ=UTC", "LC_ALL=C",
		// seal's sealed_at and junit's times: a clock stopped, not normalised.
		"SOURCE_DATE_EPOCH=1735689600")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if e.stdin != "" {
		f, err := os.Open(filepath.Join(testdata, "..", e.stdin))
		if err != nil {
			t.Fatalf("%s: stdin: %v", e.line, err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	status := 0
	start := time.Now()
	err = cmd.Run()
	if d := time.Since(start); d > time.Second {
		t.Logf("%s: took %v", e.line, d)
	}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", e.line, err)
		}
		status = ee.ExitCode()
	}
	norm := func(b []byte) []byte {
		b = keyMode.ReplaceAllLiteral(b, []byte("readable by group or others (mode $MODE)"))
		b = bytes.ReplaceAll(b, []byte(dir), []byte("$WORK"))
		if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
			b = bytes.ReplaceAll(b, []byte(real), []byte("$WORK"))
		}
		return b
	}
	r := corpusResult{
		"stdout": norm(stdout.Bytes()),
		"stderr": norm(stderr.Bytes()),
		"status": []byte(fmt.Sprintf("%d\n", status)),
	}
	if len(e.args) == 1 && (e.args[0] == "--version" || e.args[0] == "-v") {
		r["stdout"] = versionLine.ReplaceAllFunc(r["stdout"], func(m []byte) []byte {
			return versionWord.ReplaceAllLiteral(m, []byte("toonkit $VERSION"))
		})
	}
	entries, _ := os.ReadDir(dir)
	for _, de := range entries {
		if de.Name() == "testdata" || de.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		r["file "+de.Name()] = norm(b)
	}
	return r
}

// encodeSection stores text as it is, and anything txtar cannot hold
// exactly (not UTF-8, no final newline, a line starting "-- ") as hex, in a
// section whose name ends in ".hex".
func encodeSection(name string, b []byte) txtar.File {
	if len(b) == 0 || (utf8.Valid(b) && b[len(b)-1] == '\n' && !bytes.HasPrefix(b, []byte("-- ")) && !bytes.Contains(b, []byte("\n-- "))) {
		return txtar.File{Name: name, Data: b}
	}
	var sb strings.Builder
	for i := 0; i < len(b); i += 32 {
		sb.WriteString(hex.EncodeToString(b[i:min(i+32, len(b))]))
		sb.WriteByte('\n')
	}
	return txtar.File{Name: name + ".hex", Data: []byte(sb.String())}
}

const corpusSep = " :: "

func TestCorpus(t *testing.T) {
	t.Parallel() // beside the scripts and the examples: each runs the binary in its own folder
	text, err := os.ReadFile(corpusCommands)
	if err != nil {
		t.Fatal(err)
	}
	entries := parseCorpus(t, string(text))
	if testing.Short() && !*updateCorpus {
		// The -j 2 line of each pair is checked against its -j 1 line only,
		// not against the golden file: make test-slow runs it; under -short
		// each record command's own tests compare -j 1 with -j 2.
		kept := entries[:0]
		for _, e := range entries {
			if e.pair == "" || e.line < e.pair {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("TOONKIT_CORPUS_BIN")
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(t.TempDir(), "toonkit")
		if err := os.Symlink(exe, bin); err != nil {
			t.Fatal(err)
		}
	}

	results := make([]corpusResult, len(entries))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runCorpusEntry(t, bin, testdata, entries[i])
			}
		}()
	}
	for i := range entries {
		next <- i
	}
	close(next)
	wg.Wait()

	// The archive: for each entry, its sections in a fixed order.
	var got txtar.Archive
	got.Comment = []byte("Written by TestCorpus -update-corpus (corpus_test.go) from " + corpusCommands + ": do not edit.\n")
	byLine := map[string]corpusResult{}
	for i, e := range entries {
		r := results[i]
		byLine[e.line] = r
		if e.pair != "" && e.line > e.pair {
			// The -j 2 line of a pair: checked against its -j 1 line below,
			// which the golden file holds.
			continue
		}
		names := make([]string, 0, len(r))
		for k := range r {
			names = append(names, k)
		}
		sort.Slice(names, func(a, b int) bool {
			return sectionRank(names[a]) < sectionRank(names[b]) || sectionRank(names[a]) == sectionRank(names[b]) && names[a] < names[b]
		})
		for _, k := range names {
			got.Files = append(got.Files, encodeSection(e.line+corpusSep+k, r[k]))
		}
	}

	// -j 1 and -j 2 of a line give the same outputs.
	for _, e := range entries {
		if e.pair == "" || e.line > e.pair {
			continue
		}
		a, b := byLine[e.line], byLine[e.pair]
		if b == nil {
			continue // -short
		}
		for k := range mergeKeys(a, b) {
			if !bytes.Equal(a[k], b[k]) {
				t.Errorf("%s and %s differ in %s:\n%s", e.line, e.pair, k, lineDiff(a[k], b[k]))
			}
		}
	}

	if *updateCorpus {
		if err := os.WriteFile(corpusGolden, txtar.Format(&got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d commands, with %s", corpusGolden, len(entries), bin)
		return
	}
	wantText, err := os.ReadFile(corpusGolden)
	if err != nil {
		t.Fatalf("%v (run with -update-corpus, and TOONKIT_CORPUS_BIN set to the base binary)", err)
	}
	want := map[string][]byte{}
	for _, f := range txtar.Parse(wantText).Files {
		want[f.Name] = f.Data
	}
	have := map[string]bool{}
	for _, f := range got.Files {
		have[f.Name] = true
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("%s: not in %s (run with -update-corpus)", f.Name, corpusGolden)
			continue
		}
		if !bytes.Equal(w, f.Data) {
			t.Errorf("%s differs from %s:\n%s", f.Name, corpusGolden, lineDiff(w, f.Data))
		}
	}
	for name := range want {
		if !have[name] {
			t.Errorf("%s: in %s but not written now (run with -update-corpus)", name, corpusGolden)
		}
	}
}

func sectionRank(name string) int {
	switch name {
	case "status":
		return 0
	case "stdout":
		return 1
	case "stderr":
		return 2
	}
	return 3
}

func mergeKeys(a, b corpusResult) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// lineDiff shows the lines where want and got part: the first difference
// with a few lines of context, - for want and + for got.
func lineDiff(want, got []byte) string {
	w := strings.SplitAfter(string(want), "\n")
	g := strings.SplitAfter(string(got), "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "first difference at line %d (want %d lines, got %d):\n", i+1, len(w), len(g))
	for j := max(0, i-2); j < i; j++ {
		fmt.Fprintf(&sb, "  %q\n", w[j])
	}
	for j := i; j < min(len(w), i+5); j++ {
		fmt.Fprintf(&sb, "- %q\n", w[j])
	}
	for j := i; j < min(len(g), i+5); j++ {
		fmt.Fprintf(&sb, "+ %q\n", g[j])
	}
	return sb.String()
}
