// Package jsonv is toonkit's JSON value model: a stream of raw JSON values
// read with go-json-experiment's jsontext, with member order, number literals
// and positions kept. Duplicate names and invalid UTF-8 are errors.
package jsonv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// DefaultMaxValueSize bounds one JSON value read from a stream.
const DefaultMaxValueSize = 64 << 20

// Position is a place in a text input. Line and Column are 1-based; Column
// counts characters (runes), not bytes.
type Position struct {
	Offset int64
	Line   int
	Column int
}

func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// SyntaxError is malformed JSON at a position, with the line it stands on.
type SyntaxError struct {
	Pos     Position
	Pointer string // JSON pointer of the value being read, when known
	Msg     string
	Excerpt string // the line of the error, possibly cut to a window
	Caret   int    // the column of the error within Excerpt, 0-based, in runes
}

func (e *SyntaxError) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("%s: %s (at %s)", e.Pos, e.Msg, e.Pointer)
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// ErrTooLarge is returned when one value passes the size limit.
var ErrTooLarge = errors.New("JSON value too large")

// TooLargeError is a value that passes the size limit. It matches ErrTooLarge.
type TooLargeError struct {
	Pos   Position // where the value starts
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: a JSON value passes the limit of %d bytes", e.Pos, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Message turns a jsontext error into a short sentence without the package
// prefix and offsets.
func Message(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "jsontext: ")
	return msg
}

// AppendCompact appends the compact form of one JSON value to dst: no
// whitespace between tokens, strings with the minimal escaping that
// JavaScript's JSON.stringify uses, numbers exactly as written. On error
// dst is returned unchanged and the error is a *jsontext.SyntacticError
// whose ByteOffset is relative to src.
//
// A string holding a lone surrogate escape ("\ud800", half of an emoji) is
// valid output of JSON.stringify and json.dumps, so it is accepted; the
// value's strings are then kept exactly as written, escapes and all.
func AppendCompact(dst, src []byte) ([]byte, error) {
	n := len(dst)
	dst = slices.Grow(dst, len(src)) // the compact form is never longer
	out, err := jsontext.AppendFormat(dst, src)
	if err != nil {
		if utf8.Valid(src) {
			if out, err := jsontext.AppendFormat(dst[:n], src, loneSurrogates...); err == nil {
				return out, nil
			}
		}
		return dst[:n], err
	}
	return out, nil
}

// loneSurrogates are the options that accept escaped lone surrogates (raw
// invalid UTF-8 is checked apart, since these options accept it too).
var loneSurrogates = []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.PreserveRawStrings(true)}

// Valid reports whether b is exactly one valid JSON value (no duplicate
// names, valid UTF-8).
func Valid(b []byte) bool { return jsontext.Value(b).IsValid() }

// ErrorOffset returns the byte offset a jsontext error points at, or -1.
func ErrorOffset(err error) int64 {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.ByteOffset
	}
	return -1
}

// ErrorPointer returns the JSON pointer a jsontext error points at, or "",
// shortened by ShortPointer.
func ErrorPointer(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return ShortPointer(string(se.JSONPointer))
	}
	return ""
}

// maxPointer is the longest JSON pointer put in a message.
const maxPointer = 80

// ShortPointer keeps a JSON pointer short enough for a one-line message: a
// longer one (deep nesting) keeps its first token and its last tokens, with
// "/…" for those left out.
func ShortPointer(p string) string {
	if len(p) <= maxPointer {
		return p
	}
	head := p
	if i := strings.IndexByte(p[1:], '/'); i >= 0 && i < maxPointer/2 {
		head = p[:i+1]
	} else {
		head = ""
	}
	tail := p[len(p)-(maxPointer-len(head)-2):]
	if i := strings.IndexByte(tail, '/'); i >= 0 {
		tail = tail[i:]
	}
	return head + "/…" + tail
}

// Options configure a Reader.
type Options struct {
	// MaxValueSize bounds the bytes of one value (and the space before it);
	// 0 means DefaultMaxValueSize.
	MaxValueSize int64
}

// Reader reads a stream of JSON values: one document, NDJSON, or values
// back to back with optional white space between them.
type Reader struct {
	rec   *recorder
	dec   *jsontext.Decoder
	err   error
	limit int64
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts Options) *Reader {
	limit := opts.MaxValueSize
	if limit <= 0 {
		limit = DefaultMaxValueSize
	}
	rec := &recorder{r: r, limit: limit, line: 1}
	rec.r, rec.dropped = stripBOM(r)
	return &Reader{rec: rec, dec: jsontext.NewDecoder(rec, jsontext.AllowInvalidUTF8(true)), limit: limit}
}

// stripBOM passes over a UTF-8 byte order mark at the start of r, which
// RFC 8259 lets a parser ignore, and says how many bytes it dropped.
func stripBOM(r io.Reader) (io.Reader, int64) {
	var head [3]byte
	n, err := io.ReadFull(r, head[:])
	if n == 3 && string(head[:]) == "\xEF\xBB\xBF" {
		return r, 3
	}
	rest := io.MultiReader(bytes.NewReader(head[:n]), r)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		rest = io.MultiReader(bytes.NewReader(head[:n]), errReader{err})
	}
	return rest, 0
}

// errReader is a reader that fails with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Next returns the next value and the position where it starts. The value is
// valid until the next call. At the end of the stream it returns io.EOF.
func (r *Reader) Next() (jsontext.Value, Position, error) {
	if r.err != nil {
		return nil, Position{}, r.err
	}
	r.rec.advance(r.dec.InputOffset())
	r.rec.between = r.Buffered() == 0
	v, err := r.dec.ReadValue()
	if err != nil {
		if err == io.EOF {
			r.err = io.EOF
			return nil, Position{}, io.EOF
		}
		r.err = r.syntaxError(err)
		return nil, Position{}, r.err
	}
	start := r.dec.InputOffset() - int64(len(v))
	if !utf8.Valid(v) {
		// The decoder accepts escaped lone surrogates, and with them raw
		// invalid UTF-8, which is an error here.
		var bad int64
		for i := 0; i < len(v); {
			r, size := utf8.DecodeRune(v[i:])
			if r == utf8.RuneError && size == 1 {
				bad = int64(i)
				break
			}
			i += size
		}
		ptr := ""
		if _, err := jsontext.AppendFormat(nil, v); ErrorOffset(err) == bad {
			ptr = ErrorPointer(err)
		}
		r.err = r.ErrorAt(start+bad, ptr, "invalid UTF-8")
		return nil, Position{}, r.err
	}
	if int64(len(v)) > r.limit {
		r.err = &TooLargeError{Pos: r.rec.position(start), Limit: r.limit}
		return nil, Position{}, r.err
	}
	return v, r.rec.position(start), nil
}

// Buffered reports how many bytes other than white space have been read from
// the underlying reader but not yet consumed: when it is 0, the next call to
// Next may block.
func (r *Reader) Buffered() int { return len(bytes.TrimLeft(r.dec.UnreadBuffer(), " \t\r\n")) }

// Position returns the position of an absolute byte offset at or after the
// start of the last value returned.
func (r *Reader) Position(off int64) Position { return r.rec.position(off) }

// ErrorAt builds a SyntaxError for a message at an absolute offset that lies
// within the last value returned.
func (r *Reader) ErrorAt(off int64, pointer, msg string) *SyntaxError {
	e := &SyntaxError{Pos: r.rec.position(off), Pointer: pointer, Msg: msg}
	e.Excerpt, e.Caret = r.rec.excerpt(off)
	return e
}

func (r *Reader) syntaxError(err error) error {
	var ioe *ioError
	if errors.As(err, &ioe) {
		if errors.Is(ioe.err, ErrTooLarge) {
			return &TooLargeError{Pos: r.rec.position(r.rec.valueStart()), Limit: r.limit}
		}
		return ioe.err
	}
	off := ErrorOffset(err)
	if off < 0 {
		off = r.dec.InputOffset()
	}
	ptr := ErrorPointer(err)
	e := r.ErrorAt(off, ptr, Message(err))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		e.Pointer = ""
	}
	return e
}

// ioError marks an error of the underlying reader so that it is returned
// as it is, not as a syntax error.
type ioError struct{ err error }

func (e *ioError) Error() string { return e.err.Error() }
func (e *ioError) Unwrap() error { return e.err }

// recorder passes reads through and keeps the bytes since the start of the
// current value, so that positions and excerpts can be given for them.
type recorder struct {
	r     io.Reader
	limit int64

	kept     []byte // bytes from keptBase on
	keptBase int64
	line     int    // line number at keptBase
	col      int    // column (runes since line start) at keptBase
	prefix   []byte // up to excerptMax bytes of the line before keptBase

	// between is set while the decoder holds nothing but white space:
	// white space read then is dropped before it reaches the decoder (which
	// would buffer it all), and counted in dropped, so that offsets given
	// out are those of the input.
	between bool
	dropped int64
}

const excerptMax = 72

func (c *recorder) Read(p []byte) (int, error) {
	if c.between {
		c.advance(c.keptBase + int64(len(c.kept))) // only white space is kept
		for {
			n, err := c.r.Read(p)
			ws := n - len(bytes.TrimLeft(p[:n], " \t\r\n"))
			c.count(p[:ws])
			c.dropped += int64(ws)
			if ws < n {
				c.between = false
				n = copy(p, p[ws:n])
				c.kept = append(c.kept, p[:n]...)
			} else if err == nil {
				continue
			} else {
				n = 0
			}
			if err != nil && err != io.EOF {
				err = &ioError{err}
			}
			return n, err
		}
	}
	// White space before a value is not part of it: forget it, so that
	// the limit does not count it.
	if ws := len(c.kept) - len(bytes.TrimLeft(c.kept, " \t\r\n")); ws > 0 {
		c.advance(c.keptBase + int64(ws))
	}
	room := c.limit + 1 - int64(len(c.kept))
	if room <= 0 {
		return 0, &ioError{ErrTooLarge}
	}
	if int64(len(p)) > room {
		p = p[:room] // never hold more than the limit (and one byte to tell)
	}
	n, err := c.r.Read(p)
	c.kept = append(c.kept, p[:n]...)
	if err != nil && err != io.EOF {
		err = &ioError{err}
	}
	return n, err
}

// valueStart is the offset of the first byte after keptBase that is not
// white space: where the value being read starts.
func (c *recorder) valueStart() int64 {
	t := bytes.TrimLeft(c.kept, " \t\r\n")
	return c.keptBase + int64(len(c.kept)-len(t))
}

// advance forgets the bytes before off, keeping line and column counts.
func (c *recorder) advance(off int64) {
	k := int(off - c.keptBase)
	if k <= 0 {
		return
	}
	c.count(c.kept[:k])
	c.kept = append(c.kept[:0], c.kept[k:]...)
	c.keptBase = off
}

// runeCountValid is utf8.RuneCount for valid UTF-8, 8 bytes at a time.
func runeCountValid(b []byte) int {
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

// count moves the line and column counters, and the excerpt prefix, past
// the bytes gone, which are valid UTF-8 (read values, or white space).
func (c *recorder) count(gone []byte) {
	// Runes are counted by skipping continuation bytes. Newlines are found
	// forwards (LastIndexByte is a byte loop; in NDJSON the one newline is first).
	if n := bytes.Count(gone, []byte{'\n'}); n > 0 {
		nl := bytes.IndexByte(gone, '\n')
		if n > 1 {
			nl = bytes.LastIndexByte(gone, '\n')
		}
		c.line += n
		c.col = runeCountValid(gone[nl+1:])
		c.prefix = append(c.prefix[:0], tail(gone[nl+1:])...)
	} else {
		c.col += runeCountValid(gone)
		c.prefix = append(c.prefix, tail(gone)...)
		c.prefix = append(c.prefix[:0], tail(c.prefix)...)
	}
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

func (c *recorder) position(off int64) Position {
	k := int(min(max(off-c.keptBase, 0), int64(len(c.kept))))
	seg := c.kept[:k]
	p := Position{Offset: off + c.dropped, Line: c.line, Column: c.col + 1}
	if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
		p.Line += bytes.Count(seg, []byte{'\n'})
		p.Column = utf8.RuneCount(seg[nl+1:]) + 1
	} else {
		p.Column += utf8.RuneCount(seg)
	}
	return p
}

// excerpt returns the line around off, cut to a window, and the caret's
// rune index within it.
func (c *recorder) excerpt(off int64) (string, int) {
	k := int(min(max(off-c.keptBase, 0), int64(len(c.kept))))
	var before []byte
	if nl := bytes.LastIndexByte(c.kept[:k], '\n'); nl >= 0 {
		before = c.kept[nl+1 : k]
	} else {
		before = append(append([]byte(nil), c.prefix...), c.kept[:k]...)
	}
	before = tail(before)
	after := c.kept[k:]
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
