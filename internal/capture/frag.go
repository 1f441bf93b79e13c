package capture

import (
	"bytes"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/ip4defrag"
	"github.com/gopacket/gopacket/ip6defrag"
	"github.com/gopacket/gopacket/layers"
)

// Limits of IP reassembly.
const (
	// FragmentTimeout is how long (in capture time) the fragments of an
	// IP packet wait for the rest, as Linux's ipfrag_time: then they are
	// given up.
	FragmentTimeout = 30 * time.Second
	// maxFragmentBytes bounds the fragment bytes held over all packets;
	// past it every packet waiting for fragments is given up.
	maxFragmentBytes = 4 << 20
)

// defrag puts IP fragments back together with gopacket's ip4defrag and
// ip6defrag, within bounds: a packet whose fragments do not all arrive
// within FragmentTimeout, or while more than maxFragmentBytes wait, is
// given up (the TCP segment it held is then a hole, reported as such).
type defrag struct {
	v4      *ip4defrag.IPv4Defragmenter
	v6      *ip6defrag.IPv6Defragmenter
	pending map[fragKey]*fragEntry
	held    int       // bytes of the pending fragments
	swept   time.Time // when the pending packets were last looked at
	stats   *Stats
}

type fragKey struct {
	v6       bool
	src, dst netip.Addr
	id       uint32
	proto    layers.IPProtocol
}

type fragEntry struct {
	bytes int
	last  time.Time // capture time of its last fragment
}

// ipv4 takes an IPv4 fragment (its layer as decoded from the packet, whose
// bytes are not kept) and returns the whole packet once its last
// fragment is in, else nil.
func (d *defrag) ipv4(ip *layers.IPv4, t time.Time) *layers.IPv4 {
	if d.v4 == nil {
		d.v4 = ip4defrag.NewIPv4Defragmenter()
	}
	c := *ip
	c.Contents, c.Options = nil, nil
	c.SrcIP, c.DstIP, c.Payload = bytes.Clone(ip.SrcIP), bytes.Clone(ip.DstIP), bytes.Clone(ip.Payload)
	src, _ := netip.AddrFromSlice(c.SrcIP)
	dst, _ := netip.AddrFromSlice(c.DstIP)
	key := fragKey{src: src, dst: dst, id: uint32(ip.Id), proto: ip.Protocol}
	d.sweep(t)
	out, err := d.v4.DefragIPv4WithTimestamp(&c, t)
	if out != nil || err != nil {
		d.forget(key)
		if err != nil {
			d.stats.FragmentsLost++
		}
		return out
	}
	d.hold(key, len(c.Payload), t)
	return nil
}

// ipv6 is ipv4 for an IPv6 packet with a fragment header.
func (d *defrag) ipv6(ip *layers.IPv6, fh *layers.IPv6Fragment, t time.Time) *layers.IPv6 {
	if d.v6 == nil {
		d.v6 = ip6defrag.NewIPv6Defragmenter()
	}
	c := *ip
	c.Contents, c.Payload, c.HopByHop = nil, nil, nil
	c.SrcIP, c.DstIP = bytes.Clone(ip.SrcIP), bytes.Clone(ip.DstIP)
	f := *fh
	f.Contents, f.Payload = nil, bytes.Clone(fh.Payload)
	src, _ := netip.AddrFromSlice(c.SrcIP)
	dst, _ := netip.AddrFromSlice(c.DstIP)
	key := fragKey{v6: true, src: src, dst: dst, id: fh.Identification}
	d.sweep(t)
	out := d.v6.DefragIPv6(&c, &f)
	if out != nil {
		d.forget(key)
		return out
	}
	d.hold(key, len(f.Payload), t)
	return nil
}

func (d *defrag) hold(key fragKey, n int, t time.Time) {
	if d.pending == nil {
		d.pending = map[fragKey]*fragEntry{}
	}
	e := d.pending[key]
	if e == nil {
		e = &fragEntry{}
		d.pending[key] = e
	}
	e.bytes += n
	e.last = t
	d.held += n
	if d.held > maxFragmentBytes {
		d.dropAll(true, true)
	}
}

func (d *defrag) forget(key fragKey) {
	if e := d.pending[key]; e != nil {
		d.held -= e.bytes
		delete(d.pending, key)
	}
}

// sweep gives up the packets whose fragments have waited FragmentTimeout.
// ip4defrag forgets them one by one; ip6defrag keeps the wall-clock time of
// a packet's first fragment only, so a stale IPv6 packet gives up all the
// IPv6 packets waiting (their segments are then reported as holes).
func (d *defrag) sweep(t time.Time) {
	if len(d.pending) == 0 || t.Sub(d.swept) < FragmentTimeout/8 {
		return
	}
	d.swept = t
	old := t.Add(-FragmentTimeout)
	stale6 := false
	for key, e := range d.pending {
		if !e.last.Before(old) {
			continue
		}
		if key.v6 {
			stale6 = true
			continue
		}
		d.stats.FragmentsLost++
		d.forget(key)
	}
	if d.v4 != nil {
		d.v4.DiscardOlderThan(old)
	}
	if stale6 {
		d.dropAll(false, true)
	}
}

// dropAll gives up every packet waiting for fragments (of IPv4, of IPv6).
func (d *defrag) dropAll(v4, v6 bool) {
	for key := range d.pending {
		if key.v6 && v6 || !key.v6 && v4 {
			d.stats.FragmentsLost++
			d.forget(key)
		}
	}
	if v4 && d.v4 != nil {
		d.v4.DiscardOlderThan(farFuture)
	}
	if v6 && d.v6 != nil {
		d.v6.DiscardOlderThan(time.Now().Add(time.Hour))
	}
}

var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// end counts the packets still waiting for fragments when the capture
// ends.
func (d *defrag) end() {
	d.stats.FragmentsLost += len(d.pending)
	clear(d.pending)
	d.held = 0
}

// tcpOf decodes the TCP segment of a reassembled IP packet into tcp.
func tcpOf(proto layers.IPProtocol, payload []byte, tcp *layers.TCP) bool {
	return proto == layers.IPProtocolTCP && tcp.DecodeFromBytes(payload, gopacket.NilDecodeFeedback) == nil
}
