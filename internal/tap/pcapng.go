package tap

import (
	"io"
	"net"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/toonkit/toonkit/internal/capture"
)

// maxSegment is the largest TCP payload written in one packet (an IPv4
// packet holds at most 65535 bytes).
const maxSegment = 32 << 10

// pcapWriter writes the traffic as a pcapng file of Ethernet frames with
// synthesised IP and TCP headers (pcapgo.NgWriter, nanosecond times).
type pcapWriter struct {
	w   *pcapgo.NgWriter
	buf gopacket.SerializeBuffer
	err error
	n   uint32 // connections opened, for their initial sequence numbers
}

func newPcapWriter(out io.Writer) (*pcapWriter, error) {
	w, err := pcapgo.NewNgWriter(out, layers.LinkTypeEthernet)
	if err != nil {
		return nil, err
	}
	return &pcapWriter{w: w, buf: gopacket.NewSerializeBuffer()}, nil
}

func (p *pcapWriter) flush() error {
	if p.err == nil {
		p.err = p.w.Flush()
	}
	return p.err
}

// pcapConn is one connection of the pcapng: the client's and the
// upstream's addresses and the next sequence number of each direction.
type pcapConn struct {
	p    *pcapWriter
	ends [2]netip.AddrPort // client, upstream
	next [2]uint32
}

// open writes the connection's handshake (SYN, SYN-ACK, ACK).
func (p *pcapWriter) open(t time.Time, client, upstream net.Addr) *pcapConn {
	c := &pcapConn{p: p, ends: [2]netip.AddrPort{addrPort(client), addrPort(upstream)}}
	if c.ends[0].Addr().Is4() != c.ends[1].Addr().Is4() {
		// One packet holds one family: write both as IPv6 (an IPv4
		// address mapped), which internal/capture shows as IPv4 again.
		for i, e := range c.ends {
			c.ends[i] = netip.AddrPortFrom(netip.AddrFrom16(e.Addr().As16()), e.Port())
		}
	}
	p.n++
	isn := [2]uint32{p.n * 0x01000193, 0xfffff000 - p.n*7919}
	c.next = [2]uint32{isn[0] + 1, isn[1] + 1}
	c.segment(t, capture.C2S, isn[0], 0, nil, func(tcp *layers.TCP) { tcp.SYN, tcp.ACK = true, false })
	c.segment(t, capture.S2C, isn[1], c.next[0], nil, func(tcp *layers.TCP) { tcp.SYN = true })
	c.segment(t, capture.C2S, c.next[0], c.next[1], nil, nil)
	return c
}

// data writes the bytes of a direction, in segments of maxSegment bytes
// at the most.
func (c *pcapConn) data(t time.Time, dir capture.Dir, b []byte) {
	for len(b) > 0 && c.p.err == nil {
		n := min(len(b), maxSegment)
		c.segment(t, dir, c.next[dir], c.next[1-dir], b[:n], nil)
		c.next[dir] += uint32(n)
		b = b[n:]
	}
}

// skip leaves out n bytes of a direction: a hole in its sequence space.
func (c *pcapConn) skip(dir capture.Dir, n int64) { c.next[dir] += uint32(n) }

// rst writes the reset of the connection by the sender of dir.
func (c *pcapConn) rst(t time.Time, dir capture.Dir) {
	c.segment(t, dir, c.next[dir], c.next[1-dir], nil, func(tcp *layers.TCP) { tcp.RST = true })
}

// fin writes the end of a direction.
func (c *pcapConn) fin(t time.Time, dir capture.Dir) {
	c.segment(t, dir, c.next[dir], c.next[1-dir], nil, func(tcp *layers.TCP) { tcp.FIN = true })
	c.next[dir]++
}

func (c *pcapConn) segment(t time.Time, dir capture.Dir, seq, ack uint32, data []byte, set func(*layers.TCP)) {
	p := c.p
	if p.err != nil {
		return
	}
	src, dst := c.ends[0], c.ends[1]
	if dir == capture.S2C {
		src, dst = dst, src
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()),
		Seq: seq, Ack: ack, ACK: true, PSH: len(data) > 0, Window: 65535}
	if set != nil {
		set(tcp)
	}
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	if dir == capture.S2C {
		eth.SrcMAC, eth.DstMAC = eth.DstMAC, eth.SrcMAC
	}
	var ip gopacket.SerializableLayer
	if src.Addr().Is4() {
		ip4 := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		tcp.SetNetworkLayerForChecksum(ip4)
		ip = ip4
	} else {
		eth.EthernetType = layers.EthernetTypeIPv6
		ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		tcp.SetNetworkLayerForChecksum(ip6)
		ip = ip6
	}
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if p.err = gopacket.SerializeLayers(p.buf, opts, eth, ip, tcp, gopacket.Payload(data)); p.err != nil {
		return
	}
	b := p.buf.Bytes()
	p.err = p.w.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(b), Length: len(b)}, b)
}

// addrPort is a TCP address as a netip.AddrPort, IPv4 unmapped.
func addrPort(a net.Addr) netip.AddrPort {
	if ta, ok := a.(*net.TCPAddr); ok {
		ap := ta.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}
