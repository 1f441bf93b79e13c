package toon

import (
	"strconv"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// unquotedKeyChar marks the bytes of an unquoted key (§7.3):
// ^[A-Za-z_][A-Za-z0-9_.]*$; unquotedKeyStart those it may start with.
var unquotedKeyChar, unquotedKeyStart = func() (chars, starts [256]bool) {
	for c := range 256 {
		b := byte(c)
		letter := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_'
		starts[c] = letter
		chars[c] = letter || isDigit(b) || b == '.'
	}
	return
}()

// isUnquotedKey reports whether a key may be written without quotes (§7.3).
func isUnquotedKey(s []byte) bool {
	if len(s) == 0 || !unquotedKeyStart[s[0]] {
		return false
	}
	for _, c := range s[1:] {
		if !unquotedKeyChar[c] {
			return false
		}
	}
	return true
}

// appendKey writes an object member's name as a key (§7.3).
func (e *encoder) appendKey(k memberKey) {
	if k.out != nil {
		e.out = append(e.out, k.out...)
		return
	}
	s := k.raw
	if k.escaped {
		e.kbuf = appendJSONUnescaped(e.kbuf[:0], s)
		s = e.kbuf
	}
	e.appendName(s)
}

// appendName writes a decoded key or field name (§7.3).
func (e *encoder) appendName(s []byte) {
	if isUnquotedKey(s) {
		e.out = append(e.out, s...)
	} else {
		e.out = appendQuotedTOON(e.out, s)
	}
}

// appendHeader writes an array or keyed header (§6): the key unless there
// is none, the length, the keyed marker, the delimiter unless it is a
// comma, the fields of the field tree node fields (none when -1), and the
// colon.
func (e *encoder) appendHeader(k memberKey, n int, keyed bool, fields int) {
	if !k.none {
		e.appendKey(k)
	}
	e.out = append(e.out, '[')
	e.out = strconv.AppendInt(e.out, int64(n), 10)
	if keyed {
		e.out = append(e.out, ':')
	}
	if e.delim != ',' {
		e.out = append(e.out, e.delim)
	}
	e.out = append(e.out, ']')
	if fields >= 0 {
		e.appendFields(fields)
	}
	e.out = append(e.out, ':')
}

// appendFields writes the field list of a field tree node, nested groups
// within it (§9.3).
func (e *encoder) appendFields(parent int) {
	nd := e.nodes[parent]
	e.out = append(e.out, '{')
	for f := nd.lo; f < nd.hi; f++ {
		if f > nd.lo {
			e.out = append(e.out, e.delim)
		}
		e.appendName(e.nodes[f].name)
		if e.nodes[f].group {
			e.appendFields(int(f))
		}
	}
	e.out = append(e.out, '}')
}

// prim writes the primitive that starts at p and returns the offset past
// it.
func (e *encoder) prim(p int) int {
	var end int
	e.out, end = e.appendPrim(e.out, p)
	return end
}

// appendPrim appends the primitive that starts at p to dst and returns the
// offset past it.
func (e *encoder) appendPrim(dst []byte, p int) ([]byte, int) {
	switch e.in[p] {
	case '"':
		return e.appendStr(dst, p)
	case 't':
		return append(dst, "true"...), p + 4
	case 'f':
		return append(dst, "false"...), p + 5
	case 'n':
		return append(dst, "null"...), p + 4
	case 'N', 'I':
		return append(dst, "null"...), p + max(1, nonFiniteLen(e.in[p:])) // §3; max: a changed text moves on
	case '-':
		if e.in[p+1] == 'I' {
			return append(dst, "null"...), p + len("-Infinity")
		}
	}
	return appendNumberAt(dst, e.in, p)
}

// appendStr appends the string value that starts at p to dst, quoted when
// it must be, and returns the offset past it. It finds the string's end
// and the characters that call for quotes in one pass; a string with
// escapes is decoded first.
func (e *encoder) appendStr(dst []byte, p int) ([]byte, int) {
	return e.appendStrIn(dst, e.in, p)
}

// appendStrIn is appendStr on the valid JSON text in rather than e.in.
func (e *encoder) appendStrIn(dst, in []byte, p int) ([]byte, int) {
	quote := false
	j := p + 1
	for ; j < len(in); j++ {
		switch e.class[in[j]] {
		case classPlain:
			continue
		case classQuote:
			quote = true
			continue
		}
		break
	}
	if j >= len(in) || in[j] == '\\' {
		end, _ := jsonStringEnd(in, p)
		e.sbuf = appendJSONUnescaped(e.sbuf[:0], in[p+1:max(end-1, p+1)])
		if e.plain(e.sbuf) {
			return append(dst, e.sbuf...), end
		}
		return appendQuotedTOON(dst, e.sbuf), end
	}
	s := in[p+1 : j]
	if !quote && e.plainEdges(s) {
		return append(dst, s...), j + 1
	}
	return appendQuotedTOON(dst, s), j + 1
}

// appendString writes a string value, quoted when §7.2 asks for it.
func (e *encoder) appendString(s []byte) {
	if e.plain(s) {
		e.out = append(e.out, s...)
	} else {
		e.out = appendQuotedTOON(e.out, s)
	}
}

// plain reports whether a string value may go without quotes (§7.2), the
// document delimiter being the active one of every header.
func (e *encoder) plain(s []byte) bool {
	for _, c := range s {
		if e.class[c] != classPlain {
			return false
		}
	}
	return e.plainEdges(s)
}

// plainEdges reports whether a string value, none of whose bytes calls for
// quotes, may go without them: not empty, no space at either end, not
// numeric-like, not a literal, no hyphen or number sign first (§7.2).
func (e *encoder) plainEdges(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	switch c := s[0]; c {
	case ' ', '-', '#':
		return false
	case '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if IsNumericLike(s) {
			return false
		}
	case 't', 'f', 'n':
		if str := string(s); str == "true" || str == "false" || str == "null" {
			return false
		}
	}
	return s[len(s)-1] != ' '
}

// The classes of bytes in string values (encoder.class).
const (
	classPlain = iota
	classQuote // calls for quotes: : [ ] { } control characters, the delimiter
	classStop  // ends the raw string or starts an escape: " \
)

// appendQuotedTOON appends s in quotes, escaped per §7.1: \\ \" \n \r \t, the
// other control characters as \u00xx, everything else as it is.
func appendQuotedTOON(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst, _ = jsonv.AppendEscape(append(dst, s[start:i]...), rune(c), false)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendNumberAt appends the canonical form (§2) of the JSON number that
// starts at in[p] and returns the offset past it: the literal itself when
// it is canonical already (the common case), else AppendNumber's rewriting
// of it. Canonical is what AppendNumber gives: no exponent, no -0, no
// trailing zero in a fraction, at most 21 integer digits and, below 1,
// fewer than 6 zeros after the point.
func appendNumberAt(dst, in []byte, p int) ([]byte, int) {
	j := p
	if j < len(in) && in[j] == '-' {
		j++
	}
	start := j
	for j < len(in) && isDigit(in[j]) {
		j++
	}
	canonical := j > start && j-start <= 21
	if j < len(in) && in[j] == '.' {
		j++
		frac := j
		for j < len(in) && isDigit(in[j]) {
			j++
		}
		canonical = canonical && j > frac && in[j-1] != '0'
		if canonical && in[start] == '0' {
			// 0.000001 is canonical; 0.0000001 is 1e-7.
			zeros := 0
			for zeros < 6 && in[frac+zeros] == '0' {
				zeros++
			}
			canonical = zeros < 6
		}
	} else if canonical && in[start] == '0' && start > p {
		canonical = false // -0
	}
	if j < len(in) && (in[j] == 'e' || in[j] == 'E') {
		canonical = false
		j = jsonNumberEnd(in, j)
	}
	if j == p && j < len(in) {
		j++ // not a number (the text changed after it was checked): move on
	}
	if canonical {
		return append(dst, in[p:j]...), j
	}
	return AppendNumber(dst, in[p:j]), j
}
