package tap_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/tap"
	"github.com/toonkit/toonkit/kado"
)

// frame is a Kado frame whose payload names its connection, direction and
// number.
func frame(conn int, dir string, n int) []byte {
	payload := fmt.Sprintf(`{"conn":%d,"dir":%q,"n":%d}`, conn, dir, n)
	b, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction, SequenceID: uint32(n)}, []byte(payload), kado.CompressNever)
	if err != nil {
		panic(err)
	}
	return b
}

// traffic is what one side of connection i sends: frames, then a run of
// bytes that are no frames, then more frames, and for some connections a
// large random block (no frames: reported and passed over).
func traffic(i int, dir string) []byte {
	var b []byte
	for n := range 3 {
		b = append(b, frame(i, dir, n)...)
	}
	b = append(b, "\x00\xffnot a frame\xfe"...)
	for n := 3; n < 5; n++ {
		b = append(b, frame(i, dir, n)...)
	}
	if i%4 == 3 {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		big := make([]byte, 300<<10)
		for j := range big {
			big[j] = byte(r.Uint32())
		}
		b = append(b, big...)
	}
	return b
}

// upstream is a TCP server on 127.0.0.1 that, on each connection, reads
// the client's first frame (its payload names the connection n), sends
// traffic(n, "s2c") while it reads the rest to the end, then closes. It
// keeps what each connection sent it.
type upstream struct {
	ln  net.Listener
	mu  sync.Mutex
	got map[int][]byte
	n   atomic.Int64 // bytes received, all connections
	wg  sync.WaitGroup
}

func newUpstream(t *testing.T) *upstream {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{ln: ln, got: map[int][]byte{}}
	accepting := make(chan struct{})
	go func() {
		defer close(accepting)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.wg.Add(1)
			go u.serve(c)
		}
	}()
	// The accept loop ends before Wait: a WaitGroup's Add must not race
	// with its Wait (the race detector caught it once under make test).
	t.Cleanup(func() { ln.Close(); <-accepting; u.wg.Wait() })
	return u
}

func (u *upstream) serve(c net.Conn) {
	defer u.wg.Done()
	defer c.Close()
	var writing sync.WaitGroup
	defer writing.Wait()
	all, err := io.ReadAll(&firstFrame{c: c, n: &u.n, then: func(n int) {
		writing.Add(1)
		go func() {
			defer writing.Done()
			c.Write(traffic(n, "s2c"))
			c.(*net.TCPConn).CloseWrite()
		}()
	}})
	if err != nil || len(all) < kado.HeaderSize {
		return // a connection the tap closed before a whole header came
	}
	var n int
	fmt.Sscanf(string(all[kado.HeaderSize:]), `{"conn":%d`, &n)
	u.mu.Lock()
	u.got[n] = all
	u.mu.Unlock()
}

// sent is what connection n sent the upstream, once every connection's
// serve has ended (the tap has stopped: no new one comes).
func (u *upstream) sent(n int) []byte {
	u.wg.Wait()
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.got[n]
}

// firstFrame reads c and calls then with the connection number in the
// first frame's payload as soon as it has come.
type firstFrame struct {
	c    net.Conn
	buf  []byte
	then func(int)
	done bool
	n    *atomic.Int64
}

func (f *firstFrame) Read(p []byte) (int, error) {
	n, err := f.c.Read(p)
	f.n.Add(int64(n))
	if !f.done {
		f.buf = append(f.buf, p[:n]...)
		if len(f.buf) >= kado.HeaderSize+20 {
			f.done = true
			var k int
			fmt.Sscanf(string(f.buf[kado.HeaderSize:]), `{"conn":%d`, &k)
			f.then(k)
		}
	}
	return n, err
}

// clientSends is what client i sends through the tap.
func clientSends(i int) []byte { return traffic(i, "c2s") }

type recorder struct {
	mu      sync.Mutex
	lines   []string
	notices []tap.Notice
}

func (r *recorder) record(rec *capture.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := string(capture.AppendRecord(nil, rec))
	if rec.Kind == capture.Problem || rec.Kind == capture.Note {
		line = "problem " + rec.Err.Error()
	}
	r.lines = append(r.lines, line)
	return nil
}

func (r *recorder) notice(n tap.Notice) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices = append(r.notices, n)
	return nil
}

func startTap(t *testing.T, opts tap.Options) (addr string, stop func() (tap.Stats, error)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		st  tap.Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := tap.Serve(ctx, ln, opts)
		done <- result{st, err}
	}()
	return ln.Addr().String(), func() (tap.Stats, error) {
		cancel()
		r := <-done
		return r.st, r.err
	}
}

// Many connections at once: every byte arrives unchanged at the other
// end, both ways; the view shows each connection's frames in order, with
// the bytes that are no frames reported; the pcapng reads back into the
// same records.
func TestForwardAndView(t *testing.T) {
	up := newUpstream(t)
	var rec recorder
	var pcap bytes.Buffer
	addr, stop := startTap(t, tap.Options{Upstream: up.ln.Addr().String(), Record: rec.record, Notice: rec.notice, Pcap: &pcap})

	const conns = 24
	got := make([][]byte, conns)
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			go func() {
				// In pieces of odd sizes.
				b := clientSends(i)
				for len(b) > 0 {
					n := min(len(b), 1+rand.IntN(5000))
					if _, err := c.Write(b[:n]); err != nil {
						return
					}
					b = b[n:]
				}
				c.(*net.TCPConn).CloseWrite()
			}()
			got[i], err = io.ReadAll(c)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Every connection ends before the tap stops.
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec.mu.Lock()
		closed := 0
		for _, n := range rec.notices {
			if n.Kind == tap.Closed {
				closed++
			}
		}
		rec.mu.Unlock()
		if closed == conns || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	st, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	for i := range conns {
		if want := traffic(i, "s2c"); !bytes.Equal(got[i], want) {
			t.Errorf("conn %d: the client got %d bytes, want the upstream's %d", i, len(got[i]), len(want))
		}
		if want, sent := clientSends(i), up.sent(i); !bytes.Equal(sent, want) {
			t.Errorf("conn %d: the upstream got %d bytes, want the client's %d", i, len(sent), len(want))
		}
	}
	if st.Conns != conns || st.Lost != 0 {
		t.Errorf("stats: %+v", st)
	}

	// Per connection and direction, the frames in order, with the
	// problems where the bytes are no frames.
	byConn := map[string][]string{}
	for _, line := range rec.lines {
		if strings.HasPrefix(line, "problem ") {
			f := strings.Fields(line)
			byConn[f[1]+" "+strings.TrimSuffix(f[2], ":")] = append(byConn[f[1]+" "+strings.TrimSuffix(f[2], ":")], "problem")
			continue
		}
		var conn, dir string
		var n int
		i := strings.Index(line, `"conn":"`)
		fmt.Sscanf(line[i+8:], "%s", &conn)
		conn = conn[:strings.IndexByte(conn, '"')]
		j := strings.Index(line, `"dir":"`)
		dir = line[j+7 : j+10]
		k := strings.Index(line, `"payload":`)
		fmt.Sscanf(line[k:], `"payload":{"conn":%d`, &n)
		byConn[conn+" "+dir] = append(byConn[conn+" "+dir], fmt.Sprintf("%d:%s", n, line[k+10:]))
	}
	if len(byConn) != 2*conns {
		t.Fatalf("%d directions shown, want %d", len(byConn), 2*conns)
	}
	for key, seen := range byConn {
		dir := key[len(key)-3:]
		i := -1
		for _, s := range seen {
			if s != "problem" {
				fmt.Sscanf(s, "%d:", &i)
				break
			}
		}
		var want []string
		for n := range 5 {
			if n == 3 {
				want = append(want, "problem")
			}
			want = append(want, fmt.Sprintf(`%d:{"conn":%d,"dir":%q,"n":%d}}`, i, i, dir, n))
		}
		if i%4 == 3 {
			want = append(want, "problem")
		}
		if d := cmp.Diff(want, seen); d != "" {
			t.Errorf("%s (-want +got):\n%s", key, d)
		}
	}

	// The pcapng holds the same records, in the same order.
	var again []string
	_, err = capture.Read(bytes.NewReader(pcap.Bytes()), capture.Options{}, func(r *capture.Record) error {
		line := string(capture.AppendRecord(nil, r))
		if r.Kind == capture.Problem || r.Kind == capture.Note {
			line = "problem " + r.Err.Error()
		}
		again = append(again, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rec.lines, again); d != "" {
		t.Errorf("pcapng records (-tap +read back):\n%s", d)
	}
}

// An upstream that refuses: a Failed notice, the client is closed, the
// tap goes on.
func TestUpstreamRefuses(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	var rec recorder
	addr, stop := startTap(t, tap.Options{Upstream: dead, Record: rec.record, Notice: rec.notice})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	st, err := stop()
	if err != nil || len(b) != 0 {
		t.Fatalf("%q %v", b, err)
	}
	if st.Failed != 1 || len(rec.notices) != 1 || rec.notices[0].Kind != tap.Failed || !strings.Contains(rec.notices[0].String(), "cannot connect to the upstream") {
		t.Fatalf("stats %+v, notices %v", st, rec.notices)
	}
}

// Stopping closes connections that are still open: a frame cut short is
// reported, Serve returns.
func TestStopClosesConnections(t *testing.T) {
	up := newUpstream(t)
	var rec recorder
	addr, stop := startTap(t, tap.Options{Upstream: up.ln.Addr().String(), Record: rec.record, Notice: rec.notice})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := frame(1, "c2s", 0)
	c.Write(append(f, f[:20]...))
	// Wait for the upstream's answer: the connection is up.
	buf := make([]byte, 10)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	if _, err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(buf); err == nil {
		// Drain: the tap closed its side.
		io.Copy(io.Discard, c)
	}
	kinds := []tap.NoticeKind{}
	for _, n := range rec.notices {
		kinds = append(kinds, n.Kind)
	}
	if !slices.Equal(kinds, []tap.NoticeKind{tap.Opened, tap.Closed}) {
		t.Errorf("notices: %v", rec.notices)
	}
	if !slices.ContainsFunc(rec.lines, func(l string) bool { return strings.Contains(l, "c2s: frame 1 at byte 48: payloadLength") }) {
		t.Errorf("the frame cut short is not reported: %q", rec.lines)
	}
}

// A view that does not keep up never holds forwarding back: while it is
// stuck, megabytes go through both ways unchanged; the bytes it missed are
// then reported (and are a hole in the pcapng), and it shows the frames
// after them.
func TestSlowViewDoesNotHoldBack(t *testing.T) {
	up := newUpstream(t)
	var rec recorder
	stuck := make(chan struct{})
	var once sync.Once
	var pcap bytes.Buffer
	var idles atomic.Int64
	addr, stop := startTap(t, tap.Options{Upstream: up.ln.Addr().String(), ViewBuffer: 64 << 10, Pcap: &pcap,
		Idle: func() error { idles.Add(1); return nil },
		Record: func(r *capture.Record) error {
			once.Do(func() { <-stuck })
			return rec.record(r)
		}, Notice: rec.notice})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Connection 7 (a large block after its frames) and more frames
	// while the view is stuck, then more frames once it goes on.
	first := append(traffic(7, "c2s"), bytes.Repeat(frame(7, "c2s", 8), 100000)...)
	then := bytes.Repeat(frame(7, "c2s", 9), 1000)
	sent := append(slices.Clip(first), then...)
	go func() {
		c.Write(first)
		for start := time.Now(); up.n.Load() < int64(len(first)) && time.Since(start) < 20*time.Second; {
			time.Sleep(time.Millisecond)
		}
		// The view, stuck in a record, has not been idle since.
		n := idles.Load()
		close(stuck)
		// It has caught up when it has been idle and stays so (a view
		// still working through what it holds is idle again and again).
		for start := time.Now(); time.Since(start) < 20*time.Second; {
			m := idles.Load()
			time.Sleep(50 * time.Millisecond)
			if m != n && idles.Load() == m {
				break
			}
		}
		c.Write(then)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, traffic(7, "s2c")) {
		t.Fatalf("the client got %d bytes, want %d", len(got), len(traffic(7, "s2c")))
	}
	// Forwarding is done while the view is still stuck.
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		up.mu.Lock()
		done := up.got[7] != nil
		up.mu.Unlock()
		if done {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("the upstream did not get the client's bytes")
		}
	}
	up.mu.Lock()
	got7 := up.got[7]
	up.mu.Unlock()
	if !bytes.Equal(got7, sent) {
		t.Fatalf("the upstream got %d bytes, want %d", len(got7), len(sent))
	}
	st, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Lost == 0 {
		t.Fatalf("nothing lost: %+v", st)
	}
	lost := slices.IndexFunc(rec.lines, func(l string) bool {
		return strings.Contains(l, "were not looked at (the view fell behind; they were forwarded)")
	})
	if lost < 0 {
		t.Fatalf("no loss reported: %q", rec.lines)
	}
	if !slices.ContainsFunc(rec.lines[lost:], func(l string) bool { return strings.Contains(l, `"payload":{"conn":7,"dir":"c2s","n":9}`) }) {
		t.Errorf("no frame shown after the loss: %q", rec.lines[lost:])
	}
	// The pcapng, written apart from the view, holds every byte.
	c2s, s2c := capturetest.TCPPayloads(t, pcap.Bytes(), up.ln.Addr().(*net.TCPAddr).Port)
	if !bytes.Equal(c2s, sent) || !bytes.Equal(s2c, traffic(7, "s2c")) {
		t.Errorf("the pcapng holds %d and %d bytes, want %d and %d", len(c2s), len(s2c), len(sent), len(traffic(7, "s2c")))
	}
}

// An error from Record stops Serve at once, connections and all, and is
// returned.
func TestRecordErrorStops(t *testing.T) {
	up := newUpstream(t)
	enough := errors.New("enough")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := tap.Serve(context.Background(), ln, tap.Options{Upstream: up.ln.Addr().String(),
			Record: func(*capture.Record) error { return enough }})
		done <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(frame(1, "c2s", 0)) // and the connection stays open
	if err := <-done; err != enough {
		t.Fatalf("Serve: %v, want %v", err, enough)
	}
	io.Copy(io.Discard, c) // the tap closed it
}

// A WebSocket connection (HTTP Upgrade) is unwrapped in the view: its
// binary messages are frames, its text messages shown as such; the bytes
// go through as they are.
func TestWebSocket(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err != nil {
			return
		}
		io.Copy(c, c)
		c.Close()
	}()
	var rec recorder
	addr, stop := startTap(t, tap.Options{Upstream: echo.Addr().String(), Record: rec.record})
	f := frame(5, "c2s", 0)
	mask := []byte{9, 8, 7, 6}
	sent := append([]byte(capturetest.WSRequest), capturetest.WSFrame(false, 2, f[:25], mask)...)
	sent = append(sent, capturetest.WSFrame(true, 0, f[25:], mask)...)
	sent = append(sent, capturetest.WSFrame(true, 1, []byte("hello"), mask)...)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go func() { c.Write(sent); c.(*net.TCPConn).CloseWrite() }()
	got, err := io.ReadAll(c)
	c.Close()
	if err != nil || !bytes.Equal(got, sent) {
		t.Fatalf("%d bytes came back, want %d (%v)", len(got), len(sent), err)
	}
	if _, err := stop(); err != nil {
		t.Fatal(err)
	}
	// Each direction (the echo's too) holds the frame and the text.
	var c2s []string
	for _, l := range rec.lines {
		if !strings.Contains(l, `"dir":"c2s","time"`) {
			continue
		}
		if i := strings.Index(l, `"payload":`); i >= 0 {
			c2s = append(c2s, l[i:])
		} else if i := strings.Index(l, `,"text":`); i >= 0 {
			c2s = append(c2s, l[i:])
		} else {
			c2s = append(c2s, l)
		}
	}
	want := []string{`"payload":{"conn":5,"dir":"c2s","n":0}}`, `,"text":"hello"}`}
	if d := cmp.Diff(want, c2s); d != "" {
		t.Errorf("c2s records (-want +got):\n%s\nall: %q", d, rec.lines)
	}
}

// A reset is passed on as a reset, both ways: when the upstream resets
// the connection after 100 kB, the client's read fails with ECONNRESET
// after the bytes (not a clean end of stream, which would make a cut-off
// reply look complete); the same when the client resets. The view says
// who reset, and the pcapng ends the direction with an RST.
func TestResetPassedOn(t *testing.T) {
	for _, by := range []string{"upstream", "client"} {
		t.Run(by, func(t *testing.T) {
			srv, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			upConn := make(chan net.Conn, 1)
			go func() {
				c, err := srv.Accept()
				if err != nil {
					close(upConn)
					return
				}
				upConn <- c
			}()
			var rec recorder
			var pcap bytes.Buffer
			addr, stop := startTap(t, tap.Options{Upstream: srv.Addr().String(), Record: rec.record, Notice: rec.notice, Pcap: &pcap})
			client, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			up, ok := <-upConn
			if !ok {
				t.Fatal("the upstream got no connection")
			}
			defer up.Close()
			// The resetting side sends 100 kB, the other reads them all,
			// then the sender resets (SO_LINGER 0, close).
			sender, receiver := up, client
			if by == "client" {
				sender, receiver = client, up
			}
			data := bytes.Repeat(frame(1, "x", 0), 100<<10/len(frame(1, "x", 0)))
			go sender.Write(data)
			got := make([]byte, len(data))
			if _, err := io.ReadFull(receiver, got); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("the bytes before the reset: %v", err)
			}
			sender.(*net.TCPConn).SetLinger(0)
			sender.Close()
			receiver.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
			n, err := receiver.Read(make([]byte, 10))
			if !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("after the reset the %s read %d bytes, %v; want ECONNRESET", map[string]string{"upstream": "client", "client": "upstream"}[by], n, err)
			}
			// The view notes it when the connection is done.
			for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
				rec.mu.Lock()
				k := len(rec.notices)
				rec.mu.Unlock()
				if k == 2 || time.Since(start) > 60*time.Second {
					break
				}
			}
			if _, err := stop(); err != nil {
				t.Fatal(err)
			}
			if len(rec.notices) != 2 || !strings.Contains(rec.notices[1].String(), " reset by "+by+", passed on to the ") || rec.notices[1].ResetBy != by {
				t.Fatalf("notices: %v", rec.notices)
			}
			// The pcapng ends the resetting side's direction with an RST.
			rsts := 0
			r, err := pcapgo.NewNgReader(bytes.NewReader(pcap.Bytes()), pcapgo.DefaultNgReaderOptions)
			if err != nil {
				t.Fatal(err)
			}
			wantPort := layers.TCPPort(srv.Addr().(*net.TCPAddr).Port) // the upstream's
			for {
				b, _, err := r.ReadPacketData()
				if err != nil {
					break
				}
				p := gopacket.NewPacket(b, layers.LayerTypeEthernet, gopacket.Default)
				if tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP); ok && tcp.RST {
					rsts++
					if from := tcp.SrcPort == wantPort; from != (by == "upstream") {
						t.Errorf("RST from port %d", tcp.SrcPort)
					}
				}
			}
			if rsts != 1 {
				t.Errorf("%d RSTs in the pcapng, want 1", rsts)
			}
		})
	}
}

// Memory has one bound for the whole tap: with MaxMemory 32 MiB (24 for
// the view's queue, 8 for unfinished frames), eight clients each send a
// frame of 16 MiB that they leave unfinished. Every byte reaches the
// upstream unchanged; each direction whose frame would pass the budget is
// reported as over its share and no longer decoded; the bytes tap held
// stayed under the bound (its own count, and the heap, with a margin for
// the test's own buffers). Without the bound the view held 8 x 16 MiB.
func TestMemoryBound(t *testing.T) {
	const clients, size, bound = 8, 16 << 20, 32 << 20
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// The upstream keeps a hash of what each connection sent, not the
	// bytes.
	type got struct {
		n   int64
		sum [32]byte
	}
	gots := make(chan got, clients)
	go func() {
		for {
			c, err := srv.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				h := sha256.New()
				n, _ := io.Copy(h, c)
				var g got
				g.n = n
				copy(g.sum[:], h.Sum(nil))
				gots <- g
			}()
		}
	}()
	var mu sync.Mutex
	var over []string
	reported := make(chan struct{}, clients)
	addr, stop := startTap(t, tap.Options{Upstream: srv.Addr().String(), MaxMemory: bound, ViewBuffer: 24 << 20,
		Record: func(r *capture.Record) error {
			var oe *tap.OverShareError
			if r.Kind == capture.Problem && errors.As(r.Err, &oe) {
				mu.Lock()
				over = append(over, r.Err.Error())
				mu.Unlock()
				reported <- struct{}{}
			}
			return nil
		}})
	// One frame header announcing size bytes, and all of them but one.
	payload := bytes.Repeat([]byte(" "), size)
	payload[0] = '{'
	big, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction, SequenceID: 1}, payload, kado.CompressNever)
	if err != nil {
		t.Fatal(err)
	}
	payload = nil
	sent := big[:len(big)-1]
	want := sha256.Sum256(sent)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	guard := time.After(60 * time.Second) // a hang guard
	for i := range clients {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		// One client after the other: the view's queue holds one
		// client's bytes, so none is lost to a slow view.
		if _, err := c.Write(sent); err != nil {
			t.Fatal(err)
		}
		select {
		case <-reported:
		case <-guard:
			t.Fatalf("client %d: no direction reported over its share", i)
		}
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	for _, c := range conns {
		c.(*net.TCPConn).CloseWrite()
	}
	for i := range clients {
		select {
		case g := <-gots:
			if g.n != int64(len(sent)) || g.sum != want {
				t.Errorf("the upstream got %d bytes (or others), want the %d sent", g.n, len(sent))
			}
		case <-guard:
			t.Fatalf("the upstream got %d connections' bytes, want %d", i, clients)
		}
	}
	for _, c := range conns {
		io.Copy(io.Discard, c)
	}
	st, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.PeakHeld > bound || st.PeakHeld < 8<<20 {
		t.Errorf("tap held at most %d bytes, want between 8 MiB and the bound, %d", st.PeakHeld, bound)
	}
	// The heap: the bound and a margin (the test's frame, 16 MiB, among
	// it), where the view held 128 MiB without the bound, and 64 MiB when
	// a direction it stopped reading kept its reader's buffer.
	if ms.HeapAlloc > bound+16<<20 {
		t.Errorf("heap %d MiB with the bytes of %d frames of %d MiB under way", ms.HeapAlloc>>20, clients, size>>20)
	}
	if st.Undecoded < clients*(8<<20) || len(over) != clients || !strings.Contains(over[0], "c2s: not decoded from byte 0 on: its unfinished frame would take ") {
		t.Errorf("%d bytes not decoded, reports: %q", st.Undecoded, over)
	}
}
