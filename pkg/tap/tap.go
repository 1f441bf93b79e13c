// Package tap is a TCP proxy that shows the Kado frames going through it:
// a live view of the connections between an orchestrator and a subagent.
//
// Serve accepts connections on a listener, dials the upstream for each, and
// forwards the bytes of both directions unchanged, each read written on at
// once. A copy of what was forwarded is handed to one view goroutine, which
// reads each direction with pkg/capture's Live reader (WebSocket
// handshake, frames as their last byte arrives, bad bytes reported and
// passed over up to the next plausible header) and gives the records to
// Options.Record; with Options.Pcap it also writes the traffic as a pcapng
// file (Ethernet, IPv4 or IPv6, TCP with SYN, FIN and consistent sequence
// and acknowledgement numbers per direction) that pkg/capture reads back
// into the same records.
//
// Forwarding never waits for the view: the copies it holds are bounded by
// Options.ViewBuffer, and bytes that arrive while it is full are forwarded
// all the same but not shown. The view then reports them (a
// *capture.LostError, also a hole in the pcapng's sequence space) and
// resynchronises on the next plausible header.
//
// Serve returns when its context is done: the listener and every
// connection are closed, the view is given what it holds, and the pcapng
// is flushed.
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

	"github.com/toonkit/toonkit/pkg/capture"
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
	// ViewBuffer bounds the bytes held for the view; 0 means
	// DefaultViewBuffer.
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

// DefaultViewBuffer is the default of Options.ViewBuffer.
const DefaultViewBuffer = 16 << 20

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
	Frames    int
	Problems  int
}

// Serve accepts connections on ln until ctx is done, then closes ln and
// every connection and returns nil; or it returns the first error of the
// listener (other than its closing), of Options.Record, Notice or Idle, or
// of Options.Pcap.
func Serve(ctx context.Context, ln net.Listener, opts Options) (Stats, error) {
	if opts.ViewBuffer <= 0 {
		opts.ViewBuffer = DefaultViewBuffer
	}
	if opts.Dial == nil {
		var d net.Dialer
		opts.Dial = d.DialContext
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := &server{opts: opts, ctx: ctx, cancel: cancel, q: newQueue(int64(opts.ViewBuffer))}
	v, err := newView(opts)
	if err != nil {
		return Stats{}, err
	}
	viewDone := make(chan struct{})
	go func() {
		defer close(viewDone)
		v.run(s.q, cancel)
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
	s.q.close()
	<-viewDone
	st := v.stats
	st.Forwarded = s.forwarded()
	if err := v.finish(); err != nil {
		return st, err
	}
	if acceptErr != nil {
		return st, acceptErr
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return st, cause
	}
	return st, nil
}

type server struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelCauseFunc
	q      *queue
	wg     sync.WaitGroup
	mu     sync.Mutex
	fwd    [2]int64
	id     int
}

func (s *server) forwarded() [2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fwd
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
		s.q.push(event{kind: evFailed, id: id, t: time.Now(), name: client.RemoteAddr().String() + ">" + s.opts.Upstream, err: err}, false)
		return
	}
	defer up.Close()
	name := addrString(client.RemoteAddr()) + ">" + addrString(up.RemoteAddr())
	s.q.push(event{kind: evOpen, id: id, t: time.Now(), name: name, addrs: [2]net.Addr{client.RemoteAddr(), up.RemoteAddr()}}, false)
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
	s.q.push(event{kind: evClose, id: id, t: time.Now(), n: n, resetBy: resets.by()}, false)
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
	var total, lost int64
	wasReset := false
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			// The view's copy is taken first (it never waits), so that it
			// never shows an answer before what it answers.
			if s.q.push(event{kind: evData, id: id, dir: dir, t: time.Now(), lost: lost, data: buf[:n]}, true) {
				lost = 0
			} else {
				lost += int64(n)
			}
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
	s.q.push(event{kind: evEnd, id: id, dir: dir, t: time.Now(), lost: lost, reset: wasReset}, false)
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
