package sign

import (
	"bytes"
	"context"
	"errors"
	"hash"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/toonkit/toonkit/pkg/codec/jsonv"
	"github.com/toonkit/toonkit/pkg/pipeline"
)

// VerifyOptions configure Log.Verify.
type VerifyOptions struct {
	// Workers parse the events and check their signatures; <= 1 does it
	// all on the caller's goroutine, one event at a time.
	Workers int
	// MaxEventSize bounds one event (0: DefaultMaxEventSize).
	MaxEventSize int
	// BatchBytes is the input bytes after which a batch is cut; 0: 256 KiB.
	BatchBytes int
}

// Records is the number of records of the log so far, events and unread
// (Events + Unread): the Index of the next.
func (l *Log) Records() int { return l.Events + l.Unread }

// Verify checks the events that a Reader reads from in, one input of the
// log (file names it in the problems): each record is parsed, checked with
// Check, or recorded with Bad (and a *FieldError's position) when it is not
// a trace event. It returns nil at the end of in; a *jsonv.SyntaxError or a
// *jsonv.TooLargeError when in cannot be read further as events (every
// record before it checked: the caller may record it with Bad at Records());
// or in's read error.
//
// With opts.Workers > 1 the work is spread (pkg/pipeline): one goroutine
// cuts in into batches of lines, at line breaks that a '{' or '[' follows;
// the workers parse each batch's events from its start, as NDJSON, and check
// their signatures; the caller's goroutine applies the log's rules (Check's
// seq and copies rules, Bad) to their results in input order. The problems,
// the counts and the error returned are exactly those of one worker. Where
// a batch does not hold whole events from its start (a JSON array, an event
// cut by the batch's end, an event larger than a batch or malformed JSON),
// the rest of in is read one event at a time, as with one worker, from the
// end of the last event checked. Memory is bounded by the batches in flight.
func (l *Log) Verify(ctx context.Context, in io.Reader, file string, opts VerifyOptions) error {
	max := opts.MaxEventSize
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	if opts.Workers <= 1 {
		return l.verifyEvents(ctx, NewReader(in, max), file)
	}
	workers := make(chan *Signer, opts.Workers)
	l.Signer.mac.Reset() // the key's state is made once, and shared by the copies
	for range opts.Workers {
		s, err := l.Signer.workerCopy()
		if err != nil {
			return l.verifyEvents(ctx, NewReader(in, max), file)
		}
		workers <- s
	}
	size := opts.BatchBytes
	if size <= 0 {
		size = 256 << 10
	}
	c := &cutter{in: in, size: size, free: make(chan *vbatch, 2*opts.Workers+4)}
	line := 1       // the line that the next batch starts
	prev := stStart // the reader's state after the batches written
	var resume *vbatch
	work := func(b *vbatch) (*vbatch, error) {
		s := <-workers
		b.check(s, max, l.Explain)
		workers <- s
		return b, nil
	}
	write := func(b *vbatch) error {
		c.mu.Lock()
		c.pending = c.pending[1:]
		c.mu.Unlock()
		if !b.first && (!b.array && prev != stValues || b.array && prev != stElement && prev != stFirst) {
			// The batch does not start where its worker took it to (an
			// array element cut after its last line, no comma after it).
			b.items, b.stop, b.moved, b.stopPos = b.items[:0], 0, false, jsonv.Position{Line: 1, Column: 1}
		}
		for i := range b.items {
			it := &b.items[i]
			w := Where{File: file, Line: line + it.pos.Line - 1, Column: it.pos.Column, Offset: b.off + it.pos.Offset, Index: l.Records()}
			if it.bad {
				l.Bad(w, it.pointer, it.msg)
			} else {
				l.apply(&it.v, w)
			}
		}
		if b.stop >= 0 {
			resume = b
			return errResume
		}
		line, prev = line+b.lines, b.end
		if b.err != nil {
			return b.err
		}
		b.items = b.items[:0] // nothing of the input is kept
		select {
		case c.free <- b:
		default:
		}
		return ctx.Err()
	}
	err := pipeline.Run(ctx, pipeline.Options{Workers: opts.Workers}, c.read, work, write)
	if err != errResume {
		return err
	}
	// The rest is read one event at a time, from where the workers
	// stopped: the bytes of the batches read, then the rest of in.
	b := resume
	parts := []io.Reader{bytes.NewReader(b.raw[b.stop:])}
	for _, p := range c.pending { // after b, in order
		parts = append(parts, bytes.NewReader(p.raw))
	}
	parts = append(parts, bytes.NewReader(c.carry))
	switch {
	case !c.done:
		parts = append(parts, c.in)
	case c.rest != nil:
		parts = append(parts, c.rest)
	}
	rest := io.MultiReader(parts...)
	if b.first && !b.moved {
		// Nothing read yet: the reader starts the input.
		return l.verifyEvents(ctx, NewReader(rest, max), file)
	}
	rd := NewReader(rest, max)
	at := b.stopPos
	at.Line += line - 1
	at.Offset += b.off
	rd.at, rd.b.Base, rd.state, rd.index = at, at.Offset, b.stopState, l.Records()
	if !b.moved {
		rd.state = prev
	}
	return l.verifyEvents(ctx, rd, file)
}

// errResume stops the workers where the rest is read one event at a time.
var errResume = errors.New("read one event at a time")

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// verifyEvents checks the events of rd, one at a time.
func (l *Log) verifyEvents(ctx context.Context, rd *Reader, file string) error {
	for {
		rec, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		w := Where{File: file, Line: rec.Pos.Line, Column: rec.Pos.Column, Offset: rec.Pos.Offset, Index: l.Records()}
		ev, err := l.Signer.Event(rec)
		if err != nil {
			l.bad(w, rec.Raw, rec.Pos, err)
			continue
		}
		l.Check(ev, w)
		if rec.Index&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

// bad records an event that Signer.Event refused: at the field a
// *FieldError names, raw starting at pos.
func (l *Log) bad(w Where, raw []byte, pos jsonv.Position, err error) {
	var fe *FieldError
	if errors.As(err, &fe) {
		p := advance(pos, raw[:min(max(fe.Offset, 0), len(raw))])
		w.Line, w.Column, w.Offset = p.Line, p.Column, p.Offset
		l.Bad(w, fe.Pointer, fe.Msg)
		return
	}
	l.Bad(w, "", err.Error())
}

// workerCopy is a Signer of the same key and scheme with a state of its
// own, for another goroutine.
func (s *Signer) workerCopy() (*Signer, error) {
	c, ok := s.mac.(hash.Cloner)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	mac, err := c.Clone()
	if err != nil {
		return nil, err
	}
	return &Signer{scheme: s.scheme, mac: mac}, nil
}

// vbatch is a batch of whole lines of the input and, once a worker has
// been over it, its events judged.
type vbatch struct {
	raw    []byte
	off    int64 // the input offset of raw[0]
	first  bool  // raw starts the input
	eof    bool  // raw ends it
	err    error // the read error after raw
	serial bool  // no place to cut was found: the rest is read one event at a time
	array  bool  // the input is a JSON array: raw starts at an element (or is the first batch)

	items     []vitem
	lines     int            // line breaks in raw
	end       int            // the reader's state after raw (stValues, or where in the array)
	stop      int            // -1, or where in raw reading goes on one event at a time
	stopPos   jsonv.Position // the position at stop, its line counted from raw's
	stopState int            // the reader's state at stop
	moved     bool           // the worker went past more than white space
}

// vitem is one record of a batch: an event judged, or one that is not a
// trace event. pos counts lines from the batch's first.
type vitem struct {
	pos          jsonv.Position
	bad          bool
	pointer, msg string
	v            verdict
}

// check parses and judges the events of b with s, from its start (the
// input's, or else between two events of NDJSON, or where an element of a
// JSON array is due), as a Reader reads them, until one is not whole in b,
// is malformed or the array is not as a Reader wants it (stop): what
// follows is read by a Reader, from the state the batch stopped in.
func (b *vbatch) check(s *Signer, limit int, explain bool) {
	b.items, b.stop, b.lines, b.moved = b.items[:0], -1, 0, false
	if b.serial {
		b.stop, b.stopPos = 0, jsonv.Position{Line: 1, Column: 1}
		return
	}
	src := b.raw
	p := &s.p
	line, lineStart := 1, 0 // the line of i, and where it starts
	i := 0                  // the end of the last record
	if b.first && bytes.HasPrefix(src, []byte("\xEF\xBB\xBF")) {
		// A byte order mark: offsets count it, columns do not.
		i, lineStart = 3, 3
	}
	// stop ends the batch's events at j, where the next one starts
	// (after white space): the reader goes on from there.
	state := stValues
	switch {
	case b.first:
		state = stStart
	case b.array:
		state = stElement
	}
	stop := func(j int) {
		if !b.moved {
			// The reader starts where the batch does, in the state the
			// batch before left it in.
			b.stop, b.stopPos = 0, jsonv.Position{Line: 1, Column: 1}
			return
		}
		b.stop, b.stopState = j, state
		b.stopPos = jsonv.Position{Line: line, Column: utf8.RuneCount(src[lineStart:j]) + 1, Offset: int64(j)}
	}
	for {
		j := jsonv.SkipSpace(src, i)
		if n := bytes.Count(src[i:j], newline); n > 0 {
			line += n
			lineStart = i + bytes.LastIndexByte(src[i:j], '\n') + 1
		}
		if j == len(src) {
			if b.eof && state != stValues && state != stDone && state != stStart {
				stop(j) // the array is not closed: the reader says so
				return
			}
			break
		}
		switch c := src[j]; {
		case state == stStart && c == '[':
			state, i, b.moved = stFirst, j+1, true
			continue
		case state == stFirst && c == ']', state == stAfter && c == ']':
			state, i = stDone, j+1
			continue
		case state == stAfter && c == ',':
			state, i = stElement, j+1
			continue
		case state == stAfter, state == stDone, state == stElement && c == ']':
			stop(j) // malformed, or the batch started where it could not
			return
		}
		if state == stStart {
			state = stValues
		}
		p.src, p.pos, p.tape, p.final = src[j:], 0, p.tape[:0], b.eof
		if err := p.value(); err != nil || p.pos > limit {
			stop(j)
			return
		}
		b.moved = true
		if state != stValues {
			state = stAfter
		}
		raw := src[j : j+p.pos]
		pos := jsonv.Position{Line: line, Column: utf8.RuneCount(src[lineStart:j]) + 1, Offset: int64(j)}
		b.items = append(b.items, vitem{pos: pos})
		it := &b.items[len(b.items)-1]
		if ev, err := s.event(raw, p.tape); err != nil {
			it.bad = true
			var fe *FieldError
			if errors.As(err, &fe) {
				it.pos = advance(pos, raw[:min(max(fe.Offset, 0), len(raw))])
				it.pointer, it.msg = fe.Pointer, fe.Msg
			} else {
				it.msg = err.Error()
			}
		} else {
			it.v = judge(s, ev, explain)
		}
		i = j + p.pos
		if n := bytes.Count(raw, newline); n > 0 { // a record over several lines
			line += n
			lineStart = j + bytes.LastIndexByte(raw, '\n') + 1
		}
	}
	b.lines, b.end = line-1, state
}

var newline = []byte{'\n'}

// cutter cuts the input into batches of lines.
type cutter struct {
	in      io.Reader
	size    int
	carry   []byte // read, not yet in a batch
	off     int64  // the input offset of carry[0]
	started bool   // a batch holding more than white space was cut
	array   bool   // the input is a JSON array
	indent  []byte // the white space before each element's first line, in an array
	done    bool
	rest    io.Reader // once done: what follows the batches (nil: nothing)
	free    chan *vbatch

	mu      sync.Mutex
	pending []*vbatch // read and not yet written, in order
}

// read is the next batch: whole lines, cut where the next line starts
// with '{' or '[' (an event's first line, in NDJSON and in indented JSON
// alike), after batchBytes, or when a read returns less than asked for
// (a pipe with nothing more yet). It holds at least one line that is not
// white space, unless it ends the input. A batch that finds no place to
// cut in four times its size ends the batches: the rest of the input is
// read one event at a time.
func (c *cutter) read() (*vbatch, error) {
	if c.done {
		return nil, io.EOF
	}
	var b *vbatch
	select {
	case b = <-c.free:
	default:
		b = &vbatch{}
	}
	b.raw = append(b.raw[:0], c.carry...)
	c.carry = c.carry[:0]
	b.off, b.first, b.eof, b.err, b.serial = c.off, !c.started, false, nil, false
	b.array = c.array
	short := false
	for {
		if len(b.raw) > 0 && (short || len(b.raw) >= c.size) {
			if cut := c.cut(b.raw, short); cut > 0 {
				c.carry = append(c.carry, b.raw[cut:]...)
				b.raw = b.raw[:cut]
				break
			}
			if len(b.raw) >= 4*c.size {
				b.serial, c.done, c.rest = true, true, c.in
				break
			}
		}
		if cap(b.raw)-len(b.raw) < 4<<10 {
			b.raw = append(b.raw, make([]byte, max(c.size, len(b.raw)))...)[:len(b.raw)]
		}
		want := min(cap(b.raw)-len(b.raw), c.size)
		n, err := c.in.Read(b.raw[len(b.raw) : len(b.raw)+want])
		b.raw = b.raw[:len(b.raw)+n]
		short = n < want
		if err == io.EOF {
			b.eof, c.done = true, true
			break
		}
		if err != nil {
			b.err, c.done, c.rest = err, true, errReader{err}
			break
		}
	}
	c.started = true
	c.off += int64(len(b.raw))
	if len(b.raw) == 0 && b.eof && (b.first || !c.array) {
		return nil, io.EOF // else a worker says whether the array was closed
	}
	c.mu.Lock()
	c.pending = append(c.pending, b)
	c.mu.Unlock()
	return b, nil
}

// cut is where to end a batch of the bytes b: after the last line break
// that an event's first line follows ('{' or '[' in NDJSON; in a JSON
// array, '{' after the white space that the first element has before it),
// or at b's end when atEnd and the last line is an event's first or last
// ('}'); 0 for nowhere. The first batch holds the input's first byte that
// is not white space, and says whether the input is an array.
func (c *cutter) cut(b []byte, atEnd bool) int {
	lo := 0
	if !c.started {
		if bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
			lo = 3
		}
		if lo = jsonv.SkipSpace(b, lo); lo == len(b) {
			return 0
		}
		c.array, c.indent = b[lo] == '[', c.indent[:0]
		if c.array {
			k := jsonv.SkipSpace(b, lo+1)
			if k == len(b) {
				return 0
			}
			nl := bytes.LastIndexByte(b[lo+1:k], '\n')
			if nl < 0 || b[k] != '{' {
				return 0 // the elements are not on lines of their own
			}
			c.indent = append(c.indent, b[lo+1+nl+1:k]...)
		}
	}
	// first tells whether the line at k (< len(b)) is an event's first, or
	// with last its last.
	first := func(k int, last bool) bool {
		q := k + len(c.indent)
		if q >= len(b) || !bytes.Equal(b[k:q], c.indent) {
			return false
		}
		return b[q] == '{' || !c.array && b[q] == '[' || last && b[q] == '}'
	}
	if atEnd && b[len(b)-1] == '\n' {
		if k := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1; k >= lo && first(k, true) {
			return len(b)
		}
	}
	for end := len(b) - 1; end > lo; {
		i := bytes.LastIndexByte(b[lo:end], '\n')
		if i < 0 {
			break
		}
		i += lo
		if first(i+1, false) {
			return i + 1
		}
		end = i
	}
	return 0
}
