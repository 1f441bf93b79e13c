// Package tabular is the Genesis A2A "TOON 1.0" tabular text: an array of
// objects written as a `@toon 1.0` line, a `@keys` line and one CSV-like row
// per object. See docs/formats/tabular.md.
//
// The format cannot say everything JSON can (a string that looks like a
// number, an empty string, a missing key, nesting): the Encoder reports
// every cell that would not read back as it was, so that a caller can refuse
// to write a lossy table.
package tabular

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Magic is the first line of a table, without its newline.
const Magic = "@toon 1.0"

// ErrNotObject is returned for a row that is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// NotObjectError is a row that is not a JSON object; it matches ErrNotObject.
type NotObjectError struct{ Found string }

func (e *NotObjectError) Error() string   { return "expected an object, found " + e.Found }
func (e *NotObjectError) Is(t error) bool { return t == ErrNotObject }

// splitter gives the members of objects.
type splitter struct {
	dec     jsontext.Decoder
	members []member
	names   []byte
}

type member struct {
	name, value []byte
	escaped     bool
}

// each calls f with each member of the JSON object obj (a valid JSON
// value): its name unquoted (valid during the call) and its value as
// written. Objects are split by a structural scan, whatever their white
// space (compact, or as json.dumps writes them); the decoder is left for
// what is not a valid object, for its error.
func (s *splitter) each(obj []byte, f func(name, value []byte)) error {
	if k := firstByte(obj); k != '{' {
		return &NotObjectError{Found: jsonv.KindName(k)}
	}
	s.members = s.members[:0]
	if jsonv.Members(obj, func(name []byte, escaped bool, v []byte) {
		s.members = append(s.members, member{name, v, escaped})
	}) {
		for _, m := range s.members {
			name := m.name
			if m.escaped {
				s.names = append(append(append(s.names[:0], '"'), name...), '"')
				s.names, _ = jsontext.AppendUnquote(s.names[:0], s.names)
				name = s.names
			}
			f(name, m.value)
		}
		return nil
	}
	d := &s.dec
	d.Reset(bytes.NewBuffer(obj), jsontext.AllowInvalidUTF8(true))
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	for d.PeekKind() != '}' {
		raw, err := d.ReadValue()
		if err != nil {
			return err
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			s.names, _ = jsontext.AppendUnquote(s.names[:0], raw)
			name = s.names
		}
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		f(name, v)
	}
	return nil
}

func firstByte(b []byte) byte {
	b = jsonv.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// Lossy is a cell that would not read back as it was written (or a cell
// nested deeper than the spec allows, see RowWriter.Report).
type Lossy struct {
	Row   int    // 0-based index of the row (the object in the array)
	Key   string // the key of the cell
	Value string // the value as JSON, cut to 60 characters; "" when missing
	Why   string // what it would read back as
}

func (l Lossy) String() string {
	if l.Value == "" {
		return fmt.Sprintf("row %d, key %q: %s", l.Row, l.Key, l.Why)
	}
	return fmt.Sprintf("row %d, key %q: %s %s", l.Row, l.Key, l.Value, l.Why)
}

// AppendHeader appends the `@toon 1.0` and `@keys` lines of a table with
// the given keys. With no keys at all (rows of empty objects) the keys line
// is `@keys` alone, so that it differs from `@keys ` with the one key "".
func AppendHeader(dst []byte, keys []string) []byte {
	dst = append(dst, Magic+"\n@keys"...)
	for i, k := range keys {
		if i == 0 {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, ',')
		}
		dst = appendEscaped(dst, k)
	}
	return append(dst, '\n')
}

// cellWriter writes cells.
type cellWriter struct {
	buf []byte
}

// appendCell appends the cell of value v (nil: the key is missing) and says
// why it would not read back as v, or "".
func (e *cellWriter) appendCell(dst, v []byte) ([]byte, string) {
	if v == nil {
		return dst, missingWhy
	}
	switch v[0] {
	case 'n':
		return dst, ""
	case 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return append(dst, v...), ""
	case '"':
		s := v[1 : len(v)-1]
		start := len(dst)
		d, ok := appendPlain(dst, s)
		if ok {
			return d, stringLoss(s)
		}
		dst = d[:start]
		// An escape of JSON's (or a control character, in a string that
		// is not valid JSON): the string's text, escaped for the table.
		if bytes.IndexByte(s, '\\') >= 0 {
			var err error
			if s, err = jsontext.AppendUnquote(e.buf[:0], v); err != nil {
				// A lone surrogate escape: keep the string as written,
				// quotes and all, which reads back as a string all the same.
				return appendEscaped(dst, v), "holds a lone surrogate escape, and reads back as its JSON text"
			}
			e.buf = s
		}
		return appendEscaped(dst, s), stringLoss(s)
	}
	// An object or an array: compact JSON, escaped.
	c := jsonv.Compacted(e.buf[:0], v)
	if len(c) > 0 && len(v) > 0 && &c[0] != &v[0] {
		e.buf = c
	}
	return appendEscaped(dst, c), ""
}

const missingWhy = "missing, reads back as null"

// stringLoss says what the text of a string cell reads back as when that is
// not the same string, or "".
func stringLoss(s []byte) string {
	switch {
	case len(s) == 0:
		return "is an empty string, which reads back as null"
	case string(s) == "true" || string(s) == "false":
		return "is a string that reads back as a boolean"
	case IsNumber(s):
		return "is a string that reads back as a number"
	case (s[0] == '{' || s[0] == '[') && jsonv.Valid(s):
		return "is a string of JSON, which reads back as that JSON value"
	}
	return ""
}

// Deep reports whether the valid JSON value v is a container that holds a
// container: a cell nested deeper than the one level the A2A spec allows.
// toonkit reads such a cell back exactly, but a Genesis sender falls back to
// JSON for such data, so it is worth a warning, and --to auto avoids it.
func Deep(v []byte) bool {
	if len(v) > 0 && v[0] != '{' && v[0] != '[' && v[0] > ' ' {
		return false // a scalar (the common case), without white space to pass over
	}
	c := bytes.TrimSpace(v)
	if len(c) == 0 || c[0] != '{' && c[0] != '[' {
		return false
	}
	inStr := false
	for i := 1; i < len(c)-1; i++ {
		switch b := c[i]; {
		case inStr && b == '\\':
			i++
		case b == '"':
			inStr = !inStr
		case !inStr && (b == '{' || b == '['):
			return true
		}
	}
	return false
}

// shortJSON is v compact, cut to 60 characters for a message.
func shortJSON(v []byte) string {
	if v == nil {
		return ""
	}
	s := string(jsonv.Compacted(nil, v))
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:57]) + "…"
	}
	return s
}

// appendEscaped appends s with `\` `,` LF and CR escaped.
func appendEscaped[S ~string | ~[]byte](dst []byte, s S) []byte {
	for {
		i := escapeAt(s)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		switch s[i] {
		case '\\':
			dst = append(dst, `\\`...)
		case ',':
			dst = append(dst, `\c`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		}
		s = s[i+1:]
	}
}

// appendPlain appends s, the text of a JSON string between its quotes, to
// dst as a cell, with its commas escaped, in one pass, and reports true;
// it reports false when s holds a backslash (an escape of JSON's) or a
// control character, which the caller writes otherwise, having cut dst
// back to its length before the call.
func appendPlain(dst, s []byte) ([]byte, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for {
		i, at := 0, -1
		for ; i+8 <= len(s); i += 8 {
			x := binary.LittleEndian.Uint64(s[i:])
			// A zero byte in b or c, or a byte below 0x20 in x: the
			// lowest flag set is exact (as in escapeAt).
			b, c := x^(ones*'\\'), x^(ones*',')
			if m := ((b-ones)&^b | (c-ones)&^c | (x-ones*0x20)&^x) & highs; m != 0 {
				at = i + bits.TrailingZeros64(m)/8
				break
			}
		}
		if at < 0 {
			for ; i < len(s); i++ {
				if c := s[i]; c == ',' || c == '\\' || c < 0x20 {
					at = i
					break
				}
			}
			if at < 0 {
				return append(dst, s...), true
			}
		}
		if s[at] != ',' {
			return dst, false
		}
		dst = append(append(dst, s[:at]...), `\c`...)
		s = s[at+1:]
	}
}

// escapeAt is the index of the first byte of s to escape, or -1. It looks
// at 8 bytes at a time.
func escapeAt[S ~string | ~[]byte](s S) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A zero byte in one of these is a byte to escape; the lowest flag
		// set is exact (borrows only spoil the flags above it).
		a, b, c, d := x^(ones*'\\'), x^(ones*','), x^(ones*'\n'), x^(ones*'\r')
		m := (a-ones)&^a | (b-ones)&^b | (c-ones)&^c | (d-ones)&^d
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if needsEscape[s[i]] {
			return i
		}
	}
	return -1
}

var needsEscape = [256]bool{'\\': true, ',': true, '\n': true, '\r': true}

// IsNumber reports whether s matches the JSON number grammar.
func IsNumber(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}
