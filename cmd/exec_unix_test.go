//go:build unix

package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/raceflag"
	"github.com/toonkit/toonkit/internal/testbin"
)

// execTool writes a shell script into a fresh folder and returns the
// folder and the script's path.
func execTool(t *testing.T, script string) (dir, tool string) {
	t.Helper()
	dir = t.TempDir()
	tool = filepath.Join(dir, "tool.sh")
	if err := os.WriteFile(tool, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, tool
}

// startExec starts toonkit exec and returns its stdout, line by line.
func startExec(t *testing.T, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	bin := testbin.BuildRace(t, "..")
	c := exec.Command(bin, append([]string{"exec"}, args...)...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				lines <- line
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	t.Cleanup(func() { c.Process.Kill() })
	return c, lines
}

// waitFor reads lines until one holds want, and returns those read.
func waitFor(t *testing.T, lines <-chan string, want string) string {
	t.Helper()
	var seen strings.Builder
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			seen.WriteString(line)
			if strings.Contains(line, want) {
				return seen.String()
			}
			if !ok {
				t.Fatalf("the output ended without %q:\n%s", want, seen.String())
			}
		case <-deadline:
			t.Fatalf("no %q within 10s; so far:\n%s", want, seen.String())
		}
	}
}

// rest reads the lines left until the output ends.
func rest(lines <-chan string) string {
	var b strings.Builder
	for line := range lines {
		b.WriteString(line)
	}
	return b.String()
}

// exitStatus is the exit status of a finished command.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// An event is shown as soon as it comes: the tool waits for a file that
// the test creates only once the first event is on exec's stdout (and
// gives up, failing, after 10 seconds).
func TestExecShowsEventsAsTheyCome(t *testing.T) {
	dir, tool := execTool(t, `echo '{"version":"0","type":"log","level":"info","message":"first"}'
i=0
while [ ! -e "$1" ]; do
  i=$((i+1))
  if [ $i -gt 1000 ]; then echo '{"version":"0","type":"done","ok":false,"summary":"gave up waiting"}'; exit 1; fi
  sleep 0.01
done
echo '{"version":"0","type":"done","ok":true,"summary":"saw the marker"}'
`)
	marker := filepath.Join(dir, "marker")
	c, lines := startExec(t, "--", "sh", tool, marker)
	waitFor(t, lines, "first")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := rest(lines)
	if code := exitStatus(t, c.Wait()); code != 0 || !strings.Contains(out, "done         ok: saw the marker") {
		t.Fatalf("exit status %d:\n%s", code, out)
	}
}

// gone reports whether a process has ended (a zombie has: nobody may be
// left to reap it in a container).
func gone(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// checkGone checks that the processes whose ids a tool wrote into its
// folder (tool.pid, child.pid) have ended (or end within 2 s, the time a
// killed process may wait for a CPU), and kills those that have not.
func checkGone(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"tool.pid", "child.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		// SIGKILL is sent before toonkit exits, but a loaded machine may
		// schedule the dying process a little later: give it 2 s.
		deadline := time.Now().Add(2 * time.Second)
		for !gone(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !gone(pid) {
			t.Errorf("process %d (%s) is still running 2 s after toonkit ended", pid, name)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// stubborn is a tool that ignores SIGTERM, as does the child it starts;
// both write their process ids down.
const stubborn = `trap '' TERM
cd "$(dirname "$0")"
echo $$ > tool.pid
sleep 60 &
echo $! > child.pid
echo '{"version":"0","type":"log","level":"warn","message":"ignoring SIGTERM"}'
while :; do wait; done
`

// A tool that ignores SIGTERM is killed with its whole process group
// after --kill-after: nothing is left running.
func TestExecTimeoutKillsTheGroup(t *testing.T) {
	dir, tool := execTool(t, stubborn)
	start := time.Now()
	c, lines := startExec(t, "--timeout", "1s", "--kill-after", "300ms", "--", "sh", tool)
	out := waitFor(t, lines, "ignoring SIGTERM") // so the tool wrote its pids down
	out += rest(lines)
	code := exitStatus(t, c.Wait())
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %v", took)
	}
	if code != 1 || !strings.Contains(out, "tool        timed out after 1s, ended by SIGKILL\n") {
		t.Fatalf("exit status %d:\n%s", code, out)
	}
	checkGone(t, dir)
}

// Ctrl-C ends the tool and its children (SIGTERM; a second Ctrl-C would
// kill them at once), then toonkit reports and exits 130. Here the tool
// ignores SIGTERM: it is killed after --kill-after.
func TestExecInterruptLeavesNoOrphan(t *testing.T) {
	dir, tool := execTool(t, stubborn)
	c, lines := startExec(t, "--kill-after", "200ms", "--", "sh", tool)
	waitFor(t, lines, "ignoring SIGTERM")
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	out := rest(lines)
	if code := exitStatus(t, c.Wait()); code != 130 || !strings.Contains(out, "result      failed: interrupted by SIGINT; no done event") {
		t.Fatalf("exit status %d:\n%s", code, out)
	}
	checkGone(t, dir)
}

// A tool that writes 100 MB of events is followed in constant memory: the
// most toonkit holds (its peak resident set) stays far below the stream's
// size, and every event is reported.
func TestExec100MBInConstantMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak resident set size as Linux reports it")
	}
	event := `{"version":"0","type":"log","level":"info","message":"` + strings.Repeat("x", 1000) + `"}`
	const size = 100 << 20
	n := size/(len(event)+1) + 1
	_, tool := execTool(t, fmt.Sprintf(`yes '%s' | head -n %d
echo '{"version":"0","type":"done","ok":true}'
`, event, n))
	c, lines := startExec(t, "--report", "json", "--timeout", "2m", "--", "sh", tool)
	// The peak resident set is toonkit's own high-water mark (VmHWM),
	// read while it runs: the Maxrss that wait4 reports also counts this
	// test process's resident set at the moment it started the child
	// (Linux records the old memory's high-water mark at exec), so it grew
	// with whatever other tests held.
	var rss int64
	read := func() {
		if hwm := vmHWM(c.Process.Pid); hwm > rss {
			rss = hwm
		}
	}
	var count, bytes int
	var last string
	for line := range lines {
		count++
		bytes += len(line)
		last = line
		if count%1024 == 0 {
			read()
		}
	}
	read()
	if code := exitStatus(t, c.Wait()); code != 0 || bytes < size || count != n+2 || !strings.Contains(last, `"ok":true,"exitCode":0,`) ||
		!strings.Contains(last, fmt.Sprintf(`"lines":%d,`, n+1)) {
		t.Fatalf("exit status %d, %d lines, %d bytes, last %.300s", code, count, bytes, last)
	}
	if rss == 0 {
		t.Fatal("no VmHWM read from /proc while toonkit ran")
	}
	limit := int64(64 << 20)
	if raceflag.Enabled {
		// The race build's shadow memory grows with the binary's data:
		// gopacket's enum tables (two arrays of 2.5 MiB of pointers, which
		// the GC scans) cost about 5 MiB without -race and 18 MiB with it,
		// whatever the stream's size.
		limit = 96 << 20
	}
	if rss > limit {
		t.Fatalf("peak resident set %d MiB for a %d MiB stream (limit %d MiB)", rss>>20, size>>20, limit>>20)
	}
	t.Logf("%d events, %d MiB reported, peak resident set %d MiB", n+1, bytes>>20, rss>>20)
}

// vmHWM is the peak resident set of process pid in bytes (VmHWM in
// /proc/PID/status), or 0 when it cannot be read (the process is gone).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
