package mcpproxy_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
	"github.com/toonkit/toonkit/internal/toonref"
)

// moduleRoot is the module's root, from this package's directory.
const moduleRoot = "../.."

// The official MCP TypeScript SDK's client drives the real toonkit binary:
// `toonkit mcp proxy` in front of the reference server, server-everything,
// on stdio and, through the bridge mcp-remote, on streamable HTTP; and
// `toonkit mcp serve`. The SDK, the server and the reference TOON
// library are the versions pinned in testdata/mcp, installed with npm ci by
// toonref.NPM; testdata/mcp/driver.mjs makes the checks (its output names
// each, ok or FAIL) and exits 1 when one failed. Without node or npm the
// test skips; under TOONKIT_CI it fails.
func TestSDK(t *testing.T) {
	node := needs.Program(t, "node", "the MCP SDK's client and server-everything run on it")
	modules := toonref.NPM(t, "testdata/mcp")
	bin := testbin.Build(t, moduleRoot)

	// The driver imports its packages by name, and an ES module finds them
	// only in a node_modules beside it or above it (not through NODE_PATH):
	// it runs from a copy in a folder that links node_modules to the
	// install.
	dir := t.TempDir()
	driver, err := os.ReadFile(filepath.Join(moduleRoot, "testdata", "mcp", "driver.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.mjs"), driver, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(modules, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(modules, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")

	t.Run("proxy", func(t *testing.T) {
		runDriver(t, node, dir, "proxy", bin, entry, filepath.Join(t.TempDir(), "proxy.ndjson"))
	})
	t.Run("serve", func(t *testing.T) {
		runDriver(t, node, dir, "serve", bin)
	})
	// A streamable-HTTP server, through the stdio bridge the docs name.
	t.Run("remote", func(t *testing.T) {
		bridge := filepath.Join(modules, "node_modules", "mcp-remote", "dist", "proxy.js")
		runDriver(t, node, dir, "remote", bin, entry, bridge, filepath.Join(t.TempDir(), "remote.ndjson"))
	})
}

// runDriver runs node driver.mjs with args in dir and fails with its output
// when it exits non-zero. The driver's requests time out by themselves; the
// deadline here only keeps a run that hangs regardless from hanging the
// test, and the wait delay one whose grandchildren (the proxy, the server)
// keep its output open after it was killed.
func runDriver(t *testing.T, node, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"driver.mjs"}, args...)...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("node driver.mjs %s: no end after 2 minutes: %v\n%s", args[0], err, out.Bytes())
	}
	if err != nil {
		t.Fatalf("node driver.mjs %s: %v\n%s", args[0], err, out.Bytes())
	}
	// An exit status of 0 counts only with checks that passed and none
	// that failed: a driver that stopped early must not pass.
	if !bytes.Contains(out.Bytes(), []byte("\nok ")) && !bytes.HasPrefix(out.Bytes(), []byte("ok ")) || bytes.Contains(out.Bytes(), []byte("FAIL ")) {
		t.Fatalf("node driver.mjs %s exited 0 without passing its checks:\n%s", args[0], out.Bytes())
	}
	t.Logf("node driver.mjs %s:\n%s", args[0], out.Bytes())
}
