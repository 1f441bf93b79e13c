package sign

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/readahead"
)

// VerifyOptions configure Log.Verify.
type VerifyOptions struct {
	// Workers parse the events and check their signatures; <= 1 does it
	// all on the caller's goroutine, one event at a time.
	Workers int
	// MaxEventSize bounds one event (0: DefaultMaxEventSize).
	MaxEventSize int
	// BatchBytes is about how many bytes of the input make a batch; 0:
	// 256 KiB.
	BatchBytes int
	// Live says that the input may wait for more (a pipe, a terminal): what
	// has arrived is passed to the workers at once rather than held back
	// until a batch is full.
	Live bool
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
// With opts.Workers > 1 the work is spread (internal/pipeline): sign -j's
// cutter cuts in into batches of lines, before a line that starts an event
// where there is one (NDJSON, compact or indented; a JSON array whose
// elements start lines); the workers parse each batch's events from its
// start, in the state the cutter guessed, and check their signatures; the
// caller's goroutine applies the log's rules (Check's seq and copies rules,
// Bad) to their results in input order, and checks that each batch starts
// in the state the one before ended in. The problems, the counts and the
// error returned are exactly those of one worker. Where a batch does not
// hold whole events from where it was taken to start (an event longer than
// a batch, a guess that does not hold, malformed JSON), the rest of in is
// read one event at a time, as with one worker, from the last event checked
// (readahead.Journal). Memory is bounded by the batches in flight.
func (l *Log) Verify(ctx context.Context, in io.Reader, file string, opts VerifyOptions) error {
	max := opts.MaxEventSize
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	if opts.Workers <= 1 {
		return l.verifyEvents(ctx, NewReader(in, max), file)
	}
	workers := make(chan *Signer, opts.Workers)
	l.Signer.reset() // the keys' state is made once, and shared by the copies
	for range opts.Workers {
		s, err := l.Signer.Clone()
		if err != nil {
			return l.verifyEvents(ctx, NewReader(in, max), file)
		}
		workers <- s
	}
	size := opts.BatchBytes
	if size <= 0 {
		size = 256 << 10
	}
	c := newCutter(in, size, opts.Live, false)
	c.starts = true
	var journal readahead.Journal // the batches read and not yet written
	var off int64                 // the input offset of the next batch
	read := func(b *vbatch) error {
		if !c.cut(&b.batch) {
			return io.EOF
		}
		b.off = off
		off += int64(len(b.raw))
		journal.Add(b.raw)
		return nil
	}
	line, col := 1, 1 // the line and column that the next batch starts at
	// place is the position in the input of a position in b.
	place := func(p jsonv.Position, b *vbatch) jsonv.Position {
		if p.Line == 1 {
			p.Column += col - 1 // a batch may start within a line
		}
		p.Line += line - 1
		p.Offset += b.off
		return p
	}
	prev := stStart // the reader's state after the batches written
	var resume *vbatch
	work := func(b *vbatch) error {
		s := <-workers
		b.check(s, max, l.Explain, l.Signed != nil)
		workers <- s
		return nil
	}
	write := func(b *vbatch) error {
		if !b.first && prev != b.st0 && !(prev == stFirst && b.st0 == stElement) {
			// The batch does not start where its worker took it to (an
			// event cut by the batch before, an array guessed wrong).
			b.items, b.stop, b.moved, b.stopPos = b.items[:0], 0, false, jsonv.Position{Line: 1, Column: 1}
		}
		for i := range b.items {
			it := &b.items[i]
			p := place(it.pos, b)
			w := Where{File: file, Line: p.Line, Column: p.Column, Offset: p.Offset, Index: l.Records()}
			if it.bad {
				l.Bad(w, it.pointer, it.msg)
			} else {
				l.apply(&it.v, w)
			}
		}
		if b.stop >= 0 {
			resume = b
			return pipeline.ErrTakeOver // this batch on, one event at a time
		}
		journal.Written()
		if b.moved { // else white space only: the state is as it was
			prev = b.end
		}
		line += b.lines
		if b.lines > 0 {
			col = b.tail + 1
		} else {
			col += b.tail
		}
		if b.readErr != nil {
			return b.readErr
		}
		b.items = b.items[:0] // nothing of the input is kept
		return ctx.Err()
	}
	restore := tuneGC(opts.Workers)
	err := pipeline.Stream(ctx, pipeline.Options{Workers: opts.Workers}, pipeline.Stages[vbatch]{Read: read, Work: work, Write: write})
	restore()
	if err != pipeline.ErrTakeOver {
		return err
	}
	// The rest is read one event at a time, from where the workers
	// stopped: the bytes of the batches read, then the rest of in.
	b := resume
	rest := journal.Rest(opts.Live, func() ([]byte, io.Reader) {
		return c.b.Buf[c.b.Pos:c.b.End], readahead.Then(c.b.R, c.b.EOF, c.b.ReadErr)
	})
	rest.Bufs[0] = rest.Bufs[0][b.stop:]
	if b.first && !b.moved {
		// Nothing read yet: the reader starts the input.
		return l.verifyEvents(ctx, NewReader(rest, max), file)
	}
	rd := NewReader(rest, max)
	at := place(b.stopPos, b)
	rd.at, rd.b.Base, rd.state, rd.index = at, at.Offset, b.stopState, l.Records()
	if !b.moved {
		rd.state = prev
	}
	return l.verifyEvents(ctx, rd, file)
}

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

// vbatch is a batch of the cutter's and, once a worker has been over it,
// its events judged.
type vbatch struct {
	batch
	off int64 // the input offset of raw[0]

	items     []vitem
	lines     int            // line breaks in raw
	tail      int            // the characters that start in raw after its last line break
	end       int            // the reader's state after raw
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
func (b *vbatch) check(s *Signer, limit int, explain, seal bool) {
	b.items, b.stop, b.lines, b.moved = b.items[:0], -1, 0, false
	src := b.raw
	p := &s.p
	// A byte order mark (b.from): offsets count it, columns do not.
	line, lineStart := 1, b.from // the line of i, and where it starts
	i := b.from                  // the end of the last record
	state := b.st0
	// stop ends the batch's events at j, where the next one starts
	// (after white space): the reader goes on from there.
	stop := func(j int) {
		if !b.moved {
			// The reader starts where the batch does, in the state the
			// batch before left it in.
			b.stop, b.stopPos = 0, jsonv.Position{Line: 1, Column: 1}
			return
		}
		b.stop, b.stopState = j, state
		b.stopPos = jsonv.Position{Line: line, Column: runes(src[lineStart:j]) + 1, Offset: int64(j)}
	}
	for {
		j := jsonv.SkipSpace(src, i)
		if n := bytes.Count(src[i:j], newline); n > 0 {
			line += n
			lineStart = i + bytes.LastIndexByte(src[i:j], '\n') + 1
		}
		if j == len(src) {
			if b.final && state != stValues && state != stDone && state != stStart {
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
			state, i, b.moved = stDone, j+1, true
			continue
		case state == stAfter && c == ',':
			state, i, b.moved = stElement, j+1, true
			continue
		case state == stAfter, state == stDone, state == stElement && c == ']':
			stop(j) // malformed, or the batch started where it could not
			return
		}
		if state == stStart {
			state = stValues
		}
		p.src, p.pos, p.tape, p.final = src[j:], 0, p.tape[:0], b.final
		if err := p.value(); err != nil || p.pos > limit {
			stop(j)
			return
		}
		b.moved = true
		if state != stValues {
			state = stAfter
		}
		raw := src[j : j+p.pos]
		pos := jsonv.Position{Line: line, Column: runes(src[lineStart:j]) + 1, Offset: int64(j)}
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
			it.v = judge(s, ev, explain, seal)
		}
		i = j + p.pos
		if n := bytes.Count(raw, newline); n > 0 { // a record over several lines
			line += n
			lineStart = j + bytes.LastIndexByte(raw, '\n') + 1
		}
	}
	b.lines, b.end = line-1, state
	b.tail = runes(src[lineStart:])
}

var newline = []byte{'\n'}
