// Package paint names the parts of toonkit's text output that a terminal
// may color. The writers of reports and views (validate's findings,
// verify's checks, inspect's frames, the exec report, stats' table, the
// error reporter's labels) mark each piece with its Role; the command line
// maps each role to its colors, in one palette, and passes a Func in. The
// packages that write never choose a color, and with a nil Func they write
// plain text.
package paint

// Role is what a piece of text is.
type Role int

// The roles. Where two views color alike, they share a role.
const (
	Plain Role = iota

	// Findings, checks and reports.
	Where   // a finding's place, file:line:col
	Error   // "error", an error event's code, a failed result
	Warning // "warning"
	Hint    // the reporter's "hint" label
	Pointer // a JSON pointer
	Info    // the exec report's log level info
	Failure // a failed check's message (verify)
	OK      // a check that passed, "ok", a bar under compact JSON (stats)
	Success // a run that ended well, the cheapest format (stats)
	Caution // inspect's warnings and RLE oddities, a bar over compact JSON (stats)
	Title   // a file's name, a frame's title, an event's type, a summary's labels
	Label   // inspect's section labels and table headings
	Dim     // notes, codes, line numbers, offsets, debug lines
	Broken  // inspect's "INVALID: ..." and error lines
	Invalid // the bytes that broke a rule, and their markers

	// The header fields of a frame, each in its own color.
	HeaderVersion
	HeaderType
	HeaderLength
	HeaderTimestamp
	HeaderSequence

	// The byte categories of a hexdump, as hexyl colors them.
	ByteNull       // 0x00
	BytePrintable  // 0x21-0x7E
	ByteWhitespace // space, \t, \n, \v, \f, \r
	ByteOther      // other ASCII control bytes, and 0x7F
	ByteNonASCII   // 0x80-0xFF

	// JSON syntax, as jq colors it.
	JSONKey
	JSONString
	JSONNumber
	JSONLiteral // true, false
	JSONNull
	JSONPunct // { } [ ] : ,

	numRoles
)

var names = [numRoles]string{
	Plain: "Plain", Where: "Where", Error: "Error", Warning: "Warning", Hint: "Hint",
	Pointer: "Pointer", Info: "Info", Failure: "Failure", OK: "OK", Success: "Success",
	Caution: "Caution", Title: "Title", Label: "Label", Dim: "Dim", Broken: "Broken",
	Invalid:       "Invalid",
	HeaderVersion: "HeaderVersion", HeaderType: "HeaderType", HeaderLength: "HeaderLength",
	HeaderTimestamp: "HeaderTimestamp", HeaderSequence: "HeaderSequence",
	ByteNull: "ByteNull", BytePrintable: "BytePrintable", ByteWhitespace: "ByteWhitespace",
	ByteOther: "ByteOther", ByteNonASCII: "ByteNonASCII",
	JSONKey: "JSONKey", JSONString: "JSONString", JSONNumber: "JSONNumber",
	JSONLiteral: "JSONLiteral", JSONNull: "JSONNull", JSONPunct: "JSONPunct",
}

func (r Role) String() string {
	if r >= 0 && r < numRoles {
		return names[r]
	}
	return "Role(?)"
}

// Roles lists every role but Plain, in order.
func Roles() []Role {
	out := make([]Role, 0, numRoles-1)
	for r := Plain + 1; r < numRoles; r++ {
		out = append(out, r)
	}
	return out
}

// Func colors s, a piece of text in role r, by wrapping it (in escape
// codes, say); it must not change the text itself. A nil Func leaves
// text plain.
type Func func(r Role, s string) string

// Paint is f(r, s), or s when f is nil.
func (f Func) Paint(r Role, s string) string {
	if f == nil {
		return s
	}
	return f(r, s)
}

// Byte returns the hexdump role of a byte: ByteNull, BytePrintable,
// ByteWhitespace, ByteOther or ByteNonASCII.
func Byte(b byte) Role {
	switch {
	case b == 0:
		return ByteNull
	case b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r':
		return ByteWhitespace
	case b > 0x20 && b < 0x7F:
		return BytePrintable
	case b < 0x80:
		return ByteOther
	}
	return ByteNonASCII
}
