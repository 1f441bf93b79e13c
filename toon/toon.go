// Package toon is the official Token-Oriented Object Notation, spec v4.4
// (SpecVersion; github.com/toon-format/spec), with the API of
// encoding/json. It passes the spec's conformance fixtures of v4.0, v4.1.0
// and v4.1.1, and follows the reference library @toon-format/toon 4.4.0
// where v4.4 changed their rules; docs/formats/toon.md lists where it
// differs from that library on purpose (numbers beyond binary64's range,
// ill-formed UTF-8 in strict mode).
//
// Go values: Marshal and Unmarshal, an Encoder and a Decoder on streams,
// configured by MarshalOptions (everything that writes TOON) and
// UnmarshalOptions (everything that reads it).
//
//	out, err := toon.Marshal(users) // []User to a TOON document
//	var back []User
//	err = toon.Unmarshal(out, &back) // and back
//
// JSON text, without Go values: FromJSON transcodes JSON text to TOON and
// ToJSON streams a TOON document to JSON text (as the toonkit CLI's
// encode and decode do), with the same two option types.
//
// Go values map to TOON as encoding/json maps them to JSON: struct fields
// by their `toon:"name,omitempty"` tag, else their `json:"..."` tag; maps
// with sorted keys; time.Time, json.Number, json.Marshaler and
// encoding.TextMarshaler as encoding/json writes them. Marshal(v) is
// byte for byte FromJSON of json.Marshal(v), without making the JSON;
// arrays of uniform structs become tables (§9.3). A TOON stream holds one
// document: an Encoder writes one, a Decoder reads one.
//
// Marshal and Encode return the document without a final newline (§12:
// no trailing newline at the end of the document). `toonkit encode --to
// toon` writes the same bytes and then one "\n", as Encoder.Encode does:
// to write a file the CLI would write, append "\n" to Marshal's result (see
// the example of Marshal without a final newline).
//
// Unmarshal stores a document as encoding/json's Unmarshal stores JSON
// (into an interface: map[string]any, []any, float64 or json.Number with
// UseNumber, string, bool, nil) and reports *SyntaxError with the line and
// column, *UnmarshalTypeError with the field path and the line. It runs
// ToJSON's decoder, the one grammar, to the document's JSON form and
// stores that with decoders cached per Go type; a Decoder does the same
// chunk by chunk as it reads, in constant memory.
//
// toonkit is before v1: the README's library section says what may still
// change.
//
// Both sides are lossless: numbers are copied digit for digit in the
// canonical form of §2 (see AppendNumber) and never pass through a float64,
// so integers beyond 2^53 and long decimals keep their exact value; member
// order is kept; decode(encode(x)) is x for every JSON document x (with the
// key order of tabular rows being their header's, as §2 allows).
//
// Policies the spec asks implementations to document:
//   - Numeric domain: arbitrary precision. A number is never turned into a
//     string, approximated or rejected for its size.
//   - Host types: FromJSON's input is JSON text, with nothing to
//     normalize but the non-finite floats Python's json.dumps writes by
//     default: NaN, Infinity and -Infinity (json.loads's spelling, where
//     a value may stand) are written as null (§3). Marshal normalizes Go values as
//     encoding/json does (time.Time to an RFC 3339 string, []byte to
//     base64, a nil slice, map or pointer to null); NaN and ±Inf are
//     errors (*UnsupportedValueError), not null, as in encoding/json.
//   - Tabs in indentation (non-strict mode; strict mode refuses them): a
//     tab is one indentation level wherever it stands, and the spaces
//     among the tabs count together, so depth = floor(spaces/IndentSize) +
//     tabs, as in the reference implementation. A line indented by tabs
//     and starting with "#" is content, not a comment (§5.1: spaces only).
//   - Prototype keys (__proto__, constructor, prototype) are ordinary keys.
package toon

import (
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/toonx"
)

// SpecVersion is the version of the TOON specification that the package
// follows: the rules of the reference library @toon-format/toon at the
// same version (the spec's v4.4 text and fixtures are not published).
const SpecVersion = "4.4"

// Delimiter is a TOON delimiter: comma (the default), tab or pipe.
type Delimiter byte

// The delimiters of §11.
const (
	Comma Delimiter = ','
	Tab   Delimiter = '\t'
	Pipe  Delimiter = '|'
)

// ParseDelimiter reads a delimiter's name (comma, tab, pipe) or the
// character itself.
func ParseDelimiter(s string) (Delimiter, error) {
	switch strings.ToLower(s) {
	case "comma", ",":
		return Comma, nil
	case "tab", "\t", `\t`:
		return Tab, nil
	case "pipe", "|":
		return Pipe, nil
	}
	return 0, fmt.Errorf("unknown delimiter %q (supported: comma, tab, pipe)", s)
}

// String is the delimiter's name, as ParseDelimiter takes it: comma, tab or pipe.
func (d Delimiter) String() string {
	switch d {
	case Tab:
		return "tab"
	case Pipe:
		return "pipe"
	}
	return "comma"
}

// DefaultIndentSize is the number of spaces per indentation level.
const DefaultIndentSize = 2

// encodeOptions and decodeOptions are the options of the byte-level
// transcoders, with the hooks that only toonkit's own packages reach,
// through internal/toonx.
type (
	encodeOptions = toonx.EncodeOptions
	decodeOptions = toonx.DecodeOptions
)

// The hooks go to internal/toonx, which cannot import toon.
func init() {
	toonx.Register(toonx.Funcs{FromJSON: fromJSON, EncodeTable: encodeTable, ToJSON: toJSON})
}
