package capture_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// Frames that wait behind a hole come out in capture-time order with the
// other connections' records: when the hole is given up (here at the end
// of the capture) they are stamped with the segment that brought them,
// ahead of the later records of another connection; when the hole is
// filled, they are stamped with the segment that filled it.
func TestOrderAfterHole(t *testing.T) {
	other := "10.0.0.3:40000>" + server
	stream := frames("c2s", 1, 4)
	n1, n2 := len(frame("c2s", 1)), len(frame("c2s", 2))
	for _, fill := range []bool{false, true} {
		b := &capturetest.Builder{File: capturetest.PcapNanos}
		c := b.Conn(client, server)
		c.Handshake()                                  // 0-2
		o := b.Conn("10.0.0.3:40000", server)          //
		o.Handshake()                                  // 3-5
		c.Send(capturetest.C2S, 0, stream[:n1+10])     // 6: frame 1 and the start of frame 2
		c.Send(capturetest.C2S, n1+20, stream[n1+20:]) // 7: waits behind the hole
		o.Send(capturetest.C2S, 0, frame("c2s", 7))    // 8
		o.Send(capturetest.S2C, 0, frame("s2c", 8))    // 9
		if fill {
			c.Send(capturetest.C2S, n1+10, stream[n1+10:n1+20]) // 10
		}
		o.Send(capturetest.C2S, len(frame("c2s", 7)), frame("c2s", 9)) // 10 or 11
		got, _, err := collect(t, b.Bytes(), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if fill {
			want = []string{
				frameLine(b, 6, conn, "c2s", 1, 0),
				frameLine(b, 8, other, "c2s", 7, 0),
				frameLine(b, 9, other, "s2c", 8, 0),
				frameLine(b, 10, conn, "c2s", 2, n1),
				frameLine(b, 10, conn, "c2s", 3, n1+n2),
				frameLine(b, 11, other, "c2s", 9, len(frame("c2s", 7))),
			}
		} else {
			ts := stamp(b, 7)
			want = []string{
				frameLine(b, 6, conn, "c2s", 1, 0),
				fmt.Sprintf("problem %s c2s %s %s c2s: bytes %d-%d are missing from the capture (a segment it did not see); the 10 bytes of the frame they cut are dropped", conn, ts, conn, n1+10, n1+19),
				fmt.Sprintf("note %s c2s %s %s c2s: after the hole: skipped %d bytes to the first plausible header at byte %d", conn, ts, conn, n2-20, n1+n2),
				frameLine(b, 7, conn, "c2s", 3, n1+n2),
				frameLine(b, 8, other, "c2s", 7, 0),
				frameLine(b, 9, other, "s2c", 8, 0),
				frameLine(b, 10, other, "c2s", 9, len(frame("c2s", 7))),
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fill=%v: records (-want +got):\n%s", fill, diff)
		}
	}
}

// A hole in a WebSocket direction is reported with its byte range; the
// direction goes on at the next plausible WebSocket frame header that
// begins a binary message carrying a frame.
func TestWebSocketHole(t *testing.T) {
	mask := []byte{0x37, 0xfa, 0x21, 0x3d}
	f1, f2, f3, f4 := frame("c2s", 1), frame("c2s", 2), frame("c2s", 3), frame("c2s", 4)
	w1 := capturetest.WSFrame(true, 2, f1, mask)
	w2 := capturetest.WSFrame(true, 2, f2, mask)
	w3 := capturetest.WSFrame(true, 2, f3, mask)
	text := capturetest.WSFrame(true, 1, []byte("after"), mask)
	w4 := capturetest.WSFrame(true, 2, f4, mask)
	var c2s []byte
	for _, p := range [][]byte{[]byte(wsRequest), w1, w2, w3, text, w4} {
		c2s = append(c2s, p...)
	}
	cut := len(wsRequest) + len(w1) + 10 // the hole: 20 bytes inside w2
	for _, fill := range []bool{false, true} {
		b := &capturetest.Builder{File: capturetest.PcapNanos}
		c := b.Conn(client, server)
		c.Handshake()
		c.Send(capturetest.C2S, 0, c2s[:cut])         // 3
		c.Send(capturetest.C2S, cut+20, c2s[cut+20:]) // 4
		if fill {
			c.Send(capturetest.C2S, cut, c2s[cut:cut+20]) // 5
		}
		got, _, err := collect(t, b.Bytes(), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if fill {
			want = []string{
				frameLine(b, 3, conn, "c2s", 1, 0),
				frameLine(b, 5, conn, "c2s", 2, len(f1)),
				frameLine(b, 5, conn, "c2s", 3, len(f1)+len(f2)),
				fmt.Sprintf("text %s c2s %s %q", conn, stamp(b, 5), "after"),
				frameLine(b, 5, conn, "c2s", 4, len(f1)+len(f2)+len(f3)),
			}
		} else {
			at := len(wsRequest) + len(w1) + len(w2) // w3's header
			ts := stamp(b, 4)
			want = []string{
				frameLine(b, 3, conn, "c2s", 1, 0),
				fmt.Sprintf("problem %s c2s %s %s c2s: bytes %d-%d are missing from the capture (a segment it did not see)", conn, ts, conn, cut, cut+19),
				fmt.Sprintf("note %s c2s %s %s c2s: after the hole: skipped %d bytes to the first plausible WebSocket frame header at byte %d", conn, ts, conn, at-cut-20, at),
				frameLine(b, 4, conn, "c2s", 3, at+6),
				fmt.Sprintf("text %s c2s %s %q", conn, ts, "after"),
				frameLine(b, 4, conn, "c2s", 4, at+6+len(f3)),
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fill=%v: records (-want +got):\n%s", fill, diff)
		}
	}
}
