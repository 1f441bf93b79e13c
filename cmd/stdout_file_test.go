package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/testbin"
)

// bigTOONTable is a TOON table of n rows (about 30 bytes each), and then
// tail.
func bigTOONTable(n int, tail string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "rows[%d]{id,name,ok}:\n", n)
	for i := range n {
		fmt.Fprintf(&b, "  %d,user number %d,true\n", i, i)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// decode's JSON on standard output redirected to a file is all or
// nothing: a failed run leaves the file without any of it, and with only
// the error when standard error goes to the same file; a run whose output
// file is also a later input reads that input as it was (empty), not its
// own output.
func TestDecodeToRedirectedFileAllOrNothing(t *testing.T) {
	bin := testbin.Build(t, "..")
	dir := t.TempDir()
	const rows = 300_000 // ~10 MB of JSON: past the 4 MiB a hold keeps in memory
	good := filepath.Join(dir, "good.toon")
	bad := filepath.Join(dir, "bad.toon")
	os.WriteFile(good, bigTOONTable(rows, ""), 0o644)
	os.WriteFile(bad, bigTOONTable(rows, "  x,y\n"), 0o644) // one row too many

	want, err := exec.Command(bin, "decode", good).Output()
	if err != nil {
		t.Fatal(err)
	}
	run := func(in string, shared bool) (string, []byte, error) {
		t.Helper()
		outPath := filepath.Join(dir, "out.json")
		f, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var stderr bytes.Buffer
		c := exec.Command(bin, "decode", in)
		c.Env = append(os.Environ(), "TMPDIR="+dir) // a spool would show up here
		c.Stdout, c.Stderr = f, &stderr
		if shared {
			c.Stderr = f
		}
		err = c.Run()
		b, _ := os.ReadFile(outPath)
		return stderr.String(), b, err
	}

	_, got, err := run(good, false)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("good: %v, %d bytes, want %d", err, len(got), len(want))
	}
	stderr, got, err := run(bad, false)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || len(got) != 0 {
		t.Fatalf("bad: %v, %d bytes left in the file; stderr %q", err, len(got), stderr)
	}
	if !strings.Contains(stderr, "bad.toon:") {
		t.Fatalf("bad: stderr %q does not name the input", stderr)
	}
	_, got, err = run(bad, true)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.HasPrefix(string(got), "toonkit: error: ") || len(got) > 4096 {
		t.Fatalf("bad, 2>&1: %v, the file holds %d bytes: %.200q", err, len(got), got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("files left in the directory: %v", entries)
	}

	// convert --to json a.ndjson b.ndjson > b.ndjson: b is read empty.
	var lines bytes.Buffer
	for i := range 30_000 {
		fmt.Fprintf(&lines, "{\"id\":%d,\"name\":\"user %d\"}\n", i, i)
	}
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	os.WriteFile(a, lines.Bytes(), 0o644)
	want, err = exec.Command(bin, "convert", "--to", "json", a).Output()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(b)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := exec.Command(bin, "convert", "--to", "json", a, b)
	c.Stdout, c.Stderr = f, &out
	err = c.Run()
	f.Close()
	got, _ = os.ReadFile(b)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("convert a b > b: %v %s; %d bytes, want %d", err, out.String(), len(got), len(want))
	}
}
