package query

import (
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// ErrInvalid is returned by Decode for bytes that are not one JSON value.
var ErrInvalid = errors.New("query: invalid JSON value")

// maxDepth bounds the nesting Decode follows (jq's own limit is 10000).
const maxDepth = 10000

// Decode returns the gojq value of one JSON value, as toonkit's readers give
// it (jsonv.Reader, the records of every format): objects as
// map[string]any, arrays as []any, integers as int (or *big.Int when they do
// not fit, so that they stay exact), other numbers as json.Number holding
// their literal (so that 1.50 passes through as 1.50; gojq computes with
// them as float64), strings, booleans and nil. The key order of objects is
// remembered in o (which may be nil). White space around and inside the
// value is allowed; anything else that is not JSON is ErrInvalid.
func Decode(b []byte, o *Order) (any, error) {
	d := Decoder{Order: o}
	return d.Decode(b)
}

// A Decoder decodes values as Decode does, reusing what it learns from one
// value for the next: the key strings of objects are shared between
// values, and their order is remembered in Order.
type Decoder struct {
	Order *Order
	// Valid says the values are valid UTF-8 (toonkit's readers check it),
	// so that strings are not checked again. Invalid UTF-8 given all the
	// same is written as U+FFFD by the Encoder, never a panic.
	Valid bool
	// Need, when not nil, is what the filter reads of each value (needOf):
	// the rest is checked as JSON, as strictly, and passed over.
	Need   *Need
	d      decoder
	intern map[string]string
	sizes  map[string]int
}

// maxInterned bounds the key strings a Decoder shares.
const maxInterned = 1 << 14

// Decode decodes one JSON value.
func (dec *Decoder) Decode(b []byte) (any, error) {
	d := dec.start(b, false)
	defer func() { d.b = nil }()
	d.skip()
	v, ok := d.needed(0, d.need)
	if !ok {
		return nil, ErrInvalid
	}
	d.skip()
	if d.i != len(d.b) {
		return nil, ErrInvalid
	}
	return v, nil
}

func (dec *Decoder) start(b []byte, partial bool) *decoder {
	if dec.intern == nil {
		dec.intern, dec.sizes = map[string]string{}, map[string]int{}
	}
	d := &dec.d
	d.b, d.i, d.o, d.valid, d.intern, d.sizes, d.need = b, 0, dec.Order, dec.Valid, dec.intern, dec.sizes, dec.Need
	d.keys, d.partial, d.short = d.keys[:0], partial, false
	return d
}

// prefix decodes the value that b starts with (b holds no white space
// before it), for a Stream: n is the bytes it takes. With partial (more of
// the stream may follow b), short says b ended within the value: give it
// more.
func (dec *Decoder) prefix(b []byte, partial bool) (v any, n int, short bool, err error) {
	d := dec.start(b, partial)
	defer func() { d.b = nil }()
	v, ok := d.needed(0, d.need)
	if !ok {
		return nil, 0, d.short, ErrInvalid
	}
	return v, d.i, false, nil
}

type decoder struct {
	b      []byte
	i      int
	o      *Order
	buf    []byte
	valid  bool
	need   *Need
	intern map[string]string
	keys   []string       // the keys of the objects being read, innermost last
	sizes  map[string]int // the member count of the last object, by its first key
	// partial says b is the start of a stream that goes on; short then
	// says the value failed only because b ended within it.
	partial, short bool
}

// cut notes that the value ran past the end of b; it returns false, for
// the failure it is.
func (d *decoder) cut() bool {
	d.short = d.partial
	return false
}

func (d *decoder) skip() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) {
		return nil, d.cut()
	}
	if depth > maxDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth, nil)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	}
	return nil, false
}

func (d *decoder) word(w string) bool {
	if n := len(d.b) - d.i; n < len(w) {
		if string(d.b[d.i:]) == w[:n] {
			return d.cut()
		}
		return false
	}
	if string(d.b[d.i:d.i+len(w)]) != w {
		return false
	}
	d.i += len(w)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	d.i++ // {
	d.skip()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return map[string]any{}, true
	}
	var m map[string]any
	first := len(d.keys) // this object's keys are d.keys[first:]
	var firstKey string
	for {
		if d.i >= len(d.b) {
			return nil, d.cut()
		}
		if d.b[d.i] != '"' {
			return nil, false
		}
		key, ok := d.key()
		if !ok {
			return nil, false
		}
		if m == nil {
			// as many members as the last object that started with this
			// key: a map grown member by member costs its copies
			firstKey = key
			m = make(map[string]any, d.sizes[key])
		}
		if !d.colon() {
			return nil, false
		}
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		n := len(m)
		m[key] = v // a repeated name: the last value, as jq
		if len(m) > n {
			d.keys = append(d.keys, key)
		}
		end, ok := d.after('}')
		if !ok {
			return nil, false
		}
		if end {
			if d.sizes != nil && d.sizes[firstKey] != len(m) {
				if len(d.sizes) >= maxInterned {
					clear(d.sizes)
				}
				d.sizes[firstKey] = len(m)
			}
			d.o.remember(m, d.keys[first:])
			d.keys = d.keys[:first]
			return m, true
		}
	}
}

// key reads an object's key, shared with the same key of earlier values.
func (d *decoder) key() (string, bool) {
	start := d.i + 1
	end := start
	for end < len(d.b) && d.b[end] != '"' && d.b[end] != '\\' && d.b[end] >= 0x20 {
		end++
	}
	if d.intern != nil && end < len(d.b) && d.b[end] == '"' {
		if k, ok := d.intern[string(d.b[start:end])]; ok {
			d.i = end + 1
			return k, true
		}
	}
	v, ok := d.str()
	if !ok {
		return "", false
	}
	k := v.(string)
	if d.intern != nil && end < len(d.b) && d.b[end] == '"' {
		if len(d.intern) >= maxInterned {
			clear(d.intern)
		}
		d.intern[k] = k
	}
	return k, true
}

// str reads a string; invalid UTF-8 becomes U+FFFD, as jq reads it.
func (d *decoder) str() (any, bool) {
	d.i++ // "
	start := d.i
	var hi byte
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '"' {
			s := d.b[start:d.i]
			d.i++
			if hi >= utf8.RuneSelf && !d.valid && !utf8.Valid(s) {
				return string([]rune(string(s))), true
			}
			return string(s), true
		}
		if c == '\\' {
			return d.escaped(start, true)
		}
		if c < 0x20 {
			return nil, false
		}
		hi |= c
		d.i++
	}
	return nil, d.cut()
}

// escaped reads the rest of a string that holds an escape at d.i; without
// keep it only checks it (the value is nil).
func (d *decoder) escaped(start int, keep bool) (any, bool) {
	var buf []byte
	if keep {
		buf = append(d.buf[:0], d.b[start:d.i]...)
	}
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !keep {
				return nil, true
			}
			d.buf = buf
			if !d.valid && !utf8.Valid(buf) {
				return string([]rune(string(buf))), true
			}
			return string(buf), true
		case c < 0x20:
			return nil, false
		case c != '\\':
			if keep {
				buf = append(buf, c)
			}
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return nil, d.cut()
		}
		switch e := d.b[d.i+1]; e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			if keep {
				buf = append(buf, jsonv.ShortEscape(e))
			}
			d.i += 2
		case 'u':
			r, n := jsonv.DecodeEscape(d.b[d.i:])
			if len(d.b)-d.i < 6 || r >= 0xD800 && r < 0xDC00 && n == 6 && len(d.b)-d.i < 12 && d.partial {
				return nil, d.cut() // the escape, or its low surrogate, may follow
			}
			if n == 0 {
				return nil, false
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError // a lone surrogate, as jq reads it
			}
			if keep {
				buf = utf8.AppendRune(buf, r)
			}
			d.i += n
		default:
			return nil, false
		}
	}
	return nil, d.cut()
}

// numberEnd reads past a number, checking it: digits is the index of its
// first digit; integer says it has neither fraction nor exponent.
func (d *decoder) numberEnd() (digits int, integer, ok bool) {
	if d.partial {
		j := d.i
		for j < len(d.b) && (d.b[j] >= '0' && d.b[j] <= '9' || d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E' || d.b[j] == '+' || d.b[j] == '-') {
			j++
		}
		if j == len(d.b) {
			return 0, false, d.cut() // more digits may follow
		}
	}
	if d.b[d.i] == '-' {
		d.i++
	}
	digits = d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || d.b[digits] == '0' && d.i-digits > 1 {
		return 0, false, false
	}
	integer = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		integer = false
		d.i++
		f := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		if d.i == f {
			return 0, false, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		integer = false
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		f := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		if d.i == f {
			return 0, false, false
		}
	}
	return digits, integer, true
}

func (d *decoder) number() (any, bool) {
	start := d.i
	digits, integer, ok := d.numberEnd()
	if !ok {
		return nil, false
	}
	lit := d.b[start:d.i]
	if !integer || string(lit) == "-0" {
		return json.Number(lit), true
	}
	if len(lit) < 19 {
		n := 0
		for _, c := range lit[digits-start:] {
			n = n*10 + int(c-'0')
		}
		if digits > start {
			n = -n
		}
		return n, true
	}
	if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil && int64(int(n)) == n {
		return int(n), true
	}
	bi, _ := new(big.Int).SetString(string(lit), 10)
	return bi, true
}

// needed reads a value of which n is needed (nil: all of it): the members
// of an object that n does not read are checked and passed over.
func (d *decoder) needed(depth int, n *Need) (any, bool) {
	if n == nil || n.all || d.i >= len(d.b) || depth > maxDepth {
		return d.value(depth)
	}
	switch d.b[d.i] {
	case '{':
		return d.neededObject(depth, n)
	case '[':
		if n.elems != nil {
			return d.array(depth, n.elems)
		}
	}
	return d.value(depth) // an array read by name, a scalar: whole
}

func (d *decoder) neededObject(depth int, n *Need) (any, bool) {
	d.i++ // {
	d.skip()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return map[string]any{}, true
	}
	size := len(n.keys)
	if n.elems != nil {
		size = 0
	}
	m := make(map[string]any, size)
	for {
		if d.i >= len(d.b) {
			return nil, d.cut()
		}
		if d.b[d.i] != '"' {
			return nil, false
		}
		sub, key, ok := d.neededKey(n)
		if !ok {
			return nil, false
		}
		if !d.colon() {
			return nil, false
		}
		if sub == nil {
			if !d.skipValue(depth + 1) {
				return nil, false
			}
		} else {
			v, ok := d.needed(depth+1, sub)
			if !ok {
				return nil, false
			}
			m[key] = v // a repeated name: the last value, as jq
		}
		// at the end, no key order to remember: the filter reads this
		// object by name or iterates it, and never writes it (nor a copy)
		if end, ok := d.after('}'); !ok || end {
			return m, ok
		}
	}
}

// neededKey reads a member's name and returns what of its value is needed
// (nil: none of it) and, when some is, the name.
func (d *decoder) neededKey(n *Need) (*Need, string, bool) {
	if n.elems != nil {
		k, ok := d.key()
		return n.elems, k, ok
	}
	start := d.i + 1
	end := start
	for end < len(d.b) && d.b[end] != '"' && d.b[end] != '\\' && d.b[end] >= 0x20 {
		end++
	}
	if end < len(d.b) && d.b[end] == '"' {
		sub := n.keys[string(d.b[start:end])]
		if sub == nil {
			d.i = end + 1
			return nil, "", true
		}
		k, ok := d.key()
		return sub, k, ok
	}
	v, ok := d.str() // escaped, or cut short
	if !ok {
		return nil, "", false
	}
	k := v.(string)
	return n.keys[k], k, true
}

// array reads an array, each element of which elem is needed (nil: all).
func (d *decoder) array(depth int, elem *Need) (any, bool) {
	d.i++ // [
	d.skip()
	a := []any{}
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.needed(depth+1, elem)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if end, ok := d.after(']'); !ok || end {
			return a, ok
		}
	}
}

// colon reads the colon after a member's name (d.cut at the end of the
// bytes).
func (d *decoder) colon() bool {
	d.skip()
	if d.i >= len(d.b) {
		return d.cut()
	}
	if d.b[d.i] != ':' {
		return false
	}
	d.i++
	d.skip()
	return true
}

// after reads what follows a member or an element: closing ends the
// composite (end), a comma goes on to the next; ok is false for anything
// else (d.cut for the end of the bytes).
func (d *decoder) after(closing byte) (end, ok bool) {
	d.skip()
	if d.i >= len(d.b) {
		return false, d.cut()
	}
	switch d.b[d.i] {
	case closing:
		d.i++
		return true, true
	case ',':
		d.i++
		d.skip()
		return false, true
	}
	return false, false
}

// skipValue checks a value as value reads it, and passes over it.
func (d *decoder) skipValue(depth int) bool {
	if d.i >= len(d.b) {
		return d.cut()
	}
	if depth > maxDepth {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{', c == '[':
		return d.skipComposite(depth, c)
	case c == '"':
		return d.skipStr()
	case c == '-' || c >= '0' && c <= '9':
		_, _, ok := d.numberEnd()
		return ok
	case c == 't':
		return d.word("true")
	case c == 'f':
		return d.word("false")
	case c == 'n':
		return d.word("null")
	}
	return false
}

// skipComposite passes over an object (open '{') or an array.
func (d *decoder) skipComposite(depth int, open byte) bool {
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	d.i++
	d.skip()
	if d.i < len(d.b) && d.b[d.i] == closing {
		d.i++
		return true
	}
	for {
		if open == '{' {
			if d.i >= len(d.b) {
				return d.cut()
			}
			if d.b[d.i] != '"' || !d.skipStr() {
				return false
			}
			if !d.colon() {
				return false
			}
		}
		if !d.skipValue(depth + 1) {
			return false
		}
		if end, ok := d.after(closing); !ok || end {
			return ok
		}
	}
}

// skipStr checks a string as str reads it, and passes over it.
func (d *decoder) skipStr() bool {
	d.i++ // "
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return true
		case c == '\\':
			_, ok := d.escaped(start, false)
			return ok
		case c < 0x20:
			return false
		}
		d.i++
	}
	return d.cut()
}
