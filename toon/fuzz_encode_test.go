package toon

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// FuzzEncode checks that Encode never panics, that it accepts exactly the
// JSON texts jsontext accepts (valid UTF-8, no escaped lone surrogates,
// nesting up to 10000), with NaN, Infinity and -Infinity values as
// json.loads has them, and fails on the others, with the duplicate-name
// error when a duplicate name is all that is wrong; that its output keeps
// the whitespace rules of §12; and that the one-pass table form, when it
// takes a text, writes what the general path writes.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[1,"a",true,null]`, `[{"a":1,"b":"x"},{"b":"y","a":2}]`,
		`{"m":{"a":{"v":1},"b":{"v":2}}}`, `[{"g":{"x":1}},{"g":{"x":2}}]`,
		`[[1,2],[],[{}],{}]`, `{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `"\ud83d\ude00"`,
		`"\ud800"`, `-0.0e+5`, `1e400`, ` [ ] `, `{"":{"":[]}}`, `["-","#","05"," a"]`,
		string(encodeBenchRecords(3, true)), string(prettyJSON(encodeBenchRecords(3, false))),
		`[{"a":"x:y","b":-1.5e3},{"a":"\u00e9","b":0}]`,
		// json.dumps's non-finite floats (null in TOON), and what is not one.
		`[{"a": NaN, "b": Infinity}, {"a": -Infinity, "b": 1.5}]`, `{"x": [NaN, -Infinity], "y": {"z": Infinity}}`,
		`NaN`, ` -Infinity `, `[nan, inf, +Infinity, -NaN]`, `[NaNx, Infinit]`, `{"a":1,NaN:2}`,
	} {
		f.Add([]byte(s), uint8(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, indent, delim uint8) {
		opts := MarshalOptions{IndentSize: int(indent % 5), Delimiter: []Delimiter{0, Comma, Tab, Pipe}[delim%4]}
		var out bytes.Buffer
		err := FromJSON(&out, data, opts)
		checkFastTable(t, data, opts)

		// NaN, Infinity and -Infinity are values, as json.loads has them.
		masked := jsonv.MaskNonFinite(nil, data)
		strict := jsontext.Value(masked).IsValid()
		dupOK := jsontext.Value(masked).IsValid(jsontext.AllowDuplicateNames(true))
		switch {
		case strict && err != nil:
			t.Fatalf("FromJSON(%q): %v, want no error", data, err)
		case !strict && err == nil:
			t.Fatalf("FromJSON(%q) accepted invalid JSON: %q", data, out.String())
		case dupOK && !strict && !errors.Is(err, errEncodeDuplicateName):
			t.Fatalf("FromJSON(%q): %v, want a duplicate-name error", data, err)
		case err != nil:
			if out.Len() > 0 {
				t.Fatalf("FromJSON(%q) wrote %q before its error", data, out.String())
			}
			return
		}

		toon := out.Bytes()
		if !utf8.Valid(toon) {
			t.Fatalf("FromJSON(%q): output is not UTF-8: %q", data, toon)
		}
		if bytes.HasSuffix(toon, []byte("\n")) || bytes.Contains(toon, []byte{'\r'}) {
			t.Fatalf("FromJSON(%q): trailing newline or CR in %q", data, toon)
		}
		for _, line := range bytes.Split(toon, []byte("\n")) {
			if bytes.HasSuffix(line, []byte(" ")) {
				t.Fatalf("FromJSON(%q): trailing space in line %q", data, line)
			}
			if trimmed := bytes.TrimLeft(line, " "); len(trimmed) > 0 && trimmed[0] == '#' {
				t.Fatalf("FromJSON(%q): comment-like line %q", data, line)
			}
			for _, c := range line {
				if c < 0x20 && c != '\t' {
					t.Fatalf("FromJSON(%q): control character in line %q", data, line)
				}
			}
		}
	})
}
