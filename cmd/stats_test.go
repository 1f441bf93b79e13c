package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/tokens"
)

// statsFigures runs a command with --stats and returns the output's bytes,
// characters and tokens from its table on stderr.
func statsFigures(t *testing.T, args ...string) [3]int64 {
	t.Helper()
	ios, _, _, errOut := Test()
	if code := Run(ios, args); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	m := regexp.MustCompile(`(?m)^  output as \S+ +(\d+) +(\d+) +(\d+)$`).FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("%v: no output figures in %q", args, errOut)
	}
	var f [3]int64
	for i := range f {
		f[i], _ = strconv.ParseInt(m[i+1], 10, 64)
	}
	return f
}

// The counts of toonkit stats are those that encode --to toon --stats and
// convert --stats give for the same data and tokenizer, for compact and
// Python-formatted input, and for NDJSON with CRLF line ends of more than
// one batch, a table whose TOON form turns into a list near its end (so
// that stats measures it in batches and counts the records before again).
func TestStatsAgreesWithStatsFlag(t *testing.T) {
	dir := t.TempDir()
	users, err := os.ReadFile("../testdata/demo/users.json")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{"../testdata/demo/users.json"}
	for _, style := range pyjson.Styles {
		p := filepath.Join(dir, style.Name+".json")
		os.WriteFile(p, pyjson.Dumps(t, users, style.Flags...), 0o644)
		inputs = append(inputs, p)
	}
	var nd []byte
	for i := range 5000 { // about 360 KB of records, two batches
		if i == 4900 {
			nd = append(nd, "{\"id\":4900,\"name\":{\"first\":\"Zoë\"},\"tags\":[\"a\"]}\r\n"...)
			continue
		}
		nd = fmt.Appendf(nd, "{\"id\": %d, \"name\": \"User %d, the %dth\", \"ok\": %t, \"note\": \"a|b\\tc\\r\\nd\"}\r\n", i, i, i, i%3 == 0)
	}
	p := filepath.Join(dir, "records.ndjson")
	os.WriteFile(p, nd, 0o644)
	inputs = append(inputs, p)
	type row struct {
		Format string
		Bytes  int64
		Chars  int64
		Tokens map[string]int64
		// Unavailable: convert --to tabular refuses the table too.
		Unavailable string
	}
	for _, in := range inputs {
		ios, _, out, errOut := Test()
		if code := Run(ios, []string{"stats", "--among", "all", "--report", "json", in}); code != 0 {
			t.Fatalf("stats %s: exit %d: %s", in, code, errOut)
		}
		var rep struct{ Formats []row }
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Formats) != 6 {
			t.Fatalf("%s: %d formats", in, len(rep.Formats))
		}
		for _, tok := range tokens.Encodings {
			for _, r := range rep.Formats {
				var args []string
				switch r.Format {
				case "json":
					continue // the input row of every --stats, below
				case "json-indent":
					args = []string{"convert", "--to", "json"}
				case "toon-comma", "toon-tab", "toon-pipe":
					args = []string{"encode", "--to", "toon", "--delimiter", r.Format[5:]}
				case "tabular":
					args = []string{"convert", "--to", "tabular"}
					if r.Unavailable != "" {
						ios, _, _, _ := Test()
						if code := Run(ios, append(args, in)); code != 1 {
							t.Errorf("%s: stats says %q, convert --to tabular exits %d", in, r.Unavailable, code)
						}
						continue
					}
				}
				got := statsFigures(t, append(args, "--stats", "--tokenizer", tok, in)...)
				if want := [3]int64{r.Bytes, r.Chars, r.Tokens[tok]}; got != want {
					t.Errorf("%s: %s by %s: --stats says %v, stats %v", in, r.Format, tok, got, want)
				}
			}
			ios, _, _, errOut := Test()
			Run(ios, []string{"encode", "--to", "toon", "--stats", "--tokenizer", tok, in})
			m := regexp.MustCompile(`(?m)^  input as compact JSON +(\d+) +(\d+) +(\d+)$`).FindStringSubmatch(errOut.String())
			if want := rep.Formats[0]; m == nil || m[1] != strconv.FormatInt(want.Bytes, 10) || m[3] != strconv.FormatInt(want.Tokens[tok], 10) {
				t.Errorf("%s: compact JSON by %s: --stats says %q, stats %+v", in, tok, m, want)
			}
		}
	}
}

// Over 50 MB of records, stats shows its progress on stderr when stderr is
// a terminal, and clears the line before the report; not otherwise, nor
// under the threshold.
func TestStatsProgress(t *testing.T) {
	defer func(n int) { convert.ProgressBytes = n }(convert.ProgressBytes)
	convert.ProgressBytes = 10
	for _, c := range []struct {
		tty       bool
		jobs      string
		threshold int
	}{{true, "1", 10}, {true, "4", 10}, {false, "1", 10}, {true, "1", 16}} {
		tty := c.tty && c.threshold < 16
		convert.ProgressBytes = c.threshold
		ios, in, out, errOut := Test()
		ios.SetStderrTTY(c.tty)
		in.WriteString(`[{"a":1},{"a":2}]`)
		if code := Run(ios, []string{"stats", "-j", c.jobs, "--tokenizer", "o200k_base"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := ""
		if tty {
			// One batch of 16 bytes of records (each with its line feed),
			// past the 10 bytes from which the line shows.
			want = "\r\x1b[Ktoonkit: stats: 0 MB of records counted..." + "\r\x1b[K"
		}
		if errOut.String() != want {
			t.Errorf("tty %v: stderr %q, want %q", tty, errOut, want)
		}
		if !regexp.MustCompile(`(?m)^toon-comma +15 +15 +13$`).MatchString(out.String()) {
			t.Errorf("tty %v: stdout %q", tty, out)
		}
	}
}

// A real file, as Launchpad's API wrote it (wadllib's test data, in
// Debian's python3-wadllib): 3,548 tokens as given (escaped slashes, a
// space after each colon), 3,057 as compact JSON. --stats says both
// savings, 33.2% against the input as given (the reference CLI's --stats
// estimates 33.3% for it) and 22.5% against compact JSON, and --to
// cheapest writes TOON.
func TestStatsRealFile(t *testing.T) {
	const path = "/usr/lib/python3/dist-packages/wadllib/tests/data/personset.json"
	if _, err := os.Stat(path); err != nil {
		t.Skip("no", path, "on this machine")
	}
	ios, _, _, errOut := Test()
	if code := Run(ios, []string{"encode", "--stats", path}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"toonkit: stats (tokens counted by the o200k_base tokenizer)\n",
		"\n  input as given                  13023      13023       3548\n",
		"\n  input as compact JSON           12077      12075       3057\n",
		"\n  saving vs input as given        36.6%      36.6%      33.2%\n",
		"\n  saving vs compact JSON          31.7%      31.7%      22.5%\n",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	ios, _, out, errOut := Test()
	if code := Run(ios, []string{"convert", "--to", "cheapest", path}); code != 0 || strings.HasPrefix(out.String(), "@toon") {
		t.Fatalf("cheapest: exit %d, %.40q: %s", code, out, errOut)
	}
}

// decode --stats counts what it says: the TOON as given (a reference CLI
// file, CRLF and a BOM-less UTF-8 file of the demo), the JSON it writes
// (indented, -c, NDJSON records) and the value as compact JSON, each
// figure that of a Counter over the same bytes; the output is the same as
// without --stats.
func TestDecodeStatsCounts(t *testing.T) {
	dir := t.TempDir()
	demo, err := os.ReadFile("../testdata/demo/agent.toon")
	if err != nil {
		t.Fatal(err)
	}
	crlf := filepath.Join(dir, "crlf.toon")
	os.WriteFile(crlf, []byte(strings.ReplaceAll(string(demo), "\n", "\r\n")), 0o644)
	row := regexp.MustCompile(`(?m)^  (input as given \(toon\)|output as \S+|output as compact JSON) +(\d+) +(\d+) +(\d+)$`)
	count := func(b []byte) string {
		c, _ := tokens.NewCounter(tokens.Encodings[1])
		n, _ := c.Count(b)
		return fmt.Sprintf("%d %d %d", n.Bytes, n.Chars, n.Tokens)
	}
	run := func(args ...string) (string, string) {
		ios, _, out, errOut := Test()
		if code := Run(ios, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String(), errOut.String()
	}
	for _, in := range []string{"../testdata/demo/agent.toon", crlf} {
		given, _ := os.ReadFile(in)
		compact, _ := run("decode", "-c", in)
		for _, flags := range [][]string{nil, {"-c"}, {"-o", filepath.Join(dir, "out.ndjson")}} {
			plain, _ := run(append([]string{"decode", in}, flags...)...)
			args := append([]string{"decode", "--stats", "--tokenizer", tokens.Encodings[1], in}, flags...)
			out, table := run(args...)
			if out != plain {
				t.Errorf("%v: the output differs from decode's without --stats", args)
			}
			written := []byte(out)
			if len(flags) == 2 {
				written, _ = os.ReadFile(flags[1])
			}
			rows := row.FindAllStringSubmatch(table, -1)
			if len(rows) != 3 {
				t.Fatalf("%v: table %q", args, table)
			}
			for i, want := range []string{count(given), count(written), count([]byte(strings.TrimSuffix(compact, "\n")))} {
				if got := rows[i][2] + " " + rows[i][3] + " " + rows[i][4]; got != want {
					t.Errorf("%v: %s: %s, want %s", args, rows[i][1], got, want)
				}
			}
			if !strings.Contains(table, "tokens counted by the "+tokens.Encodings[1]+" tokenizer") {
				t.Errorf("%v: %q names no tokenizer", args, table)
			}
		}
	}
}
