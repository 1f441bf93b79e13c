package capture_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/pkg/capture"
)

// Link and network layers beyond the plain ones: IPv6 extension headers,
// alone and in chains, and VLAN tags, QinQ's 0x9100 among them, stacked.
var layouts = []struct {
	name string
	vlan []layers.EthernetType
	ext  []layers.IPProtocol
}{
	{name: "dstopts", ext: []layers.IPProtocol{layers.IPProtocolIPv6Destination}},
	{name: "hopbyhop", ext: []layers.IPProtocol{layers.IPProtocolIPv6HopByHop}},
	{name: "routing", ext: []layers.IPProtocol{layers.IPProtocolIPv6Routing}},
	{name: "atomic-fragment", ext: []layers.IPProtocol{layers.IPProtocolIPv6Fragment}},
	{name: "chain", ext: []layers.IPProtocol{layers.IPProtocolIPv6HopByHop, layers.IPProtocolIPv6Destination, layers.IPProtocolIPv6Routing, layers.IPProtocolIPv6Fragment, layers.IPProtocolIPv6Destination}},
	{name: "vlan-9100", vlan: []layers.EthernetType{0x9100}},
	{name: "qinq-9100", vlan: []layers.EthernetType{0x9100, layers.EthernetTypeDot1Q}},
	{name: "qinq-88a8", vlan: []layers.EthernetType{layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q}},
	{name: "vlan-8100", vlan: []layers.EthernetType{layers.EthernetTypeDot1Q}},
	{name: "three-9100", vlan: []layers.EthernetType{0x9100, 0x9100, layers.EthernetTypeDot1Q}},
	{name: "qinq-9100+dstopts", vlan: []layers.EthernetType{0x9100, layers.EthernetTypeDot1Q}, ext: []layers.IPProtocol{layers.IPProtocolIPv6Destination}},
}

// layoutCapture is a session in a layout: frames both ways over IPv6 (or
// IPv4 under VLAN tags only), the second c2s frame in two segments.
func layoutCapture(vlan []layers.EthernetType, ext []layers.IPProtocol, v6 bool, file capturetest.File) (*capturetest.Builder, string) {
	cl, sv := "10.0.0.1:51234", "10.0.0.2:7000"
	if v6 {
		cl, sv = "[fd00::1]:51234", "[fd00::2]:7000"
	}
	b := &capturetest.Builder{File: file, VLAN: vlan, IPv6Ext: ext}
	c := b.Conn(cl, sv)
	c.Handshake()
	c.Send(capturetest.C2S, 0, frame("c2s", 1))
	c.Send(capturetest.S2C, 0, frame("s2c", 1))
	f2 := frame("c2s", 2)
	c.Send(capturetest.C2S, len(frame("c2s", 1)), f2[:10])
	c.Send(capturetest.C2S, len(frame("c2s", 1))+10, f2[10:])
	c.Fin(capturetest.C2S, len(frame("c2s", 1))+len(f2))
	c.Fin(capturetest.S2C, len(frame("s2c", 1)))
	return b, cl + ">" + sv
}

func TestExtensionHeadersAndVLANs(t *testing.T) {
	for _, l := range layouts {
		for _, v6 := range []bool{true, false} {
			if !v6 && len(l.ext) > 0 {
				continue
			}
			for _, file := range []capturetest.File{capturetest.PcapNanos, capturetest.PcapNG} {
				t.Run(fmt.Sprintf("%s/v6=%v/%d", l.name, v6, file), func(t *testing.T) {
					b, name := layoutCapture(l.vlan, l.ext, v6, file)
					got, st, err := collect(t, b.Bytes(), capture.Options{Ports: []int{7000}})
					if err != nil {
						t.Fatal(err)
					}
					want := []string{
						frameLine(b, 3, name, "c2s", 1, 0),
						frameLine(b, 4, name, "s2c", 1, 0),
						frameLine(b, 6, name, "c2s", 2, len(frame("c2s", 1))),
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("records (-want +got):\n%s", diff)
					}
					if st.TCP != 9 || st.Undecoded != 0 || st.Skipped != (capture.Skipped{}) {
						t.Errorf("stats %+v", st)
					}
				})
			}
		}
	}
}

// Wireshark reads the same bytes from the captures of every layout.
func TestTsharkExtensionHeadersAndVLANs(t *testing.T) {
	tshark := needs.Program(t, "tshark", "Wireshark's reading is compared here (apt-get install tshark)")
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			b, _ := layoutCapture(l.vlan, l.ext, true, capturetest.PcapNG)
			sameAsTshark(t, tshark, b.Bytes())
		})
	}
}

// sameAsTshark checks that the frames read from the connections on port
// 7000 of a pcapng capture are the bytes tshark follows in its first TCP
// connection.
func sameAsTshark(t *testing.T, tshark string, data []byte) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.pcapng")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	theirs := tsharkFollow(t, tshark, in)
	ours := follow(t, data, capture.Options{Ports: []int{7000}})
	if ours[0] == "" || ours != theirs {
		t.Errorf("c2s: ours %s\ntshark's %s\ns2c: ours %s\ntshark's %s", ours[0], theirs[0], ours[1], theirs[1])
	}
}

// tsharkFollow is what tshark -z follow,tcp,raw,0 says each side of the
// first TCP connection sent, as hex.
func tsharkFollow(t *testing.T, tshark, file string) (theirs [2]string) {
	t.Helper()
	out, err := exec.Command(tshark, "-r", file, "-q", "-z", "follow,tcp,raw,0").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.ContainsAny(line, ":=") {
			continue
		}
		if strings.HasPrefix(line, "\t") {
			theirs[1] += strings.TrimSpace(line)
		} else {
			theirs[0] += strings.TrimSpace(line)
		}
	}
	return theirs
}

// follow is the bytes of the frames read from each direction, as hex;
// records other than frames are errors, but for the note of packets
// skipped by design.
func follow(t *testing.T, data []byte, opts capture.Options) (ours [2]string) {
	t.Helper()
	_, err := capture.Read(bytes.NewReader(data), opts, func(r *capture.Record) error {
		var se *capture.SkipError
		if r.Kind == capture.Note && errors.As(r.Err, &se) && se.Lost() == 0 {
			return nil // the other connections, not on the port
		}
		if r.Kind != capture.Frame {
			t.Errorf("record %s", describe(r))
			return nil
		}
		ours[r.Dir] += hex.EncodeToString(r.Frame.Raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ours
}
