package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
	"github.com/toonkit/toonkit/kado"
)

// factory makes a conn for every TCP connection the assembler meets.
type factory struct{ r *reader }

func (f factory) New(netFlow, tcpFlow gopacket.Flow, tcp *layers.TCP, ac reassembly.AssemblerContext) reassembly.Stream {
	r := f.r
	src, dst := netFlow.Endpoints()
	sport, dport := uint16(tcp.SrcPort), uint16(tcp.DstPort)
	// The sender of the first segment is the client unless it answers a
	// SYN, or (no SYN seen) it sends from the server's port.
	firstIsClient := true
	switch {
	case tcp.SYN:
		firstIsClient = !tcp.ACK
	case r.ports != nil && r.ports[sport] != r.ports[dport]:
		firstIsClient = r.ports[dport]
	case sport != dport:
		firstIsClient = sport > dport
	}
	name := endpoint(src, sport) + ">" + endpoint(dst, dport)
	if !firstIsClient {
		name = endpoint(dst, dport) + ">" + endpoint(src, sport)
	}
	c := &conn{r: r, name: name, firstIsClient: firstIsClient, order: r.order}
	r.order++
	if r.open >= r.opts.MaxConns {
		c.rejected = true
		r.stats.Dropped++
		r.now = ac.GetCaptureInfo().Timestamp
		h := &half{conn: c, dir: C2S, wsMask: -1}
		r.emit(h, &Record{Kind: Problem, Conn: name, Dir: C2S, Time: r.now,
			Err: &Error{Conn: name, Dir: C2S, Err: fmt.Errorf("%w (%d): this connection is not followed", ErrTooManyConns, r.opts.MaxConns)}})
		return c
	}
	r.open++
	r.stats.Connections++
	c.halves[C2S] = &half{conn: c, dir: C2S, wsMask: -1}
	c.halves[S2C] = &half{conn: c, dir: S2C, wsMask: -1}
	return c
}

// conn is one TCP connection: a reassembly.Stream.
type conn struct {
	r             *reader
	name          string
	order         int
	firstIsClient bool // the first segment seen came from the client
	rejected      bool // past Options.MaxConns
	halves        [2]*half
	done          bool
}

func (c *conn) half(dir reassembly.TCPFlowDirection) *half {
	if (dir == reassembly.TCPDirClientToServer) == c.firstIsClient {
		return c.halves[C2S]
	}
	return c.halves[S2C]
}

func (c *conn) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, ac reassembly.AssemblerContext) bool {
	if c.rejected || c.r.err != nil {
		return false
	}
	h := c.half(dir)
	if !h.begun {
		h.begun = true
		if !tcp.SYN {
			// The capture began after this direction's SYN: start here,
			// at the first plausible header.
			*start = true
			h.midstream = true
		}
	}
	if len(h.copies) > 0 || nextSeq >= 0 && nextSeq.Difference(reassembly.Sequence(tcp.Seq)) > 0 {
		h.firstCopyWins(tcp, nextSeq, ci.Timestamp)
	}
	h.accepted(reassembly.Sequence(tcp.Seq), len(tcp.Payload), nextSeq, ci.Timestamp)
	return true
}

func (c *conn) ReassembledSG(sg reassembly.ScatterGather, ac reassembly.AssemblerContext) {
	if c.rejected || c.r.err != nil {
		return
	}
	dir, _, end, skip := sg.Info()
	n, _ := sg.Lengths()
	h := c.half(dir)
	h.time = ac.GetCaptureInfo().Timestamp
	if skip > 0 {
		h.gap(int64(skip))
	}
	if n > 0 {
		h.feed(sg.Fetch(n))
	}
	h.delivered(false)
	if end {
		h.finish()
	}
}

func (c *conn) ReassemblyComplete(ac reassembly.AssemblerContext) bool {
	if !c.rejected && !c.done {
		c.done = true
		c.halves[C2S].finish()
		c.halves[S2C].finish()
		c.r.open--
	}
	return true
}

// half is one direction of a connection. Its bytes are read by a
// coroutine (iter.Pull) that runs the frame reader: the reader pulls bytes
// with Read, which hands control back to the assembler when the bytes fed
// so far are used up.
type half struct {
	conn      *conn
	dir       Dir
	begun     bool // its first segment was seen
	midstream bool // it starts (again) inside the stream: resynchronise first
	started   bool // the coroutine runs
	listed    bool // in the reader's halves
	dead      bool // not read further
	finished  bool
	stopping  bool
	eof       bool
	next      func() (struct{}, bool)
	stop      func()
	chunk     []byte
	fed       int64 // bytes of the stream fed so far
	base      int64 // stream offset where the current reader began
	time      time.Time
	last      time.Time // time of its last record
	queued    []queued  // segments waiting behind a hole
	copies    []segCopy // the bytes of those segments, as they first came (firstCopyWins)
	copyBytes int
	rd        *kado.Reader
	ws        *wsReader
	wsDir     bool   // it began with a WebSocket handshake
	wsMask    int    // its WebSocket frames are masked (1) or not (0), or not known (-1)
	rec       Record // the frame being emitted: a Record per frame would be an allocation
	// between: the coroutine waits between two frames of a plain frame
	// stream (no WebSocket, past its first frame) for bytes, outside the
	// frame reader: feed may read the frames the bytes hold whole itself
	// (direct). pending: a frame read there whose payload is not JSON (or
	// a failed read), which the coroutine moves on past.
	between    bool
	hasPending bool
	pendingF   *kado.Frame
	pendingErr error
}

var errStopped = errors.New("stopped")

// feed gives the direction's next bytes to its reader and lets it read
// them all.
func (h *half) feed(b []byte) {
	if h.dead || h.finished || h.conn.r.err != nil {
		h.fed += int64(len(b))
		return
	}
	if !h.started {
		h.start()
	}
	h.chunk = b
	if h.between && directReads {
		// Most segments end where a frame does: their frames are read
		// here, without a switch to the coroutine and back.
		for h.direct() {
		}
		if !h.hasPending && len(h.chunk) == 0 && h.waits() {
			h.chunk = nil
			h.fed += int64(len(b))
			return
		}
	}
	h.conn.r.resumes++
	if _, ok := h.next(); !ok {
		h.dead = true // the reader gave up on this direction
		h.rd, h.ws = nil, nil
	}
	h.chunk = nil
	h.fed += int64(len(b))
}

// waits reports whether the frame reader, given no more bytes, would only
// wait for more: it holds less than a header, or a good header whose frame
// is not whole. (Otherwise, a bad header, it reports it and moves on now.)
func (h *half) waits() bool {
	buf := h.rd.Buffered()
	if len(buf) < kado.HeaderSize {
		return true
	}
	hd := kado.ParseHeader(buf)
	return hd.Check(h.conn.r.opts.MaxFrameSize) == nil && kado.HeaderSize+int(hd.PayloadLength) > len(buf)
}

// directReads lets feed read frames itself (a variable for the tests,
// which compare).
var directReads = true

// direct reads the next frame of a direction whose coroutine waits between
// frames (between), on the assembler's goroutine, when the bytes at hand
// hold it whole (so that the frame reader reads no further than them), and
// emits it as body would. It makes the same calls of the frame reader as
// body, in the same order, so the records are the same. A frame whose
// payload is not JSON is left pending for the coroutine, which moves on
// past it (that may need more bytes). It reports whether it read a frame.
func (h *half) direct() bool {
	r := h.conn.r
	rd := h.rd
	if r.err != nil || h.stopping || h.hasPending {
		return false
	}
	buf := rd.Buffered()
	if len(buf) == 0 {
		buf = h.chunk // what the reader reads next
	}
	// The reader reads no further than the header, and the payload its
	// length gives when the header is good.
	if len(buf) < kado.HeaderSize || kado.HeaderSize+int(binary.LittleEndian.Uint32(buf[kado.OffPayloadLength:])) > len(buf) {
		return false
	}
	f, err := rd.Next()
	if err == nil {
		if err = h.frame(f, false); err == nil {
			return true
		}
	}
	h.hasPending, h.pendingF, h.pendingErr = true, f, err
	return false
}

// frame emits a frame the reader accepted, with its payload as compact
// JSON, or, with Options.LeaveJSON, unchecked where the check does not
// decide how reading goes on (not a direction's first frame, and a version
// byte follows it: MoveOn would trust the length of a payload that is not
// JSON) or, with Options.Reopen, may be taken back (nothing follows it
// yet: should it not be JSON, the caller reads again without LeaveJSON). A payload that is not JSON gives the check's error, and
// nothing is emitted.
func (h *half) frame(f *kado.Frame, first bool) error {
	r := h.conn.r
	if !first && r.opts.LeaveJSON {
		if rest := h.rd.Buffered(); len(rest) > 0 && rest[0] == kado.Version {
			h.rec = Record{Kind: Frame, Frame: f, unchecked: true}
			h.emit(&h.rec)
			return nil
		} else if len(rest) == 0 && r.opts.Reopen != nil {
			h.rec = Record{Kind: Frame, Frame: f, unchecked: true, spec: true}
			h.emit(&h.rec)
			return nil
		}
	}
	js, err := h.rd.JSON(f)
	if err != nil {
		return err
	}
	h.rec = Record{Kind: Frame, Frame: f, JSON: js}
	h.emit(&h.rec)
	return nil
}

func (h *half) start() {
	if !h.listed {
		// the reader's list of directions begun, which close stops and
		// end finishes (finish takes the direction off it)
		h.listed = true
		h.conn.r.halves = append(h.conn.r.halves, h)
	}
	h.started = true
	h.stopping = false
	h.eof = false
	h.base = h.fed
	h.rd, h.ws = nil, nil
	h.between, h.hasPending, h.pendingF, h.pendingErr = false, false, nil, nil
	h.next, h.stop = iter.Pull(h.body)
}

// gap handles a hole of n bytes before the next ones.
func (h *half) gap(n int64) {
	start := h.fed
	defer func() { h.fed = start + n }()
	if h.dead || h.finished {
		return
	}
	lost := int64(0)
	if h.ws != nil && h.ws.sawMask >= 0 {
		h.wsMask = h.ws.sawMask
	}
	if h.started {
		if h.rd != nil && !h.wsDir {
			lost = h.fed - h.rd.Offset()
		}
		h.stopNow()
		h.started, h.stopping = false, false
	}
	// After the hole the direction resynchronises: on the next plausible
	// frame header, or in a WebSocket direction on the next plausible
	// WebSocket frame header that begins a binary message carrying a frame
	// (see body).
	h.midstream = true
	h.emit(&Record{Kind: Problem, Err: &Error{Conn: h.conn.name, Dir: h.dir, Err: &GapError{Start: start, End: start + n, Lost: lost}}})
}

// finish ends the direction: its reader sees the end of the stream.
func (h *half) finish() {
	if h.finished {
		return
	}
	h.finished = true
	h.delivered(true)
	if h.started && !h.dead && h.conn.r.err == nil {
		h.eof = true
		h.next()
	}
	h.stopNow()
	h.rd, h.ws = nil, nil // their buffers (an unfinished frame) go now, not with the connection
	r := h.conn.r
	for i, o := range r.halves {
		if o == h {
			r.halves = append(r.halves[:i], r.halves[i+1:]...)
			break
		}
	}
}

func (h *half) stopNow() {
	if h.started && h.stop != nil {
		h.stopping = true
		h.stop()
		h.stop = nil
	}
}

func (h *half) emit(rec *Record) {
	if h.stopping {
		return
	}
	rec.Conn, rec.Dir, rec.Time = h.conn.name, h.dir, h.time
	h.conn.r.emit(h, rec)
}

func (h *half) errorf(kind Kind, err error) {
	h.emit(&Record{Kind: kind, Err: &Error{Conn: h.conn.name, Dir: h.dir, Err: err}})
}

// chunkSource is the io.Reader of a direction's bytes inside its
// coroutine.
type chunkSource struct {
	h       *half
	yield   func(struct{}) bool
	stopped bool
}

func (s *chunkSource) Read(p []byte) (int, error) {
	h := s.h
	for len(h.chunk) == 0 {
		switch {
		case s.stopped:
			return 0, errStopped
		case h.eof:
			return 0, io.EOF
		}
		if !s.yield(struct{}{}) {
			s.stopped = true
			return 0, errStopped
		}
	}
	n := copy(p, h.chunk)
	h.chunk = h.chunk[n:]
	return n, nil
}

// body reads the direction: the handshake, if it is WebSocket, then frames.
func (h *half) body(yield func(struct{}) bool) {
	r := h.conn.r
	src := &chunkSource{h: h, yield: yield}
	var in io.Reader = src
	midstream := h.midstream
	base := h.base
	if midstream && h.wsDir {
		// After a hole in a WebSocket direction: skip to the first
		// plausible WebSocket frame header that begins a binary message
		// with a frame in it; offsets then count payload bytes from there.
		br := bufio.NewReaderSize(src, 4<<10)
		skipped, found, err := resyncWS(br, h.wsMask, r.opts.MaxFrameSize)
		if errors.Is(err, errStopped) {
			return
		}
		if !found {
			h.errorf(Note, fmt.Errorf("after the hole: skipped %d %s to the end: no plausible WebSocket frame header found", skipped, plural(skipped, "byte", "bytes")))
			return
		}
		h.errorf(Note, fmt.Errorf("after the hole: skipped %d %s to the first plausible WebSocket frame header at byte %d", skipped, plural(skipped, "byte", "bytes"), h.base+skipped))
		h.ws = newWSReader(br, r.opts.MaxFrameSize, func(text []byte) {
			h.emit(&Record{Kind: Text, Text: text})
		})
		h.ws.sawMask = h.wsMask
		in, base, midstream = h.ws, h.base+skipped+int64(wsHeaderLen(br)), false
	} else if !midstream && !notHTTP(h.chunk) {
		br := bufio.NewReaderSize(src, handshakeMax)
		ws, err := handshake(br)
		switch {
		case errors.Is(err, errStopped):
			return
		case err != nil:
			h.notFrames(err)
			return
		case ws:
			h.wsDir = true
			h.ws = newWSReader(br, r.opts.MaxFrameSize, func(text []byte) {
				h.emit(&Record{Kind: Text, Text: text})
			})
			in = h.ws
		default:
			in = &afterPeek{br: br, src: src}
		}
	}
	rd := kado.NewReader(in, kado.ReaderOptions{MaxFrameSize: r.opts.MaxFrameSize, BaseOffset: base})
	h.rd = rd
	plain := in == io.Reader(src)
	first := true
	for r.err == nil {
		var f *kado.Frame
		var err error
		checked := false // f's payload was checked (direct): err is the check's
		if plain && !first && !h.hasPending && len(h.chunk) == 0 && len(rd.Buffered()) == 0 {
			// Between frames, out of bytes: wait here, where feed may
			// read the next frames itself (direct).
			h.between = true
			ok := yield(struct{}{})
			h.between = false
			if !ok {
				return
			}
		}
		if h.hasPending {
			f, err, checked = h.pendingF, h.pendingErr, true
			h.hasPending, h.pendingF, h.pendingErr = false, nil, nil
		} else {
			f, err = rd.Next()
		}
		if err == io.EOF {
			return
		}
		var badFrame *kado.Frame // a frame whose payload is not JSON, kept for the Problem
		if err == nil && !checked {
			if err = h.frame(f, first); err == nil {
				first = false
				continue
			}
		}
		if f != nil {
			c := *f
			c.Raw = bytes.Clone(f.Raw)
			badFrame = &c
		}
		switch {
		case errors.Is(err, errStopped):
			return
		case !kado.IsFrameError(err):
			h.errorf(Problem, err) // a WebSocket protocol error: the framing is lost
			return
		case first && !midstream && h.ws == nil && !frameStart(err) && !r.live:
			h.notFrames(err)
			return
		}
		m := rd.MoveOn(f, err)
		if h.stopping {
			return
		}
		if first && midstream {
			// The bytes before the first plausible header belong to a
			// frame whose start the capture does not hold.
			what := "the capture began inside this connection"
			if h.base > 0 {
				what = "after the hole"
			}
			if m.Found {
				h.errorf(Note, fmt.Errorf("%s: skipped %d %s to the first plausible header at byte %d", what, m.Skipped, plural(m.Skipped, "byte", "bytes"), h.base+m.Skipped))
			} else {
				h.errorf(Note, fmt.Errorf("%s: skipped %d %s to the end: no plausible header found", what, m.Skipped, plural(m.Skipped, "byte", "bytes")))
			}
			first = false
			continue
		}
		first = false
		h.emit(&Record{Kind: Problem, Err: &Error{Conn: h.conn.name, Dir: h.dir, Err: err}, Moved: &m, Frame: badFrame})
	}
}

// notHTTP reports whether the first bytes of a direction show that it
// starts with no HTTP message (neither "GET " nor "HTTP"), so that it is
// read as frames without a look for a WebSocket handshake (handshake would
// say so, after a copy of the bytes through its buffer).
func notHTTP(first []byte) bool {
	if len(first) < 4 {
		return false
	}
	p := string(first[:4])
	return p != "GET " && p != "HTTP"
}

// afterPeek reads what br holds (the bytes the handshake looked at), then
// src directly: a buffer the bytes of every segment would be copied
// through.
type afterPeek struct {
	br  *bufio.Reader
	src io.Reader
}

func (a *afterPeek) Read(p []byte) (int, error) {
	if a.br != nil {
		if a.br.Buffered() > 0 {
			return a.br.Read(p)
		}
		a.br = nil
	}
	return a.src.Read(p)
}

// frameStart reports whether the bytes of a failed first frame begin as a
// frame does (version 1, a known type): a frame that is then cut short or
// broken is a problem in a frame stream, not another protocol.
func frameStart(err error) bool {
	var fe *kado.FrameError
	if !errors.As(err, &fe) || len(fe.Header) == 0 || fe.Header[0] != kado.Version {
		return false
	}
	return len(fe.Header) < 2 || kado.MessageType(fe.Header[1]).Valid()
}

// notFrames reports a direction that is not read, and drains it.
func (h *half) notFrames(why error) {
	kind := Note
	if h.conn.r.ports != nil {
		kind = Problem
	}
	h.errorf(kind, fmt.Errorf("%w: %v; this direction is not read", ErrNotFrames, why))
}
