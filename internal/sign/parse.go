package sign

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// The parser reads JSON the way CPython's json.loads does, so that what it
// accepts, and the values it sees, are Python's: NaN, Infinity and
// -Infinity are values; a \u escape of a lone surrogate is a string
// character; an escaped surrogate pair is one character; duplicate names
// are kept (the last one wins where a value is looked up), and flagged
// (fRepeat: see duplicate); an integer of
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

// fRepeat, on the root node, says that an object of the value may hold a
// name twice: one did, or one has a name with an escape or more names
// than the parser compares (see duplicate).
const fRepeat = 1 << 2

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
	open  []int32 // the tape indexes of the containers being parsed, innermost last
	names []names // the objects being parsed, innermost last
	final bool    // src is all there is: its end is the end of the input
}

// names are the names of an object being parsed, as a set of their
// jsonv.NameBit bits, and how many (up to linearNames: past it they are
// not looked at, and the root is flagged).
type names struct {
	seen uint64
	n    int
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

func (p *parser) ws() { p.pos = p.skipSpace(p.src, p.pos) }

// skipSpace is the index of the first byte of s from i on that is not
// white space: i at once in the usual case (compact JSON), and without a
// call for json.dumps' one space after ',' and ':'.
func (p *parser) skipSpace(s []byte, i int) int {
	if i < len(s) && s[i] <= ' ' {
		return jsonv.SkipSpace(s, i)
	}
	return i
}

// value parses the value at p.pos (after white space), and moves p.pos
// past it. It is one loop rather than a call for each value: the position
// stays in a register, and the containers open are a stack of tape indexes.
func (p *parser) value() error {
	p.names = p.names[:0]
	open, err := p.values(p.open[:0])
	p.open = open[:0] // kept for the next value
	return err
}

// values is value, with the stack of open containers given and returned.
func (p *parser) values(open []int32) ([]int32, error) {
	s, i := p.src, p.pos
	var (
		err     error
		at      int32
		closing byte
	)
value: // a value at i, after white space
	i = p.skipSpace(s, i)
	if i >= len(s) {
		return open, p.short(i, "expecting value")
	}
	switch c := s[i]; c {
	case '{', '[':
		if len(open) >= MaxDepth {
			return open, p.fail(i, "nested more than 990 levels deep (Python's json fails with RecursionError)")
		}
		k := kObject
		closing = '}'
		if c == '[' {
			k, closing = kArray, ']'
		}
		open = append(open, int32(len(p.tape)))
		p.push(k, i, i, 0, 0)
		i = p.skipSpace(s, i+1)
		if i < len(s) && s[i] == closing {
			i++
			p.close(open[len(open)-1], i)
			open = open[:len(open)-1]
			goto after
		}
		if k == kArray {
			goto value
		}
		p.names = append(p.names, names{})
		goto name
	case '"':
		i, err = p.str(i)
	case 't':
		i, err = p.literal(i, "true", kTrue)
	case 'f':
		i, err = p.literal(i, "false", kFalse)
	case 'n':
		i, err = p.literal(i, "null", kNull)
	case 'N':
		i, err = p.literal(i, "NaN", kNaN)
	case 'I':
		i, err = p.literal(i, "Infinity", kInf)
	case '-':
		if i+1 < len(s) && s[i+1] == 'I' {
			i, err = p.literal(i, "-Infinity", kNegInf)
		} else {
			i, err = p.number(i)
		}
	default:
		if c < '0' || c > '9' {
			return open, p.fail(i, "expecting value")
		}
		i, err = p.number(i)
	}
	if err != nil {
		return open, err
	}
after: // a value ended at i: what follows it in the container it is in
	if len(open) == 0 {
		p.pos = i
		return open, nil
	}
	i = p.skipSpace(s, i)
	if i >= len(s) {
		return open, p.short(i, "expecting ',' delimiter")
	}
	at = open[len(open)-1]
	closing = ']'
	if p.tape[at].kind == kObject {
		closing = '}'
	}
	switch s[i] {
	case ',':
		if closing == ']' {
			i++
			goto value
		}
		i = p.skipSpace(s, i+1)
		goto name
	case closing:
		i++
		p.close(at, i)
		open = open[:len(open)-1]
		if closing == '}' {
			p.names = p.names[:len(p.names)-1]
		}
		goto after
	}
	return open, p.fail(i, "expecting ',' delimiter")
name: // in an object, a member's name at i, after white space
	if i >= len(s) {
		return open, p.short(i, "expecting property name enclosed in double quotes")
	}
	if s[i] != '"' {
		return open, p.fail(i, "expecting property name enclosed in double quotes")
	}
	if i, err = p.str(i); err != nil {
		return open, err
	}
	// The name against the object's others: the common case here, the
	// rest in repeat.
	if ns := &p.names[len(p.names)-1]; ns.n < linearNames {
		t := &p.tape[len(p.tape)-1]
		bit := jsonv.NameBit(s[t.start:t.end])
		ns.n++
		if ns.seen&bit != 0 || t.flags&fEscape != 0 {
			p.repeat(open[len(open)-1])
		}
		ns.seen |= bit
	} else {
		p.tape[0].flags |= fRepeat
	}
	i = p.skipSpace(s, i)
	if i >= len(s) {
		return open, p.short(i, "expecting ':' delimiter")
	}
	if s[i] != ':' {
		return open, p.fail(i, "expecting ':' delimiter")
	}
	i++
	goto value
}

// repeat flags the root (fRepeat) when the name just parsed, the last
// node, is among the names before it of the object at tape index obj, or
// has an escape (names are compared as json.loads reads them: duplicate
// does it). values calls it when the name's bit is in the object's set, and
// flags an object of more than linearNames names itself.
func (p *parser) repeat(obj int32) {
	last := int32(len(p.tape) - 1)
	n := &p.tape[last]
	if n.flags&fEscape != 0 {
		p.tape[0].flags |= fRepeat
		return
	}
	name := p.src[n.start:n.end]
	for j := obj + 1; j < last; j = p.tape[j+1].next {
		if string(p.src[p.tape[j].start:p.tape[j].end]) == string(name) {
			p.tape[0].flags |= fRepeat
			return
		}
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

// literal parses the word at start, and returns where it ends.
func (p *parser) literal(start int, word string, k kind) (int, error) {
	n := min(len(word), len(p.src)-start)
	if string(p.src[start:start+n]) != word[:n] {
		return 0, p.fail(start, "expecting value")
	}
	if n < len(word) {
		return 0, p.short(start, "expecting value")
	}
	p.push(k, start, start+n, 0, 0)
	return start + n, nil
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// number parses Python's number grammar, -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?,
// stopping where it stops: "1." is 1 followed by a stray ".".
func (p *parser) number(start int) (int, error) {
	s := p.src
	i := start
	if s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return 0, p.short(start, "expecting value")
	case s[i] == '0':
		i++
	case digit(s[i]):
		for i++; i < len(s) && digit(s[i]); i++ {
		}
	default:
		return 0, p.fail(start, "expecting value")
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
			return 0, errShort
		}
	}
	if !p.final && (i >= len(s) || (i+1 >= len(s) && s[i] == '.')) {
		// The number may go on in bytes not read yet.
		return 0, errShort
	}
	if k == kInt {
		digits := intEnd - start
		if s[start] == '-' {
			digits--
		}
		if digits > maxIntDigits {
			return 0, p.fail(start, "an integer of more than 4300 digits (Python's int_max_str_digits limit)")
		}
	}
	p.push(k, start, i, 0, 0)
	return i, nil
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

// str parses the string at open, and returns where it ends.
func (p *parser) str(open int) (int, error) {
	s := p.src
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
			return 0, p.short(open, "unterminated string")
		}
		switch c := s[i]; {
		case c == '"':
			p.push(kString, open+1, i, flags, uint16(safe))
			return i + 1, nil
		case c == '\\':
			flags = fEscape
			if i+1 >= len(s) {
				return 0, p.short(open, "unterminated string")
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					if _, ok := jsonv.ParseHex4(append(s[i+2:len(s):len(s)], "0000"...)); ok && !p.final {
						return 0, errShort
					}
					return 0, p.fail(i+1, `invalid \uXXXX escape`)
				}
				if _, ok := jsonv.ParseHex4(s[i+2:]); !ok {
					return 0, p.fail(i+1, `invalid \uXXXX escape`)
				}
				i += 6
			default:
				return 0, p.fail(i, `invalid \escape`)
			}
		case c < 0x20:
			return 0, p.fail(i, "invalid control character in a string")
		case c == 0x7F:
			flags &^= fPlain
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size <= 1 {
				if !utf8.FullRune(s[i:]) && !p.final {
					return 0, errShort
				}
				return 0, p.fail(i, "invalid UTF-8 in a string")
			}
			flags &^= fPlain
			i += size
		}
	}
}

// close ends the container at tape index at, whose closing bracket ends
// at end.
func (p *parser) close(at int32, end int) {
	p.tape[at].end = int32(end)
	p.tape[at].next = int32(len(p.tape))
}

// parseDocument parses src as one JSON document, as json.loads does:
// white space around the value, nothing else.
func (p *parser) parseDocument(src []byte) error {
	p.src, p.pos, p.tape, p.final = src, 0, p.tape[:0], true
	if err := p.value(); err != nil {
		return err
	}
	p.ws()
	if p.pos < len(src) {
		return p.fail(p.pos, "extra data after the value")
	}
	return nil
}
