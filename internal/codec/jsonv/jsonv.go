// Package jsonv is toonkit's JSON value model: a stream of raw JSON values
// read with go-json-experiment's jsontext, with member order, number literals
// and positions kept. Duplicate names and invalid UTF-8 are errors. So are
// NaN, Infinity and -Infinity, which Python's json.dumps writes for
// non-finite floats, with NonFiniteHint on the *SyntaxError; a Reader with
// Options.NonFinite reads them as values, for TOON, which writes them as
// null.
package jsonv

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// DefaultMaxValueSize bounds one JSON value read from a stream.
const DefaultMaxValueSize = 64 << 20

// Position is a place in a text input. Line and Column are 1-based; Column
// counts characters (runes), not bytes.
type Position struct {
	Offset int64
	Line   int
	Column int
}

// String is LINE:COLUMN, or LINE alone when the column is not known
// (Column 0: the YAML parser gives lines only).
func (p Position) String() string {
	if p.Column == 0 && p.Line > 0 {
		return strconv.Itoa(p.Line)
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Column)
}

// SyntaxError is malformed JSON at a position, with the line it stands on.
type SyntaxError struct {
	Pos     Position
	Pointer string // JSON pointer of the value being read, when known
	Msg     string
	Excerpt string // the line of the error, possibly cut to a window
	Caret   int    // the column of the error within Excerpt, 0-based, in runes
	// Hint is the next step, when one is known: NonFiniteHint for a NaN
	// or an Infinity.
	Hint string
	// DuplicateName says the error is an object's repeated member name
	// (Options.Duplicates keeps one instead).
	DuplicateName bool
}

func (e *SyntaxError) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("%s: %s (at %s)", e.Pos, e.Msg, e.Pointer)
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// ErrTooLarge is returned when one value passes the size limit.
var ErrTooLarge = errors.New("JSON value too large")

// TooLargeError is a value that passes the size limit. It matches ErrTooLarge.
type TooLargeError struct {
	Pos   Position // where the value starts
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: a JSON value passes the limit of %d bytes", e.Pos, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// AppendObject appends a compact JSON object: its members named names, in
// order (quoted here), the value of member i being what appendValue
// appends. It writes the object of a tree of values kept member by member.
func AppendObject(dst []byte, names []string, appendValue func(dst []byte, i int) []byte) []byte {
	dst = append(dst, '{')
	for i, name := range names {
		dst = appendValue(AppendName(dst, i, name), i)
	}
	return append(dst, '}')
}

// AppendName appends the name of an object's member i, quoted, with the
// comma before it (past the first) and the colon after it.
func AppendName(dst []byte, i int, name string) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	dst, _ = jsontext.AppendQuote(dst, name)
	return append(dst, ':')
}

// KindName names the kind of JSON value that starts with c ("an object",
// "an array", "a string", "a boolean", "null", "a number"; "nothing" for
// 0).
func KindName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case 0:
		return "nothing"
	}
	return "a number"
}

// Message turns a jsontext error into a short sentence without the package
// prefix and offsets.
func Message(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "jsontext: ")
	return msg
}

// ErrorOffset returns the byte offset a jsontext error points at, or -1.
func ErrorOffset(err error) int64 {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.ByteOffset
	}
	return -1
}

// ErrorPointer returns the JSON pointer a jsontext error points at, or "",
// shortened by ShortPointer.
func ErrorPointer(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return ShortPointer(string(se.JSONPointer))
	}
	return ""
}

// maxPointer is the longest JSON pointer put in a message.
const maxPointer = 80

// ShortPointer keeps a JSON pointer short enough for a one-line message: a
// longer one (deep nesting) keeps its first token and its last tokens, with
// "/…" for those left out.
func ShortPointer(p string) string {
	if len(p) <= maxPointer {
		return p
	}
	head := p
	if i := strings.IndexByte(p[1:], '/'); i >= 0 && i < maxPointer/2 {
		head = p[:i+1]
	} else {
		head = ""
	}
	tail := p[len(p)-(maxPointer-len(head)-2):]
	if i := strings.IndexByte(tail, '/'); i >= 0 {
		tail = tail[i:]
	}
	return head + "/…" + tail
}
