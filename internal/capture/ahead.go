package capture

import (
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Reading ahead (when more than one CPU may run Go code): one goroutine
// reads the capture file and decodes each packet's link, network and
// transport layers (packetReader), and hands the TCP segments that
// Options select, copied into batches, to Read's goroutine, which puts
// the connections back together and reads their frames. The records, their
// order, their errors and the Stats are those of reading in one goroutine;
// only the work is spread. Memory is bounded: aheadBatches batches of at
// most aheadBytes of segments exist at once.

const (
	aheadPackets = 512       // segments in a batch, at most
	aheadBytes   = 128 << 10 // bytes of segments in a batch, about
	aheadBatches = 4         // batches in flight: being filled, queued, assembled
)

// readMode chooses how Read works (a variable for the tests, which
// compare the ways): byCPUs reads ahead when more than one CPU may run Go
// code.
var readMode = byCPUs

const (
	byCPUs = iota
	inOne  // in one goroutine
	ahead  // reading ahead
)

// segBatch is a run of TCP segments read ahead.
type segBatch struct {
	arena []byte // the segments' bytes: TCP header and payload
	segs  []segment
	err   error // after the segments: io.EOF at the end of the file, or a *FormatError
	idle  bool  // Record.Idle after err
	stats Stats // the packetReader's counts so far
}

type segment struct {
	flow       gopacket.Flow
	t          time.Time
	start, end int              // the segment in arena
	idle       bool             // Record.Idle of the records it completes
	over       *RecordSizeError // not a segment: a record passed over
}

// runAhead is run with the file read and its packets decoded on a
// goroutine of their own.
func (r *reader) runAhead(pr *packetReader) error {
	var stats Stats // the reading goroutine's counts, apart from r.stats
	pr.stats, pr.dec.frag.stats = &stats, &stats
	full := make(chan *segBatch, aheadBatches-2)
	free := make(chan *segBatch, aheadBatches)
	for range aheadBatches {
		// room for a batch's segments, and for the packet that ends it
		free <- &segBatch{arena: make([]byte, 0, aheadBytes+64<<10), segs: make([]segment, 0, aheadPackets)}
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(full)
		for {
			var b *segBatch
			select {
			case b = <-free:
			case <-quit:
				return
			}
			b.arena, b.segs, b.err = b.arena[:0], b.segs[:0], nil
			for len(b.segs) < aheadPackets && len(b.arena) < aheadBytes {
				tcp, flow, t, err := pr.next()
				if rse, ok := err.(*RecordSizeError); ok {
					b.segs = append(b.segs, segment{t: t, over: rse, idle: pr.idle})
					continue
				}
				if err != nil {
					if err == io.EOF {
						pr.dec.frag.end()
					}
					b.err, b.idle = err, pr.idle
					break
				}
				if tcp == nil { // a packet passed over left the input idle
					if len(b.segs) > 0 {
						break
					}
					continue
				}
				start := len(b.arena)
				b.arena = append(append(b.arena, tcp.Contents...), tcp.Payload...)
				b.segs = append(b.segs, segment{flow: flow, t: t, start: start, end: len(b.arena), idle: pr.idle})
				if pr.idle {
					// The input holds nothing more: what it gave so far
					// goes on now (a live capture is shown as it comes).
					break
				}
			}
			b.stats = stats
			select {
			case full <- b:
			case <-quit:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	// stop ends the reading goroutine: it stops at its next packet.
	stop := func() {
		close(quit)
		for range full {
		}
		<-done
	}
	var tcp layers.TCP
	var err error
	for b := range full {
		for i := range b.segs {
			if r.err != nil {
				break
			}
			sg := &b.segs[i]
			if sg.over != nil {
				r.idle = sg.idle
				r.captureProblem(Problem, sg.over, sg.t)
				continue
			}
			// The bytes decoded as they were on the reading goroutine.
			if e := tcp.DecodeFromBytes(b.arena[sg.start:sg.end], gopacket.NilDecodeFeedback); e != nil {
				panic("capture: a TCP segment read ahead no longer decodes: " + e.Error())
			}
			r.idle = sg.idle
			r.assemble(sg.flow, &tcp, sg.t)
		}
		s := b.stats
		r.stats.Packets, r.stats.Undecoded, r.stats.Fragments, r.stats.FragmentsLost = s.Packets, s.Undecoded, s.Fragments, s.FragmentsLost
		r.stats.Skipped, r.stats.firstCut, r.stats.firstLink = s.Skipped, s.firstCut, s.firstLink
		err = b.err
		if err != nil {
			r.idle = b.idle
		}
		if r.err != nil || err != nil {
			break
		}
		free <- b
	}
	stop()
	if r.err != nil {
		return r.err
	}
	r.end()
	if err != io.EOF {
		if r.err != nil {
			return r.err
		}
		return err
	}
	r.summary(pr)
	return r.finalErr(pr)
}
