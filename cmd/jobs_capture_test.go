package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/kado"
)

// jobsPcaps are packet captures, good and damaged: the samples, and one of
// many connections whose frames carry Python-formatted payloads (indent=2,
// CRLF), with bad payloads followed by frames (which the workers check), a
// lost segment, WebSocket messages and text.
func jobsPcaps(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range capturetest.SampleNames() {
		data, _ := capturetest.Sample(name)
		out[name] = data
	}
	var docs strings.Builder
	for i := range 40 {
		fmt.Fprintf(&docs, `{"task": "step %d", "args": [%d, "x"], "pad": %q}`+"\n", i, i, strings.Repeat("ab", i*7))
	}
	py := pyjson.Values(t, pyjson.Dumps(t, []byte(docs.String()), "--indent", "2", "--crlf"), false)
	stream := func(seed int) []byte {
		var b []byte
		for i, v := range py {
			p := v
			if (i+seed)%13 == 5 {
				p = append([]byte("}"), v...) // not JSON, and a frame follows
			}
			b, _, _ = kado.AppendFrame(b, kado.Header{Version: 1, Type: kado.MessageType(1 + i%8), SequenceID: uint32(i)}, p, kado.CompressAuto)
		}
		return b
	}
	b := &capturetest.Builder{File: capturetest.PcapNG}
	var conns []*capturetest.Conn
	var offs [][2]int
	for i := range 12 {
		c := b.Conn(fmt.Sprintf("10.0.0.%d:%d", 1+i, 40000+i), "10.0.1.1:7000")
		c.Handshake()
		conns = append(conns, c)
		offs = append(offs, [2]int{})
	}
	streams := [][]byte{}
	for i := range conns {
		streams = append(streams, stream(i))
	}
	// Interleave 700-byte segments of every connection, both ways.
	for step := 0; ; step++ {
		sent := false
		for i, c := range conns {
			for dir := range 2 {
				s := streams[i]
				off := offs[i][dir]
				if off >= len(s) {
					continue
				}
				end := min(off+700, len(s))
				if !(i == 3 && dir == 0 && step == 2) { // a lost segment
					c.Send(dir, off, s[off:end])
				}
				offs[i][dir] = end
				sent = true
			}
		}
		if !sent {
			break
		}
	}
	mask := []byte{9, 8, 7, 6}
	ws := []byte("GET /a HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	ws = append(ws, capturetest.WSFrame(true, 2, stream(1), mask)...)
	ws = append(ws, capturetest.WSFrame(true, 1, []byte("a text message"), mask)...)
	w := b.Conn("10.0.0.99:50000", "10.0.1.1:8080")
	w.Handshake()
	w.SendSplit(0, 0, ws, 500, 500)
	out["many.pcapng"] = b.Bytes()
	return out
}

// decode -j 4 writes what -j 1 writes for captures, byte for byte:
// stdout, stderr, -o FILE, exit status; from files and from standard input.
func TestDecodeCaptureJobsIdentical(t *testing.T) {
	dir := t.TempDir()
	caps := jobsPcaps(t)
	sawBad := false
	for name, data := range caps {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for j, flags := range [][]string{nil, {"--payload"}, {"--keep-going"}, {"--keep-going", "--payload"},
			{"--keep-going", "-o", filepath.Join(dir, "out.json")}, {"--keep-going", "--port", "7000"}, {"--conn", "10.0.1.1:7000>10.0.0.4:40003", "--keep-going"}} {
			for s, src := range []string{path, "-"} {
				if testing.Short() && name != "many.pcapng" && (j != 0 || s != 0) {
					continue // make test: the samples once; many.pcapng with every flag set, both ways
				}
				args := append(append([]string{"decode"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %.300q %.300q %.300q\n-j 4: %d %.300q %.300q %.300q", args,
						one.code, one.out, one.err, one.oFile, four.code, four.out, four.err, four.oFile)
				}
				if name == "many.pcapng" && bytes.Contains([]byte(one.err), []byte("payload: expected JSON")) {
					sawBad = true
				}
			}
		}
	}
	if !sawBad {
		t.Error("no bad payload in the captures")
	}
}

// decode -j 4 of a capture on a pipe passes each frame on as its segment
// comes, while the input stays open.
func TestDecodeCaptureJobsLive(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.Pcap}
	c := b.Conn("10.0.0.1:40000", "10.0.0.2:7000")
	c.Handshake()
	off := 0
	for i := 1; i <= 3; i++ {
		f, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction, SequenceID: uint32(i)}, []byte(fmt.Sprintf(`{"step": %d}`, i)), kado.CompressNever)
		c.Send(capturetest.C2S, off, f)
		off += len(f)
	}
	data := b.Bytes()
	// Cut the file after its header and each packet record (16 bytes of
	// record header, then the bytes captured).
	var pieces [][]byte
	at := 24
	pieces = append(pieces, data[:at])
	for at < len(data) {
		n := int(data[at+8]) | int(data[at+9])<<8 | int(data[at+10])<<16 | int(data[at+11])<<24
		pieces = append(pieces, data[at:at+16+n])
		at += 16 + n
	}
	// Step 1: the header, the handshake and the first frame's segment;
	// then one segment each.
	steps := [][][]byte{pieces[:5], pieces[5:6], pieces[6:7]}
	checkLive(t, []string{"decode", "--payload", "-j", "4"}, steps, func(r *bufio.Reader, i int) error {
		line, err := r.ReadString('\n')
		if want := fmt.Sprintf("{\"step\":%d}\n", i+1); err != nil || line != want {
			return fmt.Errorf("got %q, %v; want %q", line, err, want)
		}
		return nil
	})
}
