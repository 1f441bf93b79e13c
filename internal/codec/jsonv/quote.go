package jsonv

import (
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendQuote appends s to dst as a JSON string, invalid UTF-8 replaced by
// U+FFFD: the quoting of every report toonkit writes.
func AppendQuote(dst []byte, s string) []byte {
	out, err := jsontext.AppendQuote(dst, strings.ToValidUTF8(s, "\uFFFD"))
	if err != nil { // not reached: s is valid UTF-8
		return append(dst, `""`...)
	}
	return out
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapePointerToken escapes s as one reference token of a JSON pointer
// (RFC 6901: ~ as ~0, / as ~1).
func EscapePointerToken(s string) string { return pointerEscaper.Replace(s) }

// UnescapePointerToken undoes EscapePointerToken.
func UnescapePointerToken(s string) string { return pointerUnescaper.Replace(s) }
