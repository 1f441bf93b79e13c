package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
)

const mcpSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_orders","arguments":{}}}
`

// The proxy ends with the server's exit status, says why a server cannot
// be started, appends its log to --log, and refuses flags it cannot use.
func TestMCPProxy(t *testing.T) {
	python := needs.Program(t, "python3", "the demo MCP server is a Python program")
	server, _ := filepath.Abs("../testdata/demo/mcp_server.py")
	log := filepath.Join(t.TempDir(), "proxy.log")

	ios, in, out, errOut := Test()
	in.WriteString(mcpSession)
	if code := run(t, ios, "mcp", "proxy", "--log", log, "--", python, server); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], `orders[4]{id,customer,status,total}:`) {
		t.Errorf("the client got:\n%s", out)
	}
	b, _ := os.ReadFile(log)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 2 || !strings.Contains(lines[0], `"tool":"list_orders","id":3,"rewritten":true`) || !strings.Contains(lines[1], `"event":"total"`) {
		t.Errorf("the log:\n%s", b)
	}

	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--log", "-", "--", "sh", "-c", "exit 7"}, 7, ""},
		{[]string{"--log", "-", "--", "sh", "-c", "kill -9 $$"}, 1, "toonkit: error: the server sh was ended by SIGKILL\n"},
		{[]string{"--", "no-such-server-xyz"}, 3, "toonkit: error: cannot start no-such-server-xyz: executable file not found in $PATH\n"},
		{[]string{"sh"}, 2, "toonkit: error: no SERVER to run: toonkit mcp proxy [flags] -- SERVER [ARGS...]\ntoonkit: hint: run 'toonkit mcp proxy --help' for usage\n"},
		{[]string{"--to", "yaml", "--", "sh"}, 2, "toonkit: error: --to: unknown form \"yaml\" (supported: toon, cheapest)\ntoonkit: hint: run 'toonkit mcp proxy --help' for usage\n"},
		{[]string{"--among", "toon", "--", "sh"}, 2, "toonkit: error: --among goes with --to cheapest\ntoonkit: hint: run 'toonkit mcp proxy --help' for usage\n"},
		{[]string{"--min-saving", "120", "--", "sh"}, 2, "toonkit: error: the least saving must be from 0 to 100 percent, found 120\ntoonkit: hint: run 'toonkit mcp proxy --help' for usage\n"},
	} {
		ios, in, _, errOut := Test()
		in.WriteString(mcpSession)
		if code := run(t, ios, append([]string{"mcp", "proxy"}, c.args...)...); code != c.code || errOut.String() != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, errOut, c.code, c.stderr)
		}
	}
}

// stats --mcp-log sums the demo log by tool.
func TestStatsMCPLog(t *testing.T) {
	ios, _, out, errOut := Test()
	if code := run(t, ios, "stats", "--mcp-log", "../testdata/demo/proxy.log"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out.String(), "tool              calls  rewritten  tokens before  tokens after  saved\nlist_orders       2      2") {
		t.Errorf("got:\n%s", out)
	}
	ios, _, _, errOut = Test()
	if code := run(t, ios, "stats", "--mcp-log", "--tokenizer", "cl100k_base", "../testdata/demo/proxy.log"); code != 2 || !strings.Contains(errOut.String(), "--tokenizer does not go with --mcp-log") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
