//go:build linux

package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/testbin"
)

// tap with a stdout nobody reads (`tap -w x.pcapng | sleep 30`): 2 MB of
// frames go through both ways and fill the pipe, then SIGINT, SIGTERM or
// SIGHUP ends tap (it used to wait for the view forever) with the shell's
// status for the signal, the -w file complete, holding every byte
// forwarded, and no temporary file left. (Within a second is the product's
// promise; the test only guards against a hang.)
func TestTapSignalWithBlockedStdout(t *testing.T) {
	bin := testbin.BuildRace(t, "..")
	good, err := os.ReadFile("../testdata/demo/capture.bin")
	if err != nil {
		t.Fatal(err)
	}
	sent := bytes.Repeat(good, 2<<20/len(good))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			up := echoServer(t)
			dir := t.TempDir()
			pcap := filepath.Join(dir, "x.pcapng")
			c := exec.Command(bin, "tap", "--listen", "127.0.0.1:0", "--upstream", up, "-w", pcap)
			// stdout: a pipe nobody reads (kept open to the end, so no
			// write fails: it blocks).
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			c.Stdout = pw
			// stderr: a pipe of our own, not StderrPipe, whose read end
			// Wait closes when tap exits, maybe before its last lines
			// were read.
			stderr, ew, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stderr.Close()
			c.Stderr = ew
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			ew.Close()
			exited := make(chan error, 1)
			go func() { exited <- c.Wait() }()
			defer c.Process.Kill()
			errs := bufio.NewReader(stderr)
			first, err := errs.ReadString('\n')
			m := regexp.MustCompile(`^toonkit: tap: listening on (\S+), forwarding to `).FindStringSubmatch(first)
			if err != nil || m == nil {
				t.Fatalf("first line on stderr: %q %v", first, err)
			}
			rest := make(chan string, 1)
			go func() { b, _ := io.ReadAll(errs); rest <- string(b) }()

			if got := talk(t, m[1], sent); !bytes.Equal(got, sent) {
				t.Fatalf("%d bytes sent, %d came back (or others)", len(sent), len(got))
			}
			// The view has filled the pipe (it has far more to write).
			guard := time.Now().Add(60 * time.Second)
			for {
				n, err := unix.IoctlGetInt(int(pr.Fd()), unix.TIOCINQ)
				if err != nil {
					t.Fatal(err)
				}
				if n >= 32<<10 {
					break
				}
				if time.Now().After(guard) {
					t.Fatalf("the view wrote only %d bytes to its pipe", n)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := c.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err = <-exited:
			case <-time.After(60 * time.Second): // a hang guard
				c.Process.Kill()
				t.Fatalf("tap did not end after %v with its stdout blocked", sig)
			}
			notes := <-rest
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(sig) {
				t.Fatalf("exit: %v, want status %d\n%s", err, 128+int(sig), notes)
			}
			if !strings.Contains(notes, "toonkit: tap: stdout was not being read; what the view had not written is dropped\n") ||
				!strings.Contains(notes, fmt.Sprintf("; %d bytes c2s and %d bytes s2c forwarded", len(sent), len(sent))) {
				t.Errorf("stderr: %q", notes)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 || entries[0].Name() != "x.pcapng" {
				t.Fatalf("files: %v, want x.pcapng alone", entries)
			}
			b, err := os.ReadFile(pcap)
			if err != nil {
				t.Fatal(err)
			}
			addr, err := net.ResolveTCPAddr("tcp", up)
			if err != nil {
				t.Fatal(err)
			}
			c2s, s2c := capturetest.TCPPayloads(t, b, addr.Port)
			if !bytes.Equal(c2s, sent) || !bytes.Equal(s2c, sent) {
				t.Errorf("the pcapng holds %d and %d bytes, want the %d forwarded each way", len(c2s), len(s2c), len(sent))
			}
		})
	}
}
