package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// stats -j 4 and convert --to cheapest -j 4 write what -j 1 writes, byte
// for byte (stdout, stderr, exit status), with the progress line too: on
// the demo files, as Python services write them (CRLF too), on TOON, NDJSON
// from standard input, several inputs, and bad input.
func TestStatsJobsIdentical(t *testing.T) {
	defer func(n int) { convert.ProgressBytes = n }(convert.ProgressBytes)
	convert.ProgressBytes = 100 // the progress line is shown (to no terminal: not)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var inputs []string
	for _, n := range []string{"users.json", "orders.json", "events.ndjson", "users.toon", "data.json", "state.json"} {
		inputs = append(inputs, filepath.Join("..", "testdata", "demo", n))
	}
	users, err := os.ReadFile("../testdata/demo/users.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, style := range pyjson.Styles {
		inputs = append(inputs, write(style.Name+".json", pyjson.Dumps(t, users, style.Flags...)))
	}
	inputs = append(inputs, write("bad.json", []byte("[{\"a\":1},\n{\"a\":}]\n")), write("lossy.ndjson", []byte("{\"a\":\"1\"}\n{\"a\":\"x\"}\n")))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"stats", in}, {"stats", "--report", "json", "-"}, {"stats", "--tokenizer", "cl100k_base", in, in},
			{"convert", "--to", "cheapest", in}, {"convert", "--to", "cheapest", "--tokenizer", "cl100k_base", "-"}} {
			one := runJobs(t, data, dir, append(args, "-j", "1")...)
			four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
			if one != four {
				t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %.300q %.300q\n-j 4: %d %.300q %.300q", args,
					one.code, one.out, one.err, four.code, four.out, four.err)
			}
		}
	}
}
