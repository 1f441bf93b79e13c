package toon

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// This file holds the helpers that move over raw JSON text which the
// validator (encode_validate.go) has accepted: they do not check anything
// again, and stay within bounds on such text.

// swarHasByte flags (in the high bit of each byte) the bytes of x equal to c.
// The lowest flag is exact; flags above it may be spoiled by borrows.
func swarHasByte(x uint64, c byte) uint64 {
	y := x ^ (swarOnes * uint64(c))
	return (y - swarOnes) &^ y & swarHighs
}

// jsonStringStop returns the index of the first '"' or '\\' in b, or -1. It
// looks at 8 bytes at a time.
func jsonStringStop(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := swarHasByte(x, '"') | swarHasByte(x, '\\'); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return -1
}

// jsonStringEnd returns the offset just past the string of valid JSON that
// starts at b[i] (its opening quote), and whether the string holds an
// escape; len(b) when it does not end. It looks at 8 bytes at a time.
func jsonStringEnd(b []byte, i int) (int, bool) {
	escaped := false
	j := i + 1
	for {
		for ; j+8 <= len(b); j += 8 {
			x := binary.LittleEndian.Uint64(b[j:])
			if m := swarHasByte(x, '"') | swarHasByte(x, '\\'); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
		}
		for j < len(b) && b[j] != '"' && b[j] != '\\' {
			j++
		}
		if j >= len(b) {
			return len(b), escaped
		}
		if b[j] == '"' {
			return j + 1, escaped
		}
		escaped = true
		j += 2
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// ws returns the offset of the first byte at or after i that is not JSON
// white space (len(in) at the end).
func (e *encoder) ws(i int) int {
	for i < len(e.in) && isJSONSpace(e.in[i]) {
		i++
	}
	return i
}

// at returns the byte at i, or 0 past the end (which valid JSON never
// reaches within a container).
func (e *encoder) at(i int) byte {
	if i < len(e.in) {
		return e.in[i]
	}
	return 0
}

// next returns the start of the element or member that follows a value
// ending at end, or the offset of the closing bracket.
func (e *encoder) next(end int) int {
	if e.release != nil && e.release.moved(end) {
		e.release.call(end)
	}
	if end+1 < len(e.in) && e.in[end] == ',' && !isJSONSpace(e.in[end+1]) {
		return end + 1 // compact
	}
	i := e.ws(end)
	if e.at(i) == ',' {
		i = e.ws(i + 1)
	}
	return i
}

// member splits the object member that starts at i (the quote of its name)
// into its raw name (between the quotes, escapes and all), whether the name
// holds an escape, and the offset of its value.
func (e *encoder) member(i int) (name []byte, escaped bool, value int) {
	end, escaped := jsonStringEnd(e.in, i)
	name = e.in[i+1 : max(end-1, i+1)]
	v := e.ws(end)
	return name, escaped, e.ws(v + 1) // past the colon
}

// primEnd returns the offset just past the primitive (string, number,
// true, false, null) that starts at i.
func (e *encoder) primEnd(i int) int {
	if e.in[i] == '"' {
		end, _ := jsonStringEnd(e.in, i)
		return end
	}
	return jsonNumberEnd(e.in, i)
}

// jsonNumberEnd returns the offset just past the number or literal at b[i].
// It moves past b[i] whatever it is (valid JSON has no number or literal
// of no bytes), so that a walk over a text that changed after it was
// checked keeps moving.
func jsonNumberEnd(b []byte, i int) int {
	if i < len(b) {
		i++
	}
	for i < len(b) {
		switch b[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skip returns the offset just past the value that starts at i, so that
// skipping any value costs at most about 2*skipThreshold bytes of scanning:
// a small container (below skipThreshold bytes, never indexed) is scanned;
// a larger one is looked up in the skip index, or scanned with the large
// containers within it looked up in turn.
func (e *encoder) skip(i int) int {
	c := e.in[i]
	if c != '{' && c != '[' {
		return e.primEnd(i)
	}
	if end := e.scan(i, i+skipThreshold(len(e.in)), false); end >= 0 {
		return end
	}
	return e.scan(i, len(e.in), true)
}

// scan returns the offset just past the container that starts at i, or
// -1 when it does not end before limit. With indexed, the containers in
// the skip index are jumped over.
func (e *encoder) scan(i, limit int, indexed bool) int {
	limit = min(limit, len(e.in))
	depth := 0
	for j := i; j < limit; j++ {
		switch e.in[j] {
		case '"':
			end, _ := jsonStringEnd(e.in, j)
			j = end - 1
		case '{', '[':
			if indexed {
				if s, ok := e.lookup(j); ok {
					if j == i {
						return s.end
					}
					j = s.end - 1
					continue
				}
			}
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	if limit == len(e.in) {
		return len(e.in)
	}
	return -1
}

// lookup finds the container that starts at offset p in the skip index.
func (e *encoder) lookup(p int) (skipSpan, bool) {
	idx := e.index
	lo, hi := 0, len(idx)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if idx[m].start < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(idx) && idx[lo].start == p {
		return idx[lo], true
	}
	return skipSpan{}, false
}

// count returns the number of elements of the array that starts at p.
func (e *encoder) count(p int) int {
	if s, ok := e.lookup(p); ok {
		return s.count
	}
	n := 0
	for i := e.ws(p + 1); i < len(e.in) && e.in[i] != ']'; n++ {
		i = e.next(e.skip(i))
	}
	return n
}

// isEmpty reports whether the container that starts at p has no element
// or member.
func (e *encoder) isEmpty(p int) bool {
	c := e.at(e.ws(p + 1))
	return c == ']' || c == '}'
}

// appendJSONUnescaped appends the value of the raw contents of a valid JSON
// string (between its quotes) to dst: escapes decoded, surrogate pairs
// joined. Lone surrogates, which the validator rejects, become U+FFFD.
func appendJSONUnescaped(dst, raw []byte) []byte {
	for len(raw) > 0 {
		k := jsonStringStop(raw)
		if k < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:k]...)
		raw = raw[k:]
		if raw[0] != '\\' || len(raw) < 2 {
			return append(dst, raw...) // a quote: not in valid contents
		}
		if raw[1] == 'u' {
			r, n := jsonv.DecodeEscape(raw)
			if n == 0 {
				return dst // not valid JSON
			}
			dst = utf8.AppendRune(dst, r)
			raw = raw[n:]
			continue
		}
		dst = append(dst, jsonv.ShortEscape(raw[1]))
		raw = raw[2:]
	}
	return dst
}
