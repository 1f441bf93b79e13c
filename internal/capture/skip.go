package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gopacket/gopacket/layers"
)

// Packets passed over. Every packet of a capture either gives a TCP
// segment to the reassembly or is counted in Stats.Skipped by the reason
// it does not. Some are skipped by design: a link layer that carries no
// IP (ARP, LLDP), IP that carries no TCP (UDP, ICMP), TCP of a connection
// that Options.Ports or Options.Conn do not select. Others are lost: a
// packet cut short or damaged before its TCP header ends, a record over
// Options.MaxRecordSize, an IP fragment whose packet never became whole.
// At the end of a capture Read gives one record that sums them up: a
// Problem (a *SkipError) when packets were lost, else a Note when packets
// were skipped by design. A record over the size limit is also a Problem
// of its own (a *RecordSizeError) where it is met.

// Skipped counts the packets of a capture that give no TCP segment to
// read, by reason.
type Skipped struct {
	NotIP     int // the link layer carries no IPv4 or IPv6 (ARP, LLDP, STP, ...)
	NotTCP    int // IP that carries no TCP (UDP, ICMP, an ESP payload, ...)
	Filtered  int // TCP of connections that Options.Ports or Options.Conn do not select
	Truncated int // cut short or damaged before the TCP header ends (a snap length, a broken header)
	TooLarge  int // records (pcapng blocks) over Options.MaxRecordSize, not read
	LinkType  int // pcapng: packets of an interface whose link type is not read (in pcap that is a *FormatError)
}

// DefaultMaxRecordSize is the largest capture record (a pcap record's
// captured length, a pcapng block's total length) that is read when
// Options.MaxRecordSize is 0: far above any snap length (tcpdump's largest
// is 262144) and TCP segment offloads save (BIG TCP: 512 KiB).
const DefaultMaxRecordSize = 16 << 20

// SkipError sums up the packets of a capture that were not read: the
// cause of the Problem (when Lost) or the Note given after the last record.
type SkipError struct {
	Skipped
	FragmentsLost int // fragmented packets given up (Stats.FragmentsLost)
	FirstLost     int // 1-based number of the first packet cut short, 0 when none
	FirstLinkType int // the first link type not read (LinkType), 0 when none
}

// Lost is the number of packets that should have been read and were not.
func (e *SkipError) Lost() int { return e.Truncated + e.TooLarge + e.FragmentsLost + e.LinkType }

func (e *SkipError) Error() string {
	var b strings.Builder
	lost := e.Lost()
	byDesign := e.NotIP + e.NotTCP + e.Filtered
	part := func(n int, what string) {
		if n == 0 {
			return
		}
		if !strings.HasSuffix(b.String(), ": ") {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", n, what)
	}
	if lost > 0 {
		fmt.Fprintf(&b, "%d %s not read: ", lost, plural(int64(lost), "packet", "packets"))
		if e.Truncated > 0 {
			part(e.Truncated, fmt.Sprintf("cut short or damaged before the TCP header ends (the first is packet %d)", e.FirstLost))
		}
		part(e.TooLarge, "over the record size limit")
		part(e.FragmentsLost, "fragmented and never made whole")
		part(e.LinkType, fmt.Sprintf("on an interface whose link type is not read (%d, %s)", e.FirstLinkType, layers.LinkType(e.FirstLinkType)))
		if byDesign > 0 {
			b.WriteString("; ")
		}
	}
	if byDesign > 0 {
		fmt.Fprintf(&b, "%d %s skipped: ", byDesign, plural(int64(byDesign), "packet", "packets"))
		part(e.NotIP, "not IP")
		part(e.NotTCP, "not TCP")
		part(e.Filtered, "TCP not selected by --port or --conn")
	}
	return b.String()
}

// RecordSizeError is a record of the capture file (a pcapng block) longer
// than Options.MaxRecordSize: it is passed over unread, its bytes never
// held, and reading goes on with the next one.
type RecordSizeError struct {
	Packet int   // 1-based number of the packet it holds
	Offset int64 // byte offset of its header in the file
	Size   int64 // its length: a pcap record's captured length, a pcapng block's total length
	Limit  int
	Block  bool // a pcapng block
}

func (e *RecordSizeError) Error() string {
	what := "record"
	if e.Block {
		what = "block"
	}
	return fmt.Sprintf("packet %d (the %s at byte %d): %d bytes, over the limit of %d; not read", e.Packet, what, e.Offset, e.Size, e.Limit)
}

// ConflictError is a range of a direction's bytes that the capture holds
// twice, in segments that disagree. The copy that arrived first is kept
// (as Wireshark and tshark keep it): Start and End count bytes of the
// direction's stream.
type ConflictError struct{ Start, End int64 }

func (e *ConflictError) Error() string {
	what := fmt.Sprintf("bytes %d-%d", e.Start, e.End-1)
	if e.End-e.Start == 1 {
		what = fmt.Sprintf("byte %d", e.Start)
	}
	return what + " arrived twice with different contents; the first copy is kept"
}

// The pcapng block types the filter knows.
const (
	blockSHB = 0x0A0D0D0A
	blockIDB = 1
	blockPB  = 2 // obsolete Packet Block
	blockSPB = 3
	blockEPB = 6
)

// recordFilter sits between a capture file and pcapgo's readers. It reads
// the header of each record (pcap) or block (pcapng) and passes one over
// the limit over without its bytes ever being held: pcapgo, which makes a
// buffer of the length a header declares, never sees it.
type recordFilter struct {
	in      io.Reader
	ng      bool
	order   binary.ByteOrder
	limit   int
	off     int64 // bytes of the file read so far
	left    int64 // bytes of the current record still to pass on
	hdr     [24]byte
	hn, hp  int // hdr[hp:hn] is still to pass on
	started bool
	packets int                // packets met, skipped ones too
	over    []*RecordSizeError // skipped, not yet reported
	lost    bool               // the structure is lost: everything passes (pcapgo says what is wrong)
	err     error
}

func (f *recordFilter) Read(p []byte) (int, error) {
	for {
		if f.hp < f.hn {
			n := copy(p, f.hdr[f.hp:f.hn])
			f.hp += n
			return n, nil
		}
		if f.left > 0 || f.lost {
			q := p
			if !f.lost && int64(len(q)) > f.left {
				q = q[:f.left]
			}
			n, err := f.in.Read(q)
			f.left -= int64(n)
			f.off += int64(n)
			return n, err
		}
		if f.err != nil {
			return 0, f.err
		}
		if err := f.header(); err != nil {
			f.err = err
		}
	}
}

// header reads the next header at a record boundary.
func (f *recordFilter) header() error {
	at := f.off
	want := 16 // a pcap record header
	switch {
	case !f.started && !f.ng:
		want = 24 // the file header
	case f.ng:
		want = 8 // block type and length
	}
	n, err := io.ReadFull(f.in, f.hdr[:want])
	f.off += int64(n)
	f.hp, f.hn = 0, n
	if err != nil {
		f.lost = true // pcapgo tells of a header cut short
		if err == io.ErrUnexpectedEOF {
			return nil
		}
		return err
	}
	if !f.started && !f.ng {
		f.started = true
		f.order = binary.LittleEndian
		if m := binary.BigEndian.Uint32(f.hdr[:4]); m == 0xa1b2c3d4 || m == 0xa1b23c4d {
			f.order = binary.BigEndian
		}
		return nil
	}
	var size int64
	block := uint32(0)
	if f.ng {
		block = binary.LittleEndian.Uint32(f.hdr[:4])
		if block == blockSHB {
			// Its byte-order magic says how to read its length.
			m, err := io.ReadFull(f.in, f.hdr[8:12])
			f.off += int64(m)
			f.hn += m
			if err != nil {
				f.lost = true
				return nil
			}
			f.order = binary.LittleEndian
			if binary.BigEndian.Uint32(f.hdr[8:12]) == 0x1A2B3C4D {
				f.order = binary.BigEndian
			}
		} else if f.order == nil {
			f.lost = true
			return nil
		} else {
			block = f.order.Uint32(f.hdr[:4])
		}
		size = int64(f.order.Uint32(f.hdr[4:8]))
		if size < int64(f.hn) || size%4 != 0 {
			f.lost = true
			return nil
		}
		f.left = size - int64(f.hn)
		switch block {
		case blockEPB, blockSPB, blockPB:
			f.packets++
		}
	} else {
		size = int64(f.order.Uint32(f.hdr[8:12]))
		f.left = size
		f.packets++
	}
	if size <= int64(f.limit) {
		return nil
	}
	if f.ng && (block == blockSHB || block == blockIDB) {
		return fmt.Errorf("the block at byte %d: %d bytes, over the limit of %d, and it describes the packets after it", at, size, f.limit)
	}
	if f.ng && block != blockEPB && block != blockSPB && block != blockPB {
		f.packets-- // not a packet: passed over without a word
	} else {
		f.over = append(f.over, &RecordSizeError{Packet: f.packets, Offset: at, Size: size, Limit: f.limit, Block: f.ng})
	}
	f.hp, f.hn = 0, 0
	skip := f.left
	f.left = 0
	var m int64
	if br, ok := f.in.(interface{ Discard(int) (int, error) }); ok && skip <= int64(int(^uint(0)>>1)) {
		d, e := br.Discard(int(skip))
		m, err = int64(d), e
	} else {
		m, err = io.CopyN(io.Discard, f.in, skip)
	}
	f.off += m
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err == io.ErrUnexpectedEOF {
		return errors.New("the file ends inside a packet record")
	}
	return err
}

// Buffered is what the filter holds and its input says it holds.
func (f *recordFilter) Buffered() int {
	n := f.hn - f.hp
	if b, ok := f.in.(interface{ Buffered() int }); ok {
		n += b.Buffered()
	}
	return n
}

// sumBuffered adds what two readers say they hold.
type sumBuffered [2]interface{ Buffered() int }

func (s sumBuffered) Buffered() int { return s[0].Buffered() + s[1].Buffered() }
