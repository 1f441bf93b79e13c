package sign

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Style is a json.dumps call: sort_keys, and the separators.
type Style struct {
	SortKeys bool // sort_keys=True
	Compact  bool // separators=(',', ':') rather than (', ', ': ')
}

// Canonical appends what CPython's json.dumps(json.loads(src), ...) with
// the style returns (ensure_ascii on, as by default), or the error
// json.loads would raise.
func Canonical(dst, src []byte, st Style) ([]byte, error) {
	var p parser
	if err := p.parseDocument(src); err != nil {
		return dst, err
	}
	w := writer{src: src, tape: p.tape, style: st}
	return w.value(dst, 0), nil
}

// Canonicalizer is Canonical for many documents in turn: it keeps its
// buffers from one call to the next, so that canonicalising the elements
// of a long array one by one (internal/seal checks a seal's HMAC so, without
// decoding it) allocates nothing once they are large enough. The zero
// Canonicalizer is ready to use; it is not safe for concurrent use.
type Canonicalizer struct {
	p parser
	w writer
}

// Append is Canonical(dst, src, st).
func (c *Canonicalizer) Append(dst, src []byte, st Style) ([]byte, error) {
	if err := c.p.parseDocument(src); err != nil {
		return dst, err
	}
	c.w = writer{src: src, tape: c.p.tape, style: st, mem: c.w.mem[:0], names: c.w.names[:0]}
	return c.w.value(dst, 0), nil
}

// writer writes the values of a tape as json.dumps does.
type writer struct {
	src   []byte
	tape  []node
	style Style
	mem   []member // the members of the objects being written, a stack
	names []byte   // the names with escapes, decoded
	skip  func(key []byte) bool
}

// member is one name and value of an object being written. It holds no
// pointer, so that moving members about is plain copying.
type member struct {
	pre      uint64 // the name's first 8 bytes, big-endian, zeros after its end: see keyLess
	at       int32  // the tape index of the name; the value follows it
	last     int32  // for unsorted output: the tape index of the name whose value is written (the last duplicate)
	from, to int32  // the name's bytes in src, or in names when it holds escapes
}

// name is the member's name, decoded to (WTF-8) bytes: byte order is
// Python's code point order.
func (w *writer) name(m *member) []byte {
	if w.tape[m.at].flags&fEscape != 0 {
		return w.names[m.from:m.to]
	}
	return w.src[m.from:m.to]
}

// value appends the value at tape index i.
func (w *writer) value(dst []byte, i int32) []byte {
	n := &w.tape[i]
	switch n.kind {
	case kNull:
		return append(dst, "null"...)
	case kTrue:
		return append(dst, "true"...)
	case kFalse:
		return append(dst, "false"...)
	case kNaN:
		return append(dst, "NaN"...)
	case kInf:
		return append(dst, "Infinity"...)
	case kNegInf:
		return append(dst, "-Infinity"...)
	case kInt:
		lit := w.src[n.start:n.end]
		if len(lit) == 2 && lit[0] == '-' && lit[1] == '0' {
			return append(dst, '0')
		}
		return append(dst, lit...)
	case kFloat:
		return appendFloat(dst, w.src[n.start:n.end])
	case kString:
		if n.flags&fPlain != 0 { // as it is in the source, with its quotes
			return append(dst, w.src[n.start-1:n.end+1]...)
		}
		return w.str(dst, n)
	case kArray:
		return w.array(dst, i)
	}
	return w.object(dst, i)
}

// sep appends a separator: ',' or ':', and a space after it unless the
// style is compact. (Bytes appended one by one are stores; a string of
// them would be a call to copy them.)
func (w *writer) sep(dst []byte, c byte) []byte {
	if w.style.Compact {
		return append(dst, c)
	}
	return append(dst, c, ' ')
}

func (w *writer) array(dst []byte, i int32) []byte {
	dst = append(dst, '[')
	end := w.tape[i].next
	for j := i + 1; j < end; j = w.tape[j].next {
		if j > i+1 {
			dst = w.sep(dst, ',')
		}
		dst = w.value(dst, j)
	}
	return append(dst, ']')
}

// members pushes the members of the object at i onto w.mem, skipping the
// names skip says to, and returns where they start.
func (w *writer) members(i int32, skip func([]byte) bool) int {
	base := len(w.mem)
	end := w.tape[i].next
	for j := i + 1; j < end; j = w.tape[j+1].next {
		n := &w.tape[j]
		from, to := n.start, n.end
		k := w.src[from:to]
		if n.flags&fEscape != 0 {
			from = int32(len(w.names))
			w.names = decodeString(w.names, k)
			to = int32(len(w.names))
			k = w.names[from:to]
		}
		if skip != nil && skip(k) {
			continue
		}
		// Field by field: a member built whole on the stack and then
		// copied is a load of bytes just stored in smaller pieces, which
		// stalls.
		l := len(w.mem)
		if l == cap(w.mem) {
			w.mem = append(w.mem, member{})
		}
		w.mem = w.mem[:l+1]
		m := &w.mem[l]
		m.pre, m.at, m.last, m.from, m.to = keyPrefix(w.src, n, k), j, j, from, to
	}
	return base
}

// keyPrefix is the first 8 bytes of the name k at tape node n, big-endian,
// with zeros past its end. When a name is not escaped, and 8 bytes of src
// follow its start, they are read at once and what is past the name is
// masked off.
func keyPrefix(src []byte, n *node, k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	if n.flags&fEscape == 0 && int(n.start)+8 <= len(src) {
		return binary.BigEndian.Uint64(src[n.start:]) &^ (1<<(64-8*len(k)) - 1)
	}
	var v uint64
	for i, c := range k {
		v |= uint64(c) << (56 - 8*i)
	}
	return v
}

func (w *writer) object(dst []byte, i int32) []byte {
	skip := w.skip
	w.skip = nil // only the top-level object skips names
	base := w.members(i, skip)
	ms := w.mem[base:]
	if w.style.SortKeys {
		ms = w.sortMembers(ms)
	} else {
		ms = w.firstPlaceLastValue(ms)
	}
	dst = append(dst, '{')
	for k := range ms {
		// w.mem may be reallocated by the members of nested objects:
		// index it afresh.
		at, last := w.mem[base+k].at, w.mem[base+k].last
		if k > 0 {
			dst = w.sep(dst, ',')
		}
		if n := &w.tape[at]; n.flags&fPlain != 0 {
			dst = append(dst, w.src[n.start-1:n.end+1]...)
		} else {
			dst = w.str(dst, n)
		}
		dst = w.sep(dst, ':')
		dst = w.value(dst, last+1)
	}
	w.mem = w.mem[:base]
	return append(dst, '}')
}

// sortMembers sorts members by name, the last of equal names kept (a dict
// keeps the last value given for a key), in place, and returns them.
func (w *writer) sortMembers(ms []member) []member {
	dup := false
	if len(ms) <= 16 {
		// Insertion sort: stable, and quickest for the few members most
		// objects have; members already in order are compared once each.
		// A name equal to one before it stops right after it.
		for i := 1; i < len(ms); i++ {
			if !w.keyLess(&ms[i], &ms[i-1]) {
				dup = dup || w.keyEqual(&ms[i], &ms[i-1])
				continue
			}
			// Moved one by one: a call to copy costs more than it
			// saves on the few members moved.
			m := ms[i]
			j := i
			for ; j > 0 && w.keyLess(&m, &ms[j-1]); j-- {
				ms[j] = ms[j-1]
			}
			ms[j] = m
			dup = dup || j > 0 && w.keyEqual(&m, &ms[j-1])
		}
	} else {
		slices.SortStableFunc(ms, func(a, b member) int {
			if a.pre != b.pre {
				return cmp.Compare(a.pre, b.pre)
			}
			return compareKeys(w.name(&a), w.name(&b))
		})
		for k := 1; k < len(ms) && !dup; k++ {
			dup = w.keyEqual(&ms[k], &ms[k-1])
		}
	}
	if !dup {
		return ms
	}
	out := ms[:0]
	for k := range ms {
		if k+1 < len(ms) && w.keyEqual(&ms[k], &ms[k+1]) {
			continue
		}
		out = append(out, ms[k])
	}
	return out
}

// keyLess reports whether a's name comes before b's. Prefixes that differ
// order the names as their bytes do: where they first differ, either both
// names have a byte there, or one has ended (a zero) and the other has a
// byte above zero there and the one that ended is a prefix of it. Equal
// prefixes compare the names.
func (w *writer) keyLess(a, b *member) bool {
	if a.pre != b.pre {
		return a.pre < b.pre
	}
	return w.nameLess(a, b)
}

// nameLess is keyLess for names whose first 8 bytes are the same: apart
// so that keyLess is inlined.
func (w *writer) nameLess(a, b *member) bool {
	return compareKeys(w.name(a), w.name(b)) < 0
}

func (w *writer) keyEqual(a, b *member) bool {
	return a.pre == b.pre && bytes.Equal(w.name(a), w.name(b))
}

// compareKeys is bytes.Compare without the call into assembly, which
// costs more than it saves on names of a few bytes.
func compareKeys(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// firstPlaceLastValue drops repeated names as a dict does: a name keeps the
// place where it first appeared and the value it was given last.
func (w *writer) firstPlaceLastValue(ms []member) []member {
	if len(ms) < 2 {
		return ms
	}
	dup := false
	if len(ms) <= 32 {
		for a := 1; a < len(ms) && !dup; a++ {
			for b := 0; b < a; b++ {
				if w.keyEqual(&ms[a], &ms[b]) {
					dup = true
					break
				}
			}
		}
	} else {
		seen := make(map[string]struct{}, len(ms))
		for k := range ms {
			name := w.name(&ms[k])
			if _, ok := seen[string(name)]; ok {
				dup = true
				break
			}
			seen[string(name)] = struct{}{}
		}
	}
	if !dup {
		return ms
	}
	first := make(map[string]int, len(ms))
	out := ms[:0]
	for _, m := range ms {
		name := w.name(&m)
		if k, ok := first[string(name)]; ok {
			out[k].last = m.at
			continue
		}
		first[string(name)] = len(out)
		out = append(out, m)
	}
	return out
}

// str appends the string node n with ensure_ascii: the short escapes
// \" \\ \n \r \t \b \f, printable ASCII as it is, and every other
// character as \uxxxx (lowercase hex), astral ones as a surrogate pair.
func (w *writer) str(dst []byte, n *node) []byte {
	if n.flags&fPlain != 0 {
		// As it is in the source, with its quotes.
		return append(dst, w.src[n.start-1:n.end+1]...)
	}
	raw := w.src[n.start:n.end]
	dst = append(dst, '"')
	// The parser has looked at the first bytes: they are written as
	// they are.
	i := int(n.safe)
	dst = append(dst, raw[:i]...)
	for i < len(raw) {
		switch c := raw[i]; {
		case c == '\\':
			switch e := raw[i+1]; e {
			case 'u':
				v, _ := jsonv.ParseHex4(raw[i+2:])
				dst = appendUnit(dst, v)
				i += 4
			case '/':
				dst = append(dst, '/')
			default: // " \ b f n r t: already the short escape
				dst = append(dst, '\\', e)
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = appendUnit(dst, rune(c))
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				dst = appendU(appendU(dst, r1), r2)
			} else {
				dst = appendU(dst, r)
			}
			i += size
		}
		j := i + safeSpan(raw[i:])
		dst = append(dst, raw[i:j]...)
		i = j
	}
	return append(dst, '"')
}

// appendUnit appends one UTF-16 code unit as ensure_ascii writes it.
func appendUnit(dst []byte, v rune) []byte {
	if d, ok := jsonv.AppendEscape(dst, v, true); ok {
		return d
	}
	if v >= 0x20 && v < 0x7F {
		return append(dst, byte(v))
	}
	return appendU(dst, v)
}

const hexDigits = "0123456789abcdef"

func appendU(dst []byte, v rune) []byte {
	return append(dst, '\\', 'u', hexDigits[v>>12&15], hexDigits[v>>8&15], hexDigits[v>>4&15], hexDigits[v&15])
}

// decodeString appends the characters of a string's raw bytes (between the
// quotes) as WTF-8: UTF-8 in which a lone surrogate is encoded like any
// other code point, so that byte order is code point order.
func decodeString(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		e := raw[i+1]
		i += 2
		if e != 'u' {
			dst = append(dst, jsonv.ShortEscape(e))
			continue
		}
		v, _ := jsonv.ParseHex4(raw[i:])
		i += 4
		// An escaped high surrogate followed by an escaped low one is
		// one character, as json.loads reads it.
		if v >= 0xD800 && v < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
			if lo, ok := jsonv.ParseHex4(raw[i+2:]); ok && lo >= 0xDC00 && lo < 0xE000 {
				v = utf16.DecodeRune(v, lo)
				i += 6
			}
		}
		dst = appendWTF8(dst, v)
	}
	return dst
}

// appendWTF8 appends r as UTF-8, surrogates included.
func appendWTF8(dst []byte, r rune) []byte {
	if r >= 0xD800 && r < 0xE000 {
		return append(dst, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(dst, r)
}

// appendFloat appends Python's repr of the float a JSON number with a
// fraction or an exponent reads as: the shortest digits that read back to
// the same float, in fixed notation with at least one digit after the
// point when the decimal exponent is in [-4, 16), else as d.ddde±XX;
// Infinity and -Infinity beyond the float range, 0.0 or -0.0 below it.
func appendFloat(dst, lit []byte) []byte {
	if out, ok := appendPlainFloat(dst, lit); ok {
		return out
	}
	return appendFloatRepr(dst, lit)
}

// appendFloatRepr is appendFloat by way of the float itself.
func appendFloatRepr(dst, lit []byte) []byte {
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil && !math.IsInf(f, 0) {
		// Not reached: the parser has checked the syntax.
		return append(dst, lit...)
	}
	switch {
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	e := bytes.IndexByte(dst[start:], 'e')
	exp, _ := strconv.Atoi(string(dst[start+e+1:]))
	if f == 0 {
		exp = 0
	}
	if exp < -4 || exp >= 16 {
		return dst
	}
	// Fixed notation from the same shortest digits.
	var buf [32]byte
	digits := append(buf[:0], dst[start:start+e]...)
	dst = dst[:start]
	if digits[0] == '-' {
		dst = append(dst, '-')
		digits = digits[1:]
	}
	if len(digits) > 1 { // d.ddd: drop the point
		digits = append(digits[:1], digits[2:]...)
	}
	switch {
	case exp < 0:
		dst = append(dst, '0', '.')
		for range -exp - 1 {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case exp+1 >= len(digits):
		dst = append(dst, digits...)
		for range exp + 1 - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	}
	dst = append(dst, digits[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, digits[exp+1:]...)
}

// appendPlainFloat writes a literal like 99.99 or -0.050 without reading it
// as a float, when that gives what repr gives: no exponent, at most 15
// significant digits (any decimal of 15 digits or fewer is the shortest
// form of the float nearest to it), and a decimal exponent in [-4, 16).
// Trailing zeros of the fraction go, one digit is kept.
func appendPlainFloat(dst, lit []byte) ([]byte, bool) {
	// One pass over the few bytes, rather than one search for the point
	// and another for an exponent.
	dot := -1
	for i, c := range lit {
		switch c {
		case '.':
			dot = i
		case 'e', 'E':
			return dst, false
		}
	}
	if dot < 0 {
		return dst, false
	}
	end := len(lit)
	for end > dot+2 && lit[end-1] == '0' {
		end--
	}
	intPart, frac := lit[:dot], lit[dot+1:end]
	neg := intPart[0] == '-'
	if neg {
		intPart = intPart[1:]
	}
	var sig, exp int
	if intPart[0] != '0' {
		sig, exp = len(intPart)+len(frac), len(intPart)-1
	} else {
		lead := 0
		for lead < len(frac) && frac[lead] == '0' {
			lead++
		}
		if lead == len(frac) { // zero
			sig, exp = 0, 0
		} else {
			sig, exp = len(frac)-lead, -lead-1
		}
	}
	if sig > 15 || exp < -4 || exp >= 16 {
		return dst, false
	}
	return append(dst, lit[:end]...), true
}
