package jsonv

import "errors"

// This file holds what toonkit knows of NaN, Infinity and -Infinity: not
// JSON (RFC 8259 has no such numbers), but what Python's json.dumps writes
// for non-finite floats by default (allow_nan=True), and what json.loads
// reads back. A Reader with Options.NonFinite reads them as values; every
// other reader refuses them, with NonFiniteHint on the error.

// NonFiniteHint is the hint of a syntax error at a NaN, Infinity or
// -Infinity (SyntaxError.Hint).
const NonFiniteHint = "NaN and Infinity are not JSON; Python writes them for non-finite floats unless json.dumps(..., allow_nan=False)"

// NonFiniteLen is the length of the NaN, Infinity or -Infinity that b
// starts with, spelled as json.loads reads them (case matters: not nan,
// inf or +Infinity), or 0.
func NonFiniteLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	var w string
	switch b[0] {
	case 'N':
		w = "NaN"
	case 'I':
		w = "Infinity"
	case '-':
		w = "-Infinity"
	default:
		return 0
	}
	if len(b) >= len(w) && string(b[:len(w)]) == w {
		return len(w)
	}
	return 0
}

// Hint is the hint of the first error in err's chain that has one: the
// Hint of a *SyntaxError, or what the JSONHint method of another error
// gives (a frame's payload error, say); "" when there is none.
func Hint(err error) string {
	var se *SyntaxError
	if errors.As(err, &se) && se.Hint != "" {
		return se.Hint
	}
	var h interface{ JSONHint() string }
	if errors.As(err, &h) {
		return h.JSONHint()
	}
	return ""
}

// HintAt is the hint for a syntax error at byte off of the JSON text b:
// NonFiniteHint when a NaN, Infinity or -Infinity stands there, "" when
// none is known.
func HintAt(b []byte, off int64) string {
	if off < 0 || off > int64(len(b)) || !nonFiniteNear(b, int(off)) {
		return ""
	}
	return NonFiniteHint
}

// nonFiniteNear reports whether the byte at off (where a JSON parser
// stopped) is the start of a NaN, Infinity or -Infinity, or the I of a
// -Infinity, followed by the end or a byte that may end a value.
func nonFiniteNear(b []byte, off int) bool {
	if off < 0 || off >= len(b) {
		return false
	}
	if b[off] == 'I' && off > 0 && b[off-1] == '-' {
		off--
	}
	n := NonFiniteLen(b[off:])
	return n > 0 && (off+n == len(b) || endsValue(b[off+n]))
}

// endsValue reports whether c may follow a number or a literal.
func endsValue(c byte) bool {
	return c == ',' || c == ']' || c == '}' || isSpace(c)
}

// MaskNonFinite appends src to dst[:0] with each NaN, Infinity and
// -Infinity of its first value that stands where a value may stand written
// as a number of the same length: a JSON parser reads the result as
// Python's json.loads reads src, with the same offsets, and finds the same
// errors (but for what it says of the numbers). What follows the first
// value is appended as it is.
func MaskNonFinite(dst, src []byte) []byte {
	dst = maskNonFinite(dst, src, false)
	return append(dst, src[len(dst):]...)
}

// AppendCompactNonFinite is AppendCompact of a value that may hold NaN,
// Infinity and -Infinity values, as Python's json.loads reads them; they
// are kept as they are.
func AppendCompactNonFinite(dst, src []byte) ([]byte, error) {
	out, err := AppendCompact(dst, src)
	if err == nil {
		return out, nil
	}
	if Check(MaskNonFinite(nil, src)) != nil {
		return dst, err
	}
	return appendCompact(dst, src, 0), nil
}

// maskNonFinite copies the first value of src (and no more than one byte
// after it) to dst[:0], each NaN, Infinity and -Infinity that stands where
// a value may stand written as a number of the same length (1e1, 10000000,
// -10000000), so that a JSON parser reads the copy as json.loads reads
// src, with the same offsets. With more (src may go on), a token that may
// go on past the end of src (a prefix of one of the words) ends the copy
// with an unterminated string, so that the parser asks for more. Everything else is copied as it is: what is not valid stays
// so, at the same offset.
func maskNonFinite(dst, src []byte, more bool) []byte {
	dst = dst[:0]
	depth := 0
	var obj []bool // per open container: an object
	want := true   // a value may stand here
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case isSpace(c):
			i++
			continue
		case c == '"':
			end, _ := stringEnd(src, i)
			if end < 0 {
				return append(dst, src[len(dst):]...)
			}
			dst = append(dst, src[len(dst):end]...)
			i = end
			want = false
			if depth == 0 {
				return appendOne(dst, src, i)
			}
			continue
		case c == '{' || c == '[':
			obj = append(obj, c == '{')
			depth++
			want = c == '['
		case c == '}' || c == ']':
			if depth > 0 {
				depth--
				obj = obj[:depth]
			}
			want = false
			if depth == 0 {
				dst = append(dst, src[len(dst):i+1]...)
				return appendOne(dst, src, i+1)
			}
		case c == ':':
			want = true
		case c == ',':
			want = depth > 0 && !obj[depth-1]
		case want && (c == 'N' || c == 'I' || c == '-'):
			want = false
			n := NonFiniteLen(src[i:])
			if n == 0 {
				if more && isPrefixOfNonFinite(src[i:]) {
					return append(append(dst, src[len(dst):i]...), '"')
				}
				break
			}
			if i+n < len(src) && !endsValue(src[i+n]) {
				break
			}
			dst = append(dst, src[len(dst):i]...)
			dst = append(dst, numberOfLen[n]...)
			i += n
			if depth == 0 {
				return appendOne(dst, src, i)
			}
			continue
		case depth == 0:
			// A number or literal: it ends the value.
			j := i
			for j < len(src) && !endsValue(src[j]) {
				j++
			}
			dst = append(dst, src[len(dst):j]...)
			return appendOne(dst, src, j)
		default:
			want = false
		}
		dst = append(dst, src[len(dst):i+1]...)
		i++
	}
	return append(dst, src[len(dst):]...)
}

// numberOfLen holds a JSON number of the length of each word.
var numberOfLen = map[int]string{3: "1e1", 8: "10000000", 9: "-10000000"}

// isPrefixOfNonFinite reports whether b is a proper prefix of NaN,
// Infinity or -Infinity.
func isPrefixOfNonFinite(b []byte) bool {
	for _, w := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if len(b) < len(w) && string(b) == w[:len(b)] {
			return true
		}
	}
	return false
}

// appendOne appends the rest of src up to i (white space), and the byte
// at i when there is one.
func appendOne(dst, src []byte, i int) []byte {
	return append(dst, src[len(dst):min(i+1, len(src))]...)
}
