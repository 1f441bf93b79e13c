package inspect

// Role names what a piece of text is, so that a Style can color it.
type Role int

// The roles of the Text view.
const (
	// Structure.
	FileName   Role = iota + 1 // the "==> name <==" line
	FrameTitle                 // "frame 0 at byte 0 (0x0): ..."
	Label                      // section labels and table headings
	Offset                     // hexdump offsets
	Dim                        // notes, "*" squeeze lines, unchecked fields

	// The header fields, each in its own color: its bytes and its name.
	HeaderVersion
	HeaderType
	HeaderLength
	HeaderTimestamp
	HeaderSequence

	// Byte categories of the hexdump (as hexyl colors them).
	ByteNull       // 0x00
	BytePrintable  // 0x21-0x7E
	ByteWhitespace // space, \t, \n, \v, \f, \r
	ByteOther      // other ASCII control bytes, and 0x7F
	ByteNonASCII   // 0x80-0xFF

	// JSON syntax (as jq colors it).
	JSONKey
	JSONString
	JSONNumber
	JSONLiteral // true, false
	JSONNull
	JSONPunct // { } [ ] : ,

	// Checks.
	OK      // "ok"
	Error   // "INVALID: ..." and error lines
	Warning // warning lines and bytes with an RLE oddity
	Invalid // the byte(s) that broke a rule, and their markers
)

var roleNames = [...]string{
	FileName: "FileName", FrameTitle: "FrameTitle", Label: "Label", Offset: "Offset", Dim: "Dim",
	HeaderVersion: "HeaderVersion", HeaderType: "HeaderType", HeaderLength: "HeaderLength",
	HeaderTimestamp: "HeaderTimestamp", HeaderSequence: "HeaderSequence",
	ByteNull: "ByteNull", BytePrintable: "BytePrintable", ByteWhitespace: "ByteWhitespace",
	ByteOther: "ByteOther", ByteNonASCII: "ByteNonASCII",
	JSONKey: "JSONKey", JSONString: "JSONString", JSONNumber: "JSONNumber",
	JSONLiteral: "JSONLiteral", JSONNull: "JSONNull", JSONPunct: "JSONPunct",
	OK: "OK", Error: "Error", Warning: "Warning", Invalid: "Invalid",
}

// Roles lists every role, in order.
func Roles() []Role {
	out := make([]Role, 0, len(roleNames)-1)
	for r := FileName; r <= Invalid; r++ {
		out = append(out, r)
	}
	return out
}

func (r Role) String() string {
	if r >= FileName && r <= Invalid {
		return roleNames[r]
	}
	return "Role(?)"
}

// ByteCategory returns the hexdump role of a byte: ByteNull,
// BytePrintable, ByteWhitespace, ByteOther or ByteNonASCII.
func ByteCategory(b byte) Role {
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
