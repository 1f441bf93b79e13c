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
		{"\xEF\xBB\xBF[1]", "", "too short to tell"},
		{"\xEF\xBB\xBF[1, 2]", JSON, `it starts with '['`},
		{"", "", "the input is empty"},
		{" \n\t", "", "too short to tell"}, // white space so far
		{"\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n{", JSON, `it starts with '{'`},
		{"\xEF", "", "too short to tell"}, // a part of a byte order mark
		{"\xEF\xBB", "", "too short to tell"},
		{"\xEF\xBB\xBF", "", "too short to tell"},
		{"\xEF\xBB\xBF{\"a\": 1}", JSON, `it starts with '{'`},
		{"\xEF\xBB\xBFa: 1", TOON, "it is text that is neither JSON nor a table"},
		{"\xEF\xBC", TOON, "it is text that is neither JSON nor a table"}, // U+FF00.. cut short
		// Text is judged by its first 64 bytes after the white space: a
		// control byte later is the TOON decoder's to report, with its line.
		{"\n\na: 1\nb: 22222222222222222222222222222222222222222222222222222222\x00", TOON, "it is text that is neither JSON nor a table"},
		{"\n\na: 1\nb: 2\x00", "", `it starts with byte 0x0A`},
		{"hello", TOON, "it is text that is neither JSON nor a table"},
		{"users[2]{id,name}:\n  1,Ada", TOON, "it is text that is neither JSON nor a table"},
		{"# a comment\na: 1", TOON, "it is text that is neither JSON nor a table"},
		{"caf\xC3", TOON, "it is text that is neither JSON nor a table"}, // cut in a character
		{"[3]: a,b,c", TOON, "it starts with a TOON array header ([N]: or [N]{...}:)"},
		{"\n[2|]{a|b}:\n", TOON, "it starts with a TOON array header ([N]: or [N]{...}:)"},
		{"[2:]{v}:\n  a: 1", TOON, "it starts with a TOON array header ([N]: or [N]{...}:)"},
		{"[2]", "", "too short to tell"},
		{"[2]\n", JSON, `it starts with '['`},
		{"@to", "", "too short to tell"},
		{"[12", "", "too short to tell"},
		{"[2|]", "", "too short to tell"},
		{"[1,", JSON, `it starts with '['`},
		{"[12, 3]", JSON, `it starts with '['`},
		{"[]", "", "too short to tell"},
		{"[ ]", JSON, `it starts with '['`},
		{"hi\x00there", "", `it starts with byte 0x68 ('h')`},
		{"caf\xC3(", "", `it starts with byte 0x63 ('c')`},
		// Packet captures, by their magic numbers.
		{"\xD4\xC3\xB2\xA1\x02\x00", Pcap, "the pcap magic number D4C3B2A1 (microseconds)"},
		{"\xA1\xB2\xC3\xD4\x00\x02", Pcap, "the pcap magic number A1B2C3D4 (microseconds)"},
		{"\x4D\x3C\xB2\xA1", Pcap, "the pcap magic number 4D3CB2A1 (nanoseconds)"},
		{"\xA1\xB2\x3C\x4D", Pcap, "the pcap magic number A1B23C4D (nanoseconds)"},
		{"\x0A\x0D\x0D\x0A\x1C\x00\x00\x00\x4D\x3C\x2B\x1A", Pcap, "the pcapng magic number 0A0D0D0A"},
		{"\x0A\x0D\x0D", "", "too short to tell"},
		{"\xA1\xB2", "", "too short to tell"},
		{"M<", "", "too short to tell"},
		{"M<x", TOON, "it is text that is neither JSON nor a table"},
	}
	for _, c := range cases {
		d := Detect([]byte(c.in))
		if d.Format != c.want || d.Why != c.why {
			t.Errorf("Detect(%q) = %+v, want %q %q", c.in, d, c.want, c.why)
		}
	}
}

func TestDetectWhole(t *testing.T) {
	for in, want := range map[string]Format{"@to": TOON, "[12": JSON, "[2]": JSON, "[]": JSON, "\xEF\xBB\xBF[1]": JSON, "@toon": Tabular, "": "",
		" \n": "", "\xEF": "", "\xEF\xBB": "", "\xEF\xBB\xBF": "", "\xEF\xBB\xBF\n{}": JSON, "\xEF\xBB\xBFa": TOON, "M<": TOON, "\xA1\xB2": ""} {
		if d := DetectWhole([]byte(in)); d.Format != want {
			t.Errorf("DetectWhole(%q) = %+v, want %q", in, d, want)
		}
	}
	for in, why := range map[string]string{" \n": "the input holds only white space", "\xEF\xBB\xBF": "the input holds only white space",
		"\xEF": "it starts with byte 0xEF", "\xEF\xBB": "it starts with byte 0xEF", "\xA1\xB2": "it starts with byte 0xA1"} {
		if d := DetectWhole([]byte(in)); d.Why != why {
			t.Errorf("DetectWhole(%q).Why = %q, want %q", in, d.Why, why)
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
	if _, err := Parse("xml", Binary, JSON); err == nil || err.Error() != `unknown format "xml" (supported: binary, json)` {
		t.Errorf("Parse(xml) err = %v", err)
	}
	if got := Names(Binary); len(got) != 3 || got[0] != "binary" || got[1] != "frame" || got[2] != "kado" {
		t.Errorf("Names(Binary) = %v", got)
	}
}

func TestFormatForExt(t *testing.T) {
	for name, want := range map[string]Format{
		"data.toon": TOON, "out/DATA.TOON": TOON, "a.b.json": JSON, "x.ndjson": NDJSON, "x.jsonl": NDJSON,
		"capture.bin": Binary, "/tmp/x.Bin": Binary,
		"c.yaml": YAML, "C.YML": YAML, "t.csv": CSV, "t.TSV": TSV,
		"data.txt": "", "data": "", "-": "", "": "", ".toon/data": "", "data.toon.gz": "", "data.": "",
	} {
		f, ok := FormatForExt(name)
		if f != want || ok != (want != "") {
			t.Errorf("FormatForExt(%q) = %q, %v; want %q", name, f, ok, want)
		}
	}
	for _, ext := range Extensions() {
		if f, ok := FormatForExt("x" + ext); !ok || InputOnly(f) {
			t.Errorf("Extensions() lists %s, which FormatForExt does not know as a written format", ext)
		}
	}
}

// YAML, CSV and TSV come from the extension or --from, never from the
// bytes: detection keeps its word for any text.
func TestInputOnlyFormats(t *testing.T) {
	for name, want := range map[string]Format{"a.yaml": YAML, "a.yml": YAML, "a.csv": CSV, "a.tsv": TSV, "a.json": "", "a.toon": "", "-": ""} {
		if f, ok := InputFormatForExt(name); f != want || ok != (want != "") {
			t.Errorf("InputFormatForExt(%q) = %q, %v", name, f, ok)
		}
	}
	for _, in := range []string{"a: 1\nb: [x]\n", "id,name\n1,Ada\n", "- x\n- y\n", "id\tname\n1\tAda\n"} {
		if d := DetectWhole([]byte(in)); InputOnly(d.Format) {
			t.Errorf("DetectWhole(%q) = %s", in, d.Format)
		}
	}
	_, err := Parse("yml", JSON, NDJSON)
	if err == nil || err.Error() != "yaml is an input format only: toonkit reads YAML, CSV and TSV, and writes none of them (supported here: json, ndjson)" {
		t.Errorf("Parse(yml): %v", err)
	}
	if f, err := Parse("YML", YAML, CSV); f != YAML || err != nil {
		t.Errorf("Parse(YML) = %q, %v", f, err)
	}
}
