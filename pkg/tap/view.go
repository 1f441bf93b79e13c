package tap

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/toonkit/toonkit/pkg/capture"
)

type evKind uint8

const (
	evOpen   evKind = iota + 1
	evData          // bytes of a direction, after lost ones
	evEnd           // the end of a direction (after lost bytes)
	evClose         // both directions ended: the connection is done
	evFailed        // the upstream could not be dialed
)

// event is something that happened on a connection, for the view.
type event struct {
	kind  evKind
	id    int // the connection, in the order it was accepted
	dir   capture.Dir
	t     time.Time
	name  string
	addrs [2]net.Addr // evOpen: client, upstream
	lost  int64       // bytes forwarded before data (or the end) and not handed over
	data  []byte
	n     [2]int64 // evClose: bytes forwarded each way
	err   error
	// evEnd: the direction's sender reset the connection; evClose: the
	// side that did ("client", "upstream") or "".
	reset   bool
	resetBy string
}

// queue hands events from the forwarding goroutines to the view. It never
// blocks them: data beyond its byte budget is refused (the forwarder
// counts it as lost); the other events, a few per connection, are always
// taken.
type queue struct {
	mu     sync.Mutex
	items  []event
	bytes  int64
	max    int64
	closed bool
	wake   chan struct{}
}

func newQueue(max int64) *queue {
	return &queue{max: max, wake: make(chan struct{}, 1)}
}

// push adds an event; a data event's bytes are copied, or refused (false)
// when the budget has no room for them.
func (q *queue) push(ev event, data bool) bool {
	q.mu.Lock()
	if data {
		if q.bytes+int64(len(ev.data)) > q.max {
			q.mu.Unlock()
			return false
		}
		q.bytes += int64(len(ev.data))
		q.mu.Unlock()
		// Copied outside the lock; the budget is already taken.
		ev.data = append([]byte(nil), ev.data...)
		q.mu.Lock()
	}
	q.items = append(q.items, ev)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
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

// release gives back the budget of n bytes the view is done with.
func (q *queue) release(n int64) {
	q.mu.Lock()
	q.bytes -= n
	q.mu.Unlock()
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

// view turns the events into records (capture.Live) and pcapng packets.
type view struct {
	opts  Options
	live  *capture.Live
	conns map[int]*viewConn
	pcap  *pcapWriter
	stats Stats
	err   error
}

type viewConn struct {
	lc   *capture.LiveConn
	name string
	pc   *pcapConn
}

func newView(opts Options) (*view, error) {
	v := &view{opts: opts, conns: map[int]*viewConn{}}
	v.live = capture.NewLive(capture.Options{MaxFrameSize: opts.MaxFrameSize}, func(r *capture.Record) error {
		switch r.Kind {
		case capture.Frame:
			v.stats.Frames++
		case capture.Problem:
			v.stats.Problems++
		}
		if opts.Record == nil {
			return nil
		}
		return opts.Record(r)
	})
	if opts.Pcap != nil {
		pw, err := newPcapWriter(opts.Pcap)
		if err != nil {
			return nil, err
		}
		v.pcap = pw
	}
	return v, nil
}

// run shows the events until the queue is closed and empty. The first
// error (kept in v.err) cancels Serve; run then goes on taking events (so
// that their budget is given back) without showing them.
func (v *view) run(q *queue, cancel context.CancelCauseFunc) {
	var evs []event
	failed := false
	for {
		if v.err != nil && !failed {
			failed = true
			cancel(v.err)
		}
		evs = q.take(evs)
		if evs == nil {
			return
		}
		var n int64
		for i := range evs {
			ev := &evs[i]
			n += int64(len(ev.data))
			if v.err == nil {
				v.err = v.event(ev)
			}
			ev.data = nil
		}
		q.release(n)
		if v.err == nil && v.opts.Idle != nil {
			q.mu.Lock()
			idle := len(q.items) == 0
			q.mu.Unlock()
			if idle {
				v.err = v.opts.Idle()
			}
		}
		if v.err != nil {
			// Forwarding goes on until the context ends; what comes is
			// not shown.
			clear(evs)
		}
	}
}

func (v *view) event(ev *event) error {
	switch ev.kind {
	case evFailed:
		v.stats.Failed++
		return v.notice(Notice{Kind: Failed, Time: ev.t, Conn: ev.name, Err: ev.err})
	case evOpen:
		v.stats.Conns++
		c := &viewConn{lc: v.live.Open(ev.name), name: ev.name}
		v.conns[ev.id] = c
		if v.pcap != nil {
			c.pc = v.pcap.open(ev.t, ev.addrs[0], ev.addrs[1])
			if err := v.pcap.err; err != nil {
				return err
			}
		}
		return v.notice(Notice{Kind: Opened, Time: ev.t, Conn: ev.name})
	}
	c := v.conns[ev.id]
	if c == nil {
		return nil
	}
	if ev.lost > 0 {
		v.stats.Lost += ev.lost
		if c.pc != nil {
			c.pc.skip(ev.dir, ev.lost)
		}
		if err := c.lc.Lost(ev.dir, ev.t, ev.lost); err != nil {
			return err
		}
	}
	switch ev.kind {
	case evData:
		if c.pc != nil {
			c.pc.data(ev.t, ev.dir, ev.data)
			if err := v.pcap.err; err != nil {
				return err
			}
		}
		return c.lc.Feed(ev.dir, ev.t, ev.data)
	case evEnd:
		if c.pc != nil && ev.reset {
			c.pc.rst(ev.t, ev.dir)
			if err := v.pcap.err; err != nil {
				return err
			}
		} else if c.pc != nil {
			c.pc.fin(ev.t, ev.dir)
			if err := v.pcap.err; err != nil {
				return err
			}
		}
		return c.lc.End(ev.dir, ev.t)
	case evClose:
		delete(v.conns, ev.id)
		if err := c.lc.Close(ev.t); err != nil {
			return err
		}
		return v.notice(Notice{Kind: Closed, Time: ev.t, Conn: c.name, Bytes: ev.n, ResetBy: ev.resetBy})
	}
	return nil
}

func (v *view) notice(n Notice) error {
	if v.opts.Notice == nil {
		return nil
	}
	return v.opts.Notice(n)
}

// finish ends the connections still open in the view and flushes the
// pcapng.
func (v *view) finish() error {
	if v.err == nil {
		v.err = v.live.Close(time.Now())
	}
	if v.pcap != nil {
		if err := v.pcap.flush(); err != nil && v.err == nil {
			v.err = err
		}
	}
	return v.err
}
