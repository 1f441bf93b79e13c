package capture

import (
	"bytes"
	"cmp"
	"slices"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// Records come out in capture-time order across connections: each is
// stamped with the time of the segment that completed it, and the frames
// that wait behind a hole (segments that arrived after a missing one) are
// completed only when the hole is filled or given up, with the time of
// the segment that brought them. So while a direction holds segments
// behind a hole, the records of the other directions that are later than
// its oldest waiting segment are held back (copied) and go out, in time
// order, once the hole is filled or given up. The window is bounded: a
// hole is given up when the reassembly buffer fills
// (Options.ReassemblyBuffer), after IdleTimeout of capture time, or when
// the records held back reach maxHeld bytes (then every hole older than the
// newest record held is given up).

// maxHeld bounds the bytes of the records held back for time order (a
// variable for the tests).
var maxHeld = 8 << 20

// heldOverhead is the size counted for a held record beside its bytes.
const heldOverhead = 256

// held is a record kept (copied) until it can go out in time order.
type held struct {
	rec  Record
	conn int // creation order of the connection
	n    int // order of emission
}

// queued is a segment that waits behind a hole: the end of its bytes (as
// a stream offset) and its capture time.
type queued struct {
	end int64
	t   time.Time
}

// maxQueued bounds the segments a direction remembers: past it the
// newest are merged (the oldest time and the furthest end kept).
const maxQueued = 1024

// accepted notes a segment of h given to the assembler: one that starts
// past the next byte expected (nextSeq) waits behind a hole.
func (h *half) accepted(seq reassembly.Sequence, n int, nextSeq reassembly.Sequence, t time.Time) {
	if n == 0 || nextSeq < 0 || h.finished {
		return
	}
	ahead := nextSeq.Difference(seq)
	if ahead <= 0 {
		return
	}
	end := h.fed + int64(ahead) + int64(n)
	if len(h.queued) == 0 {
		h.conn.r.waiting = append(h.conn.r.waiting, h)
	}
	if len(h.queued) == maxQueued {
		last := &h.queued[len(h.queued)-1]
		last.end = max(last.end, end)
		return
	}
	h.queued = append(h.queued, queued{end: end, t: t})
}

// segCopy is the payload of a segment that waited behind a hole, from
// the stream offset start.
type segCopy struct {
	start int64
	b     []byte
}

// firstCopyWins compares a segment of h with the copies kept of the
// segments that wait behind a hole. Where they overlap and disagree, the
// copy that came first wins, as in Wireshark and in the stacks of RFC 793
// (which keep the bytes they hold and trim the new segment): the
// segment's bytes there are overwritten with the kept ones before the
// assembler sees them (it would keep the later copy of bytes that wait),
// and the conflict is reported. A segment that itself waits behind the
// hole is kept too, within Options.ReassemblyBuffer (as the assembler
// keeps it). Bytes already given to the direction are the assembler's:
// a later copy never replaces them.
func (h *half) firstCopyWins(tcp *layers.TCP, nextSeq reassembly.Sequence, t time.Time) {
	p := tcp.Payload
	if len(p) == 0 || nextSeq < 0 || h.finished {
		return
	}
	ahead := nextSeq.Difference(reassembly.Sequence(tcp.Seq))
	start := h.fed + int64(ahead)
	end := start + int64(len(p))
	for _, c := range h.copies {
		lo, hi := max(start, c.start), min(end, c.start+int64(len(c.b)))
		if lo >= hi {
			continue
		}
		mine, first := p[lo-start:hi-start], c.b[lo-c.start:hi-c.start]
		if bytes.Equal(mine, first) {
			continue
		}
		i := 0
		for mine[i] == first[i] {
			i++
		}
		j := len(mine)
		for mine[j-1] == first[j-1] {
			j--
		}
		copy(mine, first)
		h.time = t
		h.errorf(Problem, &ConflictError{Start: lo + int64(i), End: lo + int64(j)})
	}
	if ahead > 0 && h.copyBytes+len(p) <= h.conn.r.opts.ReassemblyBuffer {
		h.copies = append(h.copies, segCopy{start: start, b: bytes.Clone(p)})
		h.copyBytes += len(p)
	}
}

// delivered forgets the waiting segments whose bytes have been given to
// the direction (or skipped).
func (h *half) delivered(all bool) {
	if len(h.copies) > 0 {
		h.copies = slices.DeleteFunc(h.copies, func(c segCopy) bool {
			gone := all || c.start+int64(len(c.b)) <= h.fed
			if gone {
				h.copyBytes -= len(c.b)
			}
			return gone
		})
		if len(h.copies) == 0 {
			h.copies, h.copyBytes = nil, 0
		}
	}
	if len(h.queued) == 0 {
		return
	}
	h.queued = slices.DeleteFunc(h.queued, func(q queued) bool { return all || q.end <= h.fed })
	if len(h.queued) == 0 {
		r := h.conn.r
		r.waiting = slices.DeleteFunc(r.waiting, func(o *half) bool { return o == h })
	}
}

// watermark is the capture time of the oldest segment waiting behind a
// hole: a record completed later cannot be older.
func (r *reader) watermark() (time.Time, bool) {
	var wm time.Time
	for i, h := range r.waiting {
		for j, q := range h.queued {
			if i == 0 && j == 0 || q.t.Before(wm) {
				wm = q.t
			}
		}
	}
	return wm, len(r.waiting) > 0
}

// release passes on, in time order, the held records older than every
// segment still waiting behind a hole (all of them when none waits).
func (r *reader) release() {
	if len(r.held) == 0 || r.err != nil {
		return
	}
	wm, wait := r.watermark()
	if wait && r.heldBytes > maxHeld {
		// Too much held: give up the holes older than the newest record
		// held (they would be given up by a full reassembly buffer, or
		// after IdleTimeout, too).
		newest := r.heldMin
		for _, d := range r.held {
			if d.rec.Time.After(newest) {
				newest = d.rec.Time
			}
		}
		t := newest.Add(1)
		r.deferring = true
		r.asm.FlushWithOptions(reassembly.FlushOptions{T: t})
		r.deferring = false
		for _, h := range slices.Clone(r.waiting) {
			// Forget what the assembler no longer holds.
			h.queued = slices.DeleteFunc(h.queued, func(q queued) bool { return q.t.Before(t) })
			h.delivered(false)
		}
		wm, wait = r.watermark()
	}
	if wait && !r.heldMin.Before(wm) {
		return
	}
	slices.SortStableFunc(r.held, func(a, b held) int {
		if c := a.rec.Time.Compare(b.rec.Time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.conn, b.conn); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	n := 0
	for n < len(r.held) && r.err == nil && (!wait || r.held[n].rec.Time.Before(wm)) {
		d := &r.held[n]
		r.heldBytes -= heldOverhead + len(d.rec.JSON) + len(d.rec.Text)
		if d.rec.Frame != nil {
			r.heldBytes -= len(d.rec.Frame.Raw)
		}
		d.rec.Idle = r.idle
		r.err = r.fn(&d.rec)
		n++
	}
	clear(r.held[:n])
	r.held = r.held[:copy(r.held, r.held[n:])]
	if len(r.held) == 0 {
		r.held, r.heldBytes = nil, 0
	} else {
		r.heldMin = r.held[0].rec.Time
	}
}
