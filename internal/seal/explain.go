package seal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/toonkit/toonkit/internal/sign"
)

// A Builder that watches a seal (Watch) compares each run of the log, as
// its events come, with the links the seal keeps of it: its checkpoints
// and its last link. The first link that differs bounds where the log
// departs from the seal: after the last link they agree on, at or before
// the one that differs. With the checkpoints of toonkit-seal/2 (every link
// of a run's first 16 events, then one in 16) that is one event, or a
// window of at most 16. In a window the Builder tries to recompute the
// sealed link from the log's own events, two of them swapped back, or one
// left out with the event after the window taken in; when one of these
// gives it, the exact event is known. Otherwise the window is named: the
// seal keeps nothing of its events one by one, so an event of it replaced
// by another validly signed one, or removed, is known to be in it only.

// watching is what a Builder watching a seal knows of it.
type watching struct {
	runs  map[string]*Run
	every int64 // 0: a toonkit-seal/1 seal, which keeps the last links only
}

// Watch makes the Builder compare each run, as its events are added with
// AddAt, with the links the seal s (read by Parse) keeps of it, so that
// Compare says where the log first departs from the seal, in
// Finding.Departs (and as For, compares the runs' checkpoints). Call it
// before the first event. It keeps at most a window of 64 events of each
// run in memory, and costs verify --seal about 2% more.
func (b *Builder) Watch(s *Seal) {
	b.For(s, false)
	w := &watching{runs: make(map[string]*Run, len(s.Runs))}
	if hasCheckpoints(s.Format) {
		w.every = s.Every
	}
	for i := range s.Runs {
		w.runs[s.Runs[i].RunID] = &s.Runs[i]
	}
	b.watch = w
}

// For makes the Builder keep the checkpoints of s's format and spacing,
// so that Compare checks the seal's checkpoints as well as its last links;
// with explain, it watches s too (Watch). Call it before the first event.
func (b *Builder) For(s *Seal, explain bool) {
	b.every, b.v1, b.v2 = s.Every, s.Format == Format1, s.Format == Format2
	b.checkCps = true
	if explain {
		b.Watch(s)
	}
}

// AddAt is Add for the event at at in the log: a Builder that watches a
// seal names events by their place.
func (b *Builder) AddAt(at sign.Where, runID, seq, t []byte, mac *[sha256.Size]byte) {
	r := b.add(runID, seq, t, mac)
	if r.w != nil {
		r.w.add(at, seq, mac, r.count, &r.link)
	}
}

func (w *watching) run(id string) *runWatch {
	sr := w.runs[id]
	if sr == nil {
		return nil // not in the seal: Compare says so
	}
	rw := &runWatch{sr: sr, every: w.every, start: Link0()}
	hex.Decode(rw.chain[:], []byte(sr.Chain)) // Parse checked them
	for _, c := range sr.Checkpoints {
		rw.cps, _ = hex.AppendDecode(rw.cps, []byte(c))
	}
	return rw
}

// mark is an event of a run: its place, its number in the run (from 1),
// its seq and its HMAC.
type mark struct {
	at  sign.Where
	n   int64
	seq []byte
	mac [sha256.Size]byte
}

func (m *mark) set(at sign.Where, n int64, seq []byte, mac *[sha256.Size]byte) {
	m.at, m.n, m.seq, m.mac = at, n, append(m.seq[:0], seq...), *mac
}

func (m *mark) String() string {
	return fmt.Sprintf("event %d of the run (seq %s, %s:%d, byte %d)", m.n, m.seq, m.at.File, m.at.Line, m.at.Offset)
}

// maxWindow is how many events after the last agreed link a run keeps:
// the window of a toonkit-seal/2 seal is at most its every; a
// toonkit-seal/1 seal's is the whole run, of which the first 63 events
// and the last are kept.
const maxWindow = 64

// maxSwapSearch is the largest window in which swaps are looked for: the
// search recomputes the window once for each pair of its events, 16,000
// links for 32 (a toonkit-seal/1 run of up to 32 events; a toonkit-seal/2
// window has at most 16).
const maxSwapSearch = 32

// runWatch compares one run of the log with the seal's.
type runWatch struct {
	sr     *Run
	every  int64
	chain  [sha256.Size]byte
	cps    []byte            // the seal's checkpoints, cpBytes each
	start  [sha256.Size]byte // the last link the log and the seal agree on
	agreed int64             // the run's events up to it
	last   mark              // the event at it (agreed > 0)
	window []mark            // the log's events after it (see maxWindow)
	end    bool              // the log reached the sealed run's last link, agreeing
	dep    *departure
	// After an exact departure at event n, the seal's link after n (want)
	// is looked for among the next maxWindow events: the one that gives it
	// is the event the seal has at n (moved, or swapped).
	want     []byte
	seekLeft int
	// After a departure in a window whose events are all kept, the next
	// event of the log's run is awaited: the window and it, one event of
	// the window left out, may give the seal's link (an event inserted).
	dropPending bool
}

// sealed is the seal's link (or the first bytes of it) after the run's
// n-th event, if it keeps it.
func (w *runWatch) sealed(n int64) ([]byte, bool) {
	switch {
	case n == w.sr.Count:
		return w.chain[:], true
	case n < w.sr.Count && IsCheckpoint(n, w.every):
		i := checkpoints(n, w.every) - 1
		return w.cps[i*cpBytes : (i+1)*cpBytes], true
	}
	return nil, false
}

func (w *runWatch) add(at sign.Where, seq []byte, mac *[sha256.Size]byte, n int64, link *[sha256.Size]byte) {
	if w.dep != nil {
		if w.dropPending {
			w.dropPending = false
			w.dropOne(at, n, seq, mac)
		}
		if w.seekLeft > 0 {
			w.seekLeft--
			if l := Next(&w.start, mac); bytes.Equal(l[:len(w.want)], w.want) {
				w.dep.other.set(at, n, seq, mac)
				w.dep.other = clone(w.dep.other)
				w.seekLeft = 0
			}
		}
		return
	}
	if w.end {
		d := &departure{kind: beyond, agreed: w.agreed}
		d.at.set(at, n, seq, mac)
		w.dep = d
		return
	}
	if k := len(w.window); k < cap(w.window) && k < maxWindow {
		w.window = w.window[:k+1] // its mark's seq buffer is used again
	} else if k < maxWindow {
		w.window = append(w.window, mark{})
	}
	w.window[len(w.window)-1].set(at, n, seq, mac)
	want, ok := w.sealed(n)
	switch {
	case !ok:
	case !bytes.Equal(link[:len(want)], want):
		w.dep = w.resolve(n, want)
		w.dep.logLink, w.dep.sealLink = hex.EncodeToString(link[:len(want)]), hex.EncodeToString(want)
		w.want = want
		switch {
		case w.dep.kind == exact:
			w.seekLeft = maxWindow
		case w.dep.kind == within && int64(len(w.window)) == n-w.agreed && len(w.window) <= maxSwapSearch:
			w.dropPending = true
		}
	default:
		w.agreed, w.start, w.end = n, *link, n == w.sr.Count
		w.last.set(at, n, seq, mac)
		w.window = w.window[:0]
	}
}

// resolve finds where the log departs in the window, whose last event,
// the n-th, has a link that differs from want, the seal's.
func (w *runWatch) resolve(n int64, want []byte) *departure {
	win := w.window
	d := &departure{kind: within, agreed: w.agreed, upto: n}
	if len(win) == 1 {
		d.kind = exact
		d.at = clone(win[0])
		return d
	}
	if int64(len(win)) == n-w.agreed && len(win) <= maxSwapSearch { // every event of the window is kept
		for i := range win {
			for j := i + 1; j < len(win); j++ {
				link := w.start
				for k := range win {
					m := &win[k]
					switch k {
					case i:
						m = &win[j]
					case j:
						m = &win[i]
					}
					link = Next(&link, &m.mac)
				}
				if bytes.Equal(link[:len(want)], want) {
					d.kind, d.at, d.other = swapped, clone(win[i]), clone(win[j])
					return d
				}
			}
		}
	}
	d.at, d.other = clone(win[0]), clone(win[len(win)-1])
	return d
}

// dropOne tries the window of a departure within it with the next event
// of the log's run after it, each event of the window left out: one that
// gives the seal's link is an event the seal does not have.
func (w *runWatch) dropOne(at sign.Where, n int64, seq []byte, mac *[sha256.Size]byte) {
	var next mark
	next.set(at, n, seq, mac)
	win := append(w.window[:len(w.window):len(w.window)], next)
	for p := range len(win) - 1 {
		link := w.start
		for k := range win {
			if k != p {
				link = Next(&link, &win[k].mac)
			}
		}
		if bytes.Equal(link[:len(w.want)], w.want) {
			w.dep.kind, w.dep.at = inserted, clone(win[p])
			return
		}
	}
}

func clone(m mark) mark {
	m.seq = bytes.Clone(m.seq)
	return m
}

// finish is the departure of a run whose log ended without one: nil when
// it reached the sealed run's last link (the log holds the sealed run).
func (w *runWatch) finish() *departure {
	switch {
	case w.dep != nil || w.end:
		return w.dep
	case len(w.window) == 0:
		return &departure{kind: cut, agreed: w.agreed, at: clone(w.last), more: w.sr.Count - w.agreed}
	}
	return &departure{kind: unchecked, agreed: w.agreed, at: clone(w.window[0]), other: clone(w.window[len(w.window)-1])}
}

type departureKind int

const (
	exact     departureKind = iota // at: the event whose link differs; other, if n > 0, the one the seal has there
	swapped                        // at and other are in each other's places
	within                         // one of at to other (upto)
	beyond                         // at is the first event after the sealed run
	cut                            // the log ends at at, the seal goes on (more)
	unchecked                      // at to other, the log's last, have no sealed link
	inserted                       // at is an event the seal does not have (upto: the link it gives without)
)

// departure is where a run of the log first departs from the seal.
type departure struct {
	kind      departureKind
	agreed    int64 // the run's events before it, on which the log and seal agree
	at, other mark
	upto      int64
	more      int64
	// logLink and sealLink are the first link that differs, after event
	// upto (exact: at), as the seal keeps it (its checkpoint, or the
	// whole last link) and as far into the log's.
	logLink, sealLink string
}

// link is " (the seal's link after event N: …, the log's: …)".
func (d *departure) link(n int64) string {
	return fmt.Sprintf(" (the first link that differs, after event %d: %s in the seal, %s in the log)", n, d.sealLink, d.logLink)
}

// agreed is "the seal's links agree with the run's first N events".
func (d *departure) agreement() string {
	if d.agreed == 1 {
		return "the seal's links agree with the run's first event"
	}
	return fmt.Sprintf("the seal's links agree with the run's first %d events", d.agreed)
}

func (d *departure) String() string {
	switch d.kind {
	case exact:
		m := fmt.Sprintf("the log first departs from the seal at %s: %s, not with it", &d.at, d.agreement())
		if d.agreed == 0 {
			m = fmt.Sprintf("the log first departs from the seal at %s: it is not the sealed run's first event", &d.at)
		}
		m += d.link(d.at.n)
		if d.other.n > 0 {
			m += fmt.Sprintf("; the seal has there the log's %s", &d.other)
		} else {
			m += fmt.Sprintf("; no later event of the run in the log (of the next %d at most) is the one the seal has there: it was removed or replaced", maxWindow)
		}
		return m
	case swapped:
		return fmt.Sprintf("the log first departs from the seal at %s: it and %s are in each other's places (swapped back, they give the seal's link after event %d)", &d.at, &d.other, d.upto)
	case within:
		why := d.agreement() + ", not after the last of these, and the seal keeps no link between"
		if d.agreed == 0 {
			why = "the seal's link after the last of these differs, and it keeps none before"
		}
		return fmt.Sprintf("the log first departs from the seal at one of %d events, from %s to %s: %s", d.upto-d.agreed, &d.at, &d.other, why) + d.link(d.upto)
	case inserted:
		return fmt.Sprintf("the log first departs from the seal at %s: the seal does not have it (without it, the log's events give the seal's link after event %d)", &d.at, d.upto) + d.link(d.upto)
	case beyond:
		return fmt.Sprintf("the log first departs from the seal at %s: the %s before it are the sealed run, it and those after are not sealed", &d.at, events(d.agreed))
	case cut:
		return fmt.Sprintf("the log first departs from the seal after %s, its last of the run: the seal's links agree with the log up to there, and the seal has %s more", &d.at, events(d.more))
	}
	why := d.agreement() + ", and the seal keeps no link of the events after them to tell"
	if d.agreed == 0 {
		why = "the seal keeps no link of these to tell"
	}
	return fmt.Sprintf("the log first departs from the seal at or after %s, up to its last of the run, %s: %s", &d.at, &d.other, why)
}
