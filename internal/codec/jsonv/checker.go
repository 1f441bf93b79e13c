package jsonv

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A Checker checks and compacts JSON values as Check and Compacted do, in
// one pass over each value on the common case, keeping its memory from one
// value to the next. Its results are those of Check and Compacted, errors
// included: a value it cannot vouch for on its own (an escaped member name,
// a control character in a string, deep nesting, anything invalid) is
// handed to them. The zero Checker is ready to use; it is not safe for
// concurrent use.
type Checker struct {
	stack []checkFrame // the open arrays and objects
	// names holds the member names of the open objects, as offsets: the
	// start and end of each, one after the other (two appends of an int
	// each: an append of a pair is built on the stack and read back as
	// one 16-byte word, which stalls the store forwarding, costing as
	// much as the rest of the name's check).
	names []int
	// top: value notes here the members of the object it reads (its
	// own, not those of the objects within), when wantTop.
	top     []Member
	wantTop bool
	// nonFinite makes NaN, Infinity and -Infinity values (a Reader's
	// Options.NonFinite).
	nonFinite bool
	// strict refuses escaped lone surrogates, for Valid.
	strict bool
}

// Member is a member of a JSON object, as offsets in the object's bytes:
// its name, without its quotes, and its value, without the white space
// around it.
type Member struct {
	NameStart, NameEnd, ValueStart, ValueEnd int
}

// checkFrame is an open array or object. An object's names are
// Checker.names[names:], or set once it has more than linearNames.
type checkFrame struct {
	object bool
	names  int
	set    map[string]struct{}
	seen   uint64 // a bit for each name of the object (nameBit)
}

// nameBit is the bit of a member name in checkFrame.seen: a name whose bit
// is not set yet is not among the object's names, and need not be looked
// for among them.
func nameBit(name []byte) uint64 {
	x := uint64(len(name))
	if len(name) > 0 {
		x |= uint64(name[0])<<8 | uint64(name[len(name)/2])<<16 | uint64(name[len(name)-1])<<24
	}
	return 1 << (x * 0x9E3779B97F4A7C15 >> 58)
}

// NameBit is the bit of a member name in a 64-bit set of an object's
// names, as the Checker keeps one: a name whose bit is not set in the set
// is not among the names added to it, and need not be looked for among
// them (internal/sign finds repeated names so).
func NameBit(name []byte) uint64 { return nameBit(name) }

// linearNames is the number of member names an object's duplicates are
// looked for among one by one; beyond it they go into a map.
const linearNames = 32

// maxCheckDepth is the nesting the Checker follows; deeper values are left
// to Check (whose own limit is far above).
const maxCheckDepth = 512

// Compacted checks src as Check does and returns its compact form as
// Compacted(buf, src) does: src itself when it is compact already,
// otherwise its compact form appended to buf[:0]. On error, the error is
// Check's and the slice is nil.
func (c *Checker) Compacted(buf, src []byte) ([]byte, error) {
	k, err := c.check(src)
	if err != nil {
		return nil, err
	}
	if k == len(src) {
		return src, nil
	}
	return appendCompact(append(buf[:0], src[:k]...), src, k), nil
}

// Valid reports whether src is exactly one JSON value as jsontext reads
// it with its default options (jsontext.Value.IsValid): white space around
// it allowed, no duplicate names, valid UTF-8 and no escaped lone
// surrogate. It is IsValid's answer, from the Checker's own pass on the
// common case (the Checker's memory kept: no allocation); a value it
// cannot vouch for is left to IsValid.
func (c *Checker) Valid(src []byte) bool {
	c.strict = true
	_, ok := c.scan(src)
	c.strict = false
	return ok || jsontext.Value(src).IsValid()
}

// CompactInPlace checks b as Check does and rewrites it in its compact form
// as CompactInPlace(b) does, returning the shortened slice. On error, b is
// left as it was and the error is Check's.
func (c *Checker) CompactInPlace(b []byte) ([]byte, error) {
	k, err := c.check(b)
	if err != nil {
		return nil, err
	}
	return appendCompact(b[:k], b, k), nil
}

// check is Check(src), and the length of src's compact prefix, as
// compactPrefix(src) gives it, when src is valid.
func (c *Checker) check(src []byte) (int, error) {
	if k, ok := c.scan(src); ok {
		return k, nil
	}
	if err := Check(src); err != nil {
		return 0, err
	}
	return compactPrefix(src), nil
}

// scan reads src as one JSON value and reports ok when it is valid in the
// sense of Check, with k the length of its compact prefix (as
// compactPrefix counts it). ok is false for every invalid src, and for
// valid ones it does not follow: an object member whose name holds an
// escape (names are compared as they are written), a control character in
// a string, nesting deeper than maxCheckDepth.
func (c *Checker) scan(src []byte) (k int, ok bool) {
	end, k, ok := c.value(src)
	if !ok {
		return 0, false
	}
	if skipSpaceAt(src, end, &k) != len(src) {
		return 0, false
	}
	if k < 0 {
		k = len(src)
	}
	return k, true
}

// value reads the JSON value src starts with (after white space) and
// reports ok when it is valid in the sense of Check, as scan does,
// with end the index after it (what follows is not looked at) and k the
// length of its compact prefix, or -1 when the whole value is compact.
// A scalar at the end of src may go on in the bytes after it: value
// takes it as it is.
func (c *Checker) value(src []byte) (end, k int, ok bool) {
	c.stack, c.names = c.stack[:0], c.names[:0]
	defer func() {
		for i := range c.stack {
			c.stack[i].set = nil
		}
	}()
	k = -1 // no change seen yet
	n := len(src)
	i := 0
	c.top = c.top[:0]
	// Each turn reads one value at i, after white space, then what
	// follows it up to the next value (a ',' or ':'), or closes
	// containers.
	for {
		// White space before a value.
		i = skipSpaceAt(src, i, &k)
		if i >= n {
			return 0, 0, false
		}
		if len(c.stack) == 1 && c.wantTop && c.stack[0].object {
			c.top[len(c.top)-1].ValueStart = i
		}
		switch src[i] {
		case '{', '[':
			if len(c.stack) >= maxCheckDepth {
				return 0, 0, false
			}
			obj := src[i] == '{'
			c.stack = append(c.stack, checkFrame{object: obj, names: len(c.names)})
			i++
			i = skipSpaceAt(src, i, &k)
			if i >= n {
				return 0, 0, false
			}
			if obj && src[i] == '}' || !obj && src[i] == ']' {
				i++
				c.pop()
				break // an empty container: a whole value
			}
			if obj {
				var good bool
				if i, good = c.name(src, i, &k); !good {
					return 0, 0, false
				}
			}
			continue // its first value
		case '"':
			var good bool
			if i, good = c.scanString(src, i, &k, false); !good {
				return 0, 0, false
			}
		case 't':
			if !bytes.HasPrefix(src[i:], []byte("true")) {
				return 0, 0, false
			}
			i += 4
		case 'f':
			if !bytes.HasPrefix(src[i:], []byte("false")) {
				return 0, 0, false
			}
			i += 5
		case 'n':
			if !bytes.HasPrefix(src[i:], []byte("null")) {
				return 0, 0, false
			}
			i += 4
		default:
			var good bool
			start := i
			if i, good = scanNumber(src, i); !good {
				// NaN, Infinity, -Infinity: values to a Reader with
				// Options.NonFinite.
				m := NonFiniteLen(src[start:])
				if m == 0 || !c.nonFinite {
					return 0, 0, false
				}
				i = start + m
			}
		}
		// After a value: a separator, the end of containers, or the end.
		for {
			if len(c.stack) == 0 {
				return i, k, true
			}
			if len(c.stack) == 1 && c.wantTop && c.stack[0].object {
				c.top[len(c.top)-1].ValueEnd = i
			}
			i = skipSpaceAt(src, i, &k)
			if i >= n {
				return 0, 0, false
			}
			top := &c.stack[len(c.stack)-1]
			switch {
			case src[i] == ',':
				i++
				if top.object {
					i = skipSpaceAt(src, i, &k)
					var good bool
					if i, good = c.name(src, i, &k); !good {
						return 0, 0, false
					}
				}
			case top.object && src[i] == '}', !top.object && src[i] == ']':
				i++
				c.pop()
				continue
			default:
				return 0, 0, false
			}
			break
		}
	}
}

func (c *Checker) pop() {
	top := &c.stack[len(c.stack)-1]
	if top.object {
		c.names = c.names[:top.names]
	}
	top.set = nil
	c.stack = c.stack[:len(c.stack)-1]
}

// name reads an object member's name at i, the ':' after it and the white
// space after that, checks the name against the object's others, and
// returns where the member's value starts.
func (c *Checker) name(src []byte, i int, k *int) (int, bool) {
	n := len(src)
	if i >= n || src[i] != '"' {
		return 0, false
	}
	j, ok := c.scanString(src, i, k, true)
	if !ok {
		return 0, false // invalid, or an escape: left to Check
	}
	start := i + 1
	j-- // the closing quote
	name := src[start:j]
	top := &c.stack[len(c.stack)-1]
	if len(c.stack) == 1 && c.wantTop {
		c.top = append(c.top, Member{}) // (set in place: see names)
		m := &c.top[len(c.top)-1]
		m.NameStart, m.NameEnd = start, j
	}
	switch {
	case top.set != nil:
		if _, dup := top.set[string(name)]; dup {
			return 0, false
		}
		top.set[string(name)] = struct{}{}
	default:
		if bit := nameBit(name); top.seen&bit == 0 {
			top.seen |= bit
		} else {
			for o := c.names[top.names:]; len(o) >= 2; o = o[2:] {
				if o[1]-o[0] == len(name) && bytes.Equal(src[o[0]:o[1]], name) {
					return 0, false
				}
			}
		}
		c.names = append(c.names, start, j)
		if len(c.names)-top.names > 2*linearNames {
			top.set = make(map[string]struct{}, 2*linearNames)
			for o := c.names[top.names:]; len(o) >= 2; o = o[2:] {
				top.set[string(src[o[0]:o[1]])] = struct{}{}
			}
			c.names = c.names[:top.names]
		}
	}
	i = j + 1
	i = skipSpaceAt(src, i, k)
	if i >= n || src[i] != ':' {
		return 0, false
	}
	i++
	return i, true
}

// scanString reads the string at i (its opening quote) and returns the
// index after its closing quote. It fails on a control character, an
// escape that is not one, and invalid UTF-8. k is set to the string's
// start, when it is still unset, where compactPrefix stops: an escape that
// the compact form writes otherwise (\/ and \u).
//
// A member name (name) fails on any escape: names are compared as they are
// written.
func (c *Checker) scanString(src []byte, i int, k *int, name bool) (int, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := len(src)
	start := i
	i++
	for {
		// Eight bytes at a time up to the next quote, backslash, control
		// character or non-ASCII byte.
		for ; i+8 <= n; i += 8 {
			x := binary.LittleEndian.Uint64(src[i:])
			q, e := x^(ones*'"'), x^(ones*'\\')
			// A zero byte in q or e, a byte below 0x20 in x, or a high
			// bit: the lowest flag set is exact (borrows only spoil the
			// flags above it).
			m := ((q - ones) &^ q) | ((e - ones) &^ e) | ((x - ones*0x20) &^ x) | x
			if m &= highs; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
		}
		if i >= n {
			return 0, false
		}
		switch b := src[i]; {
		case b == '"':
			return i + 1, true
		case b == '\\':
			if name || i+1 >= n {
				return 0, false
			}
			switch src[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case '/':
				if *k < 0 {
					*k = start
				}
				i += 2
			case 'u':
				r, ok := Hex4(src[i:])
				if !ok {
					return 0, false
				}
				if *k < 0 {
					*k = start
				}
				if c.strict && r >= 0xD800 && r < 0xE000 {
					// Valid's jsontext takes a surrogate only in a pair.
					if r, m := DecodeEscape(src[i:]); m != 12 || r < 0x10000 {
						return 0, false
					}
					i += 6
				}
				i += 6
			default:
				return 0, false
			}
		case b < 0x20:
			return 0, false
		case b >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false
			}
			i += size
		default:
			i++ // an ASCII byte in the last 7
		}
	}
}

// scanNumber reads the number at i and returns the index after it.
func scanNumber(src []byte, i int) (int, bool) {
	n := len(src)
	if i < n && src[i] == '-' {
		i++
	}
	switch {
	case i < n && src[i] == '0':
		i++
	case i < n && src[i] >= '1' && src[i] <= '9':
		for i++; i < n && isDigit(src[i]); i++ {
		}
	default:
		return 0, false
	}
	if i < n && src[i] == '.' {
		i++
		if i >= n || !isDigit(src[i]) {
			return 0, false
		}
		for i++; i < n && isDigit(src[i]); i++ {
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < n && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= n || !isDigit(src[i]) {
			return 0, false
		}
		for i++; i < n && isDigit(src[i]); i++ {
		}
	}
	return i, true
}

// skipSpaceAt passes over the white space at i and returns the index after
// it; *k is set to the first such byte when it is still unset (-1).
func skipSpaceAt(src []byte, i int, k *int) int {
	// A byte above ' ' is none (most often the first one, in compact
	// JSON): one comparison, not four.
	for i < len(src) && src[i] <= ' ' && isSpace(src[i]) {
		if *k < 0 {
			*k = i
		}
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
