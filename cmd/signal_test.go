package cmd

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/testbin"
)

// Ctrl-C in the middle of a run leaves no temporary output file behind and
// exits with the shell's status for SIGINT.
func TestInterruptRemovesTemporaryOutput(t *testing.T) {
	bin := testbin.BuildRace(t, "..")
	dir := t.TempDir()
	frame, err := os.ReadFile("../testdata/demo/capture.bin")
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bin, "decode", "-o", filepath.Join(dir, "out.ndjson"))
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write(frame) // and keep stdin open: the run goes on
	interruptWhen(t, c, stdin, "no temporary output file appeared", func() bool {
		entries, _ := os.ReadDir(dir)
		return len(entries) > 0
	})
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// interruptWhen sends c SIGINT once ready (checked every 10 ms, for at most
// 30 s, else the test fails with what), closes its stdin and checks that it
// exits with the shell's status for SIGINT, 130.
func interruptWhen(t *testing.T, c *exec.Cmd, stdin io.Closer, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGINT)
	err := c.Wait()
	stdin.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130", err)
	}
}
