package cmd

import (
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no temporary output file appeared")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGINT)
	err = c.Wait()
	stdin.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}
