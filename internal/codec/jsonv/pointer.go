package jsonv

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// PointerOffset returns the offset within the valid JSON value v of the
// value that the JSON pointer ptr names, or, when there is no such value
// (a missing member), of the nearest enclosing one that exists.
func PointerOffset(v []byte, ptr string) int64 {
	d := jsontext.NewDecoder(bytes.NewBuffer(v)) // in place, not copied
	at := int64(len(v) - len(TrimSpace(v)))
	if ptr == "" {
		return at
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = UnescapePointerToken(tok)
		switch d.PeekKind() {
		case '{':
			d.ReadToken()
			found := false
			for d.PeekKind() != '}' && d.PeekKind() != 0 {
				name, err := d.ReadToken()
				if err != nil {
					return at
				}
				if name.String() == tok {
					found = true
					break
				}
				if d.SkipValue() != nil {
					return at
				}
			}
			if !found {
				return at
			}
		case '[':
			d.ReadToken()
			n, err := strconv.Atoi(tok)
			if err != nil {
				return at
			}
			for i := 0; i < n; i++ {
				if d.PeekKind() == ']' || d.SkipValue() != nil {
					return at
				}
			}
			if d.PeekKind() == ']' {
				return at
			}
		default:
			return at
		}
		// The value starts after white space (and a ':' after a name).
		off := d.InputOffset()
		rest := v[off:]
		i := 0
		for i < len(rest) && (isSpace(rest[i]) || rest[i] == ':' || rest[i] == ',') {
			i++
		}
		at = off + int64(i)
	}
	return at
}
