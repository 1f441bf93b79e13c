package sign

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// The parser reads JSON the way CPython's json.loads does, so that what it
// accepts, and the values it sees, are Python's: NaN, Infinity and
// -Infinity are values; a \u escape of a lone surrogate is a string
// character; an escaped surrogate pair is one character; duplicate names
// are kept (the last one wins where a value is looked up); an integer of
// more than 4300 digits, raw control characters in strings, invalid UTF-8
// and nesting deeper than Python's stack allows are errors.
//
// It writes a tape: one node per value, in document order, each container
// followed by its children (an object's children are its names and values
// alternately), each node knowing where its subtree ends. Nothing is
// decoded or copied: nodes point into the source.

type kind uint8

const (
	kNull kind = iota
	kFalse
	kTrue
	kInt
	kFloat
	kNaN
	kInf
	kNegInf
	kString
	kObject
	kArray
)

// String flags.
const (
	fPlain  = 1 << iota // printable ASCII only, no escape: written as it is
	fEscape             // holds a backslash escape
)

type node struct {
	start, end int32 // the value's bytes; for a string, those between the quotes
	next       int32 // the index of the node after this value's subtree
	kind       kind
	flags      uint8
	safe       uint16 // for a string, how many bytes it starts with that safeSpan passes (at most 0xFFFF)
}

// MaxDepth is the deepest nesting accepted. CPython's json.loads fails
// with RecursionError at about 995 levels from a script's top level, and
// earlier when the caller's stack is deeper.
const MaxDepth = 990

// maxIntDigits is CPython's default int_max_str_digits: json.loads fails
// on an integer with more digits.
const maxIntDigits = 4300

// parseError is malformed JSON at an offset of the parsed bytes.
type parseError struct {
	off int
	msg string
}

func (e *parseError) Error() string { return e.msg }

// errShort means the bytes ended inside a value: more are needed.
var errShort = errors.New("unexpected end of input")

type parser struct {
	src   []byte
	pos   int
	tape  []node
	depth int
	final bool // src is all there is: its end is the end of the input
}

func (p *parser) fail(off int, msg string) error { return &parseError{off, msg} }

// short is the end of the bytes inside a value: errShort when more may
// come, or else the error msg at off.
func (p *parser) short(off int, msg string) error {
	if p.final {
		return p.fail(off, msg)
	}
	return errShort
}

func (p *parser) ws() {
	if p.pos < len(p.src) && p.src[p.pos] > ' ' {
		return // the usual case: no white space
	}
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses the value at p.pos (after white space).
func (p *parser) value() error {
	p.ws()
	if p.pos >= len(p.src) {
		return p.short(p.pos, "expecting value")
	}
	start := p.pos
	switch c := p.src[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.str()
	case 't':
		return p.literal("true", kTrue)
	case 'f':
		return p.literal("false", kFalse)
	case 'n':
		return p.literal("null", kNull)
	case 'N':
		return p.literal("NaN", kNaN)
	case 'I':
		return p.literal("Infinity", kInf)
	case '-':
		if p.pos+1 < len(p.src) && p.src[p.pos+1] == 'I' {
			return p.literal("-Infinity", kNegInf)
		}
		return p.number()
	default:
		if c >= '0' && c <= '9' {
			return p.number()
		}
		return p.fail(start, "expecting value")
	}
}

func (p *parser) push(k kind, start, end int, flags uint8, safe uint16) {
	n := len(p.tape)
	if n == cap(p.tape) {
		p.tape = append(p.tape, node{})[:n]
	}
	p.tape = p.tape[:n+1]
	t := &p.tape[n]
	t.start, t.end, t.next, t.kind, t.flags, t.safe = int32(start), int32(end), int32(n+1), k, flags, safe
}

func (p *parser) literal(word string, k kind) error {
	start := p.pos
	n := min(len(word), len(p.src)-start)
	if string(p.src[start:start+n]) != word[:n] {
		return p.fail(start, "expecting value")
	}
	if n < len(word) {
		return p.short(start, "expecting value")
	}
	p.pos += n
	p.push(k, start, p.pos, 0, 0)
	return nil
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// number parses Python's number grammar, -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?,
// stopping where it stops: "1." is 1 followed by a stray ".".
func (p *parser) number() error {
	s, start := p.src, p.pos
	i := start
	if s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return p.short(start, "expecting value")
	case s[i] == '0':
		i++
	case digit(s[i]):
		for i++; i < len(s) && digit(s[i]); i++ {
		}
	default:
		return p.fail(start, "expecting value")
	}
	k := kInt
	intEnd := i
	if i+1 < len(s) && s[i] == '.' && digit(s[i+1]) {
		k = kFloat
		for i += 2; i < len(s) && digit(s[i]); i++ {
		}
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && digit(s[j]) {
			k = kFloat
			for j++; j < len(s) && digit(s[j]); j++ {
			}
			i = j
		} else if j >= len(s) && !p.final {
			return errShort
		}
	}
	if !p.final && (i >= len(s) || (i+1 >= len(s) && s[i] == '.')) {
		// The number may go on in bytes not read yet.
		return errShort
	}
	if k == kInt {
		digits := intEnd - start
		if s[start] == '-' {
			digits--
		}
		if digits > maxIntDigits {
			return p.fail(start, "an integer of more than 4300 digits (Python's int_max_str_digits limit)")
		}
	}
	p.pos = i
	p.push(k, start, i, 0, 0)
	return nil
}

// safe marks the bytes a string holds as they are: printable ASCII but
// the quote and the backslash.
var safe = func() (t [256]bool) {
	for c := 0x20; c < 0x7F; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// safeSpan is the number of safe bytes b starts with. It looks at 8 bytes
// at a time: a byte below 0x20, a quote, a backslash, 0x7F or a byte with
// its high bit set stops it.
func safeSpan(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := stops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && safe[b[i]] {
		i++
	}
	return i
}

// stops flags, by its high bit, each byte of x that ends a safe span.
// The lowest flag is exact: borrows and carries spoil only the flags above
// the byte they come from, which is flagged itself. x-0x20 flags the bytes
// below 0x20 (and from 0xA0 up), x+1 those from 0x7F up, and (v-1)&^v the
// zero bytes of v: here x with the quote, or the backslash, taken away.
func stops(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, e := x^(ones*'"'), x^(ones*'\\')
	return ((x - ones*0x20) | (x + ones) | (q-ones)&^q | (e-ones)&^e) & highs
}

func unhex(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return rune(c|0x20-'a') + 10, true
	}
	return 0, false
}

// hex4 decodes the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	var v rune
	for _, c := range b[:4] {
		d, ok := unhex(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | d
	}
	return v, true
}

// str parses the string at p.pos.
func (p *parser) str() error {
	s := p.src
	open := p.pos
	i := open + 1
	// Most strings are short: their first 8 bytes are looked at here,
	// without a call.
	if i+8 <= len(s) {
		if m := stops(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			i += bits.TrailingZeros64(m) / 8
		} else {
			i += 8 + safeSpan(s[i+8:])
		}
	} else {
		i += safeSpan(s[i:])
	}
	safe := min(i-open-1, 0xFFFF) // the writer need not look at these again
	flags := uint8(fPlain)
	for ; ; i += safeSpan(s[i:]) {
		if i >= len(s) {
			return p.short(open, "unterminated string")
		}
		switch c := s[i]; {
		case c == '"':
			p.push(kString, open+1, i, flags, uint16(safe))
			p.pos = i + 1
			return nil
		case c == '\\':
			flags = fEscape
			if i+1 >= len(s) {
				return p.short(open, "unterminated string")
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					if _, ok := hex4(append(s[i+2:len(s):len(s)], "0000"...)); ok && !p.final {
						return errShort
					}
					return p.fail(i+1, `invalid \uXXXX escape`)
				}
				if _, ok := hex4(s[i+2:]); !ok {
					return p.fail(i+1, `invalid \uXXXX escape`)
				}
				i += 6
			default:
				return p.fail(i, `invalid \escape`)
			}
		case c < 0x20:
			return p.fail(i, "invalid control character in a string")
		case c == 0x7F:
			flags &^= fPlain
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size <= 1 {
				if !utf8.FullRune(s[i:]) && !p.final {
					return errShort
				}
				return p.fail(i, "invalid UTF-8 in a string")
			}
			flags &^= fPlain
			i += size
		}
	}
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.fail(p.pos, "nested more than 990 levels deep (Python's json fails with RecursionError)")
	}
	return nil
}

func (p *parser) object() error {
	if err := p.enter(); err != nil {
		return err
	}
	at := len(p.tape)
	start := p.pos
	p.push(kObject, start, start, 0, 0)
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return p.close(at)
	}
	for {
		if p.pos >= len(p.src) {
			return p.short(p.pos, "expecting property name enclosed in double quotes")
		}
		if p.src[p.pos] != '"' {
			return p.fail(p.pos, "expecting property name enclosed in double quotes")
		}
		if err := p.str(); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.src) {
			return p.short(p.pos, "expecting ':' delimiter")
		}
		if p.src[p.pos] != ':' {
			return p.fail(p.pos, "expecting ':' delimiter")
		}
		p.pos++
		if err := p.member(); err != nil {
			return err
		}
		// A comma or the closing brace right after the value, or else
		// after white space (more).
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
		} else if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			return p.close(at)
		} else if more, err := p.more('}'); !more {
			if err == nil {
				err = p.close(at)
			}
			return err
		}
		p.ws()
	}
}

// member parses a value in an object or an array: a string at once, which
// most are, anything else by value.
func (p *parser) member() error {
	if p.pos < len(p.src) && p.src[p.pos] == '"' {
		return p.str()
	}
	return p.value()
}

// more reads what follows a member or an element: a comma (true), or the
// closing bracket (false, nil).
func (p *parser) more(closing byte) (bool, error) {
	p.ws()
	if p.pos >= len(p.src) {
		return false, p.short(p.pos, "expecting ',' delimiter")
	}
	switch p.src[p.pos] {
	case ',':
		p.pos++
		return true, nil
	case closing:
		p.pos++
		return false, nil
	}
	return false, p.fail(p.pos, "expecting ',' delimiter")
}

func (p *parser) array() error {
	if err := p.enter(); err != nil {
		return err
	}
	at := len(p.tape)
	p.push(kArray, p.pos, p.pos, 0, 0)
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return p.close(at)
	}
	for {
		if err := p.member(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if more, err := p.more(']'); !more {
			if err == nil {
				err = p.close(at)
			}
			return err
		}
	}
}

func (p *parser) close(at int) error {
	p.depth--
	p.tape[at].end = int32(p.pos)
	p.tape[at].next = int32(len(p.tape))
	return nil
}

// parseDocument parses src as one JSON document, as json.loads does:
// white space around the value, nothing else.
func (p *parser) parseDocument(src []byte) error {
	p.src, p.pos, p.tape, p.depth, p.final = src, 0, p.tape[:0], 0, true
	if err := p.value(); err != nil {
		return err
	}
	p.ws()
	if p.pos < len(src) {
		return p.fail(p.pos, "extra data after the value")
	}
	return nil
}
