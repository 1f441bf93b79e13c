package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
		{[]string{"decode", filepath.Join(dir, "missing")}, ExitIO},
	}
	for _, c := range cases {
		ios, _, _, _ := Test()
		if got := run(t, ios, c.args...); got != c.code {
			t.Errorf("toonkit %s: exit %d, want %d", strings.Join(c.args, " "), got, c.code)
		}
	}
}

// jq's two-value flags reach the flag parser as NAME=VALUE, for query only.
func TestQueryArgs(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"query", "--arg", "x", "1", "."}, []string{"query", "--arg=x=1", "."}},
		{[]string{"-q", "--color", "never", "query", "--argjson", "x", "{}", "--slurpfile", "f", "a.json", ".", "--rawfile", "r", "b"},
			[]string{"-q", "--color", "never", "query", "--argjson=x={}", "--slurpfile=f=a.json", ".", "--rawfile=r=b"}},
		{[]string{"query", ".", "--", "--arg", "x", "1"}, []string{"query", ".", "--", "--arg", "x", "1"}},
		{[]string{"query", "--arg", "x"}, []string{"query", "--arg", "x"}},
		{[]string{"decode", "--arg", "x", "1"}, []string{"decode", "--arg", "x", "1"}},
		// after --args and --jsonargs, the arguments but the filter are values
		{[]string{"query", "--indent", "1", "-c", "f.json", "--args", "a", "--jsonargs", "1", "-"},
			[]string{"query", "--indent", "1", "-c", "f.json", "--args", "--positional=s:a", "--jsonargs", "--positional=j:1", "--positional=j:-"}},
		{[]string{"query", "--args", "$ARGS", "a"}, []string{"query", "--args", "$ARGS", "--positional=s:a"}},
		{[]string{"query", "-f", "p.jq", "in.json", "--args", "a"}, []string{"query", "-f", "p.jq", "in.json", "--args", "--positional=s:a"}},
	}
	for _, c := range cases {
		if got := queryArgs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("queryArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
