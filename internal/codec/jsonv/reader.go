package jsonv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/inbuf"
)

// Options configure a Reader.
type Options struct {
	// MaxValueSize bounds the bytes of one value; 0 means
	// DefaultMaxValueSize. White space between values is not counted.
	MaxValueSize int64
	// Elements makes a top-level array give its elements one by one
	// (each within MaxValueSize) instead of itself: a JSON array of
	// records streams in constant memory. Other top-level values are
	// given as they are.
	Elements bool
	// Start is the position of the stream's first byte when the stream is
	// the rest of a longer one that was cut at the start of a line: offsets
	// and lines go on from it (no byte order mark is looked for there).
	// The zero value is the start of a stream. Start.Column, when more
	// than 1, says the stream was cut within a line; StartLine then holds
	// that line's text before the cut (its last 72 bytes are enough), for
	// the excerpts of errors.
	Start     Position
	StartLine []byte
	// InArray says the stream goes on within a top-level array that
	// Elements gives, after its first Element elements: it starts where a
	// Reader of the whole stream stood after returning element
	// Element-1 (or after the '[' when Element is 0). Needs Start.
	InArray bool
	Element int
	// Members makes the Reader note the members of each object it reads
	// as it checks it, for Members.
	Members bool
	// Offsets makes the Reader count no lines: the positions Next gives
	// hold the offset alone (Line and Column 0), and its errors no true
	// position. For a caller that needs no more (the workers of
	// internal/records, whose errors a Reader that counts reads again).
	Offsets bool
	// NonFinite makes NaN, Infinity and -Infinity values, as Python's
	// json.loads reads them (json.dumps writes them for non-finite
	// floats): the values Next gives hold them as they are, for a caller
	// that writes them as something else (TOON writes null). Without it
	// they are errors, with NonFiniteHint.
	NonFinite bool
	// Duplicates says what to do with an object whose member names
	// repeat: refuse it (the default), or keep one member of each name
	// (Dedupe), the values Next gives then written compact.
	Duplicates Duplicates
}

// Reader reads a stream of JSON values: one document, NDJSON, or values
// back to back with optional white space between them.
//
// It reads each value in place in its buffer, with a Checker or, for what
// that does not vouch for, jsontext. The stream is read through one buffer
// that holds the value being read and never more than the size limit and a
// read's worth: white space between values is not kept, however much of it
// there is, and a value costs its own size, once.
type Reader struct {
	in    inbuf.Buffer
	limit int64
	err   error // the error Next returns from now on

	mark    int64       // absolute offset that lc describes
	lc      lineCounter // line and column at mark
	start   int64       // absolute offset of the last value
	startLC lineCounter // line and column at start
	last    []byte      // the last value (or the bytes of the value that failed)
	started bool
	dec     jsontext.Decoder
	chk     Checker // reads the common values, in one pass
	mask    []byte  // the value parse reads, with NonFinite
	dup     []byte  // the value Next gives, with Duplicates
	noChk   bool    // (tests) every value is read by jsontext
	slow    int     // (tests) objects and arrays jsontext read
	tries   int     // (tests) parses of the bytes buffered, whole or cut short
	members bool    // chk.top holds the members of the last value
	opts    Options
	inArray bool // within a top-level array (Elements)
	elem    int  // index of the next element
	// borrowed: in.Buf is the caller's (ResetBytes); own is the Reader's
	// own buffer, kept for a later Reset.
	borrowed bool
	own      []byte
}

// firstSize is the initial buffer; readSize the buffer of a longer
// stream, and the most read ahead of a value.
const firstSize, readSize = 32 << 10, 512 << 10

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts Options) *Reader {
	rd := &Reader{}
	rd.reset(r, opts)
	return rd
}

// Reset makes r a Reader of src with opts, as NewReader does, keeping the
// buffers it has grown.
func (r *Reader) Reset(src io.Reader, opts Options) {
	buf := r.ownBuffer()
	r.reset(src, opts)
	if len(buf) <= r.in.Max {
		r.in.Buf = buf
	}
}

// ResetBytes makes r a Reader of b with opts, as Reset(bytes.NewReader(b),
// opts) does, the same values, positions and errors, but reading them in
// place in b instead of copying b into its buffer: the values Next returns
// are slices of b, which must not change until r is reset. r never writes
// into b; it keeps its own buffer for a later Reset.
func (r *Reader) ResetBytes(b []byte, opts Options) {
	own := r.ownBuffer()
	r.reset(eofReader{}, opts)
	r.in.Buf, r.in.End, r.in.EOF = b, len(b), true
	r.own, r.borrowed = own, true
}

// ownBuffer is the Reader's own buffer (not one ResetBytes lent it), which
// it takes back.
func (r *Reader) ownBuffer() []byte {
	if r.borrowed {
		buf := r.own
		r.own, r.borrowed = nil, false
		return buf
	}
	return r.in.Buf
}

// eofReader is the source of a Reader of bytes (ResetBytes): it is at its
// end.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (r *Reader) reset(src io.Reader, opts Options) {
	limit := opts.MaxValueSize
	if limit <= 0 {
		limit = DefaultMaxValueSize
	}
	r.limit, r.opts, r.err, r.last, r.started, r.inArray, r.elem = limit, opts, nil, nil, false, false, 0
	r.chk.wantTop, r.chk.nonFinite, r.members = opts.Members, opts.NonFinite, false
	r.in = inbuf.Buffer{R: src, First: firstSize, Steady: readSize, Max: int(min(limit+readSize, math.MaxInt32)),
		Drop: func([]byte) { r.countTo(r.in.Base + int64(r.in.Pos)) }}
	r.mark, r.start = 0, 0
	r.lc.line, r.lc.col, r.lc.prefix = 1, 0, r.lc.prefix[:0]
	r.startLC.line, r.startLC.col, r.startLC.prefix = 0, 0, r.startLC.prefix[:0]
	if opts.Start.Line > 0 {
		r.in.Base, r.mark, r.lc.line, r.started = opts.Start.Offset, opts.Start.Offset, opts.Start.Line, true
		r.lc.col = max(opts.Start.Column-1, 0)
		if r.lc.col > 0 {
			r.lc.prefix = append(r.lc.prefix, tail(opts.StartLine)...)
		}
		r.inArray, r.elem = opts.InArray && opts.Elements, opts.Element
	}
}

// countTo moves the line counter to the absolute offset off, which must lie
// between mark and the end of the buffered bytes.
func (r *Reader) countTo(off int64) {
	if off <= r.mark || r.opts.Offsets {
		return
	}
	r.lc.count(r.in.Buf[r.mark-r.in.Base : off-r.in.Base])
	r.mark = off
}

// Next returns the next value and the position where it starts. The value is
// valid until the next call; the caller may change its bytes (compact it in
// place) once it no longer needs positions within it. At the end of the
// stream it returns io.EOF.
func (r *Reader) Next() (jsontext.Value, Position, error) {
	if r.err != nil {
		return nil, Position{}, r.err
	}
	if !r.started {
		// A UTF-8 byte order mark, which RFC 8259 lets a parser ignore, is
		// skipped; offsets still count it, columns do not.
		r.started = true
		if r.in.Fill(1) > 0 && r.in.Buf[0] == 0xEF && r.in.Fill(3) >= 3 && string(r.in.Buf[:3]) == "\xEF\xBB\xBF" {
			r.in.Pos, r.mark = 3, 3
		}
	}
	for {
		c, ok := r.skipSpace()
		if !ok {
			if r.err == io.EOF && r.inArray {
				r.err = r.errorHere("unexpected end of input (an array is not closed)")
			}
			return nil, Position{}, r.err
		}
		if !r.opts.Elements {
			break
		}
		if r.inArray {
			if c == ']' {
				r.in.Pos++
				r.inArray = false
				continue
			}
			if r.elem > 0 {
				if c != ',' {
					r.err = r.errorHere(fmt.Sprintf("invalid character %s after array element (expecting ',' or ']')", quoteChar(r.in.Buf[r.in.Pos:r.in.End])))
					return nil, Position{}, r.err
				}
				r.in.Pos++
				if _, ok := r.skipSpace(); !ok {
					if r.err == io.EOF {
						r.err = r.errorHere("unexpected end of input (an array is not closed)")
					}
					return nil, Position{}, r.err
				}
			}
			break
		}
		if c != '[' {
			break
		}
		r.in.Pos++
		r.inArray, r.elem = true, 0
	}
	r.start = r.in.Base + int64(r.in.Pos)
	if !r.opts.Offsets {
		r.countTo(r.start)
		r.startLC.set(&r.lc)
	}
	// Read the value in place in the buffer: an object or an array with
	// the Checker, in one pass that also checks its UTF-8; what it does not
	// vouch for with jsontext. When the value runs past the bytes buffered,
	// read more and start again: an object or an array once it closes or
	// its bytes double (MoreValue), so that it is parsed about twice at
	// worst.
	var n int
	checked := false
	r.members = false
	for {
		r.tries++
		b := r.in.Buf[r.in.Pos:r.in.End]
		if b[0] == '{' || b[0] == '[' {
			if end, _, ok := r.chk.value(b); ok && !r.noChk {
				n, checked = end, true
				r.members = r.opts.Members && b[0] == '{'
				break
			}
			r.slow++
		}
		v, err := r.parse(b)
		n = len(v)
		if err == nil && (r.in.EOF || n < len(b) || !isScalarStart(b[0])) {
			break // a number or literal at the end of the bytes may go on
		}
		if err != nil && (r.in.EOF || !errors.Is(err, io.ErrUnexpectedEOF)) {
			b, err = r.lineOfError(b, err)
			r.last = b
			r.err = r.syntaxError(err)
			return nil, Position{}, r.err
		}
		if int64(len(b)) > r.limit {
			break
		}
		var grown int
		if b[0] == '{' || b[0] == '[' {
			grown = MoreValue(&r.in, len(b))
		} else {
			grown = r.in.More()
		}
		if grown == len(b) {
			if r.in.ReadErr != nil {
				r.err = r.in.ReadErr
				return nil, Position{}, r.err
			}
			if !r.in.EOF {
				break // the buffer is full: the value passes the limit
			}
		}
	}
	if int64(n) > r.limit || n == 0 {
		r.last = nil
		r.err = &TooLargeError{Pos: r.startLC.position(r.start), Limit: r.limit}
		return nil, Position{}, r.err
	}
	v := r.in.Buf[r.in.Pos : r.in.Pos+n]
	r.last = v
	if !checked && !utf8.Valid(v) {
		// Raw invalid UTF-8, which the decoder accepts along with escaped
		// lone surrogates.
		r.err = r.syntaxError(Check(v))
		return nil, Position{}, r.err
	}
	r.in.Pos += n
	if r.inArray {
		r.elem++
	}
	out := v
	if !checked && r.opts.Duplicates != DuplicatesError && (v[0] == '{' || v[0] == '[') {
		// The Checker vouches for values without repeated names; this one
		// may have some.
		parse := v
		if r.opts.NonFinite {
			parse = r.mask[:n]
		}
		d, err := dedupe(r.dup[:0], parse, v, r.opts.Duplicates)
		if err != nil {
			r.err = r.syntaxError(err)
			return nil, Position{}, r.err
		}
		r.dup, out = d, d
	}
	// Count the value now, so that the caller may change its bytes.
	if r.opts.Offsets {
		return out, Position{Offset: r.start}, nil
	}
	r.lc.count(v)
	r.mark = r.start + int64(len(v))
	return out, r.startLC.position(r.start), nil
}

// Members returns the members of the value Next returned last, an object,
// as offsets in its bytes, when Options.Members asks for them and the
// Reader read it in one pass (which it does for the objects producers
// write; not for one with an escape in a name); ok is false otherwise.
// The members are valid until the next call to Next, and their names hold
// no escape.
func (r *Reader) Members() (members []Member, ok bool) {
	if !r.members || r.err != nil {
		return nil, false
	}
	return r.chk.top, true
}

// lineOfError reads, after a syntax error err in the value b at Pos, the
// rest of the error's line up to excerptMax bytes and one more (unless the
// input ends or fails first), and returns the bytes buffered from the
// value's start and the error found in them up to that line's end: the
// message (which may quote bytes after the error, an escape sequence) and
// its excerpt are then the same wherever the reads of the input ended (one
// reader, or chunks read by several workers), and a live input is not
// waited for past the line.
func (r *Reader) lineOfError(b []byte, err error) ([]byte, error) {
	at := int(ErrorOffset(err))
	if at < 0 || at > len(b) {
		return b, err
	}
	end := func() int { // the end of the error's line, or -1
		if i := bytes.IndexAny(b[at:], "\r\n"); i >= 0 {
			return at + i + 1
		}
		if len(b)-at > excerptMax {
			return at + excerptMax + 1 // excerptOf cuts what passes excerptMax
		}
		return -1
	}
	cut := end()
	for cut < 0 {
		if r.in.More() == len(b) {
			break // the end, a read error, or a full buffer
		}
		b = r.in.Buf[r.in.Pos:r.in.End]
		cut = end()
	}
	if cut < 0 {
		cut = len(b)
	}
	// A newline ends any token: the parser meets the same error before
	// it, with the same bytes to quote.
	if _, again := r.parse(b[:cut]); again != nil && !errors.Is(again, io.ErrUnexpectedEOF) {
		err = again
	}
	return b, err
}

// skipSpace passes over white space and returns the next byte; false at
// the end of the stream or on a read error, which r.err then holds.
func (r *Reader) skipSpace() (byte, bool) {
	for {
		b := r.in.Buf[r.in.Pos:r.in.End]
		t := TrimSpace(b)
		r.in.Pos += len(b) - len(t)
		if len(t) > 0 {
			return t[0], true
		}
		if r.in.Fill(1) == 0 {
			r.err = io.EOF
			if r.in.ReadErr != nil {
				r.err = r.in.ReadErr
			}
			return 0, false
		}
	}
}

// errorHere is a syntax error at the next unread byte, outside any value.
func (r *Reader) errorHere(msg string) *SyntaxError {
	r.start = r.in.Base + int64(r.in.Pos)
	r.countTo(r.start)
	r.startLC.set(&r.lc)
	r.last = r.in.Buf[r.in.Pos:r.in.End]
	return r.ErrorAt(r.start, "", msg)
}

// Buffered reports how many bytes other than white space have been read from
// the underlying reader but not yet consumed: when it is 0, the next call to
// Next may block.
func (r *Reader) Buffered() int { return len(TrimSpace(r.in.Buf[r.in.Pos:r.in.End])) }

// ArrayState says whether the Reader stands within a top-level array
// that Elements gives, and after how many of its elements (see
// Options.InArray).
func (r *Reader) ArrayState() (inArray bool, elements int) { return r.inArray, r.elem }

// Position returns the position of an absolute byte offset within the last
// value returned (or just after it).
func (r *Reader) Position(off int64) Position {
	k := int(min(max(off-r.start, 0), int64(len(r.last))))
	p := lineCounter{line: r.startLC.line, col: r.startLC.col} // not its prefix, which count would write over
	p.count(r.last[:k])
	return p.position(r.start + int64(k))
}

// ErrorAt builds a SyntaxError for a message at an absolute offset that lies
// within the last value returned.
func (r *Reader) ErrorAt(off int64, pointer, msg string) *SyntaxError {
	e := &SyntaxError{Pos: r.Position(off), Pointer: pointer, Msg: msg}
	e.Excerpt, e.Caret = r.excerpt(off)
	return e
}

// SyntaxErrorAt builds a SyntaxError for a message at offset off of src,
// a whole text held in memory (a file mapped into it, say): its line and
// column, and the excerpt of its line.
func SyntaxErrorAt(src []byte, off int64, msg string) *SyntaxError {
	k := int(min(max(off, 0), int64(len(src))))
	lc := lineCounter{line: 1}
	lc.count(src[:k])
	e := &SyntaxError{Pos: lc.position(int64(k)), Msg: msg}
	e.Excerpt, e.Caret = excerptOf(lc.prefix, src[k:])
	return e
}

func (r *Reader) syntaxError(err error) error {
	rel := ErrorOffset(err)
	if rel < 0 {
		rel = int64(len(r.last))
	}
	ptr := ErrorPointer(err)
	if r.inArray {
		ptr = ShortPointer(fmt.Sprintf("/%d%s", r.elem, ptr))
	}
	e := r.ErrorAt(r.start+rel, ptr, Message(err))
	e.DuplicateName = errors.Is(err, jsontext.ErrDuplicateName)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		e.Pointer = ""
	}
	if !r.opts.NonFinite {
		e.Hint = HintAt(r.last, rel)
	}
	return e
}

// parse reads the value b starts with, in place; with NonFinite, a copy
// of it whose NaN and Infinity values are numbers (maskNonFinite).
func (r *Reader) parse(b []byte) (jsontext.Value, error) {
	if r.opts.NonFinite {
		r.mask = maskNonFinite(r.mask, b, !r.in.EOF)
		b = r.mask
	}
	if r.opts.Duplicates != DuplicatesError {
		r.dec.Reset(bytes.NewBuffer(b), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	} else {
		r.dec.Reset(bytes.NewBuffer(b), loneSurrogates...)
	}
	return r.dec.ReadValue()
}

// isScalarStart reports whether c starts a number or a literal (NaN and
// Infinity too, for NonFinite), which have no closing character.
func isScalarStart(c byte) bool {
	return c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I'
}

// lineCounter is a line and column, and the end of the line before them
// for excerpts.
type lineCounter struct {
	line   int
	col    int    // runes since the line start
	prefix []byte // up to excerptMax bytes of the line before
}

const excerptMax = 72

func (c *lineCounter) set(o *lineCounter) {
	c.line, c.col = o.line, o.col
	c.prefix = append(c.prefix[:0], o.prefix...)
}

func (c *lineCounter) position(off int64) Position {
	return Position{Offset: off, Line: c.line, Column: c.col + 1}
}

// count moves the counter past gone.
func (c *lineCounter) count(gone []byte) {
	// Runes are counted by skipping continuation bytes. Newlines are found
	// forwards (LastIndexByte is a byte loop; in NDJSON the one newline is first).
	if n := bytes.Count(gone, []byte{'\n'}); n > 0 {
		nl := bytes.IndexByte(gone, '\n')
		if n > 1 {
			nl = bytes.LastIndexByte(gone, '\n')
		}
		c.line += n
		c.col = runeCount(gone[nl+1:])
		c.prefix = append(c.prefix[:0], tail(gone[nl+1:])...)
	} else {
		c.col += runeCount(gone)
		c.prefix = append(c.prefix, tail(gone)...)
		c.prefix = append(c.prefix[:0], tail(c.prefix)...)
	}
}

// runeCount is utf8.RuneCount, 8 bytes at a time (an invalid byte counts as
// a rune only when it is not a continuation byte).
func runeCount(b []byte) int {
	n := len(b)
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		n -= bits.OnesCount64(x &^ (x << 1) & 0x8080_8080_8080_8080)
		b = b[8:]
	}
	for _, c := range b {
		if c&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

func tail(b []byte) []byte {
	if len(b) <= excerptMax {
		return b
	}
	b = b[len(b)-excerptMax:]
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return b
}

// excerpt returns the line around off, which lies within the last value,
// cut to a window, and the caret's rune index within it.
func (r *Reader) excerpt(off int64) (string, int) {
	v := r.last
	k := int(min(max(off-r.start, 0), int64(len(v))))
	var before []byte
	if nl := bytes.LastIndexByte(v[:k], '\n'); nl >= 0 {
		before = v[nl+1 : k]
	} else {
		before = append(append([]byte(nil), r.startLC.prefix...), v[:k]...)
	}
	return excerptOf(before, v[k:])
}

// Excerpt returns the line around byte col of line (a line of text, without
// its line end), cut to a window, and the caret's rune index within it.
func Excerpt(line []byte, col int) (string, int) {
	col = min(max(col, 0), len(line))
	return excerptOf(line[:col], line[col:])
}

// excerptOf joins the end of before and the start of after (up to a line
// end) into a one-line excerpt, control characters blanked, and says where
// the caret goes.
func excerptOf(before, after []byte) (string, int) {
	before = tail(before)
	if nl := bytes.IndexAny(after, "\r\n"); nl >= 0 {
		after = after[:nl]
	}
	if len(after) > excerptMax {
		after = after[:excerptMax]
		for len(after) > 0 && !utf8.Valid(after) {
			after = after[:len(after)-1]
		}
	}
	clean := func(b []byte) string {
		return strings.Map(func(r rune) rune {
			if r == '\t' || r < 0x20 || r == 0x7F {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	head := clean(before)
	return head + clean(after), utf8.RuneCountInString(head)
}
