// Package capture reads packet captures as tcpdump and Wireshark save them
// (pcap in either byte order with micro- or nanosecond timestamps, and
// pcapng) and turns the TCP connections in them into streams of Kado
// frames: captures in, frame streams out.
//
// The file formats are read with github.com/gopacket/gopacket/pcapgo, the
// link and network layers (Ethernet with VLAN tags, Linux cooked SLL and
// SLL2, BSD loopback, raw IP; IPv4 and IPv6) with its layers package, and
// each direction of each TCP connection is put back together with its
// reassembly package: bytes in sequence order, retransmissions dropped,
// out-of-order segments placed; where copies of the same bytes overlap,
// the first copy wins (bytes already delivered, and among segments that
// wait behind a hole the one that came first, as in tshark), and copies
// that disagree are reported (a *ConflictError). Each direction is then read with the
// binary frame reader of kado. A direction that begins with an
// HTTP Upgrade handshake to WebSocket (RFC 6455) is unwrapped first: its
// frames are unmasked, binary messages (continuation frames joined) are
// read as Kado frames and text messages are reported as such.
//
// Every record names where it came from: the connection as
// "client:port>server:port", the direction (c2s or s2c) and the capture
// time of the segment that completed it. Records come out in the order the
// capture completes them. Nothing is lost silently: a hole in a
// direction's sequence space (a segment the capture did not see) is an
// error that names the connection and the byte range, after which the
// direction resynchronises on the next plausible frame header; a
// connection that was already open when the capture began starts at its
// first plausible header.
//
// When more than one CPU may run Go code, Read reads the file and decodes
// the packets' layers on a goroutine of its own, a few batches of segments
// ahead of the reassembly and the frame reading; the records, their order
// and their errors are the same either way.
//
// Packets that give no TCP segment (ARP, UDP, connections not selected;
// packets cut short) are counted by reason in Stats.Skipped and summed up
// in a record after the last one: see SkipError.
//
// Memory is bounded: a record of the file is read only when it is at most
// Options.MaxRecordSize (one over it is passed over unread, its bytes
// never held, and reported); per direction the frame reader holds at most
// one frame (Options.MaxFrameSize) plus its read-ahead, the reassembler at most
// Options.ReassemblyBuffer bytes of out-of-order data, and at most
// Options.MaxConns connections are followed at once; a connection past the
// cap is reported and not followed.
package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/netip"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/gopacket/gopacket/reassembly"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/isotime"
	"github.com/toonkit/toonkit/kado"
)

// Dir is the direction of a record within its connection.
type Dir uint8

// The directions: from the client (the side that sent the first SYN, or
// when no SYN was captured the side with the higher port) to the server,
// and back.
const (
	C2S Dir = iota
	S2C
)

func (d Dir) String() string {
	if d == S2C {
		return "s2c"
	}
	return "c2s"
}

// Kind says what a Record holds.
type Kind uint8

// The kinds of records.
const (
	// Frame is a Kado frame: Record.Frame and its compact JSON payload
	// Record.JSON.
	Frame Kind = iota + 1
	// Text is a WebSocket text message: Record.Text.
	Text
	// Problem is an error in the traffic (a hole in the sequence space, a
	// frame that breaks a rule, a WebSocket protocol error, a connection
	// past the cap): Record.Err, an *Error. The direction goes on.
	Problem
	// Note is something passed over that is not an error: the bytes before
	// the first plausible header of a connection already open when the
	// capture began, or a direction that holds no frames (Record.Err, an
	// *Error, says which).
	Note
)

// Record is one thing found in a capture. Frame, JSON and Text are valid
// only during the call of the function given to Read.
type Record struct {
	Kind Kind
	Conn string    // "10.0.0.1:51234>10.0.0.2:7000": client>server; empty for a record about the capture as a whole (*SkipError, *RecordSizeError)
	Dir  Dir       // c2s or s2c
	Time time.Time // capture time of the segment that completed the record

	// Frame: offsets count bytes of the direction's stream. Also set on
	// a Problem whose frame's header and length were good but whose
	// payload is not JSON (Err's *kado.FrameError has Kind BadPayload).
	Frame *kado.Frame
	JSON  []byte // Frame: the payload as compact JSON
	Text  []byte // Text: the message
	Err   error  // Problem, Note: an *Error
	// Moved says, after a Problem that is a bad frame (a
	// *kado.FrameError), how the frame reader went on.
	Moved *kado.Moved
	// Idle says that the input, when it has a Buffered() int method (a
	// bufio.Reader has it), had nothing more buffered when the record was
	// given: after a live capture's last packet so far, a place to flush.
	Idle bool
	// unchecked: a frame whose payload the reading pass left to the
	// caller (Options.LeaveJSON); spec: one where it did not know what
	// follows it.
	unchecked, spec bool
}

// Unchecked reports whether r is a frame whose payload Read left to the
// caller to check (Options.LeaveJSON): its JSON is nil until Check.
func (r *Record) Unchecked() bool { return r.unchecked }

// Check checks the payload of a frame that Read left unchecked, with dec,
// a binary.Reader of Options.MaxFrameSize whose stream is not read (its
// buffers serve). When the payload is JSON, r.JSON is its compact JSON
// (dec's bytes, valid until dec's next use); when it is not, r becomes the
// Problem that Read would have given (the frame, its *kado.FrameError, and
// Moved: the length was trusted). ok is false when Read could not have
// given that Problem in r's place: the frame was at the end of the bytes
// at hand (Options.Reopen), and where reading went on after it depended on
// its payload. The records from r on may then not be Read's: read the
// capture again with Options.Reopen nil, past the records before r. A
// record that is not unchecked is left as it is.
func (r *Record) Check(dec *kado.Reader) (ok bool) {
	if !r.unchecked {
		return true
	}
	js, err := dec.JSON(r.Frame)
	if err != nil && r.spec {
		return false
	}
	r.unchecked, r.spec = false, false
	if err != nil {
		r.Kind, r.Err, r.Moved = Problem, &Error{Conn: r.Conn, Dir: r.Dir, Err: err}, &kado.Moved{Found: true}
		return true
	}
	r.JSON = js
	return true
}

// TimeString formats t as RFC 3339 in UTC with nine fraction digits, as
// records are stamped: 2026-01-02T15:04:05.123456789Z.
func TimeString(t time.Time) string {
	return string(AppendTime(nil, t))
}

// AppendTime appends TimeString(t) to dst.
func AppendTime(dst []byte, t time.Time) []byte { return isotime.Append(dst, t, 9) }

// TimeCache appends times as AppendTime does, reusing the date and time
// of day of the second it formatted last: a capture's records mostly fall
// in the same second as the one before. The zero TimeCache is ready to
// use; it is not safe for concurrent use.
type TimeCache struct {
	sec    int64 // the second of prefix, when ok
	ok     bool
	prefix [20]byte // "2006-01-02T15:04:05."
}

// Append appends TimeString(t) to dst.
func (c *TimeCache) Append(dst []byte, t time.Time) []byte {
	t = t.UTC()
	if sec := t.Unix(); !c.ok || sec != c.sec {
		var b [30]byte
		full := AppendTime(b[:0], t)
		if len(full) != len(b) { // a year AppendTime writes otherwise
			c.ok = false
			return append(dst, full...)
		}
		copy(c.prefix[:], full)
		c.sec, c.ok = sec, true
	}
	dst = append(dst, c.prefix[:]...)
	var ns [10]byte
	v := t.Nanosecond()
	for i := 8; i >= 0; i-- {
		ns[i] = byte('0' + v%10)
		v /= 10
	}
	ns[9] = 'Z'
	return append(dst, ns[:]...)
}

// Error is a problem found in one direction of a connection.
type Error struct {
	Conn string
	Dir  Dir
	Err  error // a *kado.FrameError, a *GapError, a *WebSocketError or another cause
}

func (e *Error) Error() string { return e.Conn + " " + e.Dir.String() + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// GapError is a hole in a direction's sequence space: bytes the capture
// does not hold. Start and End count bytes of the direction's stream.
type GapError struct {
	Start, End int64
	Lost       int64 // bytes of an unfinished frame (or message) before the hole, dropped with it
}

func (e *GapError) Error() string {
	msg := fmt.Sprintf("bytes %d-%d are missing from the capture (a segment it did not see)", e.Start, e.End-1)
	if e.Lost > 0 {
		msg += fmt.Sprintf("; the %d %s of the frame they cut are dropped", e.Lost, plural(e.Lost, "byte", "bytes"))
	}
	return msg
}

// ErrTooManyConns is the cause of the Problem reported for a connection
// that is not followed because Options.MaxConns are open.
var ErrTooManyConns = errors.New("too many open connections")

// ErrNotFrames is the cause of the Note (or, when Options.Ports named the
// connection's port, the Problem) for a direction whose first bytes are
// neither a frame header nor a WebSocket handshake: the direction is not
// read further.
var ErrNotFrames = errors.New("not Kado frames")

// FormatError is a capture file that cannot be read: a damaged header or
// block, a link type this package does not read.
type FormatError struct {
	Packet int // 1-based number of the packet being read, 0 for the file header
	Err    error
}

func (e *FormatError) Error() string {
	if e.Packet == 0 {
		return "not a readable pcap or pcapng file: " + e.Err.Error()
	}
	return fmt.Sprintf("packet %d: %v", e.Packet, e.Err)
}
func (e *FormatError) Unwrap() error { return e.Err }

// Options configure Read.
type Options struct {
	// MaxFrameSize bounds a frame's payload and a WebSocket text message;
	// 0 means kado.DefaultMaxFrameSize.
	MaxFrameSize int
	// Ports, when not empty, selects the TCP connections with one of these
	// ports on either side; the others are not looked at. When the capture
	// holds no such connection, Read returns a *NoConnError listing those
	// it holds.
	Ports []int
	// MaxConns is the number of connections followed at once; 0 means
	// DefaultMaxConns.
	MaxConns int
	// Conn, when valid, selects one TCP connection (either way round); the
	// others are not looked at. When the capture holds no such
	// connection, Read returns a *NoConnError listing those it holds.
	Conn ConnID
	// MaxRecordSize bounds a record of the capture file (a pcap record's
	// captured length, a pcapng block's total length): a packet's record
	// over it is passed over unread (a Problem, a *RecordSizeError), a
	// section or interface block over it is a *FormatError. 0 means
	// DefaultMaxRecordSize.
	MaxRecordSize int
	// ReassemblyBuffer bounds the out-of-order bytes held for one
	// direction while it waits for a missing segment; when it is full the
	// hole is given up (and reported). 0 means DefaultReassemblyBuffer.
	ReassemblyBuffer int

	// LeaveJSON lets Read give frames whose payload it has not checked,
	// for a caller that checks them on workers (Record.Unchecked,
	// Record.Check): the frames after a direction's first where the
	// check does not decide how reading goes on (a version byte follows
	// the frame: were the payload not JSON, the reader would trust its
	// length all the same, and the Problem is the one Check makes) and,
	// when Reopen is set, also those at the end of the bytes at hand
	// (most frames of a capture: a segment mostly ends with a frame),
	// whose check would decide it: should one of them not be JSON, Check
	// says so, and the caller reads the capture again (Reopen) with
	// Reopen nil (those frames are then checked by Read), past the
	// records before it.
	LeaveJSON bool
	// Reopen, when not nil, gives the capture again from its start (a
	// regular file, seeked back): see LeaveJSON and StreamOptions. Read
	// itself never calls it.
	Reopen func() (io.Reader, error)
	// inOne: read in one goroutine, whatever the CPUs (Records).
	inOne bool
}

// Defaults of Options.
const (
	DefaultMaxConns         = 512
	DefaultReassemblyBuffer = 256 << 10
	// totalReassembly bounds the out-of-order bytes of all directions.
	totalReassembly = 32 << 20
	pageSize        = 1900 // gopacket's reassembly page
	// IdleTimeout is how long (in capture time) a connection may carry
	// nothing before it is ended: its frames cut short are reported and
	// it no longer counts against MaxConns. A hole as old is given up.
	IdleTimeout = 2 * time.Minute
	idleEvery   = 1024 // segments between looks for idle connections
)

// Stats count what Read saw.
type Stats struct {
	Packets     int // packets read from the file
	TCP         int // TCP segments looked at (after Options.Ports)
	Undecoded   int // packets that are not TCP over IP, or are cut short
	Connections int // connections followed
	Dropped     int // connections not followed: Options.MaxConns were open
	Frames      int
	Problems    int
	// Fragments counts IP fragments read; FragmentsLost the fragmented
	// packets given up (a fragment missing after FragmentTimeout or at the
	// end, fragments that contradict each other, too many waiting).
	Fragments     int
	FragmentsLost int
	// Skipped counts, by reason, the packets that gave no TCP segment to
	// read (Undecoded ones, and those Options did not select).
	Skipped   Skipped
	firstCut  int // the first packet cut short
	firstLink int // the first link type not read
}

// packetSource is pcapgo's Reader or NgReader.
type packetSource interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// Read reads the capture in and calls fn with every record, in capture
// order. An error from fn stops the reading and is returned. A file that
// cannot be read gives a *FormatError (the records before it have been
// given to fn); an I/O error is returned as it is. Read returns only once
// nothing reads in any more: stopped early, it waits for a read of in that
// is under way on the goroutine reading ahead.
func Read(in io.Reader, opts Options, fn func(*Record) error) (Stats, error) {
	r := newReader(opts, fn)
	defer r.close()
	err := r.run(in)
	return r.stats, err
}

// Records returns the records of the capture in as an iterator; the final
// error, if any, is the last pair. Records are valid until the next
// iteration. The capture is read in one goroutine (not ahead), so that
// between iterations nothing reads in: the caller may look at it (a
// bufio.Reader's Buffered, say).
func Records(in io.Reader, opts Options) iter.Seq2[*Record, error] {
	opts.inOne = true
	return func(yield func(*Record, error) bool) {
		stop := errors.New("stop")
		_, err := Read(in, opts, func(rec *Record) error {
			if !yield(rec, nil) {
				return stop
			}
			return nil
		})
		if err != nil && err != stop {
			yield(nil, err)
		}
	}
}

type reader struct {
	opts      Options
	fn        func(*Record) error
	err       error // from fn: everything stops
	stats     Stats
	ports     map[uint16]bool
	now       time.Time // capture time of the packet being assembled
	lastIdle  time.Time // when closeIdle last looked
	open      int
	order     int     // connections created so far
	halves    []*half // every half started and not finished, in creation order
	deferring bool    // the assembler flushes: records are held
	held      []held  // records waiting to go out in time order
	heldMin   time.Time
	heldBytes int
	heldN     int
	waiting   []*half // directions with segments waiting behind a hole
	live      bool    // a Live: a direction that does not start with a frame is read on (resynchronised)
	pool      *reassembly.StreamPool
	asm       *reassembly.Assembler
	ctxs      []assemblerContext // the slab context takes from
	idle      bool               // Record.Idle of the records given now
	resumes   int                // switches to a direction's coroutine (for the tests)
}

func newReader(opts Options, fn func(*Record) error) *reader {
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = kado.DefaultMaxFrameSize
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.ReassemblyBuffer <= 0 {
		opts.ReassemblyBuffer = DefaultReassemblyBuffer
	}
	if opts.MaxRecordSize <= 0 {
		opts.MaxRecordSize = DefaultMaxRecordSize
	}
	r := &reader{opts: opts, fn: fn}
	if len(opts.Ports) > 0 {
		r.ports = map[uint16]bool{}
		for _, p := range opts.Ports {
			r.ports[uint16(p)] = true
		}
	}
	r.pool = reassembly.NewStreamPool(factory{r})
	r.asm = reassembly.NewAssembler(r.pool)
	r.asm.MaxBufferedPagesPerConnection = max(1, opts.ReassemblyBuffer/pageSize)
	r.asm.MaxBufferedPagesTotal = max(r.asm.MaxBufferedPagesPerConnection, totalReassembly/pageSize)
	return r
}

func (r *reader) run(in io.Reader) error {
	src, filter, bufd, err := openSource(in, r.opts.MaxRecordSize)
	if err != nil {
		return err
	}
	pr := &packetReader{src: src, filter: filter, bufd: bufd, opts: &r.opts, ports: r.ports, stats: &r.stats}
	pr.dec.frag.stats = &r.stats
	if readMode == ahead || readMode == byCPUs && !r.opts.inOne && runtime.GOMAXPROCS(0) > 1 {
		return r.runAhead(pr)
	}
	for r.err == nil {
		tcp, flow, t, err := pr.next()
		r.idle = pr.idle
		if err == io.EOF {
			break
		}
		var rse *RecordSizeError
		if errors.As(err, &rse) {
			r.captureProblem(Problem, rse, t)
			continue
		}
		if err != nil {
			r.end()
			if r.err != nil {
				return r.err
			}
			return err
		}
		if tcp != nil {
			r.assemble(flow, tcp, t)
		}
	}
	r.end()
	pr.dec.frag.end()
	r.summary(pr)
	return r.finalErr(pr)
}

// captureProblem gives a record about the capture as a whole, not one of
// its connections (Conn is empty): a record over the size limit, or the
// packets that were not read.
func (r *reader) captureProblem(kind Kind, err error, t time.Time) {
	if r.err != nil {
		return
	}
	r.release()
	if kind == Problem {
		r.stats.Problems++
	}
	rec := &Record{Kind: kind, Time: t, Err: err, Idle: r.idle}
	if len(r.held) > 0 || len(r.waiting) > 0 {
		// Records wait for time order: this one goes with them.
		c := *rec
		r.held = append(r.held, held{rec: c, conn: -1, n: r.heldN})
		if len(r.held) == 1 || t.Before(r.heldMin) {
			r.heldMin = t
		}
		r.heldBytes += heldOverhead
		r.heldN++
		return
	}
	r.err = r.fn(rec)
}

// summary gives, at the end of the capture, the record that sums up the
// packets passed over: a Problem when some were lost, a Note when all of
// them were skipped by design.
func (r *reader) summary(pr *packetReader) {
	if r.opts.selects() && !pr.matched {
		return // the error names the connections the capture holds
	}
	t := pr.last
	s := r.stats.Skipped
	e := &SkipError{Skipped: s, FragmentsLost: r.stats.FragmentsLost, FirstLost: r.stats.firstCut, FirstLinkType: r.stats.firstLink}
	switch {
	case e.Lost() > 0:
		r.captureProblem(Problem, e, t)
	case s.NotIP+s.NotTCP+s.Filtered > 0:
		r.captureProblem(Note, e, t)
	}
	r.release()
}

// finalErr is the error of a capture read to its end: fn's, or
// Options.Ports and Options.Conn selecting no connection of it.
func (r *reader) finalErr(pr *packetReader) error {
	if r.err == nil && r.opts.selects() && !pr.matched {
		return &NoConnError{Want: r.opts.Conn, Ports: r.opts.Ports, Conns: pr.seen.names, More: pr.seen.more}
	}
	return r.err
}

// selects reports whether Ports or Conn select among the connections.
func (o *Options) selects() bool { return len(o.Ports) > 0 || o.Conn.IsValid() }

// assemble gives a TCP segment, captured at t, to the reassembler.
func (r *reader) assemble(flow gopacket.Flow, tcp *layers.TCP, t time.Time) {
	r.stats.TCP++
	r.now = t
	r.asm.AssembleWithContext(flow, tcp, r.context(t))
	if len(r.held) > 0 {
		r.release()
	}
	if r.stats.TCP%idleEvery == 0 {
		r.closeIdle()
	}
}

// context is the AssemblerContext of a segment captured at t. The
// reassembler keeps it with the segment's bytes when they wait behind a
// hole, so each segment has its own; they are allocated ctxSlab at a time.
func (r *reader) context(t time.Time) *assemblerContext {
	if len(r.ctxs) == cap(r.ctxs) {
		r.ctxs = make([]assemblerContext, 0, ctxSlab)
	}
	r.ctxs = append(r.ctxs, assemblerContext{t: t})
	return &r.ctxs[len(r.ctxs)-1]
}

// ctxSlab is the number of AssemblerContexts allocated at once: a slab is
// kept while one of them is (with bytes waiting behind a hole), so it is
// small.
const ctxSlab = 32

// packetReader reads the packets of a capture file and finds their TCP
// segments: the file format, the link, network and transport layers, IP
// fragments, and Options.Ports and Options.Conn.
type packetReader struct {
	src     packetSource
	bufd    interface{ Buffered() int } // the input, when it says what it holds
	filter  *recordFilter               // under src: records over the size limit
	held    bool                        // a packet read is still to decode, after a record skipped before it
	hdata   []byte
	hci     gopacket.CaptureInfo
	herr    error
	last    time.Time // capture time of the last packet read
	idle    bool      // it held nothing after the last read
	opts    *Options
	ports   map[uint16]bool
	stats   *Stats // Packets, Undecoded, Fragments, FragmentsLost
	dec     packetDecoder
	matched bool     // a segment that Options.Ports and Options.Conn select was seen
	seen    connSeen // the connections they did not select
}

// next returns the next TCP segment that Options select, its network flow
// and its capture time; io.EOF at the end of the file, or a *FormatError.
// The segment is valid until the next call. When a packet passed over
// leaves the input idle, next returns no segment and no error.
func (pr *packetReader) next() (*layers.TCP, gopacket.Flow, time.Time, error) {
	for {
		var data []byte
		var ci gopacket.CaptureInfo
		var err error
		if pr.held {
			pr.held = false
			data, ci, err = pr.hdata, pr.hci, pr.herr
		} else {
			data, ci, err = pr.src.ZeroCopyReadPacketData()
			pr.idle = pr.bufd != nil && pr.bufd.Buffered() == 0
		}
		if f := pr.filter; f != nil && len(f.over) > 0 {
			// A record passed over came before this packet: said first.
			e := f.over[0]
			f.over = f.over[1:]
			pr.held, pr.hdata, pr.hci, pr.herr = true, data, ci, err
			pr.stats.Packets++
			pr.stats.Skipped.TooLarge++
			return nil, gopacket.Flow{}, pr.last, e
		}
		if err == io.EOF {
			return nil, gopacket.Flow{}, time.Time{}, err
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = errors.New("the file ends inside a packet record")
			}
			return nil, gopacket.Flow{}, time.Time{}, &FormatError{Packet: pr.stats.Packets + 1, Err: err}
		}
		pr.stats.Packets++
		pr.last = ci.Timestamp
		lt := linkType(pr.src, ci)
		tcp, flow, why, err := pr.dec.decode(lt, data, ci.Timestamp)
		if _, ng := pr.src.(*pcapgo.NgReader); err != nil && ng {
			// A pcapng file's interfaces each have their link type: the
			// packets of one that is not read are counted, the others read.
			pr.stats.Skipped.LinkType++
			if pr.stats.firstLink == 0 {
				pr.stats.firstLink = int(lt)
			}
			if pr.idle {
				return nil, flow, ci.Timestamp, nil
			}
			continue
		}
		if err != nil {
			return nil, gopacket.Flow{}, time.Time{}, &FormatError{Packet: pr.stats.Packets, Err: err}
		}
		if tcp == nil {
			pr.stats.Undecoded++
			switch why {
			case skipNotIP:
				pr.stats.Skipped.NotIP++
			case skipNotTCP:
				pr.stats.Skipped.NotTCP++
			case skipTruncated:
				pr.stats.Skipped.Truncated++
				if pr.stats.firstCut == 0 {
					pr.stats.firstCut = pr.stats.Packets
				}
			}
			if pr.idle {
				return nil, flow, ci.Timestamp, nil
			}
			continue
		}
		if pr.opts.selects() {
			selected := pr.ports == nil || pr.ports[uint16(tcp.SrcPort)] || pr.ports[uint16(tcp.DstPort)]
			if selected && pr.opts.Conn.IsValid() {
				selected = pr.opts.Conn.Matches(flowEnds(flow, tcp))
			}
			if !selected {
				if !pr.matched {
					src, dst := flowEnds(flow, tcp)
					pr.seen.add(src, dst, tcp.SYN, tcp.ACK)
				}
				tcp = nil
			} else {
				pr.matched = true
			}
		}
		if tcp == nil {
			pr.stats.Skipped.Filtered++
		}
		if tcp != nil || pr.idle {
			return tcp, flow, ci.Timestamp, nil
		}
	}
}

// closeIdle ends the connections that have been idle for IdleTimeout of
// capture time (a connection whose FIN or RST the capture missed would
// otherwise count against MaxConns to the end), and gives up the holes
// that old.
func (r *reader) closeIdle() {
	if r.err != nil || r.now.Sub(r.lastIdle) < IdleTimeout/4 {
		return
	}
	r.lastIdle = r.now
	old := r.now.Add(-IdleTimeout)
	r.deferring = true
	r.asm.FlushWithOptions(reassembly.FlushOptions{T: old, TC: old})
	r.deferring = false
	r.release()
}

// end pushes out what the reassembler holds (the data after holes that
// were never filled) and ends every direction.
func (r *reader) end() {
	if r.err != nil {
		return
	}
	r.deferring = true
	r.asm.FlushAll()
	for _, h := range slices.Clone(r.halves) {
		h.finish()
	}
	r.deferring = false
	r.release()
}

func (r *reader) close() {
	for _, h := range r.halves {
		h.stopNow()
	}
}

// emit passes a record on, or keeps a copy of it while records wait to be
// put in time order: while the assembler flushes, or while a direction
// holds segments behind a hole (see release).
func (r *reader) emit(h *half, rec *Record) {
	if r.err != nil {
		return
	}
	switch rec.Kind {
	case Frame:
		r.stats.Frames++
	case Problem:
		r.stats.Problems++
	}
	// Within a direction, records keep their order.
	if rec.Time.Before(h.last) {
		rec.Time = h.last
	}
	h.last = rec.Time
	if !r.deferring && len(r.waiting) == 0 && len(r.held) == 0 {
		rec.Idle = r.idle
		r.err = r.fn(rec)
		return
	}
	c := *rec
	if rec.Frame != nil {
		f := *rec.Frame
		f.Raw = bytes.Clone(f.Raw)
		c.Frame = &f
	}
	c.JSON, c.Text = bytes.Clone(rec.JSON), bytes.Clone(rec.Text)
	if rec.Moved != nil {
		m := *rec.Moved
		c.Moved = &m
	}
	if len(r.held) == 0 || c.Time.Before(r.heldMin) {
		r.heldMin = c.Time
	}
	r.heldBytes += heldOverhead + len(c.JSON) + len(c.Text)
	if c.Frame != nil {
		r.heldBytes += len(c.Frame.Raw)
	}
	r.held = append(r.held, held{rec: c, conn: h.conn.order, n: r.heldN})
	r.heldN++
}

// openSource opens the capture in, its records read through a
// recordFilter of limit; bufd says what the input holds, when it can.
func openSource(in io.Reader, limit int) (_ packetSource, filter *recordFilter, bufd interface{ Buffered() int }, _ error) {
	// pcapgo reads through a bufio.Reader of its own (pcapng: one given
	// serves when it is at least 4 KiB, so that its Buffered says what
	// Record.Idle says) or reads exact sizes (pcap): a 4-byte look decides.
	var magic [4]byte
	full := in
	var n int
	var err error
	if br, ok := in.(*bufio.Reader); ok {
		var p []byte
		p, err = br.Peek(4)
		n = copy(magic[:], p)
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
	} else {
		n, err = io.ReadFull(in, magic[:])
		full = io.MultiReader(bytes.NewReader(magic[:]), in)
	}
	if err != nil {
		if n == 0 && err == io.EOF {
			return nil, nil, nil, &FormatError{Err: errors.New("the input is empty")}
		}
		if err == io.ErrUnexpectedEOF {
			return nil, nil, nil, &FormatError{Err: fmt.Errorf("only %d %s", n, plural(int64(n), "byte", "bytes"))}
		}
		return nil, nil, nil, err
	}
	if codec.Detect(magic[:]).Format != codec.Pcap {
		return nil, nil, nil, &FormatError{Err: fmt.Errorf("it starts with % x, which is no pcap or pcapng magic number (a1b2c3d4 or a1b23c4d in either byte order, 0a0d0d0a)", magic[:])}
	}
	if binary.BigEndian.Uint32(magic[:]) == 0x0a0d0d0a {
		filter = &recordFilter{in: full, ng: true, limit: limit}
		// pcapgo reads through this bufio.Reader (it is large enough):
		// its Buffered and the filter's say what the input holds.
		fr := bufio.NewReaderSize(filter, 64<<10)
		ng, err := pcapgo.NewNgReader(fr, pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return nil, nil, nil, &FormatError{Err: fmt.Errorf("pcapng: %w", err)}
		}
		if _, ok := in.(interface{ Buffered() int }); !ok {
			return ng, filter, nil, nil
		}
		return ng, filter, sumBuffered{fr, filter}, nil
	}
	filter = &recordFilter{in: full, limit: limit}
	p, err := pcapgo.NewReader(filter)
	if err != nil {
		return nil, nil, nil, &FormatError{Err: fmt.Errorf("pcap: %w", err)}
	}
	// a record's bytes pass straight from the input to pcapgo's buffer
	if _, ok := in.(interface{ Buffered() int }); !ok {
		return p, filter, nil, nil
	}
	return p, filter, filter, nil
}

func linkType(src packetSource, ci gopacket.CaptureInfo) layers.LinkType {
	if len(ci.AncillaryData) > 0 {
		if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
			return lt
		}
	}
	switch s := src.(type) {
	case *pcapgo.Reader:
		return s.LinkType()
	case *pcapgo.NgReader:
		return s.LinkType()
	}
	return layers.LinkTypeEthernet
}

// assemblerContext carries a segment's capture time through the
// reassembler (the only part of its CaptureInfo that is used).
type assemblerContext struct{ t time.Time }

func (c *assemblerContext) GetCaptureInfo() gopacket.CaptureInfo {
	return gopacket.CaptureInfo{Timestamp: c.t}
}

// packetDecoder finds the TCP segment in a packet, with one
// DecodingLayerParser per first layer.
type packetDecoder struct {
	eth       layers.Ethernet
	dot1q     layers.Dot1Q
	sll       layers.LinuxSLL
	sll2      layers.LinuxSLL2
	loop      layers.Loopback
	ip4       layers.IPv4
	ip6       layers.IPv6
	ip6frag   layers.IPv6Fragment // decoded by ipv6Chain, not the parsers
	tcp       layers.TCP
	frag      defrag
	parsers   map[gopacket.LayerType]*gopacket.DecodingLayerParser
	last      *gopacket.DecodingLayerParser // the parser of the packet before, of
	lastFirst gopacket.LayerType            // its first layer
	decoded   []gopacket.LayerType
}

// Why a packet gives no TCP segment (decode's skip).
type skipReason uint8

const (
	skipNone      skipReason = iota
	skipNotIP                // a link layer that carries no IPv4 or IPv6 (ARP, LLDP, ...)
	skipNotTCP               // IP that carries no TCP (UDP, ICMP, ...)
	skipTruncated            // cut short or damaged before its TCP header ends
	skipFragment             // an IP fragment, kept until its packet is whole
)

// maxDepth bounds the VLAN tags and IPv6 extension headers decode follows.
const maxDepth = 16

// decode returns the TCP layer of a packet and its network flow; tcp is
// nil for a packet that holds no TCP segment, and why says why. An IP
// fragment is kept until the packet is whole: the fragment that completes
// it gives its TCP segment. The error is a link type this package does not
// read.
func (d *packetDecoder) decode(lt layers.LinkType, data []byte, now time.Time) (*layers.TCP, gopacket.Flow, skipReason, error) {
	var first gopacket.LayerType
	switch lt {
	case layers.LinkTypeEthernet:
		first = layers.LayerTypeEthernet
	case layers.LinkTypeLinuxSLL:
		first = layers.LayerTypeLinuxSLL
	case layers.LinkTypeLinuxSLL2:
		first = layers.LayerTypeLinuxSLL2
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		first = layers.LayerTypeLoopback
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12, 14:
		if len(data) == 0 {
			return nil, gopacket.Flow{}, skipTruncated, nil
		}
		switch data[0] >> 4 {
		case 4:
			first = layers.LayerTypeIPv4
		case 6:
			first = layers.LayerTypeIPv6
		default:
			return nil, gopacket.Flow{}, skipNotIP, nil
		}
	default:
		return nil, gopacket.Flow{}, skipNone, fmt.Errorf("link type %d (%s) is not read: Ethernet, Linux cooked (SLL, SLL2), loopback and raw IP are", int(lt), lt)
	}
	tcp, flow, why := d.parse(first, data, now, 0)
	return tcp, flow, why, nil
}

// parse decodes a packet from its first layer. The layers gopacket's
// parser does not follow are followed here: the outer VLAN tags 0x9100 and
// 0x9200 (QinQ before 802.1ad), and IPv6's extension headers (Hop-by-Hop,
// Routing, Fragment, Destination Options, Authentication, Mobility, HIP,
// Shim6), in any chain.
func (d *packetDecoder) parse(first gopacket.LayerType, data []byte, now time.Time, depth int) (*layers.TCP, gopacket.Flow, skipReason) {
	if d.parsers == nil {
		d.parsers = map[gopacket.LayerType]*gopacket.DecodingLayerParser{}
	}
	p := d.last
	if first != d.lastFirst || p == nil {
		p = d.parsers[first]
	}
	if p == nil {
		p = gopacket.NewDecodingLayerParser(first)
		// An array indexed by layer type, in place of the default map:
		// a lookup for every layer of every packet.
		p.SetDecodingLayerContainer(gopacket.DecodingLayerSparse(nil))
		for _, l := range []gopacket.DecodingLayer{&d.eth, &d.dot1q, &d.sll, &d.sll2, &d.loop, &d.ip4, &d.ip6, &d.tcp} {
			p.AddDecodingLayer(l)
		}
		p.IgnoreUnsupported = true
		d.parsers[first] = p
	}
	d.last, d.lastFirst = p, first // a capture's packets mostly share their first layer
	perr := p.DecodeLayers(data, &d.decoded)
	var flow gopacket.Flow
	hasTCP := false
	lastType := gopacket.LayerTypeZero
	for _, t := range d.decoded {
		lastType = t
		switch t {
		case layers.LayerTypeIPv4:
			if d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0 {
				d.frag.stats.Fragments++
				ip := d.frag.ipv4(&d.ip4, now)
				if ip == nil {
					return nil, flow, skipFragment
				}
				if ip.Protocol != layers.IPProtocolTCP {
					return nil, flow, skipNotTCP
				}
				if !tcpOf(ip.Protocol, ip.Payload, &d.tcp) {
					return nil, flow, skipTruncated
				}
				return &d.tcp, ip.NetworkFlow(), skipNone
			}
			flow = d.ip4.NetworkFlow()
		case layers.LayerTypeIPv6:
			flow = d.ip6.NetworkFlow()
		case layers.LayerTypeTCP:
			hasTCP = true
		}
	}
	if hasTCP && flow != (gopacket.Flow{}) {
		return &d.tcp, flow, skipNone
	}
	if perr != nil {
		return nil, flow, skipTruncated
	}
	switch lastType {
	case layers.LayerTypeIPv4:
		if d.ip4.Protocol == layers.IPProtocolTCP {
			return nil, flow, skipTruncated
		}
		return nil, flow, skipNotTCP
	case layers.LayerTypeIPv6:
		next := d.ip6.NextHeader
		if d.ip6.HopByHop != nil {
			next = d.ip6.HopByHop.NextHeader
		}
		return d.ipv6Chain(next, d.ip6.Payload, flow, now)
	case layers.LayerTypeEthernet, layers.LayerTypeDot1Q, layers.LayerTypeLinuxSLL, layers.LayerTypeLinuxSLL2:
		var et layers.EthernetType
		var payload []byte
		switch lastType {
		case layers.LayerTypeEthernet:
			et, payload = d.eth.EthernetType, d.eth.Payload
		case layers.LayerTypeDot1Q:
			et, payload = d.dot1q.Type, d.dot1q.Payload
		case layers.LayerTypeLinuxSLL:
			et, payload = d.sll.EthernetType, d.sll.Payload
		default:
			et, payload = d.sll2.ProtocolType, d.sll2.Payload
		}
		if (et == 0x9100 || et == 0x9200) && depth < maxDepth {
			return d.parse(layers.LayerTypeDot1Q, payload, now, depth+1)
		}
	}
	return nil, flow, skipNotIP
}

// ipv6Chain follows IPv6 extension headers from next, the header of b, to
// the TCP segment.
func (d *packetDecoder) ipv6Chain(next layers.IPProtocol, b []byte, flow gopacket.Flow, now time.Time) (*layers.TCP, gopacket.Flow, skipReason) {
	for range maxDepth {
		n := 0
		switch next {
		case layers.IPProtocolTCP:
			if !tcpOf(next, b, &d.tcp) {
				return nil, flow, skipTruncated
			}
			return &d.tcp, flow, skipNone
		case layers.IPProtocolIPv6HopByHop, layers.IPProtocolIPv6Routing, layers.IPProtocolIPv6Destination, 135, 139, 140:
			if len(b) >= 2 {
				n = (int(b[1]) + 1) * 8
			}
		case layers.IPProtocolAH:
			if len(b) >= 2 {
				n = (int(b[1]) + 2) * 4
			}
		case layers.IPProtocolIPv6Fragment:
			if d.ip6frag.DecodeFromBytes(b, gopacket.NilDecodeFeedback) != nil {
				return nil, flow, skipTruncated
			}
			if d.ip6frag.FragmentOffset == 0 && !d.ip6frag.MoreFragments {
				next, b = d.ip6frag.NextHeader, d.ip6frag.Payload // an atomic fragment
				continue
			}
			d.frag.stats.Fragments++
			ip := d.frag.ipv6(&d.ip6, &d.ip6frag, now)
			if ip == nil {
				return nil, flow, skipFragment
			}
			next, b, flow = ip.NextHeader, ip.Payload, ip.NetworkFlow()
			continue
		default:
			return nil, flow, skipNotTCP
		}
		if n == 0 || n > len(b) {
			return nil, flow, skipTruncated
		}
		next, b = layers.IPProtocol(b[0]), b[n:]
	}
	return nil, flow, skipTruncated
}

// flowEnds returns the two ends of a segment.
func flowEnds(flow gopacket.Flow, tcp *layers.TCP) (src, dst netip.AddrPort) {
	s, _ := netip.AddrFromSlice(flow.Src().Raw())
	d, _ := netip.AddrFromSlice(flow.Dst().Raw())
	return netip.AddrPortFrom(s.Unmap(), uint16(tcp.SrcPort)), netip.AddrPortFrom(d.Unmap(), uint16(tcp.DstPort))
}

// endpoint formats an address and port as 10.0.0.1:7000 or [::1]:7000.
func endpoint(addr gopacket.Endpoint, port uint16) string {
	a, ok := netip.AddrFromSlice(addr.Raw())
	if !ok {
		return addr.String() + ":" + strconv.Itoa(int(port))
	}
	return netip.AddrPortFrom(a.Unmap(), port).String()
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
