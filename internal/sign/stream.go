package sign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pipeline"
)

// StreamOptions configure SignStream.
type StreamOptions struct {
	// Workers parse and sign the events; <= 1 does it all on the
	// caller's goroutine.
	Workers int
	// MaxEventSize bounds one event (0: DefaultMaxEventSize).
	MaxEventSize int
	// Live says that the input may wait for more (a pipe, a terminal):
	// what has arrived is passed on at once, and Idle called, rather than
	// held back until a batch is full. A regular file needs none of it.
	Live bool
	// LeaveRead: a run that stops early returns at once, even while the
	// reader waits for more of the input (pipeline.Options.LeaveRead); the
	// input must then be left alone.
	LeaveRead bool
	// BatchBytes is about how many bytes of the input make a batch; 0:
	// 256 KiB.
	BatchBytes int
}

// StreamHandler receives what SignStream makes, in input order, on the
// caller's goroutine. An error it returns stops the run and is returned.
type StreamHandler struct {
	// Output receives the output's bytes, in order: the signed events and
	// every byte of the input around them. b is valid during the call and
	// never empty. Nothing is passed on after the first bad event.
	Output func(b []byte) error
	// Bad receives an event that cannot be signed, with its index and the
	// position of what is wrong (*EventError).
	Bad func(e *EventError) error
	// Signed, when not nil, receives each event signed, in order, until
	// the first bad one: its run_id, seq (the decimal form Python prints)
	// and t, and its HMAC-SHA256 (the signature's 32 bytes): what a seal
	// needs (internal/seal's Builder.Add). The slices are valid during the call.
	// An error it returns stops the stream, as a *SignedError that names
	// the event.
	Signed func(runID, seq, t []byte, mac *[sha256.Size]byte) error
	// Idle, when not nil, is called where a live input (StreamOptions.Live)
	// has nothing more buffered: a place to flush the output.
	Idle func() error
}

// SignStream reads the trace events of in (NDJSON, any JSON values one after
// another, or one JSON array of events; see Reader), signs each with s, and
// passes the input on to h.Output with each event's signature in
// meta.signature and in a top-level signature (AppendSigned): every other
// byte is kept, and the output ends with a line break, CR LF when the lines
// before end so, added when the input's last line has none.
//
// An event that cannot be signed goes to h.Bad; from the first one on,
// nothing more is passed to h.Output, but every event is still read and
// checked. SignStream returns how many events were bad, and the first
// error that stopped it: malformed input (*jsonv.SyntaxError), an event
// over the size limit (*jsonv.TooLargeError), a read error, or h's. What
// was passed on before it is the output of every event before the error.
//
// With opts.Workers > 1 the events are parsed and signed on that many
// goroutines (internal/pipeline), each with its own clone of s, and the output,
// the bad events and the errors are those of one worker, in the same order.
// Memory is bounded by a fixed number of batches in flight.
func SignStream(ctx context.Context, in io.Reader, s *Signer, opts StreamOptions, h StreamHandler) (bad int, err error) {
	workers := max(opts.Workers, 1)
	limit := opts.MaxEventSize
	if limit <= 0 {
		limit = DefaultMaxEventSize
	}
	size := opts.BatchBytes
	if size <= 0 {
		size = 256 << 10
	}
	var signers []*Signer // the workers'
	for len(signers) < workers && workers > 1 {
		sc, err := s.Clone()
		if err != nil {
			workers = 1 // a hash that cannot be cloned (a FIPS module's)
			break
		}
		signers = append(signers, sc)
	}
	if workers == 1 {
		signers = []*Signer{s} // read, scanned and written in turn: s is shared
	}
	// With one worker the batch may stay in the read buffer.
	c := newCutter(in, size, opts.Live, workers == 1)
	read := func(b *batch) error {
		if !c.cut(b) {
			return io.EOF
		}
		return nil
	}
	scanners := make(chan *scanner, workers)
	for _, sg := range signers {
		scanners <- &scanner{s: sg, max: limit, seal: h.Signed != nil}
	}
	work := func(b *batch) error {
		sc := <-scanners
		defer func() { scanners <- sc }()
		b.span = spanOf(b.raw[b.from:])
		sc.speculate(&b.res, b.raw, b.from, b.st0, b.final)
		return nil
	}
	w := &streamWriter{h: h, sc: &scanner{s: s, max: limit, seal: h.Signed != nil}, st: stStart}
	defer tuneGC(workers)()
	err = pipeline.Stream(ctx, pipeline.Options{Workers: workers, LeaveRead: opts.LeaveRead},
		pipeline.Stages[batch]{Read: read, Work: work, Write: w.batch})
	return w.bad, err
}

// streamWriter goes over the batches in input order: it takes up each
// worker's results where they hold, scans on where they do not, and
// passes the output, the bad events and the errors on.
type streamWriter struct {
	h   StreamHandler
	sc  *scanner
	own scanResult

	st       int    // the state at the start of the next batch, when no event is cut
	carry    []byte // the bytes of an event cut by the end of a batch, and those after
	carried  bool
	carrySt  int
	carryPos jsonv.Position
	tried    int // len(carry) when it was last scanned
	spare    []byte

	pos     jsonv.Position // of the next batch's first byte (after a byte order mark)
	index   int
	bad     int
	pending []byte // the bytes after the last event written, not written yet
	ctx     []byte // the end of the line before the buffer, for an error's excerpt
	wrote   bool
	last    byte
	crlf    bool

	// The buffer being scanned, the position of its byte bOff, and the
	// last position asked for; cursor: the bytes before it are written or
	// pending.
	buf    []byte
	bOff   int
	bPos   jsonv.Position
	cOff   int
	cPos   jsonv.Position
	cursor int
}

func (w *streamWriter) batch(b *batch) error {
	start := w.pos
	if b.first {
		start = jsonv.Position{Offset: int64(b.from), Line: 1, Column: 1}
	}
	w.pos = b.span.after(start, len(b.raw)-b.from)
	wr := &b.res
	if !w.carried && wr.segs[0].st0 == w.st && wr.segs[0].start == b.from {
		// The worker began where the last batch ended.
		w.use(b.raw, b.from, start)
		if err := w.emit(0, wr, 0, wr.segs[0].to); err != nil {
			return err
		}
		return w.end(b, 0, wr.segs[0])
	}
	buf, base, gap, i, st := b.raw, 0, 0, 0, w.st
	if w.carried {
		w.carry = append(w.carry, b.raw...)
		if !b.final && b.readErr == nil && !b.idle && len(w.carry) < 2*w.tried && len(w.carry) <= w.sc.max {
			// The event is scanned again when it has doubled, or when a
			// live input waits.
			return w.after(b)
		}
		buf, base, st = w.carry, len(w.carry)-len(b.raw), w.carrySt
		w.use(buf, 0, w.carryPos)
	} else {
		w.use(buf, b.from, start)
		gap, i = b.from, b.from
		if b.first {
			gap = 0
		}
	}
	p := 0
	meet := func(z int, arr bool) bool {
		z -= base
		if z < 0 {
			return false
		}
		for p < len(wr.items) && wr.items[p].start < z {
			p++
		}
		return p < len(wr.items) && wr.items[p].start == z && wr.segs[wr.items[p].seg].arr == arr
	}
	w.own.reset()
	sg := w.sc.run(&w.own, buf, gap, i, st, b.final, meet)
	if err := w.emit(0, &w.own, 0, len(w.own.items)); err != nil {
		return err
	}
	if sg.kind != endResync {
		return w.end(b, 0, sg)
	}
	ws := wr.segs[wr.items[p].seg]
	if err := w.emit(base, wr, p, ws.to); err != nil {
		return err
	}
	return w.end(b, base, ws)
}

// use makes buf the buffer scanned; its byte off is at pos.
func (w *streamWriter) use(buf []byte, off int, pos jsonv.Position) {
	w.buf, w.bOff, w.bPos, w.cOff, w.cPos, w.cursor = buf, off, pos, off, pos, 0
}

// posAt is the position of the byte k of the buffer.
func (w *streamWriter) posAt(k int) jsonv.Position {
	if k < w.cOff {
		w.cOff, w.cPos = w.bOff, w.bPos
	}
	w.cPos = moved(w.cPos, w.buf[w.cOff:k])
	w.cOff = k
	return w.cPos
}

// put passes b on to the output.
func (w *streamWriter) put(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if i := bytes.LastIndexByte(b, '\n'); i > 0 {
		w.crlf = b[i-1] == '\r'
	} else if i == 0 {
		w.crlf = w.wrote && w.last == '\r'
	}
	w.wrote, w.last = true, b[len(b)-1]
	return w.h.Output(b)
}

// emit passes on the events r.items[from:to], whose offsets are base
// bytes short of the buffer's.
func (w *streamWriter) emit(base int, r *scanResult, from, to int) error {
	run, end := -1, 0 // the signed events in r.out not yet written
	flush := func() error {
		if run < 0 {
			return nil
		}
		err := w.put(r.out[run:end])
		run = -1
		return err
	}
	for k := from; k < to; k++ {
		it := &r.items[k]
		index := w.index
		w.index++
		if it.bad != nil {
			if err := flush(); err != nil {
				return err
			}
			w.bad++
			off := min(max(it.bad.Offset, 0), it.end-it.start)
			if err := w.h.Bad(&EventError{Index: index, Pos: w.posAt(base + it.start + off), Field: it.bad}); err != nil {
				return err
			}
			continue
		}
		if w.bad > 0 {
			continue // nothing more is written; the rest is still checked
		}
		if run < 0 {
			if err := w.put(w.pending); err != nil {
				return err
			}
			w.pending = w.pending[:0]
			if err := w.put(w.buf[w.cursor : base+it.start]); err != nil {
				return err
			}
			run = it.sigOut
		}
		end = it.outEnd
		w.cursor = base + it.end
		if w.h.Signed != nil {
			info := r.info[it.info:]
			if err := w.h.Signed(info[:it.runLen], info[it.runLen:it.runLen+it.seqLen], info[it.runLen+it.seqLen:it.runLen+it.seqLen+it.tLen], &it.digest); err != nil {
				return &SignedError{Index: index, Pos: w.posAt(base + it.start), Err: err}
			}
		}
	}
	return flush()
}

// end deals with the way the scan s of the batch b ended.
func (w *streamWriter) end(b *batch, base int, s seg) error {
	at := base + s.at
	switch s.kind {
	case endError:
		if s.msg == "" {
			return &jsonv.TooLargeError{Pos: w.posAt(at), Limit: int64(w.sc.max)}
		}
		pos := w.posAt(at)
		if bytes.LastIndexByte(w.buf[:at], '\n') < 0 && len(w.ctx) > 0 {
			// The line began before the buffer.
			return syntaxErrorIn(append(w.ctx[:len(w.ctx):len(w.ctx)], w.buf...), len(w.ctx)+at, pos, s.msg)
		}
		return syntaxErrorIn(w.buf, at, pos, s.msg)
	case endShort:
		if w.bad == 0 {
			w.pending = append(w.pending, w.buf[w.cursor:at]...)
		}
		if !w.carried || at > 0 {
			w.carryPos = w.posAt(at)
			w.spare = append(w.spare[:0], w.buf[at:]...)
			w.carry, w.spare = w.spare, w.carry
		} // else the carried event is still cut: it stays where it is
		w.carried, w.tried, w.carrySt = true, len(w.carry), s.st
		w.ctx = lineEnd(w.ctx, w.buf[:at])
	default:
		if w.bad == 0 {
			w.pending = append(w.pending, w.buf[w.cursor:]...)
		}
		w.carried, w.carry, w.st = false, w.carry[:0], s.st
		w.ctx = lineEnd(w.ctx, w.buf)
	}
	return w.after(b)
}

// after is what follows a batch: a read error, a flush where a live input
// is idle, the end of the input.
func (w *streamWriter) after(b *batch) error {
	if b.readErr != nil {
		return b.readErr
	}
	if b.final && w.bad == 0 {
		// What follows the last event; and the output ends with a line
		// break, CR LF when the lines before end so.
		if err := w.put(w.pending); err != nil {
			return err
		}
		if w.wrote && w.last != '\n' {
			nl := "\n"
			if w.crlf {
				nl = "\r\n"
			}
			return w.put([]byte(nl))
		}
	}
	if b.idle && w.h.Idle != nil {
		return w.h.Idle()
	}
	return nil
}

// lineEnd is the end of the line that the bytes b, after ctx, end with:
// enough of it for an error's excerpt.
func lineEnd(ctx, b []byte) []byte {
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		ctx, b = ctx[:0], b[nl+1:]
	}
	if len(b) >= excerptRoom {
		return append(ctx[:0], b[len(b)-excerptRoom:]...)
	}
	if over := len(ctx) + len(b) - excerptRoom; over > 0 {
		ctx = append(ctx[:0], ctx[over:]...)
	}
	return append(ctx, b...)
}
