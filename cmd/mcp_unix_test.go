//go:build unix

package cmd

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/toonkit/toonkit/internal/testbin"
)

// A server that says it is up (a log notification), then ignores SIGTERM
// and EOF, with a child of its own: as stubborn as a server gets.
const stubbornServer = `trap '' TERM
cd "$(dirname "$0")"
echo $$ > tool.pid
sleep 60 &
echo $! > child.pid
echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"up"}}'
while :; do wait; done
`

// startProxy starts toonkit mcp proxy in front of the stubborn server,
// its stdin a pipe the test holds, and waits for the server's first line.
func startProxy(t *testing.T, args ...string) (c *exec.Cmd, stdin io.WriteCloser, dir string, stderr *strings.Builder) {
	t.Helper()
	c, stdin, out, dir, stderr := startProxyOf(t, stubbornServer, args...)
	go io.Copy(io.Discard, out)
	return c, stdin, dir, stderr
}

// startProxyOf starts toonkit mcp proxy in front of server, a shell
// script, and waits for the server's first line; the rest of the
// proxy's stdout is the test's to read.
func startProxyOf(t *testing.T, server string, args ...string) (c *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser, dir string, stderr *strings.Builder) {
	t.Helper()
	dir, tool := execTool(t, server)
	bin := testbin.Build(t, "..")
	c = exec.Command(bin, append(append([]string{"mcp", "proxy", "--log", "-"}, args...), "--", "sh", tool)...)
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &strings.Builder{}
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReaderSize(out, 16).ReadString('\n')
	if !strings.Contains(line, `"data":"up"`) {
		t.Fatalf("the server's first line: %q, %v", line, err)
	}
	return c, stdin, out, dir, stderr
}

// Ctrl-C ends the server's whole process group, even one that ignores
// SIGTERM, and the proxy exits with 130.
func TestMCPProxyInterruptEndsTheServer(t *testing.T) {
	c, stdin, dir, _ := startProxy(t, "--kill-after", "200ms")
	defer stdin.Close()
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitStatus(t, c.Wait()); code != 130 {
		t.Fatalf("exit status %d, want 130", code)
	}
	checkGone(t, dir)
}

// A server that outlives its client's end by --kill-after is ended, its
// group with it, and the proxy says so.
func TestMCPProxyEndsALingeringServer(t *testing.T) {
	c, stdin, dir, stderr := startProxy(t, "--kill-after", "200ms")
	stdin.Close() // the client is gone
	if code := exitStatus(t, c.Wait()); code != 1 || !strings.Contains(stderr.String(), "did not exit within 200ms of the client's end (its stdin closed): ended by SIGKILL") {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	checkGone(t, dir)
}

// A client that stops reading (its end of the proxy's stdout closed)
// ends the session: the server, which goes on writing, is ended with its
// group, and the proxy says why, where SIGPIPE would have ended the proxy
// alone and left the server running.
func TestMCPProxyClientStopsReading(t *testing.T) {
	chatty := strings.Replace(stubbornServer, "while :; do wait; done", `while :; do echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"more"}}'; sleep 0.05; done`, 1)
	c, stdin, out, dir, stderr := startProxyOf(t, chatty, "--kill-after", "200ms")
	defer stdin.Close()
	out.Close()
	if code := exitStatus(t, c.Wait()); code != 3 || !strings.Contains(stderr.String(), "error: the session broke off: cannot write to the client: broken pipe") {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	checkGone(t, dir)
}
