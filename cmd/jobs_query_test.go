package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// queryJobsInputs are JSON and NDJSON inputs several batches long, as
// files: compact, as Python writes them (json.dumps, and indent=2 with
// CRLF), with CRLF line ends, with a bad record, a repeated name and
// invalid UTF-8 mid-stream, and decode's records of the demo capture.
func queryJobsInputs(t *testing.T, dir string) []string {
	n := 6000
	if raceflag.Enabled {
		n = 1500 // the race detector is slow: a batch or two
	}
	var nd bytes.Buffer
	for i := range n {
		fmt.Fprintf(&nd, `{"id": %d, "name": "user %d \u00e9", "score": %d.50, "ok": %v, "tags": {"b": [%d], "a": null}}`+"\n", i, i, i, i%7 != 3, i)
	}
	good := nd.Bytes()
	late := bytes.IndexByte(good[len(good)*3/4:], '\n') + len(good)*3/4 + 1
	with := func(extra string) []byte {
		return append(append(append([]byte{}, good[:late]...), extra+"\n"...), good[late:]...)
	}
	one, _, _, _ := Test()
	var capOut bytes.Buffer
	one.Out = &capOut
	if code := Run(one, []string{"query", "-c", ".", "../testdata/demo/capture.bin"}); code != 0 {
		t.Fatalf("query the demo capture: exit %d", code)
	}
	inputs := map[string][]byte{
		"records.ndjson":   good,
		"python.ndjson":    pyjson.Dumps(t, good),
		"indent2crlf.json": pyjson.Dumps(t, good, "--indent", "2", "--crlf"),
		"crlf.ndjson":      bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")),
		"syntax.ndjson":    with(`{"id": 1, "name": tru}`),
		"repeated.ndjson":  with("{\"id\": 1, \"id\": 2, \"name\": \"\xff\"}"),
		"frames.ndjson":    bytes.Repeat(capOut.Bytes(), max(1, n/40)),
	}
	var names []string
	for name, data := range inputs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, path)
	}
	return names
}

// query --jobs 4 writes what --jobs 1 writes (stdout, stderr, exit
// status) over the demo data and generated inputs, good and bad, from
// files and standard input: runtime errors (the run goes on), -e, halt_error,
// raw output, --to ndjson and --to binary, several inputs in one run, and
// filters that run on one worker (input, -s, -n).
func TestQueryJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs query -j 1 and -j 4 over every filter")
	dir := t.TempDir()
	inputs := queryJobsInputs(t, dir)
	demo, _ := filepath.Glob("../testdata/demo/*.json")
	nds, _ := filepath.Glob("../testdata/demo/*.ndjson")
	qd, _ := filepath.Glob("../testdata/query/*.json")
	demo = append(append(demo, nds...), qd...)
	filters := [][]string{
		{"."},
		{"-c", `select(type == "object" and .id? % 3 == 0) | {name, id}`},
		{"-c", `if type == "object" and .id? % 500 == 7 then error("bad \(.id)") else .id? end`},
		{"-e", ".ok?"},
		{"-r", ".name? // empty"},
		{"-S", "--indent", "3", ".tags? // ."},
		{"--to", "ndjson", `.a = 1`},
		{"--to", "tabular", `select(type == "object" and has("name")) | {id, name}`},
		{"--to", "toon", `select(type == "object") | .id`},
		{"-c", `if type == "object" and .id == 4321 then ("stop\n" | halt_error(3)) else .id? end`},
		{"-c", "[., input?]"},
		{"-s", "-c", "length"},
	}
	if raceflag.Enabled {
		filters = filters[1:4]
	}
	check := func(label string, stdin []byte, args ...string) {
		t.Helper()
		a := append([]string{"query"}, args...)
		one := runJobs(t, stdin, dir, append(a, "--jobs", "1")...)
		four := runJobs(t, stdin, dir, append(a, "--jobs", "4")...)
		if one != four {
			t.Errorf("%s %q: --jobs 4 differs from --jobs 1:\n--jobs 1: %d %d bytes %.300q\n--jobs 4: %d %d bytes %.300q\nfirst difference: %s",
				label, args, one.code, len(one.out), one.err, four.code, len(four.out), four.err, firstLineDiff(one.out, four.out))
		}
	}
	for _, f := range filters {
		for _, path := range append(inputs, demo...) {
			check(filepath.Base(path), nil, append(f, path)...)
		}
		check("several", nil, append(f, inputs[0], "../testdata/demo/users.toon", inputs[1])...)
		data, err := os.ReadFile(inputs[0])
		if err != nil {
			t.Fatal(err)
		}
		check("stdin", data, append(f, "-")...)
	}
	for _, path := range inputs {
		if strings.HasSuffix(path, "frames.ndjson") {
			check("binary", nil, "--to", "binary", `select(.header.seq % 2 == 0)`, path)
			check("binary", nil, "--to", "binary", `.`, inputs[0])
		}
	}
}

// firstLineDiff is the first line where a and b differ.
func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %.200q vs %.200q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(al), len(bl))
}

// query --jobs 4 passes a live stream on record by record, on the workers,
// and after a record that comes in two pieces (the workers leave it and
// the rest of the stream to the single-worker loop).
func TestQueryJobsLive(t *testing.T) {
	var steps [][][]byte
	for i := range 8 {
		steps = append(steps, [][]byte{fmt.Appendf(nil, "{\"a\": %d}\n", i)})
	}
	steps[4] = [][]byte{[]byte("{\"a\":\n"), []byte("4}\n")}
	checkLive(t, []string{"query", "-c", ".a", "--jobs", "4"}, steps, wantLine)
}

// query --jobs 4 passes on a value of a live stream that no line end
// follows yet (the single-worker loop takes the stream on from it).
func TestQueryJobsLiveNoLineEnd(t *testing.T) {
	steps := [][][]byte{{[]byte("{\"a\": 0}\n")}, {[]byte("{\"a\": 1}")}, {[]byte("\n{\"a\": 2}\n")}}
	checkLive(t, []string{"query", "-c", ".a", "--jobs", "4"}, steps, wantLine)
}

// wantLine reads the output line of step i of a live query -c .a: i.
func wantLine(r *bufio.Reader, i int) error {
	line, err := r.ReadString('\n')
	if want := fmt.Sprintf("%d\n", i); err == nil && line != want {
		return fmt.Errorf("%q, want %q", line, want)
	}
	return err
}
