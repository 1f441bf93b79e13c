// Package capturetest builds packet captures for tests: TCP segments of
// made-up connections, serialised with gopacket's layers and written with
// its pcapgo writers (pcap with micro- or nanosecond timestamps, pcapng),
// on Ethernet, Linux cooked (SLL, SLL2) or raw IP links, over IPv4 or
// IPv6.
package capturetest

import (
	"bytes"
	"encoding/binary"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// File is the kind of file Bytes writes.
type File int

// The files.
const (
	Pcap      File = iota // microsecond pcap, little-endian (as pcapgo writes it)
	PcapNanos             // nanosecond pcap
	PcapBig               // microsecond pcap, big-endian (as a big-endian host writes it)
	PcapNG
)

// Builder collects the packets of a capture in the order they are added.
type Builder struct {
	Link  layers.LinkType // LinkTypeEthernet (default), LinkTypeLinuxSLL, LinkTypeLinuxSLL2 or LinkTypeRaw
	File  File
	Start time.Time // time of the first packet; each packet is 1ms and 1ns after the one before
	// Emit, when set, is given each packet as it is added, in place of
	// keeping it for Bytes: for captures too large to hold.
	Emit func(t time.Time, data []byte)
	// Fragment, when > 0, sends each IP packet whose payload (the TCP
	// header and data) is longer than Fragment bytes as IP fragments
	// (IPv4 flags and offsets, an IPv6 fragment header) of Fragment
	// bytes (rounded down to a multiple of 8), each a packet of its own;
	// FragmentsBackwards sends them last first.
	Fragment           int
	FragmentsBackwards bool
	// VLAN, on Ethernet, puts each packet under these 802.1Q tags, the
	// outer first, each given by the EtherType that announces it: 0x8100,
	// 0x88a8 or 0x9100 (QinQ).
	VLAN []layers.EthernetType
	// IPv6Ext puts these IPv6 extension headers, in this order, between
	// the IPv6 header and the TCP segment of each IPv6 packet that is not
	// fragmented: Hop-by-Hop, Routing (segments left 0), Fragment (an
	// atomic fragment) and Destination Options, 8 bytes each (options of
	// padding).
	IPv6Ext []layers.IPProtocol
	n       int
	pkts    []pkt
}

type pkt struct {
	t    time.Time
	data []byte
	lost bool
}

// Lose leaves packet i (from 0) out of the file, as a capture that missed
// it: the other packets keep their numbers and times.
func (b *Builder) Lose(i int) { b.pkts[i].lost = true }

// Conn is a TCP connection between a client and a server.
type Conn struct {
	b              *Builder
	client, server netip.AddrPort
	isn            [2]uint32 // initial sequence numbers: [0] client, [1] server
}

// Directions for Conn methods.
const (
	C2S = 0
	S2C = 1
)

// Conn returns a connection between client and server ("10.0.0.1:51234",
// "[fd00::1]:7000"). Nothing is sent until its methods are called.
func (b *Builder) Conn(client, server string) *Conn {
	return &Conn{b: b, client: netip.MustParseAddrPort(client), server: netip.MustParseAddrPort(server),
		isn: [2]uint32{0xfffff000 + uint32(len(b.pkts)), 1000}}
}

// Handshake sends SYN, SYN-ACK and ACK.
func (c *Conn) Handshake() {
	c.segment(C2S, -1, nil, func(t *layers.TCP) { t.SYN, t.ACK = true, false })
	c.segment(S2C, -1, nil, func(t *layers.TCP) { t.SYN = true })
	c.segment(C2S, 0, nil, nil)
}

// Send sends data from direction dir as one segment at stream offset off
// (0 is the first byte after the SYN).
func (c *Conn) Send(dir, off int, data []byte) { c.segment(dir, off, data, nil) }

// SendSplit sends data at stream offset off in segments of the given
// sizes (the last one takes the rest) and returns the offset after it.
func (c *Conn) SendSplit(dir, off int, data []byte, sizes ...int) int {
	for _, n := range sizes {
		n = min(n, len(data))
		c.Send(dir, off, data[:n])
		off, data = off+n, data[n:]
	}
	if len(data) > 0 {
		c.Send(dir, off, data)
		off += len(data)
	}
	return off
}

// Fin sends a FIN from dir after off bytes.
func (c *Conn) Fin(dir, off int) {
	c.segment(dir, off, nil, func(t *layers.TCP) { t.FIN = true })
}

func (c *Conn) segment(dir, off int, data []byte, set func(*layers.TCP)) {
	src, dst := c.client, c.server
	if dir == S2C {
		src, dst = dst, src
	}
	t := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()),
		Seq: c.isn[dir] + 1 + uint32(off), Ack: c.isn[1-dir] + 1, ACK: true, PSH: len(data) > 0, Window: 65535}
	if set != nil {
		set(t)
	}
	c.b.add(src.Addr(), dst.Addr(), t, data)
}

func (b *Builder) add(src, dst netip.Addr, tcp *layers.TCP, data []byte) {
	var ip gopacket.NetworkLayer
	if src.Is4() {
		ip = &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
	} else {
		ip = &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
	}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		panic(err)
	}
	if b.Fragment > 0 {
		seg := serialize(tcp, gopacket.Payload(data))
		if size := b.Fragment &^ 7; size > 0 && len(seg) > b.Fragment {
			b.fragments(ip, seg, size)
			return
		}
	}
	b.packet(ip.(gopacket.SerializableLayer), tcp, gopacket.Payload(data))
}

// fragments sends the IP payload seg in fragments of size bytes.
func (b *Builder) fragments(ip gopacket.NetworkLayer, seg []byte, size int) {
	id := uint32(0x1000 + b.n)
	var frags [][]gopacket.SerializableLayer
	for off := 0; off < len(seg); off += size {
		end := min(off+size, len(seg))
		more := end < len(seg)
		switch ip := ip.(type) {
		case *layers.IPv4:
			f := *ip
			f.Id, f.FragOffset = uint16(id), uint16(off/8)
			if more {
				f.Flags = layers.IPv4MoreFragments
			}
			frags = append(frags, []gopacket.SerializableLayer{&f, gopacket.Payload(seg[off:end])})
		case *layers.IPv6:
			f := *ip
			f.NextHeader = layers.IPProtocolIPv6Fragment
			fh := &layers.IPv6Fragment{NextHeader: layers.IPProtocolTCP, FragmentOffset: uint16(off / 8), MoreFragments: more, Identification: id}
			frags = append(frags, []gopacket.SerializableLayer{&f, fh, gopacket.Payload(seg[off:end])})
		}
	}
	if b.FragmentsBackwards {
		slices.Reverse(frags)
	}
	for _, f := range frags {
		b.packet(f...)
	}
}

func serialize(ls ...gopacket.SerializableLayer) []byte {
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// packet adds a packet of the IP layers ls, with the link's header.
func (b *Builder) packet(ls ...gopacket.SerializableLayer) {
	etype := layers.EthernetTypeIPv4
	if _, ok := ls[0].(*layers.IPv6); ok {
		etype = layers.EthernetTypeIPv6
	}
	ipb := serialize(ls...)
	if etype == layers.EthernetTypeIPv6 && len(b.IPv6Ext) > 0 && layers.IPProtocol(ipb[6]) == layers.IPProtocolTCP {
		ipb = withExtensions(ipb, b.IPv6Ext)
	}
	var link []byte
	switch b.Link {
	case layers.LinkTypeEthernet, 0:
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: etype}
		lls := []gopacket.SerializableLayer{eth}
		for i, tag := range b.VLAN {
			if i == 0 {
				eth.EthernetType = tag
			} else {
				lls[i].(*layers.Dot1Q).Type = tag
			}
			lls = append(lls, &layers.Dot1Q{VLANIdentifier: uint16(100 + i), Type: etype})
		}
		ipb = serialize(append(lls, gopacket.Payload(ipb))...)
	case layers.LinkTypeLinuxSLL:
		// packet type, ARPHRD_ETHER, address length, address (8), protocol
		link = binary.BigEndian.AppendUint16(nil, 4)
		link = binary.BigEndian.AppendUint16(link, 1)
		link = binary.BigEndian.AppendUint16(link, 6)
		link = append(link, 2, 0, 0, 0, 0, 1, 0, 0)
		link = binary.BigEndian.AppendUint16(link, uint16(etype))
	case layers.LinkTypeLinuxSLL2:
		// protocol, reserved, interface index, ARPHRD_ETHER, packet type, address length, address (8)
		link = binary.BigEndian.AppendUint16(nil, uint16(etype))
		link = append(link, 0, 0, 0, 0, 0, 3)
		link = binary.BigEndian.AppendUint16(link, 1)
		link = append(link, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0)
	}
	data := append(link, ipb...)
	b.Raw(data)
}

// withExtensions puts extension headers between an IPv6 packet's header
// and its TCP segment (whose checksum stays right: the pseudo-header
// counts the segment's length and the addresses, which do not change).
func withExtensions(ip []byte, exts []layers.IPProtocol) []byte {
	out := append([]byte(nil), ip[:40]...)
	out[6] = byte(exts[0])
	for i, e := range exts {
		next := layers.IPProtocolTCP
		if i+1 < len(exts) {
			next = exts[i+1]
		}
		switch e {
		case layers.IPProtocolIPv6Routing:
			out = append(out, byte(next), 0, 253, 0, 0, 0, 0, 0) // type 253 (experiment), segments left 0
		case layers.IPProtocolIPv6Fragment:
			out = append(out, byte(next), 0, 0, 0, 0, 0, 0x12, 0x34) // offset 0, no more fragments
		default: // Hop-by-Hop, Destination Options: a PadN option of 4
			out = append(out, byte(next), 0, 1, 4, 0, 0, 0, 0)
		}
	}
	out = append(out, ip[40:]...)
	binary.BigEndian.PutUint16(out[4:], uint16(len(out)-40))
	return out
}

// Raw adds a packet of the link layer's bytes as they are given (ARP, a
// packet cut short), stamped as the others are.
func (b *Builder) Raw(data []byte) {
	t := b.next()
	if b.Emit != nil {
		b.Emit(t, data)
		return
	}
	b.pkts = append(b.pkts, pkt{t: t, data: data})
}

// next is the capture time of the next packet.
func (b *Builder) next() time.Time {
	start := b.Start
	if start.IsZero() {
		start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	n := time.Duration(b.n)
	b.n++
	return start.Add(n*time.Millisecond + n)
}

// Packets returns how many packets were added.
func (b *Builder) Packets() int { return len(b.pkts) }

// Time returns the capture time of packet i (from 0).
func (b *Builder) Time(i int) time.Time { return b.pkts[i].t }

// Bytes writes the capture file.
func (b *Builder) Bytes() []byte {
	var out bytes.Buffer
	link := b.Link
	if link == 0 {
		link = layers.LinkTypeEthernet
	}
	switch b.File {
	case PcapNG:
		w, err := pcapgo.NewNgWriter(&out, link)
		if err != nil {
			panic(err)
		}
		for _, p := range b.pkts {
			if p.lost {
				continue
			}
			if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: p.t, CaptureLength: len(p.data), Length: len(p.data)}, p.data); err != nil {
				panic(err)
			}
		}
		if err := w.Flush(); err != nil {
			panic(err)
		}
		return out.Bytes()
	}
	w := pcapgo.NewWriter(&out)
	if b.File == PcapNanos {
		w = pcapgo.NewWriterNanos(&out)
	}
	if err := w.WriteFileHeader(65536, link); err != nil {
		panic(err)
	}
	for _, p := range b.pkts {
		if p.lost {
			continue
		}
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: p.t, CaptureLength: len(p.data), Length: len(p.data)}, p.data); err != nil {
			panic(err)
		}
	}
	if b.File == PcapBig {
		return bigEndian(out.Bytes())
	}
	return out.Bytes()
}

// bigEndian rewrites a little-endian pcap file as a big-endian host
// writes it: the 32- and 16-bit fields of the file header and of each
// record header swapped.
func bigEndian(le []byte) []byte {
	be := bytes.Clone(le)
	swap32 := func(i int) { binary.BigEndian.PutUint32(be[i:], binary.LittleEndian.Uint32(le[i:])) }
	swap16 := func(i int) { binary.BigEndian.PutUint16(be[i:], binary.LittleEndian.Uint16(le[i:])) }
	swap32(0)
	swap16(4)
	swap16(6)
	for i := 8; i < 24; i += 4 {
		swap32(i)
	}
	for i := 24; i+16 <= len(le); {
		for j := 0; j < 16; j += 4 {
			swap32(i + j)
		}
		i += 16 + int(binary.LittleEndian.Uint32(le[i+8:]))
	}
	return be
}

// SplitRecords cuts a capture file after its first k packet records
// (pcap) or blocks (pcapng: the section and interface blocks and k
// packets).
func SplitRecords(data []byte, ng bool, k int) (head, tail []byte) {
	at := 24
	if ng {
		at = 0
		for i := 0; i < 2; i++ { // section header, interface description
			at += int(binary.LittleEndian.Uint32(data[at+4:]))
		}
	}
	for range k {
		if ng {
			at += int(binary.LittleEndian.Uint32(data[at+4:]))
		} else {
			at += 16 + int(binary.LittleEndian.Uint32(data[at+8:]))
		}
	}
	return data[:at:at], data[at:]
}

// HugeRecords are captures with a record that declares a huge length,
// over the record size limit: a pcap record (with a snap length that lets
// it through) and a pcapng block, each followed by a few of its bytes and
// a packet.
func HugeRecords() [][]byte {
	var out [][]byte
	for _, ng := range []bool{false, true} {
		file := Pcap
		if ng {
			file = PcapNG
		}
		b := &Builder{File: file}
		c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
		c.Handshake()
		c.Send(C2S, 0, []byte("\x01\x01 a frame's worth of bytes"))
		head, tail := SplitRecords(b.Bytes(), ng, 3)
		var hdr []byte
		if ng {
			hdr = binary.LittleEndian.AppendUint32(nil, 6)
			hdr = binary.LittleEndian.AppendUint32(hdr, 0xfffffffc)
		} else {
			binary.LittleEndian.PutUint32(head[16:], 0xffffffff)
			hdr = append([]byte(nil), tail[:8]...)
			hdr = binary.LittleEndian.AppendUint32(hdr, 0x7fffffff)
			hdr = binary.LittleEndian.AppendUint32(hdr, 0x7fffffff)
		}
		out = append(out, slices.Concat(head, hdr, make([]byte, 64), tail))
	}
	return out
}
