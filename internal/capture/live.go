package capture

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Live reads connections whose bytes are handed over as they are sent (as
// a proxy such as `toonkit tap` sees them), rather than taken from a
// capture file. Each direction is read by the same reader as Read's: a
// WebSocket handshake is unwrapped, frames are given as records as soon as
// their last byte arrives, and bytes that are not frames are reported
// (a Problem with Moved) before the reader resynchronises on the next
// plausible header, from the first byte on: unlike Read, which passes over
// a connection that does not start as frames or a WebSocket handshake, a
// Live shows what it is given. Records name the connection as Open was
// given it.
//
// A Live is not safe for concurrent use: one goroutine hands over the
// bytes of every connection, and fn is called on it.
type Live struct {
	r               *reader
	conns           []*LiveConn // open, in the order they were opened
	lost            bool        // a Lost call is under way: of lostN bytes from lostFrom
	lostFrom, lostN int64
}

// LiveConn is one connection of a Live.
type LiveConn struct {
	l      *Live
	c      *conn
	closed bool
}

// LostError is the cause of the Problem reported for bytes of a direction
// that were not handed over to the Live (a viewer that fell behind): bytes
// Start to End-1 of the direction are not read, and the reader
// resynchronises after them.
type LostError struct {
	Start, End int64
	Lost       int64 // bytes of an unfinished frame before them, dropped with them
	WebSocket  bool  // the WebSocket framing is lost: the direction is not read further
}

func (e *LostError) Error() string {
	msg := fmt.Sprintf("bytes %d-%d were not looked at (the view fell behind; they were forwarded)", e.Start, e.End-1)
	if e.Lost > 0 {
		msg += fmt.Sprintf("; the %d %s of the frame they cut are not shown", e.Lost, plural(e.Lost, "byte", "bytes"))
	}
	if e.WebSocket {
		msg += "; the WebSocket framing is lost, the rest of this direction is not shown"
	}
	return msg
}

// NewLive returns a Live that gives its records to fn. Records are valid
// only during the call; an error from fn stops every connection and is
// returned by the methods from then on.
func NewLive(opts Options, fn func(*Record) error) *Live {
	l := &Live{}
	l.r = newReader(opts, func(rec *Record) error {
		if l.lost && rec.Kind == Problem {
			var ce *Error
			var ge *GapError
			if errors.As(rec.Err, &ce) {
				le := &LostError{Start: l.lostFrom, End: l.lostFrom + l.lostN, WebSocket: true}
				if errors.As(ce.Err, &ge) {
					le.Lost, le.WebSocket = ge.Lost, false
				}
				rec.Err = &Error{Conn: ce.Conn, Dir: ce.Dir, Err: le}
			}
		}
		return fn(rec)
	})
	l.r.live = true
	return l
}

// Open starts a connection named name ("10.0.0.1:51234>10.0.0.2:7000":
// client>server) whose bytes are handed over from their first.
func (l *Live) Open(name string) *LiveConn {
	r := l.r
	c := &conn{r: r, name: name, firstIsClient: true, order: r.order}
	r.order++
	r.stats.Connections++
	c.halves[C2S] = &half{conn: c, dir: C2S, begun: true}
	c.halves[S2C] = &half{conn: c, dir: S2C, begun: true}
	lc := &LiveConn{l: l, c: c}
	l.conns = append(l.conns, lc)
	return lc
}

// Feed hands over the next bytes of a direction, received at t. The
// records they complete are given to fn before it returns.
func (lc *LiveConn) Feed(dir Dir, t time.Time, b []byte) error {
	h := lc.c.halves[dir]
	h.time = t
	h.feed(b)
	return lc.l.r.err
}

// Lost says that the next n bytes of a direction went by without being
// handed over: a Problem (a *LostError) is reported, and the direction is
// read again from the next plausible header after them.
func (lc *LiveConn) Lost(dir Dir, t time.Time, n int64) error {
	if n <= 0 {
		return lc.l.r.err
	}
	h := lc.c.halves[dir]
	h.time = t
	lc.l.lost, lc.l.lostFrom, lc.l.lostN = true, h.fed, n
	h.gap(n)
	lc.l.lost = false
	return lc.l.r.err
}

// End ends a direction at t (its FIN): a frame cut short by the end is
// reported.
func (lc *LiveConn) End(dir Dir, t time.Time) error {
	h := lc.c.halves[dir]
	if !h.finished {
		h.time = t
		h.finish()
	}
	return lc.l.r.err
}

// Close ends the connection at t: a frame cut short by the end is
// reported.
func (lc *LiveConn) Close(t time.Time) error {
	if lc.closed {
		return lc.l.r.err
	}
	lc.closed = true
	lc.l.conns = slices.DeleteFunc(lc.l.conns, func(o *LiveConn) bool { return o == lc })
	lc.End(C2S, t)
	return lc.End(S2C, t)
}

// Close ends every connection still open, as LiveConn.Close does.
func (l *Live) Close(t time.Time) error {
	for _, lc := range slices.Clone(l.conns) {
		lc.Close(t)
	}
	return l.r.err
}

// Stats returns the counts so far.
func (l *Live) Stats() Stats { return l.r.stats }
