package capture_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/needs"
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

// combined names the layouts that chain several headers (extension headers,
// VLAN tags, both), and 802.1ad's tag: together they hold the headers of
// the single layouts.
var combined = map[string]bool{"chain": true, "three-9100": true, "qinq-88a8": true, "qinq-9100+dstopts": true}

// Wireshark reads the same bytes from the captures of every layout.
func TestTsharkExtensionHeadersAndVLANs(t *testing.T) {
	tshark := needs.Program(t, "tshark", "Wireshark's reading is compared here (apt-get install tshark)")
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			if !combined[l.name] {
				// ~0.7 s per tshark start: the layouts that chain several
				// headers stand for the single ones in make test.
				needs.Slow(t, "tshark on each single-header layout")
			}
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

// zeros gives n zero bytes, made as they are read: a record of a gigabyte
// that the test does not hold.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.n {
		p = p[:z.n]
	}
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// A record that declares a gigabyte is passed over without its bytes being
// held, reported with its place, and reading goes on with the next one.
func TestRecordOverLimit(t *testing.T) {
	const huge = 1 << 30
	for _, ng := range []bool{false, true} {
		for _, buffered := range []bool{false, true} {
			t.Run(fmt.Sprintf("pcapng=%v/bufio=%v", ng, buffered), func(t *testing.T) {
				file := capturetest.Pcap
				if ng {
					file = capturetest.PcapNG
				}
				b := &capturetest.Builder{File: file}
				c := b.Conn(client, server)
				c.Handshake()
				c.Send(capturetest.C2S, 0, frame("c2s", 1))
				c.Send(capturetest.C2S, len(frame("c2s", 1)), frame("c2s", 2))
				head, tail := capturetest.SplitRecords(b.Bytes(), ng, 4)
				if !ng {
					// a snap length that lets any record through, as
					// some writers set it
					binary.LittleEndian.PutUint32(head[16:], 0x7fffffff)
				}
				var hdr []byte
				if ng { // an enhanced packet block of a gigabyte
					hdr = binary.LittleEndian.AppendUint32(nil, 6)
					hdr = binary.LittleEndian.AppendUint32(hdr, huge)
				} else { // a record of a gigabyte, captured whole
					hdr = append([]byte(nil), tail[:8]...) // the next packet's time
					hdr = binary.LittleEndian.AppendUint32(hdr, huge)
					hdr = binary.LittleEndian.AppendUint32(hdr, huge)
				}
				body := int64(huge)
				if ng {
					body -= 8
				}
				var in io.Reader = io.MultiReader(bytes.NewReader(head), bytes.NewReader(hdr), &zeros{body}, bytes.NewReader(tail))
				if buffered {
					in = bufio.NewReaderSize(in, 64<<10)
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				var got []string
				st, err := capture.Read(in, capture.Options{}, func(r *capture.Record) error {
					got = append(got, describe(r))
					return nil
				})
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatal(err)
				}
				// a generous bound: the gigabyte would be 1024 MiB
				if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
					t.Errorf("%d MiB allocated", d>>20)
				}
				what := "record"
				if ng {
					what = "block"
				}
				want := []string{
					frameLine(b, 3, conn, "c2s", 1, 0),
					fmt.Sprintf("problem  c2s %s packet 5 (the %s at byte %d): %d bytes, over the limit of %d; not read", stamp(b, 3), what, len(head), huge, capture.DefaultMaxRecordSize),
					frameLine(b, 4, conn, "c2s", 2, len(frame("c2s", 1))),
					fmt.Sprintf("problem  c2s %s 1 packet not read: 1 over the record size limit", stamp(b, 4)),
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("records (-want +got):\n%s", diff)
				}
				if st.Packets != 6 || st.Skipped.TooLarge != 1 || st.Problems != 2 {
					t.Errorf("stats %+v", st)
				}
			})
		}
	}
}

// Two copies of the same bytes that disagree, both waiting behind a hole:
// the first copy is kept (as tshark keeps it) and the conflict reported
// with the connection, the direction and the stream offsets.
func TestConflictingCopies(t *testing.T) {
	stream := frames("c2s", 1, 3) // frames 1 and 2
	n1 := len(frame("c2s", 1))
	other := bytes.Clone(stream)
	// a letter of the second frame's text, still JSON: "frame 2" -> "frame 9"
	at := n1 + bytes.Index(stream[n1:], []byte("frame 2")) + len("frame ")
	other[at] = '9'
	for _, inOrder := range []bool{false, true} {
		t.Run(fmt.Sprintf("hole-filled-by-a-third-copy=%v", inOrder), func(t *testing.T) {
			b := &capturetest.Builder{File: capturetest.PcapNG}
			c := b.Conn(client, server)
			c.Handshake()
			c.Send(capturetest.C2S, 20, stream[20:])    // 3: waits behind bytes 0-19
			c.Send(capturetest.C2S, 20, other[20:at+5]) // 4: a second copy, different at `at`
			if inOrder {
				c.Send(capturetest.C2S, 0, other[:at+1]) // 5: fills the hole, and disagrees too
			} else {
				c.Send(capturetest.C2S, 0, stream[:20]) // 5: fills the hole
			}
			c.Fin(capturetest.C2S, len(stream))
			got, _, err := collect(t, b.Bytes(), capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			conflict := fmt.Sprintf("problem %s c2s %%s %s c2s: byte %d arrived twice with different contents; the first copy is kept", conn, conn, at)
			want = append(want, fmt.Sprintf(conflict, stamp(b, 4)))
			if inOrder {
				want = append(want, fmt.Sprintf(conflict, stamp(b, 5)))
			}
			want = append(want,
				frameLine(b, 5, conn, "c2s", 1, 0),
				frameLine(b, 5, conn, "c2s", 2, n1))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

// tshark keeps the first copy too: the same bytes.
func TestTsharkConflictingCopies(t *testing.T) {
	tshark := needs.Program(t, "tshark", "Wireshark's reassembly is compared here (apt-get install tshark)")
	stream := frames("c2s", 1, 3)
	other := bytes.Clone(stream)
	at := bytes.Index(stream, []byte("frame 2")) + len("frame ")
	other[at] = '9'
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 20, stream[20:])
	c.Send(capturetest.C2S, 20, other[20:at+5])
	c.Send(capturetest.C2S, 0, stream[:20])
	c.Fin(capturetest.C2S, len(stream))
	in := filepath.Join(t.TempDir(), "in.pcapng")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	theirs := tsharkFollow(t, tshark, in)
	var ours string
	var conflicts int
	_, err := capture.Read(bytes.NewReader(b.Bytes()), capture.Options{}, func(r *capture.Record) error {
		var ce *capture.ConflictError
		switch {
		case r.Kind == capture.Frame:
			ours += hex.EncodeToString(r.Frame.Raw)
		case errors.As(r.Err, &ce):
			conflicts++
		default:
			t.Errorf("record %s", describe(r))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ours != theirs[0] || ours != hex.EncodeToString(stream) || conflicts != 1 {
		t.Errorf("%d conflicts; ours %s\ntshark's %s", conflicts, ours, theirs[0])
	}
}

// A pcapng interface whose link type is not read: its packets are counted
// as not read, and those of the other interfaces are read.
func TestInterfaceLinkTypeNotRead(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn(client, server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, frame("c2s", 1))
	c.Send(capturetest.C2S, len(frame("c2s", 1)), frame("c2s", 2))
	head, tail := capturetest.SplitRecords(b.Bytes(), true, 4)
	le := binary.LittleEndian
	idb := le.AppendUint32(nil, 1) // an interface description block: link type 147
	idb = le.AppendUint32(idb, 20)
	idb = le.AppendUint16(idb, 147)
	idb = le.AppendUint16(idb, 0)
	idb = le.AppendUint32(idb, 0)
	idb = le.AppendUint32(idb, 20)
	epb := le.AppendUint32(nil, 6) // a packet of 4 bytes on it
	epb = le.AppendUint32(epb, 36)
	epb = le.AppendUint32(epb, 1)
	epb = append(epb, tail[12:20]...) // the next packet's time
	epb = le.AppendUint32(epb, 4)
	epb = le.AppendUint32(epb, 4)
	epb = append(epb, 1, 2, 3, 4)
	epb = le.AppendUint32(epb, 36)
	data := append(append(append(head, idb...), epb...), tail...)
	got, st, err := collect(t, data, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		frameLine(b, 3, conn, "c2s", 1, 0),
		frameLine(b, 4, conn, "c2s", 2, len(frame("c2s", 1))),
		fmt.Sprintf("problem  c2s %s 1 packet not read: 1 on an interface whose link type is not read (147, UnknownLinkType)", stamp(b, 4)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if st.Skipped.LinkType != 1 || st.Packets != 6 {
		t.Errorf("stats %+v", st)
	}
}
