// Package tap is a TCP proxy that shows the Kado frames going through it:
// a live view of the connections between an orchestrator and a subagent.
//
// Serve accepts connections on a listener, dials the upstream for each, and
// forwards the bytes of both directions unchanged, each read written on at
// once. A copy of what was forwarded is handed to one view goroutine, which
// reads each direction with internal/capture's Live reader (WebSocket
// handshake, frames as their last byte arrives, bad bytes reported and
// passed over up to the next plausible header) and gives the records to
// Options.Record; with Options.Pcap it also writes the traffic as a pcapng
// file (Ethernet, IPv4 or IPv6, TCP with SYN, FIN and consistent sequence
// and acknowledgement numbers per direction) that internal/capture reads back
// into the same records.
//
// The pcapng is written by a goroutine of its own, from a queue of its
// own: a view that falls behind or blocks costs it nothing.
//
// Forwarding never waits for the view or the pcapng: the copies they hold
// are bounded (Options.ViewBuffer and a share of Options.MaxMemory), and
// bytes that arrive while a queue is full are forwarded all the same. The
// view then reports them (a *capture.LostError) and resynchronises on the
// next plausible header; in the pcapng they are a hole in the sequence
// space. Options.MaxMemory bounds all the traffic Serve holds, unfinished
// frames included: a direction whose frame would pass its share is
// reported (an *OverShareError) and no longer decoded, never slowed.
//
// A reset (RST) from either side is passed on as a reset to the other.
//
// Serve returns when its context is done: the listener and every
// connection are closed, the pcapng is written to its end and flushed,
// then the view is given what it holds.
//
// RunCommand (command.go) is toonkit tap's run: Serve with the inspect
// view, or decode's NDJSON records, on stdout.
package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
)

// Options configure Serve.
type Options struct {
	// Upstream is the address each connection is forwarded to
	// ("127.0.0.1:7000").
	Upstream string
	// Dial connects to the upstream; nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxFrameSize bounds a frame's payload in the view; 0 means
	// kado.DefaultMaxFrameSize.
	MaxFrameSize int
	// MaxMemory bounds the bytes of traffic Serve holds, all connections
	// together: a sixteenth (or ViewBuffer) for the copies not yet shown,
	// a quarter for those not yet written to Pcap, the rest for the
	// unfinished frames of the view. When those would pass it, the
	// direction holding the most (over its share: that rest over the open
	// directions) is no longer decoded: a Problem (*OverShareError) says
	// so, and its bytes are still forwarded and written to Pcap. Bytes
	// beyond the queues' shares are forwarded but not shown (or are a hole
	// in the pcapng). 0 means DefaultMaxMemory. Besides, each connection
	// has two 32 KiB forwarding buffers.
	MaxMemory int64
	// ViewBuffer bounds the bytes held for the view; 0 means a sixteenth
	// of MaxMemory (DefaultViewBuffer by default).
	ViewBuffer int
	// Record is given every record of the view (frames, WebSocket text
	// messages, problems, notes) as it completes, on the view goroutine.
	// Records are valid during the call. An error stops Serve.
	Record func(*capture.Record) error
	// Notice is given the connections' comings and goings, on the view
	// goroutine. An error stops Serve.
	Notice func(Notice) error
	// Idle, when set, is called on the view goroutine whenever it has
	// nothing more to show (to flush a buffered output). An error stops
	// Serve.
	Idle func() error
	// Pcap, when set, receives a pcapng file of the traffic.
	Pcap io.Writer
}

// DefaultMaxMemory is the default of Options.MaxMemory.
const DefaultMaxMemory = 256 << 20

// DefaultViewBuffer is the default of Options.ViewBuffer.
const DefaultViewBuffer = DefaultMaxMemory / 16

// NoticeKind says what a Notice is about.
type NoticeKind uint8

// The kinds of notices.
const (
	Opened NoticeKind = iota + 1 // a connection was accepted and its upstream dialed
	Closed                       // both directions of a connection ended
	Failed                       // the upstream could not be dialed: the client is closed
)

// Notice is a connection coming or going.
type Notice struct {
	Kind NoticeKind
	Time time.Time
	Conn string // "client>upstream"; for Failed, "client>Options.Upstream"
	// Bytes forwarded in each direction (Closed).
	Bytes [2]int64
	// ResetBy (Closed) is "client" or "upstream" when that side reset
	// the connection; tap then reset its connection to the other side
	// too, so that it sees the reset and not a clean end of stream.
	ResetBy string
	Err     error // Failed: why
}

func (n Notice) String() string {
	switch n.Kind {
	case Opened:
		return n.Conn + " opened"
	case Closed:
		if n.ResetBy != "" {
			other := "client"
			if n.ResetBy == other {
				other = "upstream"
			}
			return fmt.Sprintf("%s reset by %s, passed on to the %s (%d bytes c2s, %d bytes s2c)", n.Conn, n.ResetBy, other, n.Bytes[0], n.Bytes[1])
		}
		return fmt.Sprintf("%s closed (%d bytes c2s, %d bytes s2c)", n.Conn, n.Bytes[0], n.Bytes[1])
	}
	return fmt.Sprintf("%s: cannot connect to the upstream: %v", n.Conn, n.Err)
}

// Stats count what Serve did.
type Stats struct {
	Conns     int      // connections accepted and forwarded
	Failed    int      // connections whose upstream could not be dialed
	Forwarded [2]int64 // bytes forwarded c2s and s2c
	Lost      int64    // bytes forwarded but not shown (the view fell behind)
	Undecoded int64    // bytes forwarded but not decoded (a direction over its share of MaxMemory)
	Frames    int
	Problems  int
	// PeakHeld is the most bytes of traffic held at once (the copies
	// queued for the view and the pcapng, counted once per queue, and the
	// view's unfinished frames): at most Options.MaxMemory.
	PeakHeld int64
}

// Serve accepts connections on ln until ctx is done, then closes ln and
// every connection and returns nil; or it returns the first error of the
// listener (other than its closing), of Options.Record, Notice or Idle, or
// of Options.Pcap. The pcapng is complete (written and flushed) before
// Serve waits for the view to show what it still holds: a view that
// blocks (Record writing to an output nobody reads) does not hold it back,
// and its caller can make it end by making its output fail.
func Serve(ctx context.Context, ln net.Listener, opts Options) (Stats, error) {
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultMaxMemory
	}
	if opts.ViewBuffer <= 0 {
		opts.ViewBuffer = int(opts.MaxMemory / 16)
	}
	var pcapShare int64
	if opts.Pcap != nil {
		pcapShare = opts.MaxMemory / 4
	}
	frames := opts.MaxMemory - int64(opts.ViewBuffer) - pcapShare
	if frames < opts.MaxMemory/4 || frames < 64<<10 {
		return Stats{}, fmt.Errorf("tap: a view buffer of %d bytes leaves too little of a memory bound of %d bytes for unfinished frames", opts.ViewBuffer, opts.MaxMemory)
	}
	if opts.Dial == nil {
		var d net.Dialer
		opts.Dial = d.DialContext
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	mem := &memory{}
	s := &server{opts: opts, ctx: ctx, cancel: cancel}
	s.qs[0] = newQueue(int64(opts.ViewBuffer), mem)
	v := newView(opts, frames, mem)
	var pv *pcapView
	if opts.Pcap != nil {
		w, err := newPcapWriter(opts.Pcap)
		if err != nil {
			return Stats{}, err
		}
		pv = &pcapView{w: w, conns: map[int]*pcapConn{}}
		s.qs[1] = newQueue(pcapShare, mem)
	}
	var viewErr, pcapErr error
	viewDone, pcapDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(viewDone)
		viewErr = consume(s.qs[0], v.event, opts.Idle, cancel)
	}()
	go func() {
		defer close(pcapDone)
		if pv != nil {
			pcapErr = consume(s.qs[1], pv.event, nil, cancel)
		}
	}()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var acceptErr error
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				acceptErr = err
				cancel(err)
			}
			break
		}
		s.wg.Add(1)
		go s.handle(c)
	}
	s.wg.Wait()
	for _, q := range s.qs {
		if q != nil {
			q.close()
		}
	}
	// The pcapng first: it does not wait for the view.
	<-pcapDone
	var flushErr error
	if pv != nil {
		flushErr = pv.w.flush()
	}
	<-viewDone
	finishErr := v.finish(viewErr)
	st := v.stats
	st.Forwarded = s.forwarded()
	st.PeakHeld = mem.peak.Load()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return st, cause
	}
	for _, err := range []error{viewErr, pcapErr, flushErr, finishErr, acceptErr} {
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

type server struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelCauseFunc
	qs     [2]*queue // the view's, the pcapng's (or nil)
	// order makes the queues get the events in the same order, so that
	// the pcapng reads back into the records the view showed.
	order sync.Mutex
	wg    sync.WaitGroup
	mu    sync.Mutex
	fwd   [2]int64
	id    int
}

func (s *server) forwarded() [2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fwd
}

// push hands an event that is no data to the view and the pcapng; lost,
// when set, are the bytes each missed since its last data.
func (s *server) push(ev event, lost *[2]int64) {
	s.order.Lock()
	defer s.order.Unlock()
	for i, q := range s.qs {
		if q != nil {
			if lost != nil {
				ev.lost, lost[i] = lost[i], 0
			}
			q.push(ev)
		}
	}
}

// data hands a copy of a read to the view and to the pcapng, to each when
// its queue has room (one copy serves both); lost counts, per queue, the
// bytes it missed since its last data. It never waits.
func (s *server) data(id int, dir capture.Dir, b []byte, lost *[2]int64) {
	n := int64(len(b))
	var took [2]bool
	for i, q := range s.qs {
		if q != nil {
			if took[i] = q.reserve(n); !took[i] {
				lost[i] += n
			}
		}
	}
	if !took[0] && !took[1] {
		return
	}
	ev := event{kind: evData, id: id, dir: dir, t: time.Now(), data: append([]byte(nil), b...)}
	s.order.Lock()
	defer s.order.Unlock()
	for i, q := range s.qs {
		if took[i] {
			ev.lost, lost[i] = lost[i], 0
			q.push(ev)
		}
	}
}

// handle forwards one connection.
func (s *server) handle(client net.Conn) {
	defer s.wg.Done()
	defer client.Close()
	s.mu.Lock()
	id := s.id
	s.id++
	s.mu.Unlock()
	up, err := s.opts.Dial(s.ctx, "tcp", s.opts.Upstream)
	if err != nil {
		s.push(event{kind: evFailed, id: id, t: time.Now(), name: client.RemoteAddr().String() + ">" + s.opts.Upstream, err: err}, nil)
		return
	}
	defer up.Close()
	name := addrString(client.RemoteAddr()) + ">" + addrString(up.RemoteAddr())
	s.push(event{kind: evOpen, id: id, t: time.Now(), name: name, addrs: [2]net.Addr{client.RemoteAddr(), up.RemoteAddr()}}, nil)
	// The context's end closes both sides: the copies return.
	stop := context.AfterFunc(s.ctx, func() {
		client.Close()
		up.Close()
	})
	defer stop()
	var wg sync.WaitGroup
	var n [2]int64
	var resets resets
	wg.Add(2)
	go func() { defer wg.Done(); n[0] = s.pipe(id, capture.C2S, up, client, &resets) }()
	go func() { defer wg.Done(); n[1] = s.pipe(id, capture.S2C, client, up, &resets) }()
	wg.Wait()
	s.push(event{kind: evClose, id: id, t: time.Now(), n: n, resetBy: resets.by()}, nil)
}

// resets records which side of a connection reset it: the side that
// sends capture.C2S (the client) or capture.S2C (the upstream).
type resets struct {
	mu   sync.Mutex
	side [2]bool
}

func (r *resets) set(side capture.Dir) {
	r.mu.Lock()
	r.side[side] = true
	r.mu.Unlock()
}

// by names the side that reset the connection, the client when both did.
func (r *resets) by() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.side[capture.C2S]:
		return "client"
	case r.side[capture.S2C]:
		return "upstream"
	}
	return ""
}

// isReset reports whether err says the peer reset the connection
// (ECONNRESET; on a write, EPIPE after the peer's reset).
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// reset closes c so that its peer sees a reset (an RST), not an end of
// stream: with SO_LINGER 0, close sends an RST.
func reset(c net.Conn) {
	if l, ok := c.(interface{ SetLinger(int) error }); ok {
		l.SetLinger(0)
	}
	c.Close()
}

// pipe copies src to dst, each read written at once, and hands a copy to
// the view when it has room (bytes not written to dst, when dst fails, have
// been shown). At the end of src, dst's write side is
// closed (a half-close); on an error both are. A reset is passed on as a
// reset: when src resets, dst is reset; when a write to dst fails because
// dst reset, src is.
func (s *server) pipe(id int, dir capture.Dir, dst, src net.Conn, rs *resets) int64 {
	buf := make([]byte, 32<<10)
	var total int64
	var lost [2]int64 // bytes the view and the pcapng missed
	wasReset := false
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			// The view's copy is taken first (it never waits), so that it
			// never shows an answer before what it answers.
			s.data(id, dir, buf[:n], &lost)
			if _, err := dst.Write(buf[:n]); err != nil {
				if isReset(err) {
					rs.set(1 - dir)
					reset(src)
				} else {
					src.Close()
				}
				dst.Close()
				break
			}
			total += int64(n)
			s.mu.Lock()
			s.fwd[dir] += int64(n)
			s.mu.Unlock()
		}
		if rerr != nil {
			if rerr == io.EOF {
				if cw, ok := dst.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite()
				} else {
					dst.Close()
				}
			} else if errors.Is(rerr, syscall.ECONNRESET) {
				wasReset = true
				rs.set(dir)
				reset(dst)
				src.Close()
			} else {
				src.Close()
				dst.Close()
			}
			break
		}
	}
	s.push(event{kind: evEnd, id: id, dir: dir, t: time.Now(), reset: wasReset}, &lost)
	return total
}

// addrString is a TCP address as the view names it: 127.0.0.1:7000 or
// [::1]:7000.
func addrString(a net.Addr) string {
	if ap := addrPort(a); ap.IsValid() {
		return ap.String()
	}
	return a.String()
}
