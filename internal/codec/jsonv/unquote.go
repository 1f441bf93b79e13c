package jsonv

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// errString is a string that AppendString refuses.
var errString = errors.New("not a valid JSON string")

// AppendUnquote appends the text of s, one JSON string with its quotes, to
// dst, as jsontext.AppendUnquote does with its default options: it fails
// where that fails (a control character, an escape that is not one, an
// escaped lone surrogate, invalid UTF-8, a quote inside or missing), and
// otherwise appends the same bytes. On error dst is returned as it was.
func AppendUnquote(dst, s []byte) ([]byte, error) {
	out, n, err := AppendString(dst, s)
	if err == nil && n != len(s) {
		return dst, errString
	}
	return out, err
}

// AppendString reads the JSON string that b starts with (its opening
// quote), appends its text to dst as AppendUnquote does, and returns the
// bytes read: the string ends at b[n-1], its closing quote. It fails where
// AppendUnquote fails, and when the string does not end in b.
//
// It reads eight bytes at a time and writes them as they are read, up to
// each escape, so that text dense with escapes (JSON inside a JSON string:
// a quote and a line end every few bytes) costs about a byte's work per
// byte, not a copy per stretch.
func AppendString(dst, b []byte) (out []byte, n int, err error) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if len(b) == 0 || b[0] != '"' {
		return dst, 0, errString
	}
	// The text is never longer than the string: the 8 bytes written past
	// the last one read are room.
	out = slices.Grow(dst, len(b)+8)
	w := out[len(dst):cap(out)]
	j := 0 // bytes written to w
	i := 1
	high := uint64(0) // the high bits of the bytes copied
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			binary.LittleEndian.PutUint64(w[j:], x)
			q, e := x^(ones*'"'), x^(ones*'\\')
			// A quote, a backslash or a control character sets its high
			// bit in m (a byte above ASCII does not: &^ x clears it); the
			// lowest flag set is exact (borrows only spoil those above).
			m := (((q - ones) &^ q) | ((e - ones) &^ e) | ((x - ones*0x20) &^ x)) & highs
			if m != 0 {
				k := bits.TrailingZeros64(m) / 8
				high |= x & (1<<(8*k) - 1)
				i, j = i+k, j+k
				break
			}
			high |= x
			i, j = i+8, j+8
		}
		for ; i < len(b); i, j = i+1, j+1 {
			c := b[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			w[j] = c
			high |= uint64(c)
		}
		if i >= len(b) || b[i] < 0x20 {
			return dst, 0, errString // no closing quote, or a control character
		}
		if b[i] == '"' {
			break
		}
		if i+1 >= len(b) {
			return dst, 0, errString
		}
		if c := b[i+1]; c != 'u' {
			switch c {
			case '"', '\\', '/':
			case 'b', 'f', 'n', 'r', 't':
				c = shortEscapes[c]
			default:
				return dst, 0, errString
			}
			w[j] = c
			i, j = i+2, j+1
			continue
		}
		r, m := DecodeEscape(b[i:])
		if m == 0 || r >= 0xD800 && r < 0xE000 {
			return dst, 0, errString // not 4 hex digits, or a lone surrogate
		}
		j += utf8.EncodeRune(w[j:], r)
		i += m
	}
	// Escapes are ASCII, so no character spans one: the text's UTF-8 is
	// valid when the string's is.
	if high&highs != 0 && !utf8.Valid(b[1:i]) {
		return dst, 0, errString
	}
	return out[:len(dst)+j], i + 1, nil
}
