// Command tapbench measures how fast bytes go through `toonkit tap` beside
// a direct connection, for scripts/bench.sh:
//
//	go run ./scripts/tapbench -tk bin/toonkit -mb 200 -reps 5
//
// A sink on 127.0.0.1 reads a connection to its end and answers with one
// byte. Each round sends -mb megabytes of Kado frames (1 KB JSON payloads)
// to the sink directly, then through one tap (started once, its view on
// /dev/null, with --json when -json is given), in turns; the time of a
// round runs from the dial to the sink's answer. It prints the medians in
// nanoseconds and the bytes, one "name value" a line:
//
//	bytes 200000000
//	direct_ns 123456789
//	tap_ns 234567890
//	tap_frames 190000 (frames the tap showed, from its closing summary)
//	tap_lost 0 (bytes forwarded and not shown)
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/toonkit/toonkit/kado"
)

func main() {
	tk := flag.String("tk", "bin/toonkit", "the toonkit binary")
	mb := flag.Int("mb", 200, "megabytes sent each round")
	reps := flag.Int("reps", 5, "rounds of each")
	asJSON := flag.Bool("json", false, "the tap writes --json records instead of the one-line view")
	flag.Parse()
	if err := run(*tk, *mb, *reps, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "tapbench:", err)
		os.Exit(1)
	}
}

func run(tk string, mb, reps int, asJSON bool) error {
	data := traffic(mb * 1000 * 1000)
	sink, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer sink.Close()
	go func() {
		for {
			c, err := sink.Accept()
			if err != nil {
				return
			}
			go func() {
				io.Copy(io.Discard, c)
				c.Write([]byte{1})
				c.Close()
			}()
		}
	}()

	args := []string{"tap", "--listen", "127.0.0.1:0", "--upstream", sink.Addr().String()}
	if asJSON {
		args = append(args, "--json")
	}
	tap := exec.Command(tk, args...)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	tap.Stdout = null
	stderr, err := tap.StderrPipe()
	if err != nil {
		return err
	}
	if err := tap.Start(); err != nil {
		return err
	}
	defer tap.Process.Kill()
	errs := bufio.NewReader(stderr)
	first, err := errs.ReadString('\n')
	m := regexp.MustCompile(`listening on (\S+),`).FindStringSubmatch(first)
	if err != nil || m == nil {
		return fmt.Errorf("tap's first line: %q %v", first, err)
	}
	tapAddr := m[1]
	var rest bytes.Buffer
	restDone := make(chan struct{})
	go func() { io.Copy(&rest, errs); close(restDone) }()

	var direct, tapped []time.Duration
	for range reps {
		d, err := round(sink.Addr().String(), data)
		if err != nil {
			return fmt.Errorf("direct: %v", err)
		}
		direct = append(direct, d)
		d, err = round(tapAddr, data)
		if err != nil {
			return fmt.Errorf("through the tap: %v", err)
		}
		tapped = append(tapped, d)
	}
	tap.Process.Signal(syscall.SIGINT)
	<-restDone
	tap.Wait()
	summary := rest.String()
	frames, lost := "?", "0"
	if m := regexp.MustCompile(`(\d+) frames?, `).FindStringSubmatch(summary); m != nil {
		frames = m[1]
	}
	if m := regexp.MustCompile(`(\d+) of them not shown`).FindStringSubmatch(summary); m != nil {
		lost = m[1]
	}
	fmt.Printf("bytes %d\ndirect_ns %d\ntap_ns %d\ntap_frames %s\ntap_lost %s\n", len(data), median(direct), median(tapped), frames, lost)
	if !strings.Contains(summary, "forwarded") {
		return fmt.Errorf("no summary from the tap: %q", summary)
	}
	return nil
}

// round sends data to addr, closes its side and waits for the answer.
func round(addr string, data []byte) (time.Duration, error) {
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if _, err := c.Write(data); err != nil {
		return 0, err
	}
	c.(*net.TCPConn).CloseWrite()
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return 0, fmt.Errorf("no answer: %v", err)
	}
	return time.Since(start), nil
}

// traffic is about n bytes of frames with 1 KB JSON payloads.
func traffic(n int) []byte {
	out := make([]byte, 0, n+2048)
	pad := strings.Repeat("x", 960)
	for seq := 0; len(out) < n; seq++ {
		payload := fmt.Sprintf(`{"seq":%d,"pad":%q}`, seq, pad)
		out, _, _ = kado.AppendFrame(out, kado.Header{Version: 1, Type: kado.ToolResult, SequenceID: uint32(seq)}, []byte(payload), kado.CompressNever)
	}
	return out
}

func median(ds []time.Duration) int64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return int64(s[len(s)/2])
}
