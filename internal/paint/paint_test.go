package paint

import "testing"

func TestByte(t *testing.T) {
	tests := []struct {
		b    byte
		want Role
	}{
		{0x00, ByteNull},
		{' ', ByteWhitespace}, {'\t', ByteWhitespace}, {'\n', ByteWhitespace},
		{'\v', ByteWhitespace}, {'\f', ByteWhitespace}, {'\r', ByteWhitespace},
		{'!', BytePrintable}, {'A', BytePrintable}, {'{', BytePrintable}, {'~', BytePrintable},
		{0x01, ByteOther}, {0x1b, ByteOther}, {0x1f, ByteOther}, {0x7f, ByteOther},
		{0x80, ByteNonASCII}, {0xc3, ByteNonASCII}, {0xff, ByteNonASCII},
	}
	for _, tt := range tests {
		if got := Byte(tt.b); got != tt.want {
			t.Errorf("Byte(0x%02x) = %v, want %v", tt.b, got, tt.want)
		}
	}
	// Every byte has exactly one of the five categories.
	for b := 0; b < 256; b++ {
		switch Byte(byte(b)) {
		case ByteNull, BytePrintable, ByteWhitespace, ByteOther, ByteNonASCII:
		default:
			t.Errorf("byte 0x%02x has no category", b)
		}
	}
}

// Every role has a name, and Roles lists each once, without Plain.
func TestRoles(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Roles() {
		name := r.String()
		if r == Plain || name == "Role(?)" || seen[name] {
			t.Errorf("role %d: name %q (Plain, nameless or repeated)", int(r), name)
		}
		seen[name] = true
	}
	if len(seen) != int(numRoles)-1 {
		t.Errorf("Roles lists %d roles, want %d", len(seen), numRoles-1)
	}
}

func TestNilFuncIsPlain(t *testing.T) {
	var f Func
	if got := f.Paint(Error, "error"); got != "error" {
		t.Errorf("nil Func: %q", got)
	}
	f = func(r Role, s string) string { return "<" + r.String() + ">" + s }
	if got := f.Paint(Error, "error"); got != "<Error>error" {
		t.Errorf("Func: %q", got)
	}
}
