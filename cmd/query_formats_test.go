package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// ok returns the run's output, or fails the test unless it exited 0.
func (r result) ok(t *testing.T, what string) string {
	t.Helper()
	if r.status != 0 {
		t.Fatalf("%s: exit status %d\n%s", what, r.status, r.stderr)
	}
	return r.stdout
}

// jqOK runs jq with args on input and fails the test unless it exits 0.
func jqOK(t *testing.T, jq, input string, args ...string) string {
	t.Helper()
	r := runJQ(t, jq, input, args)
	if r.status != 0 {
		t.Fatalf("jq %q: exit status %d\n%s", args, r.status, r.stderr)
	}
	return r.stdout
}

// demoFile reads a file of testdata/demo.
func demoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../testdata/demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameInOrder reports whether two outputs of -c hold the same values with
// their object members in the same order, numbers compared as numbers;
// with -r, byte for byte.
func sameInOrder(t *testing.T, a, b string, flags []string) bool {
	t.Helper()
	if slices.Contains(flags, "-r") {
		return a == b
	}
	ta, err := orderedTokens(a)
	if err != nil {
		t.Errorf("not JSON: %v", err)
		return false
	}
	tb, err := orderedTokens(b)
	if err != nil {
		t.Errorf("not JSON: %v", err)
		return false
	}
	return slices.Equal(ta, tb)
}

// orderedTokens returns the JSON tokens of a stream of values in order,
// numbers as exact rationals.
func orderedTokens(s string) ([]string, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var toks []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return toks, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case json.Number:
			r, ok := new(big.Rat).SetString(string(tok))
			if !ok {
				return nil, fmt.Errorf("number %s", tok)
			}
			toks = append(toks, r.RatString())
		case string:
			toks = append(toks, strconv.Quote(tok))
		default:
			toks = append(toks, fmt.Sprint(tok))
		}
	}
}

// clip shortens a long output for a failure message.
func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "..."
	}
	return s
}

// TOON, tabular and frame inputs: `toonkit query -c F FILE` writes what
// `toonkit decode FILE | jq -c F` writes: the same values with their
// members in the same order (objects passed through keep their key order;
// decode keeps it, and so does jq). Numbers are compared as numbers: jq 1.6
// writes a passed-through 1.0 as 1, toonkit as 1.0 (decimal-literals in
// docs/commands/query.md).
func TestQueryInputsMatchDecodeJQ(t *testing.T) {
	jq := needs.Program(t, "jq", "query's inputs are compared with toonkit decode | jq (apt-get install jq)")
	// An official TOON document made from users.json, beside the demo's.
	dir := t.TempDir()
	usersTOON := filepath.Join(dir, "users-official.toon")
	runToonkit(t, "", []string{"encode", "--to", "toon", "../testdata/demo/users.json", "-o", usersTOON}).ok(t, "encode --to toon")
	cases := []struct {
		name   string
		file   string
		flags  []string // for query, and for jq (-s, -r)
		decode []string // decode's flags
		filter string
	}{
		// TOON v4 (official): the document is one input.
		{"toon", "../testdata/demo/orders.toon", nil, nil, ".orders[0]"},
		{"toon", "../testdata/demo/orders.toon", nil, nil, ".orders | map(select(.status == \"pending\"))"},
		{"toon", "../testdata/demo/orders.toon", nil, nil, ".warehouses"},
		{"toon", "../testdata/demo/orders.toon", []string{"-r"}, nil, ".tags | join(\",\")"},
		{"toon", "../testdata/demo/orders.toon", nil, nil, "[.orders[].customer.country], .notes"},
		{"toon", usersTOON, nil, nil, ".[] | select(.active) | .name"},
		{"toon", usersTOON, nil, nil, ".[1]"},
		{"toon", usersTOON, nil, nil, "map(.tags | length)"},
		// Genesis tabular: each row is an input.
		{"tabular", "../testdata/demo/users.toon", nil, nil, "select(.active)"},
		{"tabular", "../testdata/demo/users.toon", []string{"-r"}, nil, ".note // \"-\""},
		{"tabular", "../testdata/demo/users.toon", []string{"-s"}, nil, "map(.score) | add"},
		{"tabular", "../testdata/demo/users.toon", nil, nil, ".tags"},
		{"tabular", "../testdata/demo/capture.toon", nil, nil, "select(.typeName == \"ERROR\")"},
		{"tabular", "../testdata/demo/capture.toon", nil, nil, ".payload"},
		// Kado frames: decode's records, or --payload's payloads.
		{"frames", "../testdata/demo/capture.bin", nil, nil, "."},
		{"frames", "../testdata/demo/capture.bin", nil, nil, "select(.header.typeName == \"TOOL_CALL\")"},
		{"frames", "../testdata/demo/capture.bin", nil, nil, ".header | {sequenceId, typeName}"},
		{"frames", "../testdata/demo/capture.bin", []string{"-s"}, nil, "group_by(.header.typeName) | map({(.[0].header.typeName): length}) | add"},
		{"frames", "../testdata/demo/capture.bin", []string{"--payload"}, []string{"--payload"}, "."},
		{"frames", "../testdata/demo/capture.bin", []string{"--payload"}, []string{"--payload"}, "select(.status) | .progress"},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.filter, func(t *testing.T) {
			decoded := runToonkit(t, "", append(append([]string{"decode"}, c.decode...), c.file)).ok(t, "decode")
			var jqFlags []string
			for _, f := range c.flags {
				if f != "--payload" {
					jqFlags = append(jqFlags, f)
				}
			}
			want := jqOK(t, jq, decoded, append(append([]string{"-c"}, jqFlags...), c.filter)...)
			got := queryRun(t, "", append(append([]string{"-c"}, c.flags...), c.filter, c.file)).ok(t, "query")
			if !sameInOrder(t, got, want, c.flags) {
				t.Errorf("toonkit query -c %s %q %s:\n%s\ntoonkit decode | jq -c:\n%s", strings.Join(c.flags, " "), c.filter, c.file, clip(got), clip(want))
			}
		})
	}
	// An integer beyond 2^53 stays exact, as decode writes it (jq 1.6
	// would round it: see the differences in docs/commands/query.md).
	got := queryRun(t, "", []string{"-c", ".orders[2].total", "../testdata/demo/orders.toon"}).ok(t, "query")
	if got != "12345678901234567890\n" {
		t.Errorf("TOON's big integer: %q", got)
	}
}

// --to binary and --to toon (and ndjson, tabular) write what
// `jq -c F | toonkit encode --to FORMAT` writes, byte for byte.
func TestQueryOutputsMatchJQEncode(t *testing.T) {
	jq := needs.Program(t, "jq", "query's outputs are compared with jq -c | toonkit encode (apt-get install jq)")
	capture := "../testdata/demo/capture.bin"
	records := runToonkit(t, "", []string{"decode", capture}).ok(t, "decode")
	cases := []struct {
		to, file, input, filter string // input: what jq reads (file's own text, or decode's records)
		flags                   []string
	}{
		// Frame 11's payload holds 1.0, which jq 1.6 rewrites as 1: the
		// whole capture is checked against capture.bin itself below.
		{"binary", capture, records, "select(.header.sequenceId < 11)", nil},
		{"binary", capture, records, "select(.header.typeName != \"HEARTBEAT\" and .header.sequenceId < 11)", nil},
		{"binary", capture, records, "select(.header.typeName == \"ERROR\" or .header.typeName == \"INSTRUCTION\")", nil},
		{"binary", capture, records, "select(.header.compressed)", nil},
		{"toon", "../testdata/demo/orders.json", demoFile(t, "orders.json"), ".orders[:2]", nil},
		{"toon", "../testdata/demo/orders.json", demoFile(t, "orders.json"), ".warehouses", nil},
		{"toon", "../testdata/demo/users.json", demoFile(t, "users.json"), "map(select(.active) | {id, name, score})", nil},
		{"toon", "../testdata/demo/users.json", demoFile(t, "users.json"), ".[] | select(.role == \"admin\")", nil},
		{"ndjson", "../testdata/demo/users.json", demoFile(t, "users.json"), ".[] | select(.active)", nil},
		{"tabular", "../testdata/demo/users.json", demoFile(t, "users.json"), ".[] | {id, name, role}", nil},
	}
	for _, c := range cases {
		t.Run(c.to+"/"+c.filter, func(t *testing.T) {
			lines := jqOK(t, jq, c.input, "-c", c.filter)
			want := lines
			if c.to != "ndjson" {
				// decode's records keep their own header fields in
				// encode --to binary.
				want = runToonkit(t, lines, []string{"encode", "--to", c.to}).ok(t, "encode --to "+c.to)
			}
			got := queryRun(t, "", append(append([]string{"--to", c.to}, c.flags...), c.filter, c.file)).ok(t, "query --to "+c.to)
			if got != want {
				t.Errorf("toonkit query --to %s %q %s:\n%q\njq -c | toonkit encode --to %s:\n%q", c.to, c.filter, c.file, clip(got), c.to, clip(want))
			}
		})
	}
	// The whole capture, queried with ., is written back byte for byte
	// (decode | jq -c . | encode is not: jq 1.6 writes frame 11's 1.0 as 1,
	// decimal-literals in docs/commands/query.md).
	got := queryRun(t, "", []string{".", capture, "--to", "binary"}).ok(t, "query --to binary")
	if got != demoFile(t, "capture.bin") {
		t.Error("query . capture.bin --to binary is not capture.bin")
	}
}

// JSON as Python services write it (CPython's json.dumps: ", " and ": ",
// indent=2 with CRLF, tabs) is read as compact JSON is: toonkit query -c
// writes what jq -c writes on the same text, members in their order.
func TestQueryPythonFormattedMatchesJQ(t *testing.T) {
	jq := needs.Program(t, "jq", "query is compared with jq on Python-formatted JSON (apt-get install jq)")
	inputs := []struct {
		ndjson  string // for scripts/pyjson.py: values one a line
		filters [][]string
	}{
		{demoFile(t, "chiffon.ndjson") + demoFile(t, "session.ndjson"), [][]string{
			{"."},
			{"select(.type == \"work_status\")"},
			{".payload"},
			{"select(.header) | .header.sequenceId"},
			{"-s", "map(.type // .header.type)"},
			{"-r", "(.message_id // .header.sequenceId) | tostring"},
		}},
		{jqOK(t, jq, demoFile(t, "users.json"), "-c", "."), [][]string{
			{"."},
			{"map(select(.active))"},
			{".[] | {id, name}"},
			{"-r", ".[] | .note // \"-\""},
		}},
	}
	for _, style := range pyjson.Styles {
		for _, in := range inputs {
			text := string(pyjson.Dumps(t, []byte(in.ndjson), style.Flags...))
			for _, f := range in.filters {
				t.Run(style.Name+"/"+strings.Join(f, " "), func(t *testing.T) {
					args := append([]string{"-c"}, f...)
					want := jqOK(t, jq, text, args...)
					got := queryRun(t, text, args).ok(t, "query")
					if !sameInOrder(t, got, want, f) {
						t.Errorf("toonkit query %q:\n%s\njq:\n%s", args, clip(got), clip(want))
					}
				})
			}
		}
	}
}
