package tap

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
)

type evKind uint8

const (
	evOpen   evKind = iota + 1
	evData          // bytes of a direction, after lost ones
	evEnd           // the end of a direction (after lost bytes)
	evClose         // both directions ended: the connection is done
	evFailed        // the upstream could not be dialed
)

// event is something that happened on a connection, for the view and the
// pcapng.
type event struct {
	kind  evKind
	id    int // the connection, in the order it was accepted
	dir   capture.Dir
	t     time.Time
	name  string
	addrs [2]net.Addr // evOpen: client, upstream
	lost  int64       // bytes forwarded before data (or the end) and not handed over
	data  []byte      // shared by the queues that took it: read only
	n     [2]int64    // evClose: bytes forwarded each way
	err   error
	// evEnd: the direction's sender reset the connection; evClose: the
	// side that did ("client", "upstream") or "".
	reset   bool
	resetBy string
}

// memory counts the bytes of traffic the process holds (copies queued for
// the view and the pcapng, unfinished frames in the view), and their peak.
type memory struct{ cur, peak atomic.Int64 }

func (m *memory) add(n int64) {
	c := m.cur.Add(n)
	for p := m.peak.Load(); c > p && !m.peak.CompareAndSwap(p, c); p = m.peak.Load() {
	}
}

// queue hands events from the forwarding goroutines to a consumer (the
// view, the pcapng writer). It never blocks them: data beyond its byte
// budget is refused (the forwarder counts it as lost); the other events, a
// few per connection, are always taken.
type queue struct {
	mu     sync.Mutex
	items  []event
	bytes  int64
	max    int64
	mem    *memory
	closed bool
	wake   chan struct{}
}

func newQueue(max int64, mem *memory) *queue {
	return &queue{max: max, mem: mem, wake: make(chan struct{}, 1)}
}

// reserve takes n bytes of the budget, or reports false when it has no
// room for them.
func (q *queue) reserve(n int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.bytes+n > q.max {
		return false
	}
	q.bytes += n
	q.mem.add(n)
	return true
}

// push adds an event (a data event's bytes reserved first).
func (q *queue) push(ev event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take waits for events and returns them all, or nil once the queue is
// closed and empty. spare is a slice to reuse.
func (q *queue) take(spare []event) []event {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			evs := q.items
			q.items = spare[:0]
			q.mu.Unlock()
			return evs
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil
		}
		<-q.wake
	}
}

// idle reports whether the queue holds no event.
func (q *queue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) == 0
}

// release gives back the budget of n bytes the consumer is done with.
func (q *queue) release(n int64) {
	q.mu.Lock()
	q.bytes -= n
	q.mu.Unlock()
	q.mem.add(-n)
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// consume gives the events of q to handle until q is closed and empty, and
// calls idle (when set) whenever q has nothing more. The first error is
// returned, after cancel was given it at once; consume goes on taking
// events (so that their budget is given back) without handling them.
func consume(q *queue, handle func(*event) error, idle func() error, cancel context.CancelCauseFunc) error {
	var evs []event
	var err error
	for {
		evs = q.take(evs)
		if evs == nil {
			return err
		}
		var n int64
		for i := range evs {
			ev := &evs[i]
			n += int64(len(ev.data))
			if err == nil {
				err = handle(ev)
			}
			ev.data = nil
		}
		q.release(n)
		if err == nil && idle != nil && q.idle() {
			err = idle()
		}
		clear(evs)
		if err != nil {
			cancel(err)
		}
	}
}

// OverShareError is the cause of the Problem reported for a direction
// whose unfinished frame (or WebSocket message) the view could not hold
// within Options.MaxMemory: the direction is not decoded from byte At on.
// Its bytes are still forwarded, and written to the pcapng, unchanged.
type OverShareError struct {
	At    int64 // the byte of the direction from which it is not decoded
	Held  int64 // the memory its unfinished frame would take (twice its bytes: the reader's buffer)
	Share int64 // the direction's share: the frames' budget over the open directions
	Max   int64 // Options.MaxMemory
}

func (e *OverShareError) Error() string {
	return fmt.Sprintf("not decoded from byte %d on: its unfinished frame would take %d bytes of memory, over its share (%d bytes) of tap's memory bound (%d bytes); the bytes are still forwarded", e.At, e.Held, e.Share, e.Max)
}

// view turns the events into records (capture.Live), holding at most
// frames bytes of unfinished frames over all directions.
type view struct {
	opts  Options
	live  *capture.Live
	conns map[int]*viewConn
	stats Stats
	mem   *memory

	frames   int64 // the budget of unfinished frames
	held     int64 // what the unfinished frames take, all directions (cost)
	open     int   // directions being decoded
	emitted  bool  // a record was given during the current call to live
	mute     bool  // records are not shown (a direction being cut)
	maxBytes int64 // Options.MaxMemory, for OverShareError
}

type viewConn struct {
	lc   *capture.LiveConn
	name string
	fed  [2]int64 // bytes of each direction so far
	held [2]int64 // of them, the most the view can hold (an unfinished frame)
	done [2]bool  // the direction ended, or is no longer decoded
	cut  [2]bool  // the direction is no longer decoded
}

func newView(opts Options, frames int64, mem *memory) *view {
	v := &view{opts: opts, conns: map[int]*viewConn{}, frames: frames, mem: mem, maxBytes: opts.MaxMemory}
	v.live = capture.NewLive(capture.Options{MaxFrameSize: opts.MaxFrameSize}, func(r *capture.Record) error {
		if v.mute {
			return nil
		}
		v.emitted = true
		return v.record(r)
	})
	return v
}

func (v *view) record(r *capture.Record) error {
	switch r.Kind {
	case capture.Frame:
		v.stats.Frames++
	case capture.Problem:
		v.stats.Problems++
	}
	if v.opts.Record == nil {
		return nil
	}
	return v.opts.Record(r)
}

func (v *view) event(ev *event) error {
	switch ev.kind {
	case evFailed:
		v.stats.Failed++
		return v.notice(Notice{Kind: Failed, Time: ev.t, Conn: ev.name, Err: ev.err})
	case evOpen:
		v.stats.Conns++
		v.conns[ev.id] = &viewConn{lc: v.live.Open(ev.name), name: ev.name}
		v.open += 2
		return v.notice(Notice{Kind: Opened, Time: ev.t, Conn: ev.name})
	}
	c := v.conns[ev.id]
	if c == nil {
		return nil
	}
	d := ev.dir
	if ev.lost > 0 {
		v.stats.Lost += ev.lost
		c.fed[d] += ev.lost
		if c.cut[d] {
			v.stats.Undecoded += ev.lost
		} else {
			v.setHeld(c, d, 0) // the reader drops the frame the hole cuts
			if err := c.lc.Lost(d, ev.t, ev.lost); err != nil {
				return err
			}
		}
	}
	switch ev.kind {
	case evData:
		return v.feed(c, ev)
	case evEnd:
		v.end(c, d)
		return c.lc.End(d, ev.t)
	case evClose:
		delete(v.conns, ev.id)
		v.end(c, capture.C2S)
		v.end(c, capture.S2C)
		if err := c.lc.Close(ev.t); err != nil {
			return err
		}
		return v.notice(Notice{Kind: Closed, Time: ev.t, Conn: c.name, Bytes: ev.n, ResetBy: ev.resetBy})
	}
	return nil
}

// end notes the end of a direction: it holds nothing more.
func (v *view) end(c *viewConn, d capture.Dir) {
	v.setHeld(c, d, 0)
	if !c.done[d] {
		c.done[d] = true
		v.open--
	}
}

func (v *view) setHeld(c *viewConn, d capture.Dir, n int64) {
	v.held += cost(n) - cost(c.held[d])
	v.mem.add(cost(n) - cost(c.held[d]))
	c.held[d] = n
}

// cost is the memory an unfinished frame of n bytes takes: its reader's
// buffer, which grows by doubling, holds up to twice that.
func cost(n int64) int64 { return 2 * n }

// feed hands a direction's bytes to the reader, unless the unfinished
// frames would then pass their budget: the direction that would hold the
// most is then no longer decoded (it is over its share), until they fit.
func (v *view) feed(c *viewConn, ev *event) error {
	d, n := ev.dir, int64(len(ev.data))
	for !c.cut[d] && v.held+cost(c.held[d]+n)-cost(c.held[d]) > v.frames {
		// The direction holding the most, counting this one's bytes.
		big, bd, most := c, d, cost(c.held[d]+n)
		for _, o := range v.conns {
			for od := range o.held {
				if cost(o.held[od]) > most {
					big, bd, most = o, capture.Dir(od), cost(o.held[od])
				}
			}
		}
		share := v.frames / int64(max(v.open, 1))
		at := big.fed[bd] - big.held[bd] // where its unfinished frame began
		if err := v.cut(big, bd, ev.t, &OverShareError{At: at, Held: most, Share: share, Max: v.maxBytes}); err != nil {
			return err
		}
	}
	c.fed[d] += n
	if c.cut[d] {
		v.stats.Undecoded += n
		return nil
	}
	v.emitted = false
	err := c.lc.Feed(d, ev.t, ev.data)
	// What the reader holds now: at most this read's bytes when a record
	// was completed by them (a record comes as its last byte does), else
	// what it held and these.
	if v.emitted {
		v.setHeld(c, d, n)
	} else {
		v.setHeld(c, d, c.held[d]+n)
	}
	return err
}

// cut stops decoding a direction: its unfinished frame is dropped (the
// reader's report of a frame cut short is not shown) and a Problem says
// why.
func (v *view) cut(c *viewConn, d capture.Dir, t time.Time, e *OverShareError) error {
	v.stats.Undecoded += c.held[d]
	v.mute = true
	err := c.lc.End(d, t)
	v.mute = false
	v.end(c, d)
	c.cut[d] = true
	if err != nil {
		return err
	}
	return v.record(&capture.Record{Kind: capture.Problem, Conn: c.name, Dir: d, Time: t, Err: &capture.Error{Conn: c.name, Dir: d, Err: e}})
}

func (v *view) notice(n Notice) error {
	if v.opts.Notice == nil {
		return nil
	}
	return v.opts.Notice(n)
}

// finish ends the connections still open in the view.
func (v *view) finish(err error) error {
	if err == nil {
		err = v.live.Close(time.Now())
	}
	for _, c := range v.conns {
		v.end(c, capture.C2S)
		v.end(c, capture.S2C)
	}
	return err
}

// pcapView writes the events as pcapng packets.
type pcapView struct {
	w     *pcapWriter
	conns map[int]*pcapConn
}

func (p *pcapView) event(ev *event) error {
	switch ev.kind {
	case evOpen:
		p.conns[ev.id] = p.w.open(ev.t, ev.addrs[0], ev.addrs[1])
		return p.w.err
	case evFailed:
		return nil
	}
	c := p.conns[ev.id]
	if c == nil {
		return nil
	}
	if ev.lost > 0 {
		c.skip(ev.dir, ev.lost)
	}
	switch ev.kind {
	case evData:
		c.data(ev.t, ev.dir, ev.data)
	case evEnd:
		if ev.reset {
			c.rst(ev.t, ev.dir)
		} else {
			c.fin(ev.t, ev.dir)
		}
	case evClose:
		delete(p.conns, ev.id)
	}
	return p.w.err
}
