package capturetest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/toonkit/toonkit/kado"
)

// Frame is a Kado frame of the given type, sequence id and JSON payload,
// stamped 2025-01-01T00:00:00Z plus seq milliseconds.
func Frame(typ kado.MessageType, seq int, payload string) []byte {
	b, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: typ, Timestamp: 1735689600000 + uint64(seq), SequenceID: uint32(seq)}, []byte(payload), kado.CompressNever)
	if err != nil {
		panic(err)
	}
	return b
}

// WSFrame is a WebSocket frame (RFC 6455) with opcode op; mask is nil for
// an unmasked frame (server to client), 4 bytes for a masked one.
func WSFrame(fin bool, op byte, payload []byte, mask []byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	m := byte(0)
	if mask != nil {
		m = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		out = append(out, m|byte(n))
	case n < 1<<16:
		out = append(out, m|126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, m|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	if mask == nil {
		return append(out, payload...)
	}
	out = append(out, mask...)
	for i, c := range payload {
		out = append(out, c^mask[i%4])
	}
	return out
}

// The WebSocket handshake of the samples.
const (
	WSRequest  = "GET /agent HTTP/1.1\r\nHost: 10.0.0.2:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	WSResponse = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGOzzOZWxmTxo=\r\n\r\n"
)

var samples = map[string]func() []byte{
	// An orchestrator and a subagent on port 7000 (a frame split across
	// segments, segments out of order and sent twice) and a WebSocket
	// connection on port 8080 (masked, a message in two frames, a text
	// message).
	"session.pcapng": func() []byte {
		b := &Builder{File: PcapNG}
		c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
		c.Handshake()
		in1 := Frame(kado.Instruction, 1, `{"task":"summarise","doc":"q3-report.txt"}`)
		tc := Frame(kado.ToolCall, 1, `{"tool":"read_file","args":{"path":"q3-report.txt"}}`)
		in2 := Frame(kado.Instruction, 2, `{"task":"translate","to":"fr"}`)
		tr := Frame(kado.ToolResult, 2, `{"ok":true,"bytes":18234}`)
		c2s := append(append([]byte(nil), in1...), tr...)
		c.SendSplit(C2S, 0, in1, 20) // split in two segments
		c.Send(S2C, 0, tc)
		c.Send(C2S, len(in1)+10, tr[10:]) // out of order
		c.Send(C2S, len(in1), tr[:10])
		c.Send(C2S, len(in1), tr[:10]) // a retransmission
		c2s = append(c2s, in2...)
		c.Send(C2S, len(in1)+len(tr), in2)
		c.Fin(C2S, len(c2s))
		c.Fin(S2C, len(tc))

		w := b.Conn("10.0.0.1:51300", "10.0.0.2:8080")
		w.Handshake()
		mask := []byte{0x37, 0xfa, 0x21, 0x3d}
		req := Frame(kado.Instruction, 10, `{"task":"plan","steps":3}`)
		var ws []byte
		ws = append(ws, WSRequest...)
		ws = append(ws, WSFrame(false, 2, req[:12], mask)...)
		ws = append(ws, WSFrame(true, 0, req[12:], mask)...)
		ws = append(ws, WSFrame(true, 1, []byte("hello from the orchestrator"), mask)...)
		w.SendSplit(C2S, 0, ws, len(WSRequest), 30)
		resp := append([]byte(WSResponse), WSFrame(true, 2, Frame(kado.Status, 10, `{"plan":["fetch","sum","report"]}`), nil)...)
		w.Send(S2C, 0, resp)
		return b.Bytes()
	},
	// A connection whose capture lost a segment in the middle of a frame.
	"lost.pcap": func() []byte {
		b := &Builder{File: PcapNanos}
		c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
		c.Handshake()
		var s []byte
		for i := 1; i <= 4; i++ {
			s = append(s, Frame(kado.Instruction, i, fmt.Sprintf(`{"step":%d}`, i))...)
		}
		n := len(Frame(kado.Instruction, 1, `{"step":1}`))
		c.Send(C2S, 0, s[:n+5])
		c.Send(C2S, n+15, s[n+15:]) // bytes n+5 .. n+14 are lost
		c.Fin(C2S, len(s))
		return b.Bytes()
	},
	// Bad frames in a capture: a payload that is not JSON and a frame
	// with version 2 among good frames from the client; a good reply.
	"damaged.pcapng": func() []byte {
		b := &Builder{File: PcapNG}
		c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
		c.Handshake()
		v2 := Frame(kado.Instruction, 4, `{"step":4}`)
		v2[0] = 2
		var s []byte
		s = append(s, Frame(kado.Instruction, 1, `{"step":1}`)...)
		s = append(s, Frame(kado.Status, 2, `{"step":2,}`)...)
		s = append(s, Frame(kado.Instruction, 3, `{"step":3}`)...)
		s = append(s, v2...)
		s = append(s, Frame(kado.Instruction, 5, `{"step":5}`)...)
		c.Send(C2S, 0, s)
		reply := Frame(kado.Status, 1, `{"ok":true}`)
		c.Send(S2C, 0, reply)
		c.Fin(C2S, len(s))
		c.Fin(S2C, len(reply))
		return b.Bytes()
	},
	// What is not plain Ethernet, IPv4 or IPv6, TCP: frames on port 7000
	// under an outer VLAN tag 0x9100 and an 802.1Q tag, over IPv6 with a
	// Destination Options header, two copies of the same bytes that
	// disagree (out of order: the first is kept), an ARP request, a UDP
	// datagram and a TCP segment cut short inside its header.
	"odd.pcapng": func() []byte {
		b := &Builder{File: PcapNG, VLAN: []layers.EthernetType{0x9100, layers.EthernetTypeDot1Q}, IPv6Ext: []layers.IPProtocol{layers.IPProtocolIPv6Destination}}
		c := b.Conn("[fd00::1]:51234", "[fd00::2]:7000")
		c.Handshake()
		var s []byte
		s = append(s, Frame(kado.Heartbeat, 1, `{}`)...)
		s = append(s, Frame(kado.Heartbeat, 2, `{}`)...)
		other := append([]byte(nil), s...)
		at := len(s)/2 + 14 // the second frame's sequence id
		other[at] = 9
		c.Send(C2S, 10, s[10:])         // out of order: waits for bytes 0-9
		c.Send(C2S, 10, other[10:at+2]) // a second copy that disagrees
		c.Send(C2S, 0, s[:10])
		c.Fin(C2S, len(s))
		eth := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1}
		arp := append(append([]byte(nil), eth...), 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2)
		b.Raw(append(arp, make([]byte, 60-len(arp))...))
		udp := &layers.UDP{SrcPort: 5353, DstPort: 5353}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{224, 0, 0, 251}}
		_ = udp.SetNetworkLayerForChecksum(ip)
		b.Raw(serialize(&layers.Ethernet{SrcMAC: eth[6:12], DstMAC: []byte{1, 0, 0x5e, 0, 0, 0xfb}, EthernetType: layers.EthernetTypeIPv4}, ip, udp, gopacket.Payload("mdns")))
		cut := serialize(&layers.Ethernet{SrcMAC: eth[6:12], DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4},
			&layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}}, gopacket.Payload([]byte{0xc8, 0x22, 0x1b, 0x58, 0, 0, 0, 1}))
		b.Raw(cut) // 8 bytes of a TCP header: ports 51234 and 7000, then cut
		return b.Bytes()
	},
	// Plain HTTP on port 80 beside frames on port 7000, captured with
	// tcpdump -i any (Linux cooked v2) over IPv6, in a big-endian pcap.
	"mixed.pcap": func() []byte {
		b := &Builder{File: PcapBig, Link: layers.LinkTypeLinuxSLL2}
		h := b.Conn("[fd00::1]:40000", "[fd00::2]:80")
		h.Handshake()
		h.Send(C2S, 0, []byte("GET / HTTP/1.1\r\nHost: example\r\n\r\n"))
		c := b.Conn("[fd00::1]:51234", "[fd00::2]:7000")
		c.Handshake()
		c.Send(C2S, 0, Frame(kado.Heartbeat, 1, `{"alive":true}`))
		return b.Bytes()
	},
}

// Sample returns the sample capture of that name; ok is false for an
// unknown name.
func Sample(name string) (data []byte, ok bool) {
	f, ok := samples[name]
	if !ok {
		return nil, false
	}
	return f(), true
}

// SampleNames lists the samples, sorted.
func SampleNames() []string {
	var out []string
	for name := range samples {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Tangle is a capture of conns connections over rounds rounds of frames
// each way, on the given link and file format, with every hazard a real
// capture has, chosen by a fixed seed: frames split at any offset, several
// frames in one segment, segments out of order, sent twice, overlapping, a
// segment lost, a payload that is not JSON, IPv6 connections beside IPv4
// ones, WebSocket connections (masked, messages in continuation frames,
// text messages), and a connection already open when the capture began.
// It is large enough (conns*rounds*3 packets or so) to cross the batches
// a reader works in.
func Tangle(link layers.LinkType, file File, conns, rounds int) []byte {
	b := &Builder{Link: link, File: file}
	rng := uint64(0x9e3779b97f4a7c15)
	rnd := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	type conn struct {
		c    *Conn
		ws   bool
		off  [2]int
		mask []byte
	}
	cs := make([]*conn, conns)
	for i := range cs {
		client, server := fmt.Sprintf("10.0.%d.%d:%d", i/200, i%200+1, 40000+i), "10.9.0.1:7000"
		if i%3 == 1 {
			client, server = fmt.Sprintf("[fd00::%x]:%d", i+1, 40000+i), "[fd00::9]:7000"
		}
		c := &conn{c: b.Conn(client, server), ws: i%5 == 2, mask: []byte{byte(i), 0x5a, 0xa5, byte(i * 7)}}
		if i == conns-1 {
			// already open: no handshake, and the first bytes seen are
			// the end of a frame
			c.off = [2]int{1000, 2000}
			tail := Frame(kado.Status, 0, `{"cut":"before the capture"}`)
			c.c.Send(C2S, c.off[0], tail[7:])
			c.off[0] += len(tail) - 7
		} else {
			c.c.Handshake()
		}
		if c.ws {
			c.c.Send(C2S, 0, []byte(WSRequest))
			c.c.Send(S2C, 0, []byte(WSResponse))
			c.off = [2]int{len(WSRequest), len(WSResponse)}
		}
		cs[i] = c
	}
	seq := 0
	for round := range rounds {
		for i, c := range cs {
			for dir := range 2 {
				seq++
				typ := []kado.MessageType{kado.Instruction, kado.ToolResult}[dir]
				payload := fmt.Sprintf(`{"conn":%d,"round":%d,"dir":%d,"text":"%s"}`, i, round, dir, fmt.Sprint(seq*7919%1000))
				if rnd(40) == 0 {
					payload = `{"not json":` // a payload that is not JSON
				}
				data := Frame(typ, seq, payload)
				if rnd(4) == 0 { // two frames in one go
					data = append(data, Frame(typ, seq, `{"second":true}`)...)
				}
				if c.ws {
					var mask []byte
					if dir == C2S {
						mask = c.mask
					}
					switch rnd(3) {
					case 0:
						data = WSFrame(true, 2, data, mask)
					case 1: // in two frames: a continuation
						k := 1 + rnd(len(data)-1)
						data = append(WSFrame(false, 2, data[:k], mask), WSFrame(true, 0, data[k:], mask)...)
					default: // a text message first
						data = append(WSFrame(true, 1, []byte(fmt.Sprintf("text %d", seq)), mask), WSFrame(true, 2, data, mask)...)
					}
				}
				off := c.off[dir]
				c.off[dir] += len(data)
				switch rnd(8) {
				case 0, 1, 2: // one segment
					c.c.Send(dir, off, data)
				case 3: // split at any offset
					c.c.SendSplit(dir, off, data, 1+rnd(len(data)-1))
				case 4: // three pieces, the last first
					k1 := 1 + rnd(len(data)-2)
					k2 := k1 + 1 + rnd(len(data)-k1-1)
					c.c.Send(dir, off+k2, data[k2:])
					c.c.Send(dir, off, data[:k1])
					c.c.Send(dir, off+k1, data[k1:k2])
				case 5: // sent twice
					c.c.Send(dir, off, data)
					c.c.Send(dir, off, data)
				case 6: // overlapping segments
					k := 1 + rnd(len(data)-1)
					c.c.Send(dir, off, data[:k])
					back := min(k, 1+rnd(8))
					c.c.Send(dir, off+k-back, data[k-back:])
				default: // a segment the capture missed, now and then
					k := 1 + rnd(len(data)-1)
					c.c.Send(dir, off, data[:k])
					if rnd(6) == 0 {
						b.Lose(b.Packets() - 1)
					}
					c.c.Send(dir, off+k, data[k:])
				}
			}
		}
	}
	for i, c := range cs {
		if i%4 != 3 { // some connections are never closed
			c.c.Fin(C2S, c.off[0])
			c.c.Fin(S2C, c.off[1])
		}
	}
	return b.Bytes()
}

// SmallFrames is a pcapng of about size bytes of small frames over 100
// connections (payloads of about 40 to 220 bytes, one frame a segment,
// requests and responses interleaved), as `gencapture -bench MB -small`
// writes for scripts/bench.sh: the capture where the cost of a packet,
// not of a byte, decides.
func SmallFrames(size int) []byte {
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriter(&out, layers.LinkTypeEthernet)
	if err != nil {
		panic(err)
	}
	b := &Builder{Emit: func(t time.Time, data []byte) {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(data), Length: len(data)}, data); err != nil {
			panic(err)
		}
	}}
	cs := make([]*Conn, 100)
	off := make([][2]int, len(cs))
	for i := range cs {
		cs[i] = b.Conn(fmt.Sprintf("10.0.0.%d:%d", i+1, 40000+i), "10.1.0.1:7000")
		cs[i].Handshake()
	}
	const words = "the orchestrator asks the subagent to read the report and sum the figures of the third quarter "
	seq := 0
	for out.Len() < size {
		for i, c := range cs {
			for dir := range 2 {
				seq++
				text := make([]byte, seq*7919%180)
				for k := range text {
					text[k] = words[k%len(words)]
				}
				f := Frame([]kado.MessageType{kado.Instruction, kado.ToolResult}[dir], seq,
					fmt.Sprintf(`{"conn":%d,"seq":%d,"role":%q,"text":"%s"}`, i, seq, []string{"orchestrator", "subagent"}[dir], text))
				c.Send(dir, off[i][dir], f)
				off[i][dir] += len(f)
			}
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	return out.Bytes()
}
