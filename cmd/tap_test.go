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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/testbin"
)

// echoServer is an upstream on 127.0.0.1 that sends back what it gets and
// closes when the client has.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.Copy(c, c)
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String()
}

// startTap runs toonkit tap on 127.0.0.1:0 and returns the address it
// listens on (from its first line on stderr) and a reader of the rest.
func startTap(t *testing.T, bin string, args ...string) (*exec.Cmd, string, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	c := exec.Command(bin, append([]string{"tap", "--listen", "127.0.0.1:0"}, args...)...)
	var stdout bytes.Buffer
	c.Stdout = &stdout
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	errs := bufio.NewReader(stderr)
	first, err := errs.ReadString('\n')
	m := regexp.MustCompile(`^toonkit: tap: listening on (\S+), forwarding to `).FindStringSubmatch(first)
	if err != nil || m == nil {
		t.Fatalf("first line on stderr: %q %v", first, err)
	}
	return c, m[1], errs, &stdout
}

// talk sends b through the tap and returns what comes back.
func talk(t *testing.T, addr string, b []byte) []byte {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer c.Close()
	go func() {
		c.Write(b)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Error(err)
	}
	return got
}

// Connections at once through the real binary: the bytes come back
// unchanged (frames, bad frames and garbage); Ctrl-C ends tap with 130
// after the summary; --json wrote the same records as decode reads from
// the pcapng -w wrote.
func TestTapInterruptAndPcapng(t *testing.T) {
	bin := testbin.BuildRace(t, "..")
	up := echoServer(t)
	dir := t.TempDir()
	pcap := filepath.Join(dir, "tap.pcapng")
	c, addr, errs, stdout := startTap(t, bin, "--upstream", up, "--json", "-w", pcap)

	damaged, err := os.ReadFile("../testdata/demo/damaged.bin")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../testdata/demo/capture.bin")
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat(append(bytes.Clone(good), "\xff\x00noise"...), 200)
	inputs := [][]byte{damaged, good, big, []byte("no frames at all\n"), damaged, big}
	var wg sync.WaitGroup
	for _, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := talk(t, addr, in); !bytes.Equal(got, in) {
				t.Errorf("%d bytes sent, %d came back (or others)", len(in), len(got))
			}
		}()
	}
	wg.Wait()
	// Every connection is noted closed before Ctrl-C.
	var notes []string
	for closed := 0; closed < len(inputs); {
		line, err := errs.ReadString('\n')
		if err != nil {
			t.Fatalf("stderr: %v after %q", err, notes)
		}
		notes = append(notes, line)
		if strings.Contains(line, " closed (") {
			closed++
		}
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(errs)
	err = c.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130", err)
	}
	want := fmt.Sprintf("toonkit: tap: %d connections, ", len(inputs))
	if !strings.HasPrefix(string(rest), want) || !strings.HasSuffix(string(rest), " forwarded\n") {
		t.Errorf("summary: %q, want %q...", rest, want)
	}

	// decode reads the pcapng -w wrote into the records --json showed.
	// (decode passes over the connection that holds no frames, which the
	// tap shows; it has no records either way.)
	dec := exec.Command(bin, "decode", "--keep-going", pcap)
	var decOut, decErr bytes.Buffer
	dec.Stdout, dec.Stderr = &decOut, &decErr
	err = dec.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("decode: %v (want status 1: bad frames)\n%s", err, decErr.String())
	}
	if d := cmp.Diff(stdout.String(), decOut.String()); d != "" {
		t.Errorf("tap --json vs decode of its pcapng (-tap +decode):\n%s", d)
	}
	if n := strings.Count(stdout.String(), "\n"); n < 400 {
		t.Errorf("only %d records", n)
	}
}

// The default view: one line per frame with time, connection and
// direction; --count ends it with status 0.
func TestTapOneLineCount(t *testing.T) {
	bin := testbin.BuildRace(t, "..")
	up := echoServer(t)
	c, addr, errs, stdout := startTap(t, bin, "--upstream", up, "--count", "6")
	good, err := os.ReadFile("../testdata/demo/capture.bin")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		talk(t, addr, good[:1415]) // three frames, each way
	}()
	io.Copy(io.Discard, errs)
	if err := c.Wait(); err != nil {
		t.Fatalf("exit: %v, want 0", err)
	}
	<-done
	line := regexp.MustCompile(`^ +(\d+) +(\d+)  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z 127\.0\.0\.1:\d+>` + regexp.QuoteMeta(up) + ` (c2s|s2c)  [A-Z_]+ +seq \d+ +\d+ B `)
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	dirs := map[string]int{}
	for _, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not a frame's line", l)
		}
		dirs[m[3]]++
	}
	if len(lines) != 6 || dirs["c2s"] != 3 || dirs["s2c"] != 3 {
		t.Errorf("lines:\n%s", stdout)
	}
}

// tapExampleTraffic gives tap's --help examples (which forward
// 127.0.0.1:7001 to 127.0.0.1:7000) an upstream, an echo server on
// 127.0.0.1:7000, and a client that connects to 127.0.0.1:7001 as soon as
// it listens and sends the demo capture, again and again, until the test
// ends.
func tapExampleTraffic(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:7000")
	if err != nil {
		t.Fatalf("the examples' upstream: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	frames, err := os.ReadFile("../testdata/demo/capture.bin")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, err := net.Dial("tcp", "127.0.0.1:7001")
			if err != nil {
				time.Sleep(10 * time.Millisecond) // the tap is not listening yet
				continue
			}
			go func() { c.Write(frames); c.(*net.TCPConn).CloseWrite() }()
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	t.Cleanup(func() { close(stop); ln.Close(); wg.Wait() })
}
