package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
	"github.com/toonkit/toonkit/internal/toonref"
)

// refCLI is the reference TOON CLI (@toon-format/cli), pinned in
// testdata/toonref and installed by internal/toonref. It skips, saying so,
// without node and npm (fails under TOONKIT_CI=1).
func refCLI(t *testing.T) string {
	t.Helper()
	return toonref.CLI(t)
}

// What `toonkit encode FILE` writes, with no --to, is TOON that the
// reference CLI reads back (strictly, as it does by default) as the JSON
// value it came from, for the demo files and for JSON that python3 writes
// (indented, \u escapes), with each delimiter spelled as the reference CLI
// spells it; and what the reference CLI writes, toonkit decodes to the
// same value.
func TestReferenceCLIReadsEncode(t *testing.T) {
	ref := refCLI(t)
	bin := testbin.Build(t, ".")
	dir := testbin.Demo(t, "testdata/demo")
	env := testbin.Env(bin)
	run := func(name string, args ...string) []byte {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, env
		out, err := c.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("%s %v: %v\n%s", name, args, err, stderr)
		}
		return out
	}
	if py, err := exec.LookPath("python3"); err == nil {
		run(py, "-c", `import json
rows = [{"id": i, "name": "user %d" % i, "city": ["Zürich", "Paris", "東京"][i % 3], "score": i * 0.25, "tags": ["a", "b"][: i % 3]} for i in range(50)]
json.dump({"rows": rows, "meta": {"made by": "python3", "empty": {}, "none": None}}, open("py.json", "w"), indent=2)`)
	} else {
		needs.Missing(t, "python3 is not installed: no JSON as python3 writes it")
	}
	value := func(b []byte) any {
		t.Helper()
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, b)
		}
		return v
	}
	for _, f := range []string{"data.json", "users.json", "orders.json", "state.json", "msg.json", "py.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			continue
		}
		in, _ := os.ReadFile(filepath.Join(dir, f))
		want := value(in)
		delims := []string{""}
		if f == "data.json" || f == "py.json" {
			delims = append(delims, ",", `\t`, "|")
		}
		for _, delim := range delims {
			args := []string{"encode", f} // no --to, no -o: TOON on stdout
			if delim != "" {
				args = append(args, "--delimiter", delim)
			}
			if err := os.WriteFile(filepath.Join(dir, "out.toon"), run("toonkit", args...), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := value(run(ref, "out.toon")); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, --delimiter %q: the reference CLI reads back %v, want %v", f, delim, got, want)
			}
		}
		run(ref, f, "-o", "ref.toon")
		if got := value(run("toonkit", "decode", "ref.toon")); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: toonkit decodes the reference CLI's TOON as %v, want %v", f, got, want)
		}
	}
}
