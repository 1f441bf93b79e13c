package toon

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// This file holds the one-pass form of the commonest document: a root
// array of flat objects whose members come in one order (a table of
// primitives, §9.3). It checks the text as the validator would and writes
// the rows in the same pass, holding the output until the end of the text.
// It gives up, having written nothing, at the first thing it does not
// handle (another shape, an escaped or repeated name, a nested value) and
// at anything invalid; FromJSON then takes the general path from the start,
// which gives the same output and the errors with their positions.
//
// The bytes between two values of a row (the comma, white space, the next
// name and its colon) are usually the same in every row. Each such gap is
// compared with the same gap of the row before, and only parsed when it
// differs: equal bytes are equally valid.

// fastTableMaxFields is the most fields a row of the one-pass form may
// have: their names are checked for duplicates pairwise.
const fastTableMaxFields = 64

// fastGap is the text between two values (or before a row's first value),
// as it was last seen: its offset and length in the input and, when it is
// 8 to 24 bytes long, its first 8 bytes, the 8 from mid and its last 8
// (mid = min(8, n-8): the three words cover it).
type fastGap struct {
	off, n, mid int
	words       bool // w0, w1, w2 hold it
	w0, w1, w2  uint64
}

// newFastGap makes the gap in[off:off+n].
func newFastGap(in []byte, off, n int) fastGap {
	g := fastGap{off: off, n: n}
	if n >= 8 && n <= 24 {
		g.words, g.mid = true, min(8, n-8)
		g.w0 = binary.LittleEndian.Uint64(in[off:])
		g.w1 = binary.LittleEndian.Uint64(in[off+g.mid:])
		g.w2 = binary.LittleEndian.Uint64(in[off+n-8:])
	}
	return g
}

// fastTable encodes the document when it is a table of primitives, and
// reports whether it was.
func (e *encoder) fastTable() bool {
	in := e.in
	v := jsonValidator{in: in}
	i := v.ws(0)
	if i >= len(in) || in[i] != '[' {
		return false
	}
	i = v.ws(i + 1)
	if i >= len(in) || in[i] != '{' {
		return false
	}

	// The first row: the fields, and the first guesses of the gaps.
	e.resetFields()
	var gaps [fastTableMaxFields]fastGap
	line := make([]byte, 0, 1+e.indent)
	line = append(line, '\n')
	line = e.spaces1(line)
	rowStart := i
	body := append(make([]byte, 0, 256), line...)
	i = v.ws(i + 1)
	end := i
	for k := 0; ; k++ {
		if k == fastTableMaxFields || i >= len(in) || in[i] != '"' {
			return false
		}
		// The name is checked and kept as a copy, for the header.
		nend, _ := jsonStringEnd(in, i)
		quoted := bytes.Clone(in[i:nend])
		nv := jsonValidator{in: quoted}
		if n, escaped, err := nv.str(0); err != nil || escaped || n != len(quoted) {
			return false
		}
		name := quoted[1 : len(quoted)-1]
		for _, nd := range e.nodes[1:] {
			if bytes.Equal(nd.name, name) {
				return false
			}
		}
		e.nodes = append(e.nodes, newTableField(name))
		j := v.ws(nend)
		if j >= len(in) || in[j] != ':' {
			return false
		}
		p := v.ws(j + 1)
		if k > 0 {
			gaps[k] = newFastGap(in, end, p-end)
			body = append(body, e.delim)
		}
		var ok bool
		if body, end, ok = e.fastValue(body, p); !ok {
			return false
		}
		j = v.ws(end)
		if j >= len(in) {
			return false
		}
		if in[j] == '}' {
			// The output is held: room for as many rows as the first.
			est := min(len(body)*(len(in)-rowStart)/(j+1-rowStart), 2*len(in))
			body = append(make([]byte, 0, est+est/8+4096), body...)
			break
		}
		if in[j] != ',' {
			return false
		}
		i = v.ws(j + 1)
	}
	fields := e.nodes[1:]
	nf := len(fields)
	e.nodes[0].lo, e.nodes[0].hi = 1, int32(len(e.nodes))

	// The other rows.
	rows := 1
	for {
		// The gap before the row's first value: the end of the row
		// before, the comma, the start of this row and its first name.
		p, ok := e.fastGap(&gaps[0], end)
		if !ok {
			j := v.ws(end)
			if j >= len(in) || in[j] != '}' {
				return false
			}
			j = v.ws(j + 1)
			if j < len(in) && in[j] == ']' {
				if v.ws(j+1) != len(in) {
					return false
				}
				break
			}
			if j >= len(in) || in[j] != ',' {
				return false
			}
			j = v.ws(j + 1)
			if j >= len(in) || in[j] != '{' {
				return false
			}
			if p, ok = e.fastName(&v, v.ws(j+1), &fields[0]); !ok {
				return false
			}
			gaps[0] = newFastGap(in, end, p-end)
		}
		body = append(body, line...)
		if body, end, ok = e.fastValue(body, p); !ok {
			return false
		}
		for k := 1; k < nf; k++ {
			if p, ok = e.fastGap(&gaps[k], end); !ok {
				j := v.ws(end)
				if j >= len(in) || in[j] != ',' {
					return false
				}
				if p, ok = e.fastName(&v, v.ws(j+1), &fields[k]); !ok {
					return false
				}
				gaps[k] = newFastGap(in, end, p-end)
			}
			body = append(body, e.delim)
			if body, end, ok = e.fastValue(body, p); !ok {
				return false
			}
		}
		rows++
	}

	e.appendHeader(memberKey{none: true}, rows, false, 0)
	e.lines = true
	e.flush()
	if e.err == nil {
		_, e.err = e.w.Write(body)
	}
	return true
}

// spaces1 appends the indentation of one level to b.
func (e *encoder) spaces1(b []byte) []byte {
	for n := e.indent; n > 0; {
		k := min(n, len(indentSpaces))
		b = append(b, indentSpaces[:k]...)
		n -= k
	}
	return b
}

// fastGap reports whether the text at end is the gap g again, followed by
// a value's first byte, and returns the value's offset.
func (e *encoder) fastGap(g *fastGap, end int) (int, bool) {
	in := e.in
	p := end + g.n
	if !g.words || p >= len(in) {
		return p, g.n > 0 && p < len(in) && in[p] > ' ' && string(in[g.off:g.off+g.n]) == string(in[end:p])
	}
	return p, binary.LittleEndian.Uint64(in[end:]) == g.w0 &&
		binary.LittleEndian.Uint64(in[end+g.mid:]) == g.w1 &&
		binary.LittleEndian.Uint64(in[p-8:]) == g.w2 && in[p] > ' '
}

// fastName checks that the member at i is named nd, with its colon, and
// returns the offset of its value.
func (e *encoder) fastName(v *jsonValidator, i int, nd *tableField) (int, bool) {
	in := e.in
	j := i + 1 + len(nd.name)
	if j >= len(in) || in[i] != '"' || in[j] != '"' || string(in[i+1:j]) != string(nd.name) {
		return 0, false
	}
	j = v.ws(j + 1)
	if j >= len(in) || in[j] != ':' {
		return 0, false
	}
	return v.ws(j + 1), true
}

// fastValue checks the primitive at p and appends it to dst as a cell; it
// returns the offset past it, or false when it is not a valid primitive.
// What it appends is made of the bytes it checked, read once.
func (e *encoder) fastValue(dst []byte, p int) ([]byte, int, bool) {
	in := e.in
	if p >= len(in) {
		return dst, 0, false
	}
	switch c := in[p]; c {
	case '"':
		return e.fastString(dst, p)
	case 't':
		if len(in)-p >= 4 && string(in[p:p+4]) == "true" {
			return append(dst, "true"...), p + 4, true
		}
	case 'f':
		if len(in)-p >= 5 && string(in[p:p+5]) == "false" {
			return append(dst, "false"...), p + 5, true
		}
	case 'n':
		if len(in)-p >= 4 && string(in[p:p+4]) == "null" {
			return append(dst, "null"...), p + 4, true
		}
	case '{', '[':
	default:
		return e.fastNumber(dst, p) // NaN, Infinity and -Infinity too (slowNumber)
	}
	return dst, 0, false
}

// room returns dst with room for n more bytes.
func room(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	return slices.Grow(dst, n)
}

// fastString checks the string at p and appends it as a cell. It is copied
// 8 bytes at a time while they are scanned for its end and for the bytes
// that call for quotes, with each non-ASCII character checked on the way
// (UTF-8, as the validator has it); a string with an escape or a control
// character is left to slowString.
func (e *encoder) fastString(dst []byte, p int) ([]byte, int, bool) {
	in := e.in
	start := len(dst)
	delim := swarOnes * uint64(e.delim)
	quote := uint64(0)
	j := p + 1
	for {
		if j+8 > len(in) {
			return e.slowString(dst[:start], p)
		}
		dst = room(dst, 8)
		x := binary.LittleEndian.Uint64(in[j:])
		binary.LittleEndian.PutUint64(dst[len(dst):len(dst)+8], x)
		stop := (x | (x-swarOnes*0x20)&^x | swarHasByte(x, '"') | swarHasByte(x, '\\')) & swarHighs
		// : [ ] { } and the delimiter; [ and ] are { and } with bit 5
		// clear.
		y := x | swarOnes*0x20
		q := swarHasByte(x, ':') | swarHasByte(y, '{') | swarHasByte(y, '}') | swarZero(x^delim)
		if stop == 0 {
			quote |= q
			dst = dst[:len(dst)+8]
			j += 8
			continue
		}
		n := bits.TrailingZeros64(stop) / 8
		quote |= q & (1<<(8*n) - 1)
		dst = dst[:len(dst)+n]
		j += n
		c := byte(x >> (8 * n))
		if c == '"' {
			break
		}
		if c < utf8.RuneSelf {
			return e.slowString(dst[:start], p)
		}
		// Non-ASCII: valid UTF-8 as the validator has it, and plain. The
		// character checked is the one written.
		r, size := utf8.DecodeRune(in[j:])
		if r == utf8.RuneError && size == 1 {
			return dst[:start], 0, false
		}
		dst = utf8.AppendRune(dst, r)
		j += size
	}
	s := dst[start:]
	if quote == 0 && len(s) > 0 && s[len(s)-1] != ' ' && (!edgeFirst[s[0]] || e.plainEdges(s)) {
		return dst, j + 1, true
	}
	e.sbuf = append(e.sbuf[:0], s...)
	return appendQuotedTOON(dst[:start], e.sbuf), j + 1, true
}

// edgeFirst marks the bytes that a plain string may not start with, or
// only under conditions (plainEdges).
var edgeFirst = func() (t [256]bool) {
	for _, c := range []byte(" -#+0123456789tfn") {
		t[c] = true
	}
	return
}()

// swarZero flags (in the high bit of each byte) the zero bytes of x; the
// lowest flag is exact, flags above it may be spoiled by borrows.
func swarZero(x uint64) uint64 { return (x - swarOnes) &^ x & swarHighs }

// slowString checks the string at p with the validator, on a copy of it,
// and appends the copy as a cell.
func (e *encoder) slowString(dst []byte, p int) ([]byte, int, bool) {
	end, _ := jsonStringEnd(e.in, p)
	e.raw = append(e.raw[:0], e.in[p:end]...)
	v := jsonValidator{in: e.raw}
	if n, _, err := v.str(0); err != nil || n != len(e.raw) {
		return dst, 0, false
	}
	dst, n := e.appendStrIn(dst, e.raw, 0)
	return dst, p + n, n == len(e.raw)
}

// fastNumber checks the number at p and appends its canonical form (§2).
// The common canonical literal (no exponent, no trailing zero in a
// fraction, no leading zero, at most 15 digits before and after the
// point) is copied 8 bytes at a time while it is scanned; any other is
// left to slowNumber.
func (e *encoder) fastNumber(dst []byte, p int) ([]byte, int, bool) {
	in := e.in
	if p+40 > len(in) {
		return e.slowNumber(dst, p)
	}
	dst = room(dst, 40)
	out := dst[:cap(dst)]
	o, j := len(dst), p
	x := binary.LittleEndian.Uint64(in[j:])
	if byte(x) == '-' {
		out[o] = '-'
		o++
		j++
		x = binary.LittleEndian.Uint64(in[j:])
	}
	if c := byte(x); c < '1' || c > '9' {
		return e.slowNumber(dst, p)
	}
	n, c := copyDigits(out[o:], x, in[j+8:])
	if n > 15 {
		return e.slowNumber(dst, p)
	}
	o += n
	j += n
	if c == '.' {
		out[o] = '.'
		x = binary.LittleEndian.Uint64(in[j+1:])
		if n, c = copyDigits(out[o+1:], x, in[j+9:]); n == 0 || n > 15 || out[o+n] == '0' {
			return e.slowNumber(dst, p)
		}
		o += 1 + n
		j += 1 + n
	}
	if c == 'e' || c == 'E' {
		return e.slowNumber(dst, p)
	}
	return dst[:o], j, true
}

// copyDigits copies the word x (the 8 bytes of input at a point) and, when
// they are all digits, the 8 bytes of next to out, and returns the number
// of digits they start with (16 means 16 or more) and the byte after them.
func copyDigits(out []byte, x uint64, next []byte) (int, byte) {
	binary.LittleEndian.PutUint64(out, x)
	if n := swarDigitCount(x); n < 8 {
		return n, byte(x >> (8 * n))
	}
	x = binary.LittleEndian.Uint64(next)
	binary.LittleEndian.PutUint64(out[8:], x)
	n := swarDigitCount(x)
	if n == 8 {
		return 16, 0
	}
	return 8 + n, byte(x >> (8 * n))
}

// swarDigitCount returns the number of ASCII digits x starts with (its
// bytes in memory order).
func swarDigitCount(x uint64) int {
	// Bytes x^'0' above 9 (or with the high bit) are not digits.
	y := x ^ (swarOnes * '0')
	m := ((y&^swarHighs + swarOnes*0x76) | y) & swarHighs
	return bits.TrailingZeros64(m) / 8
}

// slowNumber checks the number at p with the validator, on a copy of it,
// and appends its canonical form; a NaN, Infinity or -Infinity is counted
// and appended as null.
func (e *encoder) slowNumber(dst []byte, p int) ([]byte, int, bool) {
	e.raw = append(e.raw[:0], e.in[p:jsonNumberEnd(e.in, p)]...)
	if len(e.raw) == 0 {
		return dst, 0, false
	}
	if n := nonFiniteLen(e.raw); n == len(e.raw) {
		e.nonFinite++
		return append(dst, "null"...), p + n, true
	}
	v := jsonValidator{in: e.raw}
	n, err := v.num(0)
	if err != nil {
		return dst, 0, false
	}
	dst, _ = appendNumberAt(dst, e.raw[:n], 0)
	return dst, p + n, true
}
