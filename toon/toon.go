// Package toon is the official Token-Oriented Object Notation, spec v4.0
// (toon-spec: 4.0, github.com/toon-format/spec): Marshal and Unmarshal of
// Go values with the API of encoding/json, and the byte-level encoder from
// JSON text and streaming decoder to JSON text that they are built on.
//
//	out, err := toon.Marshal(users) // []User to a TOON document
//	var back []User
//	err = toon.Unmarshal(out, &back) // and back
//
// Go values map to TOON as encoding/json maps them to JSON: struct fields
// by their `toon:"name,omitempty"` tag, else their `json:"..."` tag; maps
// with sorted keys; time.Time, json.Number, json.Marshaler and
// encoding.TextMarshaler as encoding/json writes them. Marshal(v) is
// byte for byte Encode of json.Marshal(v), without making the JSON; arrays
// of uniform structs become tables (§9.3). NewEncoder and NewDecoder work
// on streams.
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
// Decode, the one grammar, to the document's JSON form and stores that
// with decoders cached per Go type; a Decoder does the same chunk by chunk
// as it reads, in constant memory.
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
//   - Host types: Encode's input is JSON text, with nothing to normalize
//     but the non-finite floats Python's json.dumps writes by default:
//     NaN, Infinity and -Infinity (json.loads's spelling, where a value
//     may stand) are written as null (§3), and counted for
//     EncodeOptions.NonFinite. Marshal normalizes Go values as
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
)

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

// EncodeOptions configure Encode.
type EncodeOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// Delimiter is the document delimiter (§11.1); 0 means comma.
	Delimiter Delimiter
	// NonFinite, when not nil, is told how many NaN, Infinity and
	// -Infinity values Encode or EncodeTable wrote as null, once the
	// document is written, when there were any. (Python's json.dumps
	// writes non-finite floats so, and json.loads reads them back; TOON
	// has no such numbers, and §3 makes them null.)
	NonFinite func(count int)
}

// DecodeOptions configure a Decoder.
type DecodeOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// NonStrict turns off the strict-mode checks of §14 (strict is the
	// default), with the leniencies of the spec: counts are not checked
	// and a short row's missing cells are null, indentation depth is
	// floor(spaces/IndentSize) + tabs, a block's first line may be more
	// than one level deeper, duplicate keys resolve last-write-wins,
	// malformed headers fall through to key-value lines. It never skips a
	// line: what it cannot place (an over-indented line, a row's extra
	// cells, content after a root array) is an error with its position.
	NonStrict bool
	// JSONIndent is the indentation unit of the JSON written, "  " for
	// the form of JSON.stringify(v, null, 2); "" writes compact JSON.
	JSONIndent string
	// Elements writes a root array as its elements, each as one compact
	// JSON value on its own line (NDJSON), instead of as one array.
	Elements bool
	// MaxLineSize bounds one input line; 0 means 64 MiB.
	MaxLineSize int
	// OnLine, when not nil, is told of each content line once its JSON
	// is made: the offset in the output at which that JSON ends, the
	// line's number and the column (1-based, in bytes) where its content
	// starts. It runs on the goroutine that decodes. A JSON byte at
	// offset o of the output was made from the first line told with an
	// end past o (validate --schema places findings in TOON files so).
	OnLine func(end int64, line, col int)
}
