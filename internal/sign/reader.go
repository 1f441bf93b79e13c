package sign

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
)

// DefaultMaxEventSize bounds one event read from a stream.
const DefaultMaxEventSize = jsonv.DefaultMaxValueSize

// Record is one event as read: its bytes, the bytes between it and the
// event before (white space, and in a JSON array the bracket and the
// comma), and where it starts. Its bytes are valid until the next read.
type Record struct {
	Index int
	Gap   []byte
	Raw   []byte
	Pos   jsonv.Position
	tape  []node
}

// Reader reads trace events, parsed as CPython's json.loads reads them,
// from NDJSON (any JSON values one after another, white space between
// them) or from one JSON array of events. It holds one event at a time.
type Reader struct {
	b     inbuf.Buffer
	p     parser
	max   int
	state int
	gap   []byte
	gaps  [2][]byte // the gap buffers, used in turn: the last record's stays valid
	rec   Record
	at    jsonv.Position // the position of the first unread byte
	index int
	err   error
}

const (
	stStart = iota
	stValues
	stFirst   // after "[": an element or "]"
	stAfter   // after an element: "," or "]"
	stElement // after ",": an element
	stDone    // after "]": white space only
)

// NewReader reads events from r, each at most max bytes (0:
// DefaultMaxEventSize).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	rd := &Reader{max: max, at: jsonv.Position{Line: 1, Column: 1}}
	rd.b = inbuf.Buffer{R: r, First: 64 << 10, Steady: 512 << 10, Max: max + 64<<10, Drop: func([]byte) { rd.settle() }}
	return rd
}

// Tail is what follows the last event (white space, a closing bracket),
// once Next has returned io.EOF.
func (r *Reader) Tail() []byte { return r.gap }

// consume moves past n unread bytes, keeping them in the gap when keep.
func (r *Reader) consume(n int, keep bool) {
	b := r.b.Buf[r.b.Pos : r.b.Pos+n]
	if keep {
		r.gap = append(r.gap, b...)
	}
	r.b.Pos += n
	// Lines are counted as bytes go by; the column of the bytes after the
	// last line break only when a position is asked for (settle).
	if bytes.IndexByte(b, '\n') >= 0 {
		last := bytes.LastIndexByte(b, '\n')
		r.at.Line += bytes.Count(b[:last+1], []byte{'\n'})
		r.at.Column = 1
		r.at.Offset = r.b.Base + int64(r.b.Pos-len(b)+last+1)
	}
}

// skipSpace moves past white space into the gap and returns the next
// byte, or -1 at the end of the stream.
func (r *Reader) skipSpace() (int, error) {
	for {
		buf := r.b.Buf[r.b.Pos:r.b.End]
		i := jsonv.SkipSpace(buf, 0)
		r.consume(i, true)
		if i < len(buf) {
			return int(buf[i]), nil
		}
		if r.b.More() == 0 {
			if r.b.ReadErr != nil {
				return 0, r.b.ReadErr
			}
			return -1, nil
		}
	}
}

// position is the place of the unread byte off bytes ahead.
func (r *Reader) position(off int) jsonv.Position {
	r.settle()
	return advance(r.at, r.b.Buf[r.b.Pos:r.b.Pos+off])
}

// settle counts the characters consumed since r.at, on its line, into
// its column: before a position is given, and before the buffer drops them.
func (r *Reader) settle() {
	if cur := r.b.Base + int64(r.b.Pos); r.at.Offset < cur {
		from := int(r.at.Offset - r.b.Base)
		r.at.Column += utf8.RuneCount(r.b.Buf[from:r.b.Pos])
		r.at.Offset = cur
	}
}

// advance is the position after the bytes b that start at p.
func advance(p jsonv.Position, b []byte) jsonv.Position {
	p.Offset += int64(len(b))
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		p.Line += bytes.Count(b, []byte{'\n'})
		p.Column = utf8.RuneCount(b[nl+1:]) + 1
	} else {
		p.Column += utf8.RuneCount(b)
	}
	return p
}

// syntaxError is malformed input off bytes ahead.
func (r *Reader) syntaxError(off int, msg string) error {
	return syntaxErrorIn(r.b.Buf[:r.b.End], r.b.Pos+off, r.position(off), msg)
}

// syntaxErrorIn is malformed input at buf[at], at pos, with the line it
// stands on as far as buf holds it.
func syntaxErrorIn(buf []byte, at int, pos jsonv.Position, msg string) error {
	from := bytes.LastIndexByte(buf[:at], '\n') + 1
	to := len(buf)
	if nl := bytes.IndexByte(buf[at:], '\n'); nl >= 0 {
		to = at + nl
	}
	ex, caret := jsonv.Excerpt(buf[from:to], at-from)
	return &jsonv.SyntaxError{Pos: pos, Msg: msg, Excerpt: ex, Caret: caret}
}

// Next returns the next event, or io.EOF after the last. A malformed
// stream gives a *jsonv.SyntaxError, an event over the size limit a
// *jsonv.TooLargeError; the stream cannot be read further after either.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *Reader) next() (*Record, error) {
	r.gap = r.gap[:0]
	if r.state == stStart && r.b.Base+int64(r.b.Pos) == 0 && r.b.Fill(1) > 0 && r.b.Buf[r.b.Pos] == 0xEF &&
		r.b.Fill(3) >= 3 && bytes.HasPrefix(r.b.Buf[r.b.Pos:r.b.End], []byte("\xEF\xBB\xBF")) {
		// A UTF-8 byte order mark, which RFC 8259 lets a parser ignore
		// (json.loads does, given bytes), is passed over into the gap, so
		// that sign writes it back; offsets count it, columns do not.
		r.consume(3, true)
		r.at.Offset = 3
	}
	for {
		c, err := r.skipSpace()
		if err != nil {
			return nil, err
		}
		switch r.state {
		case stStart:
			switch c {
			case -1:
				r.state = stDone
				return nil, io.EOF
			case '[':
				r.consume(1, true)
				r.state = stFirst
				continue
			}
			r.state = stValues
			continue
		case stValues:
			if c == -1 {
				return nil, io.EOF
			}
		case stFirst, stElement:
			if c == ']' && r.state == stFirst {
				r.consume(1, true)
				r.state = stDone
				continue
			}
			if c == -1 {
				return nil, r.syntaxError(0, "unexpected end of input: the array is not closed")
			}
		case stAfter:
			switch c {
			case ',':
				r.consume(1, true)
				r.state = stElement
				continue
			case ']':
				r.consume(1, true)
				r.state = stDone
				continue
			case -1:
				return nil, r.syntaxError(0, "unexpected end of input: the array is not closed")
			}
			return nil, r.syntaxError(0, "expecting ',' delimiter")
		case stDone:
			if c == -1 {
				return nil, io.EOF
			}
			return nil, r.syntaxError(0, "extra data after the array")
		}
		return r.value()
	}
}

// value parses the event at the first unread byte.
func (r *Reader) value() (*Record, error) {
	for {
		r.p.src = r.b.Buf[r.b.Pos:r.b.End]
		r.p.pos, r.p.tape, r.p.final = 0, r.p.tape[:0], r.b.EOF
		err := r.p.value()
		if err == nil {
			break
		}
		if err != errShort {
			if r.b.End-r.b.Pos > r.max && r.pastLimit() {
				// Malformed, but only after the limit: too large, as
				// it is found when fewer bytes have been read ahead.
				return nil, &jsonv.TooLargeError{Pos: r.position(0), Limit: int64(r.max)}
			}
			pe := err.(*parseError)
			return nil, r.syntaxError(pe.off, pe.msg)
		}
		have := r.b.End - r.b.Pos
		if have > r.max {
			return nil, &jsonv.TooLargeError{Pos: r.position(0), Limit: int64(r.max)}
		}
		var grown int
		if c := r.b.Buf[r.b.Pos:r.b.End]; len(c) > 0 && (c[0] == '{' || c[0] == '[') {
			grown = jsonv.MoreValue(&r.b, have) // not parsed again per read
		} else {
			grown = r.b.More()
		}
		if grown == have {
			if r.b.ReadErr != nil {
				return nil, r.b.ReadErr
			}
			if !r.b.EOF {
				return nil, &jsonv.TooLargeError{Pos: r.position(0), Limit: int64(r.max)}
			}
		}
	}
	n := r.p.pos
	if n > r.max {
		return nil, &jsonv.TooLargeError{Pos: r.position(0), Limit: int64(r.max)}
	}
	r.rec = Record{Index: r.index, Gap: r.gap, Raw: r.b.Buf[r.b.Pos : r.b.Pos+n], Pos: r.position(0), tape: r.p.tape}
	// The line breaks within the value (in its white space: a string
	// holds none) are counted; one look for a '\n' when there are none.
	r.consume(n, false)
	// The record holds the gap; the next one is gathered in the other buffer.
	r.gaps[r.index&1] = r.gap
	r.gap = r.gaps[(r.index+1)&1]
	r.index++
	if r.state != stValues {
		r.state = stAfter
	}
	return &r.rec, nil
}

// pastLimit tells whether the value at the first unread byte, malformed,
// is found so only in its bytes past max+1: so that whether the error or
// the size is reported does not depend on how much was read ahead.
func (r *Reader) pastLimit() bool {
	r.p.src = r.b.Buf[r.b.Pos : r.b.Pos+r.max+1]
	r.p.pos, r.p.tape, r.p.final = 0, r.p.tape[:0], false
	return r.p.value() == errShort
}

// Event reads the fields of a record's event: a *FieldError, as for
// Signer.Parse, when it is not one.
func (s *Signer) Event(rec *Record) (*Event, error) {
	return s.event(rec.Raw, rec.tape)
}

// EventError is an event without the fields a signature needs, at its
// place in the stream: Index counts the events from 0, Pos is where the
// field was looked for.
type EventError struct {
	Index int
	Pos   jsonv.Position
	Field *FieldError
}

func (e *EventError) Error() string {
	return fmt.Sprintf("%s: event %d: %s", e.Pos, e.Index+1, e.Field)
}

// SignedError is an error that StreamHandler.Signed returned for an
// event, with the event's place.
type SignedError struct {
	Index int
	Pos   jsonv.Position
	Err   error
}

func (e *SignedError) Error() string { return fmt.Sprintf("%s: event %d: %v", e.Pos, e.Index+1, e.Err) }

func (e *SignedError) Unwrap() error { return e.Err }

// Buffered is how many bytes are read ahead: 0 when the next event has
// yet to arrive (a live stream is waited on).
func (r *Reader) Buffered() int { return r.b.End - r.b.Pos }

// PosAt is the position of the byte off bytes into the record's event.
func (rec *Record) PosAt(off int) jsonv.Position {
	return advance(rec.Pos, rec.Raw[:min(max(off, 0), len(rec.Raw))])
}
