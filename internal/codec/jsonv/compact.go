package jsonv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// This file holds the checks and the compaction of one JSON value held in
// memory. Neither copies the value: jsontext reads a *bytes.Buffer in place,
// and the compact form is written by hand (jsontext.AppendFormat builds it
// in a buffer of its own, which doubles as it grows, and then copies it), so
// that a value near the size limit costs no more than itself.

// loneSurrogates accepts escaped lone surrogates ("\ud800", half of an
// emoji, which JSON.stringify and json.dumps both write); raw invalid UTF-8,
// which the option accepts too, is checked apart.
var loneSurrogates = []jsontext.Options{jsontext.AllowInvalidUTF8(true)}

var errInvalidUTF8 = errors.New("invalid UTF-8")

// Check reports whether src is exactly one JSON value, with white space
// around it allowed, no duplicate names and valid UTF-8 (escaped lone
// surrogates are allowed, as AppendCompact says). It copies nothing. The
// error is a *jsontext.SyntacticError whose ByteOffset is relative to src.
func Check(src []byte) error {
	if jsontext.Value(src).IsValid() || jsontext.Value(src).IsValid(loneSurrogates...) && utf8.Valid(src) {
		return nil
	}
	d := jsontext.NewDecoder(bytes.NewBuffer(src), loneSurrogates...)
	if _, err := d.ReadValue(); err != nil {
		return err
	}
	if off := d.InputOffset(); len(TrimSpace(src[off:])) > 0 {
		rest := TrimSpace(src[off:])
		return &jsontext.SyntacticError{ByteOffset: int64(len(src) - len(rest)),
			Err: fmt.Errorf("invalid character %s after top-level value", quoteChar(rest))}
	}
	bad := invalidUTF8At(src)
	if bad < 0 {
		// IsValid and the decoder disagree; trust the decoder.
		return nil
	}
	// The pointer is known when the strict decoder stops at the same byte
	// (not at an earlier lone surrogate).
	ptr := jsontext.Pointer("")
	if _, err := jsontext.NewDecoder(bytes.NewBuffer(src)).ReadValue(); ErrorOffset(err) == int64(bad) {
		var se *jsontext.SyntacticError
		errors.As(err, &se)
		ptr = se.JSONPointer
	}
	return &jsontext.SyntacticError{ByteOffset: int64(bad), JSONPointer: ptr, Err: errInvalidUTF8}
}

// invalidUTF8At is the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// quoteChar describes the character b starts with, as jsontext does.
func quoteChar(b []byte) string {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return fmt.Sprintf(`'\x%02x'`, b[0])
	}
	return strconv.QuoteRune(r)
}

// AppendCompact appends the compact form of one JSON value to dst: no
// white space between tokens, strings with the minimal escaping that
// JavaScript's JSON.stringify uses, numbers exactly as written. On error
// dst is returned unchanged and the error is a *jsontext.SyntacticError
// whose ByteOffset is relative to src. dst must not overlap src.
//
// A string holding an escaped lone surrogate ("\ud800", half of an emoji)
// is valid output of JSON.stringify and json.dumps, so it is accepted and
// written as JSON.stringify writes it: `\ud800`, lowercase.
func AppendCompact(dst, src []byte) ([]byte, error) {
	if err := Check(src); err != nil {
		return dst, err
	}
	return appendCompact(dst, src, 0), nil
}

// CompactInPlace rewrites b, one valid JSON value as Reader.Next returns it,
// in its compact form (see AppendCompact) and returns the shortened slice.
// It allocates nothing. On a b that is not valid JSON it does not fail, but
// its result means nothing.
func CompactInPlace(b []byte) []byte {
	k := compactPrefix(b)
	return appendCompact(b[:k], b, k)
}

// Compacted returns the compact form of the valid JSON value src: src itself
// when it is compact already (as JSON.stringify and the TypeScript encoder
// write it), otherwise its compact form appended to buf[:0].
func Compacted(buf, src []byte) []byte {
	k := compactPrefix(src)
	if k == len(src) {
		return src
	}
	return appendCompact(append(buf[:0], src[:k]...), src, k)
}

// compactPrefix returns how many leading bytes of valid JSON src its compact
// form keeps as they are (up to the start of a token that changes):
// len(src) when src is compact already.
func compactPrefix(src []byte) int {
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			return i
		case '"':
			start := i
			for i++; i < len(src); i++ {
				j := stringStop(src[i:])
				if j < 0 {
					return len(src)
				}
				i += j
				if src[i] == '"' {
					break
				}
				if i+1 < len(src) && isShortEscape(src[i+1]) {
					i++
					continue
				}
				return start
			}
		}
	}
	return len(src)
}

// stringStop is the index of the first '"' or '\\' in b, or -1. It looks
// at 8 bytes at a time.
func stringStop(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, e := x^(ones*'"'), x^(ones*'\\')
		// A zero byte in q or e is a quote or a backslash; the lowest flag
		// set is exact (borrows only spoil the flags above it).
		if m := ((q - ones) &^ q & highs) | ((e - ones) &^ e & highs); m != 0 {
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

// isShortEscape reports whether `\c` is written as it is in the compact form.
func isShortEscape(c byte) bool {
	switch c {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

// appendCompact appends the compact form of src[from:] to dst. dst may be
// src[:n] with n <= from: the compact form of any piece is never longer than
// the piece, so writes never overtake reads.
func appendCompact(dst, src []byte, from int) []byte {
	run := from // start of the bytes not yet copied
	for i := from; i < len(src); {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[run:i]...)
			for i++; i < len(src) && isSpace(src[i]); i++ {
			}
			run = i
		case '"':
			for i++; i < len(src); {
				j := stringStop(src[i:])
				if j < 0 {
					i = len(src)
					break
				}
				i += j
				if src[i] == '"' {
					i++
					break
				}
				if i+1 >= len(src) {
					i = len(src)
					break
				}
				switch e := src[i+1]; {
				case isShortEscape(e):
					i += 2
				case e == '/':
					dst = append(append(dst, src[run:i]...), '/')
					i += 2
					run = i
				case e == 'u':
					r, n := DecodeEscape(src[i:])
					if n == 0 {
						i += 2 // not an escape: not valid JSON
						continue
					}
					dst = appendEscaped(append(dst, src[run:i]...), r)
					i += n
					run = i
				default:
					i += 2
				}
			}
		default:
			i++
		}
	}
	return append(dst, src[run:]...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// TrimSpace returns b without the JSON white space it starts with.
func TrimSpace(b []byte) []byte { return b[SkipSpace(b, 0):] }

// DecodeEscape reads the \uXXXX escape b starts with, and a low surrogate
// escape after a high one. It returns the rune (a lone surrogate as its
// value) and the bytes read, 0 when b does not hold an escape.
func DecodeEscape(b []byte) (rune, int) {
	r, ok := Hex4(b)
	if !ok {
		return 0, 0
	}
	if r >= 0xD800 && r < 0xDC00 {
		if lo, ok := Hex4(b[6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
		}
	}
	return r, 6
}

// Hex4 reads `\uXXXX` at the start of b.
func Hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return ParseHex4(b[2:])
}

// ParseHex4 reads the four hex digits (either case) at the start of b.
func ParseHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			c = c | 0x20 - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// ShortEscape is the byte a one-letter JSON escape stands for: \b \f \n \r
// \t their control characters, \" \\ \/ the letter itself.
func ShortEscape(c byte) byte {
	if e := shortEscapes[c]; e != 0 {
		return e
	}
	return c
}

var shortEscapes = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

const hexDigits = "0123456789abcdef"

// appendEscaped appends r inside a JSON string as JSON.stringify writes it.
func appendEscaped(dst []byte, r rune) []byte {
	if d, ok := AppendEscape(dst, r, true); ok {
		return d
	}
	return utf8.AppendRune(dst, r)
}

// AppendEscape appends the escape of r inside a quoted string when r needs
// one: \" \\ \n \r \t, \b and \f when bf (TOON, §7.1, has no \b \f),
// \u followed by 4 hex digits for the other control characters and for
// surrogates. ok is false, and dst as it was, for any other r.
func AppendEscape(dst []byte, r rune, bf bool) (_ []byte, ok bool) {
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r)), true
	case r == '\n':
		return append(dst, '\\', 'n'), true
	case r == '\r':
		return append(dst, '\\', 'r'), true
	case r == '\t':
		return append(dst, '\\', 't'), true
	case r == '\b' && bf:
		return append(dst, '\\', 'b'), true
	case r == '\f' && bf:
		return append(dst, '\\', 'f'), true
	case r >= 0 && r < 0x20 || r >= 0xD800 && r < 0xE000:
		return append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF]), true
	}
	return dst, false
}

// Valid reports whether b is exactly one valid JSON value (no duplicate
// names, valid UTF-8; escaped lone surrogates allowed).
func Valid(b []byte) bool { return Check(b) == nil }
