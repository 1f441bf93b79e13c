package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/needs"
)

// compatCase is one block of testdata/query/corpus.txt (its header says
// what each field means).
type compatCase struct {
	line    int // where the block starts
	filter  string
	input   string
	hasIn   bool
	flags   []string
	args    []string
	files   map[string]string
	bytes   bool // cmp: bytes
	stderr  bool // cmp: stderr
	diff    string
	diffJQ  []string // the jq versions under which jq differs
	toonkit string
	hasTK   bool
	status  int
}

// readCorpus parses the corpus file.
func readCorpus(t *testing.T, path string) []compatCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []compatCase
	var cur *compatCase
	var ins, tks, fs []string
	flush := func() {
		if cur == nil {
			return
		}
		if cur.filter == "" && len(fs) == 0 {
			t.Fatalf("%s:%d: a block without f:", path, cur.line)
		}
		cur.filter = strings.Join(fs, "\n")
		if len(ins) > 0 {
			cur.input, cur.hasIn = strings.Join(ins, "\n")+"\n", true
		}
		if len(tks) > 0 {
			cur.hasTK = true
			if t := strings.Join(tks, "\n"); t != "" { // "toonkit:" alone: no output
				cur.toonkit = t + "\n"
			}
		}
		if (cur.diff == "") != !cur.hasTK {
			t.Fatalf("%s:%d: diff: and toonkit: go together", path, cur.line)
		}
		cases = append(cases, *cur)
		cur, ins, tks, fs = nil, nil, nil, nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s:%d: want KEY: VALUE, found %q", path, i+1, line)
		}
		val = strings.TrimPrefix(val, " ")
		if cur == nil {
			cur = &compatCase{line: i + 1}
		}
		switch key {
		case "f":
			fs = append(fs, val)
		case "in":
			ins = append(ins, val)
		case "flags":
			cur.flags = splitWords(val)
		case "args":
			cur.args = splitWords(val)
		case "file":
			name, content, _ := strings.Cut(val, " ")
			if cur.files == nil {
				cur.files = map[string]string{}
			}
			cur.files[name] = content
		case "cmp":
			for _, w := range strings.Fields(val) {
				switch w {
				case "bytes":
					cur.bytes = true
				case "stderr":
					cur.stderr = true
				default:
					t.Fatalf("%s:%d: cmp: %q", path, i+1, w)
				}
			}
		case "diff":
			w := strings.Fields(val)
			if len(w) == 0 {
				t.Fatalf("%s:%d: diff: without a name", path, i+1)
			}
			cur.diff, cur.diffJQ = w[0], w[1:]
		case "toonkit":
			tks = append(tks, val)
		case "status":
			if cur.status, err = strconv.Atoi(val); err != nil {
				t.Fatalf("%s:%d: %v", path, i+1, err)
			}
		default:
			t.Fatalf("%s:%d: unknown key %q", path, i+1, key)
		}
	}
	flush()
	return cases
}

// splitWords splits at spaces; '...' quotes a word holding spaces.
func splitWords(s string) []string {
	var words []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				end = len(s) - 1
			}
			words = append(words, s[1:end+1])
			s = s[min(end+2, len(s)):]
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		words = append(words, w)
		s = rest
	}
	return words
}

// result is one run's exit status and output.
type result struct {
	status         int
	stdout, stderr string
}

// runJQ runs jq with args on input, with a time limit (jq 1.6 loops
// forever on some filters, such as gsub("";"-")).
func runJQ(t *testing.T, jq string, input string, args []string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, jq, args...)
	c.Stdin = strings.NewReader(input)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("jq %q: no end after 20s", args)
	}
	var ee *exec.ExitError
	status := 0
	if errors.As(err, &ee) {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{status, out.String(), errOut.String()}
}

// queryRun runs toonkit query in-process with args on input.
func queryRun(t *testing.T, input string, args []string) result {
	t.Helper()
	return runToonkit(t, input, append([]string{"query"}, args...))
}

// runToonkit runs toonkit in-process with args on input, with a time
// limit.
func runToonkit(t *testing.T, input string, args []string) result {
	t.Helper()
	ios, in, out, errOut := Test()
	in.WriteString(input)
	done := make(chan int, 1)
	go func() { done <- Run(ios, args) }()
	select {
	case code := <-done:
		return result{code, out.String(), errOut.String()}
	case <-time.After(30 * time.Second):
		t.Fatalf("toonkit %q: no end after 30s", args)
		return result{}
	}
}

// jqVersion returns `jq --version`, e.g. "jq-1.6".
func jqVersion(t *testing.T, jq string) string {
	t.Helper()
	out, err := exec.Command(jq, "--version").Output()
	if err != nil {
		t.Fatalf("jq --version: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// jqGolden is where TestQueryJQCompat keeps what jq gave for each filter of
// the corpus, so that TestQueryJQGolden compares toonkit query with jq on
// every make test without running jq; -update-jq rewrites it from the
// live jq.
const jqGolden = "../testdata/query/jq.golden.json"

var updateJQ = flag.Bool("update-jq", false, "rewrite "+jqGolden+" from the live jq (TestQueryJQCompat)")

// jqRecord is jq's run of one filter, as the golden file keeps it: the
// case's temporary folder written as $DIR.
type jqRecord struct {
	Status int    `json:"status"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

type jqRecords struct {
	Version string              `json:"version"`
	Runs    map[string]jqRecord `json:"runs"` // by compatCase.key
}

// key names a case in the golden file: its line and its filter.
func (c compatCase) key() string {
	return fmt.Sprintf("%d:%s", c.line, strings.ReplaceAll(c.filter, "\n", " "))
}

// runCompat runs one case: toonkit query, and jq as jq runs it (live, or
// from the golden file), in a temporary folder holding the case's files.
func runCompat(t *testing.T, c compatCase, version string, jq func(dir string, args []string) result) {
	dir := t.TempDir()
	for n, content := range c.files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var args []string
	for _, f := range c.flags {
		args = append(args, strings.ReplaceAll(f, "$DIR", dir))
	}
	args = append(args, c.filter)
	args = append(args, c.args...)
	tk := queryRun(t, c.input, args)
	compareCompat(t, c, version, tk, jq(dir, args))
}

// TestQueryJQCompat runs every filter of the corpus with Debian's jq and
// with toonkit query, and compares their exit statuses and outputs (as
// values, or byte for byte where the block says so). A known difference
// asserts toonkit's own output, and that jq's differs from it under the jq
// versions the block names. jq's runs must be those of the golden file
// (-update-jq rewrites it).
func TestQueryJQCompat(t *testing.T) {
	needs.Slow(t, "runs jq beside query over the whole corpus")
	jq := needs.Program(t, "jq", "the jq-compatibility corpus compares toonkit query with jq (apt-get install jq)")
	cases := readCorpus(t, "../testdata/query/corpus.txt")
	if len(cases) < 100 {
		t.Fatalf("only %d filters in the corpus", len(cases))
	}
	golden := readJQGolden(t)
	live := jqRecords{Version: jqVersion(t, jq), Runs: map[string]jqRecord{}}
	// The golden file must be what this jq gives, when it is the jq that
	// wrote it; another jq is compared with toonkit all the same.
	checkGolden := !*updateJQ && live.Version == golden.Version
	if !*updateJQ && !checkGolden {
		t.Logf("%s holds the runs of %s, this jq is %s: the file is not checked", jqGolden, golden.Version, live.Version)
	}
	for _, c := range cases {
		t.Run(c.key(), func(t *testing.T) {
			runCompat(t, c, live.Version, func(dir string, args []string) result {
				j := runJQ(t, jq, c.input, args)
				rec := jqRecord{Status: j.status, Stdout: strings.ReplaceAll(j.stdout, dir, "$DIR"), Stderr: strings.ReplaceAll(j.stderr, dir, "$DIR")}
				live.Runs[c.key()] = rec
				if g, ok := golden.Runs[c.key()]; checkGolden && (!ok || g != rec) {
					t.Errorf("%s is not what jq gives: run the test with -update-jq\ngolden: %+v\njq:     %+v", jqGolden, g, rec)
				}
				return j
			})
		})
	}
	if *updateJQ && !t.Failed() {
		b, err := json.MarshalIndent(live, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(jqGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if checkGolden && len(live.Runs) != len(golden.Runs) {
		t.Errorf("%s holds %d runs, the corpus %d: run the test with -update-jq", jqGolden, len(golden.Runs), len(live.Runs))
	}
}

// TestQueryJQGolden is TestQueryJQCompat with jq's runs read from the
// golden file: every make test compares toonkit query with jq over the
// whole corpus, and test-slow checks the file against the live jq.
func TestQueryJQGolden(t *testing.T) {
	cases := readCorpus(t, "../testdata/query/corpus.txt")
	golden := readJQGolden(t)
	if len(golden.Runs) != len(cases) {
		t.Fatalf("%s holds %d runs, the corpus %d filters: run TestQueryJQCompat with -update-jq", jqGolden, len(golden.Runs), len(cases))
	}
	for _, c := range cases {
		t.Run(c.key(), func(t *testing.T) {
			runCompat(t, c, golden.Version, func(dir string, _ []string) result {
				g, ok := golden.Runs[c.key()]
				if !ok {
					t.Fatalf("not in %s: run TestQueryJQCompat with -update-jq", jqGolden)
				}
				return result{g.Status, strings.ReplaceAll(g.Stdout, "$DIR", dir), strings.ReplaceAll(g.Stderr, "$DIR", dir)}
			})
		})
	}
}

func readJQGolden(t *testing.T) jqRecords {
	t.Helper()
	var g jqRecords
	b, err := os.ReadFile(jqGolden)
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil && !(*updateJQ && errors.Is(err, os.ErrNotExist)) {
		t.Fatalf("%v (TestQueryJQCompat -update-jq writes it)", err)
	}
	return g
}

// compareCompat compares toonkit's run of a case with jq's, under jq
// version.
func compareCompat(t *testing.T, c compatCase, version string, tk, j result) {
	t.Helper()
	raw := c.bytes || slices.ContainsFunc(c.flags, isRawFlag)
	if c.diff == "" {
		if tk.status != j.status {
			t.Errorf("exit status %d, jq's %d\ntoonkit stderr: %s\njq stderr: %s", tk.status, j.status, tk.stderr, j.stderr)
		}
		if msg := sameOutput(tk.stdout, j.stdout, raw); msg != "" {
			t.Errorf("output differs from jq's (%s)\ntoonkit:\n%s\njq:\n%s", msg, tk.stdout, j.stdout)
		}
		if c.stderr && tk.stderr != j.stderr {
			t.Errorf("stderr %q, jq's %q", tk.stderr, j.stderr)
		}
		return
	}
	// A known difference: toonkit's own output, and jq's unlike it.
	if tk.status != c.status {
		t.Errorf("[%s] exit status %d, want %d\nstderr: %s", c.diff, tk.status, c.status, tk.stderr)
	}
	if msg := sameOutput(tk.stdout, c.toonkit, raw); msg != "" {
		t.Errorf("[%s] output differs from the corpus's (%s)\ntoonkit:\n%s\nwant:\n%s", c.diff, msg, tk.stdout, c.toonkit)
	}
	if !slices.Contains(c.diffJQ, version) {
		t.Logf("[%s] not a known difference under %s: jq gives (status %d)\n%s", c.diff, version, j.status, j.stdout)
	} else if sameOutput(j.stdout, c.toonkit, raw) == "" && j.status == c.status {
		t.Errorf("[%s] %s gives toonkit's output: the difference is gone, update the corpus and docs/commands/query.md\njq:\n%s", c.diff, version, j.stdout)
	}
}

// isRawFlag reports whether a flag makes jq write strings raw.
func isRawFlag(f string) bool {
	switch f {
	case "-r", "--raw-output", "-j", "--join-output", "-a", "--ascii-output":
		return true
	}
	return false
}

// sameOutput compares two outputs, byte for byte when raw, else as streams
// of JSON values: numbers exactly (as rationals), object members in any
// order. It returns why they differ, or "".
func sameOutput(a, b string, raw bool) string {
	if raw {
		if a != b {
			return "byte for byte"
		}
		return ""
	}
	va, err := jsonStream(a)
	if err != nil {
		return "not JSON: " + err.Error()
	}
	vb, err := jsonStream(b)
	if err != nil {
		return "the other is not JSON: " + err.Error()
	}
	if len(va) != len(vb) {
		return fmt.Sprintf("%d values, want %d", len(va), len(vb))
	}
	for i := range va {
		if !sameValue(va[i], vb[i]) {
			return fmt.Sprintf("value %d", i+1)
		}
	}
	return ""
}

func jsonStream(s string) ([]any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var vs []any
	for {
		var v any
		if err := d.Decode(&v); err == io.EOF {
			return vs, nil
		} else if err != nil {
			return vs, err
		}
		vs = append(vs, v)
	}
}

func sameValue(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, oka := new(big.Rat).SetString(string(a))
		rb, okb := new(big.Rat).SetString(string(b))
		return oka && okb && ra.Cmp(rb) == 0
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !sameValue(va, vb) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// The known differences the corpus names are the rows of the table in
// docs/commands/query.md, and each row is shown by the corpus.
func TestQueryDifferencesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/commands/query.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Differences from jq\n")
	if !ok {
		t.Fatal(`docs/commands/query.md has no "## Differences from jq"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	shown := map[string]bool{}
	for _, c := range readCorpus(t, "../testdata/query/corpus.txt") {
		if c.diff == "" {
			continue
		}
		shown[c.diff] = true
		if !documented[c.diff] {
			t.Errorf("corpus line %d: difference %q is not in the table of docs/commands/query.md", c.line, c.diff)
		}
	}
	for name := range documented {
		if !shown[name] {
			t.Errorf("docs/commands/query.md: difference %q is shown by no block of the corpus", name)
		}
	}
}

// The corpus parser's quoting and blocks.
func TestCorpusParsing(t *testing.T) {
	if got := splitWords(`-n --arg a 'x y' --argjson b {"c":1}`); !slices.Equal(got, []string{"-n", "--arg", "a", "x y", "--argjson", "b", `{"c":1}`}) {
		t.Errorf("splitWords: %q", got)
	}
	if sameOutput("1.0\n{\"a\":1,\"b\":2}", "1 {\"b\":2,\"a\":1}", false) != "" {
		t.Error("1.0 and 1, or members in another order, are the same values")
	}
	if sameOutput("12345678901234567890", "12345678901234567000", false) == "" {
		t.Error("numbers are compared exactly")
	}
}
