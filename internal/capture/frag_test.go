package capture_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// IP fragments, IPv4 and IPv6, in order or last first, are put back
// together: the frames come out stamped with the fragment that completed
// their segment.
func TestFragments(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		for _, back := range []bool{false, true} {
			for _, link := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeRaw} {
				cl, sv, name := client, server, conn
				if v6 {
					cl, sv = "[fd00::1]:51234", "[fd00::2]:7000"
					name = cl + ">" + sv
				}
				b := &capturetest.Builder{File: capturetest.PcapNanos, Link: link}
				c := b.Conn(cl, sv)
				c.Handshake()                               // 0-2
				b.Fragment, b.FragmentsBackwards = 24, back // 20 bytes of TCP header and 4 of data, then 24 of data
				f1, f2 := frame("c2s", 1), frame("c2s", 2)  // 57 and 57 bytes
				c.Send(capturetest.C2S, 0, f1)              // 3-5
				c.Send(capturetest.S2C, 0, frame("s2c", 1)) // 6-8
				c.Send(capturetest.C2S, len(f1), f2)        // 9-11
				got, st, err := collect(t, b.Bytes(), capture.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := []string{
					frameLine(b, 6, name, "c2s", 1, 0),
					frameLine(b, 10, name, "s2c", 1, 0),
					frameLine(b, 14, name, "c2s", 2, len(f1)),
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("v6=%v backwards=%v %v: records (-want +got):\n%s", v6, back, link, diff)
				}
				if st.Fragments != 12 || st.FragmentsLost != 0 || st.Frames != 3 {
					t.Errorf("v6=%v backwards=%v: stats %+v", v6, back, st)
				}
			}
		}
	}
}

// A fragment the capture lost loses its TCP segment: a hole, reported as
// such, and the packet is counted as given up.
func TestFragmentLost(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		cl, sv, name := client, server, conn
		if v6 {
			cl, sv = "[fd00::1]:51234", "[fd00::2]:7000"
			name = cl + ">" + sv
		}
		f1, f2, f3 := frame("c2s", 1), frame("c2s", 2), frame("c2s", 3)
		whole := &capturetest.Builder{File: capturetest.PcapNanos}
		c := whole.Conn(cl, sv)
		c.Handshake()
		c.Send(capturetest.C2S, 0, f1)
		whole.Fragment = 24
		c.Send(capturetest.C2S, len(f1), f2) // 4-7
		whole.Fragment = 0
		c.Send(capturetest.C2S, len(f1)+len(f2), f3) // 8
		c.Fin(capturetest.C2S, len(f1)+len(f2)+len(f3))
		whole.Lose(5) // the second fragment
		got, st, err := collect(t, whole.Bytes(), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The hole is given up at the end of the capture, stamped with the
		// segment that waited behind it.
		ts := stamp(whole, 8)
		want := []string{
			frameLine(whole, 3, name, "c2s", 1, 0),
			fmt.Sprintf("problem %s c2s %s %s c2s: bytes %d-%d are missing from the capture (a segment it did not see)", name, ts, name, len(f1), len(f1)+len(f2)-1),
			frameLine(whole, 8, name, "c2s", 3, len(f1)+len(f2)),
			// and the packet itself is said to be lost
			fmt.Sprintf("problem  c2s %s 1 packet not read: 1 fragmented and never made whole", stamp(whole, 9)),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("v6=%v: records (-want +got):\n%s", v6, diff)
		}
		if st.Fragments != 3 || st.FragmentsLost != 1 {
			t.Errorf("v6=%v: stats %+v", v6, st)
		}
	}
}
