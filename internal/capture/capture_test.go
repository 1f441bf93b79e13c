package capture_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/kado"
)

const (
	client = "10.0.0.1:51234"
	server = "10.0.0.2:7000"
	conn   = client + ">" + server
)

// frame is a Kado frame whose payload names its direction and number.
func frame(dir string, seq int) []byte {
	payload := fmt.Sprintf(`{"dir":%q,"n":%d,"text":"frame %d of %s"}`, dir, seq, seq, dir)
	b, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.MessageType(1 + seq%8), Timestamp: 1735689600000 + uint64(seq), SequenceID: uint32(seq)}, []byte(payload), kado.CompressNever)
	if err != nil {
		panic(err)
	}
	return b
}

func frames(dir string, from, to int) []byte {
	var out []byte
	for i := from; i < to; i++ {
		out = append(out, frame(dir, i)...)
	}
	return out
}

// collect reads a capture and lists its records, one line each.
func collect(t testing.TB, data []byte, opts capture.Options) ([]string, capture.Stats, error) {
	t.Helper()
	var out []string
	st, err := capture.Read(bytes.NewReader(data), opts, func(r *capture.Record) error {
		out = append(out, describe(r))
		return nil
	})
	return out, st, err
}

func describe(r *capture.Record) string {
	head := fmt.Sprintf("%s %s %s", r.Conn, r.Dir, capture.TimeString(r.Time))
	switch r.Kind {
	case capture.Frame:
		return fmt.Sprintf("frame %s seq=%d at=%d %s", head, r.Frame.Header.SequenceID, r.Frame.Offset, r.JSON)
	case capture.Text:
		return fmt.Sprintf("text %s %q", head, r.Text)
	case capture.Problem:
		return fmt.Sprintf("problem %s %v", head, r.Err)
	}
	return fmt.Sprintf("note %s %v", head, r.Err)
}

func frameLine(b *capturetest.Builder, pkt int, conn, dir string, seq int, at int) string {
	return fmt.Sprintf(`frame %s %s %s seq=%d at=%d {"dir":%q,"n":%d,"text":"frame %d of %s"}`,
		conn, dir, stamp(b, pkt), seq, at, dir, seq, seq, dir)
}

// stamp is the time of packet pkt as the file keeps it.
func stamp(b *capturetest.Builder, pkt int) string {
	t := b.Time(pkt)
	if b.File == capturetest.Pcap || b.File == capturetest.PcapBig {
		t = t.Truncate(1000)
	}
	return capture.TimeString(t)
}

// Both directions interleaved, on every link type, file kind and IP
// version: the same records, stamped with the segments' times.
func TestLinksFilesAndVersions(t *testing.T) {
	for _, link := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeRaw} {
		for _, file := range []capturetest.File{capturetest.Pcap, capturetest.PcapNanos, capturetest.PcapBig, capturetest.PcapNG} {
			for _, v6 := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%d/v6=%v", link, file, v6), func(t *testing.T) {
					cl, sv, name := client, server, conn
					if v6 {
						cl, sv = "[fd00::1]:51234", "[fd00::2]:7000"
						name = cl + ">" + sv
					}
					b := &capturetest.Builder{Link: link, File: file}
					c := b.Conn(cl, sv)
					c.Handshake() // packets 0-2
					c.Send(capturetest.C2S, 0, frame("c2s", 1))
					c.Send(capturetest.S2C, 0, frame("s2c", 1))
					f2 := frame("c2s", 2)
					c.Send(capturetest.C2S, len(frame("c2s", 1)), f2[:10])
					c.Send(capturetest.S2C, len(frame("s2c", 1)), frame("s2c", 2))
					c.Send(capturetest.C2S, len(frame("c2s", 1))+10, f2[10:])
					c.Fin(capturetest.C2S, len(frame("c2s", 1))+len(f2))
					c.Fin(capturetest.S2C, len(frame("s2c", 1))+len(frame("s2c", 2)))
					got, st, err := collect(t, b.Bytes(), capture.Options{})
					if err != nil {
						t.Fatal(err)
					}
					want := []string{
						frameLine(b, 3, name, "c2s", 1, 0),
						frameLine(b, 4, name, "s2c", 1, 0),
						frameLine(b, 6, name, "s2c", 2, len(frame("s2c", 1))),
						frameLine(b, 7, name, "c2s", 2, len(frame("c2s", 1))),
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("records (-want +got):\n%s", diff)
					}
					if st.Connections != 1 || st.Frames != 4 || st.Packets != 10 {
						t.Errorf("stats %+v", st)
					}
				})
			}
		}
	}
}

// A stream of frames split in two segments at every byte offset gives the
// same frames, each stamped with the segment that completed it.
func TestSplitAtEveryOffset(t *testing.T) {
	stream := frames("c2s", 1, 3)
	n1 := len(frame("c2s", 1))
	for k := 1; k < len(stream); k++ {
		b := &capturetest.Builder{File: capturetest.PcapNanos}
		c := b.Conn(client, server)
		c.Handshake()
		c.Send(capturetest.C2S, 0, stream[:k])
		c.Send(capturetest.C2S, k, stream[k:])
		got, _, err := collect(t, b.Bytes(), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		first := 3
		if k < n1 {
			first = 4
		}
		want := []string{frameLine(b, first, conn, "c2s", 1, 0), frameLine(b, 4, conn, "c2s", 2, n1)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("split at %d (-want +got):\n%s", k, diff)
		}
	}
}

// Segments out of order, twice, and overlapping each other give the
// stream once, in sequence order.
func TestOutOfOrderDuplicatesOverlaps(t *testing.T) {
	stream := frames("c2s", 1, 5)
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, stream[:30])     // 3
	c.Send(capturetest.C2S, 60, stream[60:100]) // 4: ahead of the stream
	c.Send(capturetest.C2S, 50, stream[50:80])  // 5: overlaps 4's start, still ahead
	c.Send(capturetest.C2S, 0, stream[:30])     // 6: a retransmission
	c.Send(capturetest.C2S, 20, stream[20:55])  // 7: overlaps what was delivered, fills up to 55: 30-100 flows
	c.Send(capturetest.C2S, 100, stream[100:])  // 8
	c.Send(capturetest.C2S, 100, stream[100:])  // 9: twice
	c.Send(capturetest.C2S, 40, stream[40:120]) // 10: old bytes again
	got, _, err := collect(t, b.Bytes(), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	off := 0
	for i := 1; i < 5; i++ {
		end := off + len(frame("c2s", i))
		pkt := 8
		if end <= 100 {
			pkt = 7
		}
		if end <= 30 {
			pkt = 3
		}
		want = append(want, frameLine(b, pkt, conn, "c2s", i, off))
		off = end
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// A segment the capture lost is a problem naming the connection and the
// byte range; the direction goes on at the next plausible header.
func TestLostSegment(t *testing.T) {
	stream := frames("c2s", 1, 5)
	n1 := len(frame("c2s", 1))
	n2 := len(frame("c2s", 2))
	for _, end := range []bool{false, true} {
		b := &capturetest.Builder{File: capturetest.PcapNanos}
		c := b.Conn(client, server)
		c.Handshake()
		c.Send(capturetest.C2S, 0, stream[:n1+10]) // 3: frame 1 and the start of frame 2
		// bytes n1+10 .. n1+19 are lost
		c.Send(capturetest.C2S, n1+20, stream[n1+20:]) // 4
		c.Send(capturetest.S2C, 0, frame("s2c", 1))    // 5
		if end {
			c.Fin(capturetest.C2S, len(stream))
			c.Fin(capturetest.S2C, len(frame("s2c", 1)))
		}
		got, st, err := collect(t, b.Bytes(), capture.Options{ReassemblyBuffer: 1})
		if err != nil {
			t.Fatal(err)
		}
		// With a one-page buffer the hole is given up as soon as data
		// queues behind it.
		ts := stamp(b, 4)
		want := []string{
			frameLine(b, 3, conn, "c2s", 1, 0),
			fmt.Sprintf("problem %s c2s %s %s c2s: bytes %d-%d are missing from the capture (a segment it did not see); the 10 bytes of the frame they cut are dropped", conn, ts, conn, n1+10, n1+19),
			fmt.Sprintf("note %s c2s %s %s c2s: after the hole: skipped %d bytes to the first plausible header at byte %d", conn, ts, conn, n2-20, n1+n2),
			frameLine(b, 4, conn, "c2s", 3, n1+n2),
			frameLine(b, 4, conn, "c2s", 4, n1+n2+len(frame("c2s", 3))),
			frameLine(b, 5, conn, "s2c", 1, 0),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fin=%v: records (-want +got):\n%s", end, diff)
		}
		if st.Problems != 1 {
			t.Errorf("stats %+v", st)
		}
	}
}

// A hole never filled and never given up before the end of the capture
// is reported at the end.
func TestLostSegmentAtEnd(t *testing.T) {
	stream := frames("c2s", 1, 3)
	n1 := len(frame("c2s", 1))
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, stream[:n1-5])
	c.Send(capturetest.C2S, n1, stream[n1:])
	got, _, err := collect(t, b.Bytes(), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("problem %s c2s %s %s c2s: bytes %d-%d are missing from the capture (a segment it did not see); the %d bytes of the frame they cut are dropped", conn, stamp(b, 4), conn, n1-5, n1-1, n1-5),
		frameLine(b, 4, conn, "c2s", 2, n1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// A connection already open when the capture began starts at its first
// plausible header; the server is told by its lower port.
func TestAlreadyOpen(t *testing.T) {
	stream := frames("s2c", 1, 4)
	n1 := len(frame("s2c", 1))
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	c := b.Conn(client, server)
	c.Send(capturetest.S2C, 0, stream[7:n1+5]) // the capture begins inside frame 1
	c.Send(capturetest.S2C, n1-2, stream[n1+5:])
	c.Send(capturetest.C2S, 0, frame("c2s", 9))
	got, _, err := collect(t, b.Bytes(), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("note %s s2c %s %s s2c: the capture began inside this connection: skipped %d bytes to the first plausible header at byte %d", conn, stamp(b, 1), conn, n1-7, n1-7),
		frameLine(b, 1, conn, "s2c", 2, n1-7),
		frameLine(b, 1, conn, "s2c", 3, n1-7+len(frame("s2c", 2))),
		frameLine(b, 2, conn, "c2s", 9, 0),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

const (
	wsRequest  = "GET /agent HTTP/1.1\r\nHost: 10.0.0.2:7000\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	wsResponse = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGOzzOZWxmTxo=\r\n\r\n"
)

// A direction that begins with a WebSocket handshake is unwrapped:
// masked frames unmasked, continuation frames joined, text messages
// reported, control frames passed over.
func TestWebSocket(t *testing.T) {
	mask := []byte{0x37, 0xfa, 0x21, 0x3d}
	f1, f2, f3 := frame("c2s", 1), frame("c2s", 2), frame("c2s", 3)
	var c2s []byte
	c2s = append(c2s, wsRequest...)
	c2s = append(c2s, capturetest.WSFrame(true, 2, f1, mask)...)             // one message, one frame
	c2s = append(c2s, capturetest.WSFrame(false, 2, f2[:7], mask)...)        // a message in three frames
	c2s = append(c2s, capturetest.WSFrame(true, 9, []byte("ping"), mask)...) // a ping between them
	c2s = append(c2s, capturetest.WSFrame(false, 0, f2[7:30], mask)...)
	c2s = append(c2s, capturetest.WSFrame(true, 0, f2[30:], mask)...)
	c2s = append(c2s, capturetest.WSFrame(false, 1, []byte("hel"), mask)...) // text in two frames
	c2s = append(c2s, capturetest.WSFrame(true, 0, []byte("lo"), mask)...)
	c2s = append(c2s, capturetest.WSFrame(true, 2, f3, mask)...)
	c2s = append(c2s, capturetest.WSFrame(true, 8, []byte{3, 232}, mask)...) // close
	var s2c []byte
	s2c = append(s2c, wsResponse...)
	s2c = append(s2c, capturetest.WSFrame(true, 2, frame("s2c", 1), nil)...)
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	c := b.Conn(client, server)
	c.Handshake()
	c.SendSplit(capturetest.C2S, 0, c2s, len(wsRequest)+5, 80) // 3, 4, 5
	c.Send(capturetest.S2C, 0, s2c)                            // 6: handshake and frame in one segment
	other := b.Conn("10.0.0.3:40000", server)                  // comes after it
	other.Handshake()
	other.Send(capturetest.C2S, 0, frame("c2s", 5)) // 10
	got, _, err := collect(t, b.Bytes(), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		frameLine(b, 4, conn, "c2s", 1, 0),
		frameLine(b, 5, conn, "c2s", 2, len(f1)),
		fmt.Sprintf("text %s c2s %s %q", conn, stamp(b, 5), "hello"),
		frameLine(b, 5, conn, "c2s", 3, len(f1)+len(f2)),
		frameLine(b, 6, conn, "s2c", 1, 0),
		frameLine(b, 10, "10.0.0.3:40000>"+server, "c2s", 5, 0),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// A connection that carries something else (plain HTTP) is passed over
// with a note; with --port naming it, that is a problem.
func TestNotFrames(t *testing.T) {
	b := &capturetest.Builder{}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	c.Send(capturetest.S2C, 0, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	got, st, err := collect(t, b.Bytes(), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := func(i int) string { return stamp(b, i) }
	want := []string{
		fmt.Sprintf(`note %s c2s %s %s c2s: not Kado frames: it starts with an HTTP message that is not a WebSocket handshake ("GET / HTTP/1.1"); this direction is not read`, conn, ts(3), conn),
		fmt.Sprintf(`note %s s2c %s %s s2c: not Kado frames: it starts with an HTTP message that is not a WebSocket handshake ("HTTP/1.1 200 OK"); this direction is not read`, conn, ts(4), conn),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if st.Problems != 0 {
		t.Errorf("stats %+v", st)
	}
	got, st, _ = collect(t, b.Bytes(), capture.Options{Ports: []int{7000}})
	if len(got) != 2 || !strings.HasPrefix(got[0], "problem ") || st.Problems != 2 {
		t.Errorf("with Ports: %q %+v", got, st)
	}
}

// Ports selects connections; MaxConns caps those followed.
func TestPortsAndMaxConns(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	for i, port := range []string{"7000", "7001", "7000"} {
		c := b.Conn(fmt.Sprintf("10.0.0.1:5000%d", i), "10.0.0.2:"+port)
		c.Handshake()
		c.Send(capturetest.C2S, 0, frame("c2s", i))
	}
	got, _, err := collect(t, b.Bytes(), capture.Options{Ports: []int{7000}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		frameLine(b, 3, "10.0.0.1:50000>10.0.0.2:7000", "c2s", 0, 0),
		frameLine(b, 11, "10.0.0.1:50002>10.0.0.2:7000", "c2s", 2, 0),
		fmt.Sprintf("note  c2s %s 4 packets skipped: 4 TCP not selected by --port or --conn", stamp(b, 11)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Ports: records (-want +got):\n%s", diff)
	}
	got, st, err := collect(t, b.Bytes(), capture.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		frameLine(b, 3, "10.0.0.1:50000>10.0.0.2:7000", "c2s", 0, 0),
		frameLine(b, 7, "10.0.0.1:50001>10.0.0.2:7001", "c2s", 1, 0),
		fmt.Sprintf("problem 10.0.0.1:50002>10.0.0.2:7000 c2s %s 10.0.0.1:50002>10.0.0.2:7000 c2s: too many open connections (2): this connection is not followed", stamp(b, 8)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MaxConns: records (-want +got):\n%s", diff)
	}
	if st.Dropped != 1 || st.Connections != 2 {
		t.Errorf("stats %+v", st)
	}
}

// A bad frame inside a direction is a problem; the reader moves on as
// decode --keep-going does.
func TestBadFrame(t *testing.T) {
	bad := frame("c2s", 2)
	bad[kado.HeaderSize] = '}'
	stream := append(append(frame("c2s", 1), bad...), frame("c2s", 3)...)
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, stream)
	got, _, err := collect(t, b.Bytes(), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !strings.HasPrefix(got[1], "problem "+conn+" c2s") || !strings.Contains(got[1], "frame 1 at byte") || !strings.Contains(got[2], "seq=3") {
		t.Errorf("records:\n%s", strings.Join(got, "\n"))
	}
}

// Files that are not captures, or are cut short, give a FormatError.
func TestFormatErrors(t *testing.T) {
	b := &capturetest.Builder{}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, frame("c2s", 1))
	good := b.Bytes()
	unsupported := bytes.Clone(good)
	binary.LittleEndian.PutUint32(unsupported[20:], 147) // a user link type
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a readable pcap or pcapng file: the input is empty"},
		{"short", good[:3], "not a readable pcap or pcapng file: only 3 bytes"},
		{"magic", []byte("not a capture at all, no"), "not a readable pcap or pcapng file: it starts with 6e 6f 74 20, which is no pcap or pcapng magic number (a1b2c3d4 or a1b23c4d in either byte order, 0a0d0d0a)"},
		{"cut", good[:len(good)-3], "packet 4: the file ends inside a packet record"},
		{"link", unsupported, "packet 1: link type 147 (UnknownLinkType) is not read: Ethernet, Linux cooked (SLL, SLL2), loopback and raw IP are"},
	} {
		_, _, err := collect(t, tc.data, capture.Options{})
		var fe *capture.FormatError
		if !errors.As(err, &fe) || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.want)
		}
	}
}

// Detection knows every kind of capture file by its magic number.
func TestDetect(t *testing.T) {
	for _, f := range []capturetest.File{capturetest.Pcap, capturetest.PcapNanos, capturetest.PcapBig, capturetest.PcapNG} {
		b := &capturetest.Builder{File: f}
		if d := codec.Detect(b.Bytes()); d.Format != codec.Pcap {
			t.Errorf("file %d: detected %+v", f, d)
		}
	}
	if d := codec.Detect(frame("c2s", 1)); d.Format != codec.Binary {
		t.Errorf("a frame: detected %+v", d)
	}
}

// An error from the function stops the reading.
func TestStop(t *testing.T) {
	b := &capturetest.Builder{}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, frames("c2s", 1, 4))
	stop := errors.New("enough")
	n := 0
	_, err := capture.Read(bytes.NewReader(b.Bytes()), capture.Options{}, func(*capture.Record) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("err %v after %d records", err, n)
	}
}

// decode's records: the frame's header gains the capture source; a text
// message is a record of its own.
func TestAppendRecord(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNanos, Link: layers.LinkTypeRaw}
	c := b.Conn("[fd00::1]:51234", "[fd00::2]:7000")
	c.Handshake()
	c.Send(capturetest.C2S, 0, frame("c2s", 1))
	var got []string
	_, err := capture.Read(bytes.NewReader(b.Bytes()), capture.Options{}, func(r *capture.Record) error {
		got = append(got, string(capture.AppendRecord(nil, r)))
		r.Kind, r.Text = capture.Text, []byte("h\"i")
		got = append(got, string(capture.AppendRecord(nil, r)))
		return nil
	})
	want := []string{
		`{"header":{"version":1,"type":2,"typeName":"TOOL_CALL","payloadLength":43,"timestamp":1735689600001,"sequenceId":1,"compressed":false,"capture":{"conn":"[fd00::1]:51234>[fd00::2]:7000","dir":"c2s","time":"2026-01-02T03:04:05.003000003Z"}},"payload":{"dir":"c2s","n":1,"text":"frame 1 of c2s"}}`,
		`{"capture":{"conn":"[fd00::1]:51234>[fd00::2]:7000","dir":"c2s","time":"2026-01-02T03:04:05.003000003Z"},"text":"h\"i"}`,
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("err %v, records (-want +got):\n%s", err, diff)
	}
}

// A connection idle for IdleTimeout of capture time is ended: it no longer
// counts against MaxConns, and its last frame, cut short, is reported.
func TestIdleConnectionsEnd(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	old := b.Conn("10.0.0.9:40000", server)
	old.Handshake()
	old.Send(capturetest.C2S, 0, frame("c2s", 1)[:30]) // never finished, never closed
	b.Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(capture.IdleTimeout + time.Minute)
	c := b.Conn(client, server)
	c.Handshake()
	off := 0
	for i := range 1100 { // enough segments for a look at idle connections
		f := frame("c2s", i)
		c.Send(capturetest.C2S, off, f)
		off += len(f)
	}
	got, st, err := collect(t, b.Bytes(), capture.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("problem 10.0.0.9:40000>10.0.0.2:7000 c2s %s 10.0.0.9:40000>10.0.0.2:7000 c2s: frame 0 at byte 2: payloadLength: expected 43 payload bytes, found only 12 bytes remain", stamp(b, 3))
	// The look comes at the 1024th segment: after 1024 - 7 frames.
	if len(got) != 1101 || got[1017] != want || st.Connections != 2 || st.Dropped != 0 {
		t.Errorf("%d records, [1017] %s\nwant %s\nstats %+v", len(got), got[1017], want, st)
	}
}

// AppendTime writes what time's layout writes, for any time.
func TestAppendTime(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", 3600)),
		time.Unix(0, 0), {}, time.Date(10000, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		want := tm.UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
		if got := capture.TimeString(tm); got != want {
			t.Errorf("%v: %s, want %s", tm, got, want)
		}
	}
}
