package codec

import "testing"

func TestDetect(t *testing.T) {
	cases := []struct {
		in   string
		want Format
		why  string
	}{
		{"\x01\x01<\x00\x00\x00", Binary, "version byte 0x01 and type byte 0x01"},
		{"\x01\x08", Binary, "version byte 0x01 and type byte 0x08"},
		{"\x01\x09", "", "it starts with byte 0x01"},
		{"\x01", Binary, "version byte 0x01 (and nothing after it)"},
		{"\x02\x01", "", "it starts with byte 0x02"},
		{"@toon 1.0\n@keys a\n", Tabular, `it starts with "@toon"`},
		{"  \n{\"a\":1}", JSON, `it starts with '{'`},
		{"\xEF\xBB\xBF[1]", JSON, `it starts with '['`},
		{"", "", "the input is empty"},
		{" \n\t", "", "the input holds only white space"},
		{"hello", "", `it starts with byte 0x68 ('h')`},
	}
	for _, c := range cases {
		d := Detect([]byte(c.in))
		if d.Format != c.want || d.Why != c.why {
			t.Errorf("Detect(%q) = %+v, want %q %q", c.in, d, c.want, c.why)
		}
	}
}

func TestParse(t *testing.T) {
	for _, name := range []string{"binary", "BINARY", "kado", "frame", " Frame "} {
		if f, err := Parse(name, Binary, JSON); err != nil || f != Binary {
			t.Errorf("Parse(%q) = %q, %v", name, f, err)
		}
	}
	if _, err := Parse("tabular", Binary); err == nil || err.Error() != `format "tabular" is not supported here (supported: binary)` {
		t.Errorf("Parse(tabular) err = %v", err)
	}
	if _, err := Parse("yaml", Binary, JSON); err == nil || err.Error() != `unknown format "yaml" (supported: binary, json)` {
		t.Errorf("Parse(yaml) err = %v", err)
	}
	if got := Names(Binary); len(got) != 3 || got[0] != "binary" || got[1] != "frame" || got[2] != "kado" {
		t.Errorf("Names(Binary) = %v", got)
	}
}
