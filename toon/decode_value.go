package toon

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// appendToken writes the JSON value of a primitive token (§4), already
// trimmed, that stands at byte col of the current line: a quoted string,
// true, false, null, a number, or else a string.
func (d *decoder) appendToken(tok []byte, col int) error {
	if len(tok) == 0 {
		d.out = append(d.out, '"', '"')
		return nil
	}
	switch c := tok[0]; {
	case c == '"':
		raw, end, err := d.unquote(d.valBuf[:0], tok, col)
		if err != nil {
			return err
		}
		d.valBuf = raw
		if end != len(tok) {
			return d.errAt(col+end, fmt.Sprintf("unexpected %s after the closing quote", quoteForMsg(tok[end:])))
		}
		d.out = quoteJSON(d.out, raw)
		return nil
	case c == 't' && string(tok) == "true", c == 'f' && string(tok) == "false", c == 'n' && string(tok) == "null":
		d.out = append(d.out, tok...)
		return nil
	case c == '-' || isDigit(c):
		if out, ok := appendNumberToken(d.out, tok); ok {
			d.out = out
			return nil
		}
	}
	d.out = quoteJSON(d.out, tok)
	return nil
}

// appendNumberToken appends the canonical form of tok if it is a number by the
// grammar of §4 (IsNumber) and reports whether it is: the token itself
// when it is already canonical, which is the common case, in one pass.
func appendNumberToken(dst, tok []byte) ([]byte, bool) {
	i := 0
	if tok[0] == '-' {
		i = 1
	}
	start := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	n := i - start
	if n == 0 || tok[start] == '0' && n > 1 {
		return dst, false
	}
	if i == len(tok) {
		if n > 21 || tok[start] == '0' && start == 1 { // 1e21 and up, -0
			return AppendNumber(dst, tok), true
		}
		return append(dst, tok...), true
	}
	if tok[i] != '.' {
		if !IsNumber(tok) {
			return dst, false
		}
		return AppendNumber(dst, tok), true
	}
	f := i + 1
	for i = f; i < len(tok) && isDigit(tok[i]); i++ {
	}
	switch {
	case i == f:
		return dst, false
	case i < len(tok):
		if !IsNumber(tok) {
			return dst, false
		}
	case n <= 21 && tok[start] != '0' && tok[i-1] != '0':
		return append(dst, tok...), true
	}
	return AppendNumber(dst, tok), true
}

// unquote appends to dst the text of the quoted string at the start of s
// (s[0] == '"') with its escapes undone (§7.1), and returns the index
// after the closing quote. col is the column of s in the current line.
func (d *decoder) unquote(dst, s []byte, col int) ([]byte, int, error) {
	i := 1
	for {
		j := i
		for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 {
			j++
		}
		dst = append(dst, s[i:j]...)
		if j == len(s) {
			return dst, 0, d.errAt(col, "unterminated string: the closing quote is missing")
		}
		switch c := s[j]; c {
		case '"':
			return dst, j + 1, nil
		case '\\':
			if j+1 == len(s) {
				return dst, 0, d.errAt(col, "unterminated string: the closing quote is missing")
			}
			i = j + 2
			switch e := s[j+1]; e {
			case '\\', '"':
				dst = append(dst, e)
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := jsonv.ParseHex4(s[j+2:])
				if !ok {
					end := j + 2
					for end < len(s) && end < j+6 && isHexDigit(s[end]) {
						end++
					}
					return dst, 0, d.errAt(col+j, fmt.Sprintf("invalid escape %s: \\u takes four hex digits", s[j:end]))
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return dst, 0, d.errAt(col+j, fmt.Sprintf("invalid escape %s: a surrogate code point is not a character", s[j:j+6]))
				}
				dst = utf8.AppendRune(dst, r)
				i = j + 6
			default:
				r, _ := utf8.DecodeRune(s[j+1:])
				return dst, 0, d.errAt(col+j, fmt.Sprintf("invalid escape \\%c (expected \\\\, \\\", \\n, \\r, \\t or \\uXXXX)", r))
			}
		default: // a control character: data, escaped in the JSON
			dst = append(dst, c)
			i = j + 1
		}
	}
}

func isHexDigit(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

// jsonEscaped marks the bytes that a JSON string escapes.
var jsonEscaped = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// indexJSONEscape is the index of the first byte at or after i that a JSON
// string escapes, or len(s); it looks at 8 bytes at a time.
func indexJSONEscape(s []byte, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		q, b := w^(swarOnes*'"'), w^(swarOnes*'\\')
		if ((w-swarOnes*0x20)&^w|(q-swarOnes)&^q|(b-swarOnes)&^b)&swarHighs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if jsonEscaped[s[i]] {
			return i
		}
	}
	return len(s)
}

// quoteJSON appends s, valid UTF-8, as a JSON string escaped as
// JSON.stringify does: \" \\ \b \f \n \r \t, other controls as \u00xx,
// everything else literal.
func quoteJSON(dst, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; ; {
		j := indexJSONEscape(s, i)
		dst = append(dst, s[i:j]...)
		if j == len(s) {
			return append(dst, '"')
		}
		dst, _ = jsonv.AppendEscape(dst, rune(s[j]), true)
		i = j + 1
	}
}

// cellSpan is a cell s[a:b], trimmed.
type cellSpan struct{ a, b int }

// cellStops marks, for each delimiter, the bytes splitCells stops at.
var cellStops = func() (t [3][256]bool) {
	for k, delim := range []byte{',', '\t', '|'} {
		t[k][delim], t[k]['"'], t[k][':'] = true, true, true
	}
	return t
}()

func stopsFor(delim byte) *[256]bool {
	switch delim {
	case '\t':
		return &cellStops[1]
	case '|':
		return &cellStops[2]
	}
	return &cellStops[0]
}

// splitCells splits s on the delimiter outside quotes (§11.2, B.3), each
// cell trimmed of spaces. For a row (§9.3) it stops and reports true at
// an unquoted colon before the first delimiter: a key-value line.
func splitCells(dst []cellSpan, s []byte, delim byte, row bool) ([]cellSpan, bool) {
	stop := stopsFor(delim)
	dw := swarOnes * uint64(delim)
	start := 0
	for i := 0; ; {
		for ; i+8 <= len(s); i += 8 {
			w := binary.LittleEndian.Uint64(s[i:])
			x, q, c := w^dw, w^(swarOnes*'"'), w^(swarOnes*':')
			if ((x-swarOnes)&^x|(q-swarOnes)&^q|(c-swarOnes)&^c)&swarHighs != 0 {
				break
			}
		}
		for i < len(s) && !stop[s[i]] {
			i++
		}
		if i == len(s) {
			return append(dst, trimCell(s, start, len(s))), false
		}
		switch s[i] {
		case delim:
			dst = append(dst, trimCell(s, start, i))
			i++
			start = i
		case '"':
			i = skipQuotedPart(s, i)
		default: // ':'
			if row && len(dst) == 0 {
				return dst, true
			}
			i++
		}
	}
}

// skipQuotedPart returns the index after the quoted part that starts at s[i],
// or len(s) when it is not closed.
func skipQuotedPart(s []byte, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

func trimCell(s []byte, a, b int) cellSpan {
	for a < b && s[a] == ' ' {
		a++
	}
	for b > a && s[b-1] == ' ' {
		b--
	}
	return cellSpan{a, b}
}

// keySet is the set of keys of one object, for duplicates (§14.3): a
// slice searched linearly while small, a map beyond.
type keySet struct {
	buf  []byte
	keys []setKey
	line []int // per key, the line of its first occurrence
	m    map[string]int
}

// setKey is a key of a small keySet: buf[start:end], with its length and
// first 8 bytes as a quick fingerprint.
type setKey struct {
	print      uint64
	start, end int
}

const keySetLinear = 16

func (s *keySet) reset() {
	s.buf, s.keys, s.line = s.buf[:0], s.keys[:0], s.line[:0]
	if s.m != nil {
		if len(s.m) > 1024 {
			s.m = nil
		} else {
			clear(s.m)
		}
	}
}

// keyFingerprint is a key's length and first 8 bytes: equal fingerprints
// mean equal keys for keys of up to 8 bytes.
func keyFingerprint(key []byte) uint64 {
	var p uint64
	if len(key) >= 8 {
		p = binary.LittleEndian.Uint64(key)
	} else {
		for i := len(key) - 1; i >= 0; i-- {
			p = p<<8 | uint64(key[i])
		}
	}
	return p ^ uint64(len(key))<<58
}

// add adds key seen at line; for a key already there it reports its index,
// the line of its first occurrence and true.
func (s *keySet) add(key []byte, line int) (int, int, bool) {
	n := len(s.line)
	if n < keySetLinear {
		p := keyFingerprint(key)
		for i, k := range s.keys {
			if k.print == p && k.end-k.start == len(key) && (len(key) <= 8 || string(s.buf[k.start:k.end]) == string(key)) {
				return i, s.line[i], true
			}
		}
		start := len(s.buf)
		s.buf = append(s.buf, key...)
		s.keys = append(s.keys, setKey{print: p, start: start, end: len(s.buf)})
		s.line = append(s.line, line)
		return n, line, false
	}
	if s.m == nil {
		s.m = make(map[string]int, 2*keySetLinear)
	}
	if len(s.m) == 0 {
		for i, k := range s.keys {
			s.m[string(s.buf[k.start:k.end])] = i
		}
	}
	if i, ok := s.m[string(key)]; ok {
		return i, s.line[i], true
	}
	s.m[string(key)] = n
	s.line = append(s.line, line)
	return n, line, false
}
