package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
)

// query's exit statuses are jq's, not toonkit's: an unreadable input is 2
// (toonkit's 3), a filter that does not compile 3.
func TestQueryExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "two.ndjson")
	os.WriteFile(good, []byte("{\"n\": 1}\n{\"n\": 2}\n"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"n": 1} {"n":`), 0o644)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"query", ".n", good}, 0},
		{[]string{"query", "-e", ".n", good}, 0},
		{[]string{"query", "-e", ".n == 1", good}, 1},
		{[]string{"query", "-e", ".x", good}, 1},
		{[]string{"query", "-e", "empty", good}, 4},
		{[]string{"query", "--bogus", ".", good}, 2},
		{[]string{"query"}, 2},
		{[]string{"query", ".", filepath.Join(dir, "missing")}, 2},
		{[]string{"query", ".", dir}, 2},
		{[]string{"query", ".", bad}, 2},
		{[]string{"query", "--indent", "9", ".", good}, 2},
		{[]string{"query", "--argjson", "x", "{", ".", good}, 2},
		{[]string{"query", ".[", good}, 3},
		{[]string{"query", "nosuch(1)", good}, 3},
		{[]string{"query", "$undefined", good}, 3},
		{[]string{"query", ".n | error", good}, 5},
		{[]string{"query", "-e", ".[0]", good}, 5},
		{[]string{"query", "-n", "halt_error(9)"}, 9},
		{[]string{"query", "-n", "null | halt_error(0)"}, 0},
		{[]string{"query", "--timeout", "50ms", "-n", "last(range(1e15))"}, 5},
		// toonkit's own statuses for the other commands stay
		{[]string{"decode", filepath.Join(dir, "missing")}, cli.ExitIO},
	}
	for _, c := range cases {
		ios, _, _, _ := Test()
		if got := run(t, ios, c.args...); got != c.code {
			t.Errorf("toonkit %s: exit %d, want %d", strings.Join(c.args, " "), got, c.code)
		}
	}
}

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// An output that cannot be written is exit status 3 for query too, as for
// every command (jq's is 2), whatever --to writes; a result that --to
// refuses stays 2.
func TestQueryWriteError(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "two.ndjson")
	os.WriteFile(in, []byte("{\"n\": 1}\n{\"n\": 2}\n"), 0o644)
	frames := filepath.Join(dir, "frames.ndjson")
	os.WriteFile(frames, []byte(`{"header":{"version":1,"type":4,"typeName":"STATUS","payloadLength":7,"timestamp":1735689600000,"sequenceId":1,"compressed":false},"payload":{"a":1}}`+"\n"), 0o644)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"query", ".", in}, cli.ExitIO},
		{[]string{"query", "-c", ".n", in}, cli.ExitIO},
		{[]string{"query", "-n", "input, input, input", in}, cli.ExitIO}, // the runtime error after the write error
		{[]string{"query", "--to", "ndjson", ".", in}, cli.ExitIO},
		{[]string{"query", "--to", "toon", ".", in}, cli.ExitIO},
		{[]string{"query", "--to", "tabular", ".", in}, cli.ExitIO},
		{[]string{"query", "--to", "binary", ".", frames}, cli.ExitIO},
		{[]string{"query", "--to", "binary", ".", in}, 2}, // not a record: refused before a write
	}
	for _, c := range cases {
		ios, _, _, errOut := Test()
		ios.Out = fullWriter{}
		if got := run(t, ios, c.args...); got != c.code {
			t.Errorf("toonkit %s: exit %d, want %d\n%s", strings.Join(c.args, " "), got, c.code, errOut)
		}
		if c.code == cli.ExitIO && !strings.Contains(errOut.String(), "toonkit: error: cannot write <stdout>: no space left on device\n") {
			t.Errorf("toonkit %s: stderr %q", strings.Join(c.args, " "), errOut)
		}
	}
}
