package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

func decString(in string, opts decodeOptions) (string, error) {
	var out bytes.Buffer
	err := toJSON(&out, strings.NewReader(in), opts)
	return out.String(), err
}

// Errors carry the line, the column in characters, the byte offset, the
// offending line as excerpt with the caret under the fault, and a message
// saying what was expected and what was found.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		opts      decodeOptions
		line, col int
		offset    int64
		msg       string
		excerpt   string
		caret     int
	}{
		{"indentation", "a:\n   b: 1", decodeOptions{}, 2, 4, 6,
			"indentation of 3 spaces is not a multiple of 2", "   b: 1", 3},
		{"indentation size 4", "a:\n  b: 1", decodeOptions{IndentSize: 4}, 2, 3, 5,
			"indentation of 2 spaces is not a multiple of 4", "  b: 1", 2},
		{"too few rows points at the header", "users[3]{id,name}:\n  1,Ada\n  2,Bob", decodeOptions{}, 1, 6, 5,
			"array declares 3 rows, found 2", "users[3]{id,name}:", 5},
		{"extra row points at the row", "[1]{id}:\n  1\n  2", decodeOptions{}, 3, 3, 15,
			"array declares 1 row, found a 2nd", "  2", 2},
		{"wide row points at the extra cell", "users[2]{id,name}:\n  1,Ada,x\n  2,Bob", decodeOptions{}, 2, 9, 27,
			"tabular row has 3 cells, the header declares 2 fields", "  1,Ada,x", 8},
		{"short row points at its end", "u[1]{a,b,c}:\n  1,2", decodeOptions{}, 2, 6, 18,
			"tabular row has 2 cells, the header declares 3 fields", "  1,2", 5},
		{"inline count", "tags[3]: a,b", decodeOptions{}, 1, 5, 4,
			"array declares 3 values, found 2", "tags[3]: a,b", 4},
		{"list count", "items[2]:\n  - a", decodeOptions{}, 1, 6, 5,
			"array declares 2 items, found 1", "items[2]:", 5},
		{"keyed count", "m[2:]{v}:\n  a: 1", decodeOptions{}, 1, 2, 1,
			"object declares 2 entries, found 1", "m[2:]{v}:", 1},
		{"duplicate key", "name: Ada\nage: 3\nname: Bob", decodeOptions{}, 3, 1, 17,
			`duplicate key "name" (first at line 1)`, "name: Bob", 0},
		{"duplicate key, many keys", decManyKeys(40) + "k7: x", decodeOptions{}, 41, 1, int64(len(decManyKeys(40))),
			`duplicate key "k7" (first at line 8)`, "k7: x", 0},
		{"duplicate entry key", "m[2:]{v}:\n  a: 1\n  a: 2", decodeOptions{}, 3, 3, 19,
			`duplicate key "a" (first at line 2)`, "  a: 2", 2},
		{"duplicate field name", "u[1]{a,b,a}:\n  1,2,3", decodeOptions{}, 1, 10, 9,
			`duplicate field name "a" in the header`, "u[1]{a,b,a}:", 9},
		{"invalid escape", `x: "caf\xé"`, decodeOptions{}, 1, 8, 7,
			`invalid escape \x (expected \\, \", \n, \r, \t or \uXXXX)`, `x: "caf\xé"`, 7},
		{"column in characters", `名前: "x\q"`, decodeOptions{}, 1, 7, 10,
			`invalid escape \q (expected \\, \", \n, \r, \t or \uXXXX)`, `名前: "x\q"`, 6},
		{"short unicode escape", `v: "\u12"`, decodeOptions{}, 1, 5, 4,
			`invalid escape \u12: \u takes four hex digits`, `v: "\u12"`, 4},
		{"surrogate escape", `v: "\uDC00"`, decodeOptions{}, 1, 5, 4,
			`invalid escape \uDC00: a surrogate code point is not a character`, `v: "\uDC00"`, 4},
		{"unterminated string", "a:\n  d: \"unterminated", decodeOptions{}, 2, 6, 8,
			"unterminated string: the closing quote is missing", `  d: "unterminated`, 5},
		{"text after closing quote", `a: "x" y`, decodeOptions{}, 1, 7, 6,
			`unexpected " y" after the closing quote`, `a: "x" y`, 6},
		{"missing colon", "a:\n  user", decodeOptions{}, 2, 3, 5,
			`missing colon after key "user" (expected key: value)`, "  user", 2},
		{"header missing colon", "items[2]{id,name}\n  1,Ada", decodeOptions{}, 1, 18, 17,
			"missing colon at the end of the array header", "items[2]{id,name}", 17},
		{"tab indentation", "a:\n\tb: 1", decodeOptions{}, 2, 1, 3,
			"tab in indentation: indent with spaces only", " b: 1", 0},
		{"depth jump", "a:\n    b: 1", decodeOptions{}, 2, 5, 7,
			"indentation jumps from depth 0 to depth 2: a block's first line is one level deeper than the line that opens it", "    b: 1", 4},
		{"over-indented", "a: 1\n  b: 2", decodeOptions{}, 2, 3, 7,
			"unexpected indentation: a line at depth 1 where this block's lines are at depth 0 (the line before opens no block)", "  b: 2", 2},
		{"blank line in array", "items[2]:\n  - a\n\n  - b", decodeOptions{}, 3, 1, 16,
			"blank line inside an array: blank lines may come only before its first item or after its last line", "", 0},
		{"trailing content", "[2]: 1,2\njunk: 3", decodeOptions{}, 2, 1, 9,
			`unexpected "junk: 3" after the end of the root array: nothing may follow it`, "junk: 3", 0},
		{"keyless header in object", "a:\n  [2]: 1,2", decodeOptions{}, 2, 3, 5,
			`array header without a key: only the document's first line or a list item ("- [N]: …") may omit the key`, "  [2]: 1,2", 2},
		{"bad length", "x[03]: a", decodeOptions{}, 1, 3, 2,
			"array length 03 has a leading zero", "x[03]: a", 2},
		{"delimiter mismatch", "items[2\t]{a,b}:\n  1\t2", decodeOptions{}, 1, 12, 11,
			"the field list is split by comma, but the header declares the tab delimiter", "items[2 ]{a,b}:", 11},
		{"two root primitives", "hello\nworld", decodeOptions{}, 1, 1, 0,
			`missing colon after "hello": a document of more than one line is an object of key: value lines (a lone value must be the only line)`, "hello", 0},
		{"invalid UTF-8", "k: é\xffz", decodeOptions{}, 1, 5, 5,
			"invalid UTF-8: byte 0xff does not begin a well-formed character", "k: é\uFFFDz", 4},
		{"UTF-8 surrogate", "k: \xed\xa0\x80", decodeOptions{}, 1, 4, 3,
			"invalid UTF-8: byte 0xed does not begin a well-formed character", "k: \uFFFD", 3},
		{"truncated UTF-8", "a: 1\nk: \xe2\x82", decodeOptions{}, 2, 4, 8,
			"invalid UTF-8: byte 0xe2 does not begin a well-formed character", "k: \uFFFD", 3},
		{"invalid UTF-8 in a comment", "# \xc0\na: 1", decodeOptions{}, 1, 3, 2,
			"invalid UTF-8: byte 0xc0 does not begin a well-formed character", "# \uFFFD", 2},
		{"BOM counts in offsets", "\uFEFFa: 1\nb: \"\\q\"", decodeOptions{}, 2, 5, 12,
			`invalid escape \q (expected \\, \", \n, \r, \t or \uXXXX)`, `b: "\q"`, 4},
		{"indented first line", "  42", decodeOptions{}, 1, 3, 2,
			"unexpected indentation: the first line of a document is not indented", "  42", 2},
		{"colon inside quotes", "a: 1\nb\"c: 1\"", decodeOptions{}, 2, 1, 5,
			`missing colon after key "b\"c: 1\"" (expected key: value)`, `b"c: 1"`, 0},
		{"line too long", "a: 1\nb: " + strings.Repeat("x", 100), decodeOptions{MaxLineSize: 64}, 2, 1, 5,
			"line 2 is longer than the limit of 64 bytes", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := decString(tt.in, tt.opts)
			var se *jsonv.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("toJSON(%q) = %q, %v; want a *jsonv.SyntaxError", tt.in, out, err)
			}
			got := fmt.Sprintf("%d:%d@%d %s | %q ^%d", se.Pos.Line, se.Pos.Column, se.Pos.Offset, se.Msg, se.Excerpt, se.Caret)
			want := fmt.Sprintf("%d:%d@%d %s | %q ^%d", tt.line, tt.col, tt.offset, tt.msg, tt.excerpt, tt.caret)
			if got != want {
				t.Errorf("toJSON(%q) error\n got: %s\nwant: %s", tt.in, got, want)
			}
			if s := err.Error(); s != fmt.Sprintf("%d:%d: %s", tt.line, tt.col, tt.msg) {
				t.Errorf("Error() = %q", s)
			}
		})
	}
}

func decManyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d: %d\n", i, i)
	}
	return b.String()
}

// JSONIndent writes JSON exactly as JSON.stringify(v, null, indent).
func TestDecodeJSONIndent(t *testing.T) {
	tests := []struct{ in, indent, want string }{
		{"a: 1\nb:\nc: []\nd[0]:\ne[2]: x,\"y\"", "  ",
			"{\n  \"a\": 1,\n  \"b\": {},\n  \"c\": [],\n  \"d\": [],\n  \"e\": [\n    \"x\",\n    \"y\"\n  ]\n}\n"},
		{"users[2]{id,geo{lat,lon}}:\n  1,2.50,-0\n  2,1e3,x", "  ",
			"{\n  \"users\": [\n    {\n      \"id\": 1,\n      \"geo\": {\n        \"lat\": 2.5,\n        \"lon\": 0\n      }\n    },\n" +
				"    {\n      \"id\": 2,\n      \"geo\": {\n        \"lat\": 1000,\n        \"lon\": \"x\"\n      }\n    }\n  ]\n}\n"},
		{"[2]:\n  - a: 1\n    b:\n      c: true\n  -", "\t",
			"[\n\t{\n\t\t\"a\": 1,\n\t\t\"b\": {\n\t\t\t\"c\": true\n\t\t}\n\t},\n\t{}\n]\n"},
		{"m[2:]{v}:\n  x: 1\n  y: null", "  ",
			"{\n  \"m\": {\n    \"x\": {\n      \"v\": 1\n    },\n    \"y\": {\n      \"v\": null\n    }\n  }\n}\n"},
		{"", "  ", "{}\n"},
		{"[]", "  ", "[]\n"},
		{"42", "  ", "42\n"},
		{"a: 1", "", "{\"a\":1}\n"},
		{"a[2]:\n  - [1]: x\n  - []", "  ", "{\n  \"a\": [\n    [\n      \"x\"\n    ],\n    []\n  ]\n}\n"},
	}
	for _, tt := range tests {
		got, err := decString(tt.in, decodeOptions{JSONIndent: tt.indent})
		if err != nil || got != tt.want {
			t.Errorf("toJSON(%q, indent %q)\n got: %q, %v\nwant: %q", tt.in, tt.indent, got, err, tt.want)
		}
	}
}

// Strings are escaped as JSON.stringify escapes them.
func TestDecodeStringEscapes(t *testing.T) {
	in := `a: "q\" b\\ n\n r\r t\t` + "\x09" + ` u\u0001\u0008\u000c\u001F\u007f\u2028é\u00e9"` + "\nb: x\x7fy\u2028z"
	want := `{"a":"q\" b\\ n\n r\r t\t\t u\u0001\b\f\u001f` + "\x7f\u2028éé" + `","b":"x` + "\x7fy\u2028z" + `"}` + "\n"
	got, err := decString(in, decodeOptions{})
	if err != nil || got != want {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
	// A control character outside quotes is data, escaped in the output.
	got, err = decString("a: x\x01y", decodeOptions{})
	if err != nil || got != "{\"a\":\"x\\u0001y\"}\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

// Numbers keep their exact value in canonical form.
func TestDecodeNumbers(t *testing.T) {
	in := "[16]: 0,-0,-0.0,1.50,007,1e3,-1E-7,0.000001,123456789012345678901234567890,12345678901234567890.5,0.1e1,5e-324,1.,+1,1e,-"
	want := `[0,0,0,1.5,"007",1000,-1e-7,0.000001,1.2345678901234567890123456789e+29,12345678901234567890.5,1,5e-324,"1.","+1","1e","-"]` + "\n"
	if got, err := decString(in, decodeOptions{}); err != nil || got != want {
		t.Errorf("got  %s, %v\nwant %s", got, err, want)
	}
}

// appendNumberToken, the one-pass fast path, agrees with IsNumber and
// AppendNumber on every token.
func TestAppendNumberMatches(t *testing.T) {
	const alphabet = "0123456789-.eE+0"
	r := rand.New(rand.NewPCG(1, 2))
	check := func(tok string) {
		got, ok := appendNumberToken(nil, []byte(tok))
		if ok != IsNumber([]byte(tok)) {
			t.Fatalf("appendNumber(%q) ok = %v, IsNumber %v", tok, ok, !ok)
		}
		if ok && string(got) != string(AppendNumber(nil, []byte(tok))) {
			t.Fatalf("appendNumber(%q) = %s, AppendNumber %s", tok, got, AppendNumber(nil, []byte(tok)))
		}
	}
	for _, tok := range []string{"0", "-0", "0.5", "-0.50", "10", "1.0", "1e21", "123456789012345678901", "1234567890123456789012", "9.9", "-", "1.e5", "01", "-01"} {
		check(tok)
	}
	for range 200_000 {
		b := make([]byte, 1+r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// Elements writes a root array as NDJSON, other roots as one line.
func TestDecodeElements(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[3]: 1,x,true", "1\n\"x\"\ntrue\n"},
		{"[2]{id,name}:\n  1,Ada\n  2,Bob", "{\"id\":1,\"name\":\"Ada\"}\n{\"id\":2,\"name\":\"Bob\"}\n"},
		{"[3]:\n  - a: 1\n    b[2]: x,y\n  - [1]: 2\n  - z", "{\"a\":1,\"b\":[\"x\",\"y\"]}\n[2]\n\"z\"\n"},
		{"[]", ""},
		{"[0]:", ""},
		{"[0]{a}:", ""},
		{"a: 1\nb:\n  c: [x", "{\"a\":1,\"b\":{\"c\":\"[x\"}}\n"},
		{"[2:]{v}:\n  a: 1\n  b: 2", "{\"a\":{\"v\":1},\"b\":{\"v\":2}}\n"},
		{"hello", "\"hello\"\n"},
		{"", "{}\n"},
	}
	for _, tt := range tests {
		got, err := decString(tt.in, decodeOptions{Elements: true, JSONIndent: "  "})
		if err != nil || got != tt.want {
			t.Errorf("toJSON(%q, Elements)\n got: %q, %v\nwant: %q", tt.in, got, err, tt.want)
		}
	}
}

// The optional leniencies of non-strict mode.
func TestDecodeNonStrict(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"last write wins at the first place", "a: 1\nb: 2\na: 3", `{"a":3,"b":2}`},
		{"last write wins, nested and repeated", "o:\n  x: 1\n  y:\n    z: 1\n    z: 2\n  x: 3\n  x:\n    w: 4", `{"o":{"x":{"w":4},"y":{"z":2}}}`},
		{"last write wins for entry keys", "m[3:]{v}:\n  a: 1\n  b: 2\n  a: 3", `{"m":{"a":{"v":3},"b":{"v":2}}}`},
		{"last write wins for field names", "u[1]{a,b,a}:\n  1,2,3", `{"u":[{"a":3,"b":2}]}`},
		{"last write wins past the linear key set", decManyKeys(30) + "k3: x", strings.Replace(decManyKeysJSON(30), `"k3":3`, `"k3":"x"`, 1)},
		{"floor depth", "a:\n   b:\n     c: 2\n   d: 3", `{"a":{"b":{"c":2},"d":3}}`},
		{"a tab is one level", "a:\n\tb:\n\t\tc: 1\n\td: 2\ne: 3", `{"a":{"b":{"c":1},"d":2},"e":3}`},
		{"tabs and spaces: floor(spaces/indent) + tabs", "a:\n \tb:\n\t  c:\n  \t  d: 1\n  \t e: 2\n\t e: 3", `{"a":{"b":{"c":{"d":1},"e":2},"e":3}}`},
		{"tab before a hash is no comment", "a:\n\t# b: 1", `{"a":{"# b":1}}`},
		{"first line sets a block's depth", "a:\n      b: 1\n      c: 2", `{"a":{"b":1,"c":2}}`},
		{"counts not checked", "t[1]: a,b\nu[3]{x,y}:\n  1,9\n  2,3\nl[1]:\n  - a\n  - b\nm[3:]{v,w}:\n  k: 1,2\n  j: 3,4", `{"t":["a","b"],"u":[{"x":1,"y":9},{"x":2,"y":3}],"l":["a","b"],"m":{"k":{"v":1,"w":2},"j":{"v":3,"w":4}}}`},
		{"blank lines in arrays ignored", "l[2]:\n  - a\n\n  - b", `{"l":["a","b"]}`},
		{"a blank line holding a tab is blank", "a:\n\t\nb: 1", `{"a":{},"b":1}`},
		{"invalid UTF-8 replaced", "a: x\xffy", "{\"a\":\"x\uFFFDy\"}"},
		{"control characters in quotes", "a: \"x\x01\"", `{"a":"x\u0001"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decString(tt.in, decodeOptions{NonStrict: true})
			if err != nil {
				t.Fatalf("toJSON(%q): %v", tt.in, err)
			}
			if got != tt.want+"\n" {
				t.Errorf("toJSON(%q)\n got: %s\nwant: %s", tt.in, got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("output is not JSON: %s", got)
			}
		})
	}
	// Indented output of a resolved duplicate.
	got, err := decString("a: 1\nb: 2\na:\n  c: 3", decodeOptions{NonStrict: true, JSONIndent: "  "})
	if want := "{\n  \"a\": {\n    \"c\": 3\n  },\n  \"b\": 2\n}\n"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// Non-strict decoding keeps every line or fails at the line it cannot
// place (issue 16 §5): each of the places where it used to skip a line
// now reads the line or names it with its position.
func TestDecodeNonStrictKeepsEveryLine(t *testing.T) {
	kept := []struct{ name, in, want string }{
		// A tab is one level: it was one space, which put b beside a.
		{"tab is a level", "a:\n\tb: 1\n", `{"a":{"b":1}}`},
		{"tabs as levels", "a:\n\tb:\n\t\tc: 1\n\td[1]:\n\t\t- x", `{"a":{"b":{"c":1},"d":["x"]}}`},
		{"tab row of a tab table", "t[1\t]{x\ty}:\n\t1\t2", `{"t":[{"x":1,"y":2}]}`},
	}
	for _, tt := range kept {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decString(tt.in, decodeOptions{NonStrict: true})
			if err != nil || got != tt.want+"\n" {
				t.Errorf("toJSON(%q, NonStrict) = %q, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
	failed := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"over-indented after a value", "a: 1\n    b: 2\nc: 3", 2, 5,
			"unexpected indentation: a line at depth 2 where this block's lines are at depth 0 (the line before opens no block)"},
		{"over-indented in an adopted block", "a:\n   b: 1\n     c: 2", 3, 6,
			"unexpected indentation: a line at depth 2 where this block's lines are at depth 1 (the line before opens no block)"},
		{"between a block's depth and its parent's", "a:\n      x: 1\n   y: 2", 3, 4,
			"unexpected indentation: a line at depth 1 where this block's lines are at depth 0 (the line before opens no block)"},
		{"over-indented list item", "l[2]:\n  - a\n      - b", 3, 7,
			"unexpected indentation: a line at depth 3 where this block's lines are at depth 1 (the line before opens no block)"},
		{"over-indented after a tab", "a: 1\n\tb: 2", 2, 2,
			"unexpected indentation: a line at depth 1 where this block's lines are at depth 0 (the line before opens no block)"},
		{"content after a root array", "[2]: 1,2\njunk: 3", 2, 1,
			`unexpected "junk: 3" after the end of the root array: nothing may follow it`},
		{"content after a root list", "[1]:\n  - a\nb: 2", 3, 1,
			`unexpected "b: 2" after the end of the root array: nothing may follow it`},
		{"content after a root keyed object", "[1:]{v}:\n  a: 1\nb: 2", 3, 1,
			`unexpected "b: 2" after the end of the root keyed object: nothing may follow it`},
		{"content after a root table", "[1]{v}:\n  1\nb: 2", 3, 1,
			`unexpected "b: 2" after the end of the root array: nothing may follow it`},
		{"content after a root []", "[]\nx: 1", 2, 1,
			`unexpected "x: 1" after the end of the root array: nothing may follow it`},
		{"entry line without a colon", "m[1:]{v}:\n  x\n  a: 1", 2, 3,
			`expected an entry row (key: cells), found "x" with no colon`},
		{"non-item line at item depth", "l[1]:\n  - a\n  b: 2\nc: 3", 3, 3,
			`expected a list item ("- value"), found "b: 2"`},
		{"extra cells of a row", "u[1]{x,y}:\n  2,3,4", 2, 7,
			"tabular row has 3 cells, the header declares 2 fields"},
		{"extra cells of an entry row", "m[1:]{v}:\n  a: 1,2", 2, 8,
			"entry row has 2 cells, the header declares 1 field"},
	}
	for _, tt := range failed {
		t.Run(tt.name, func(t *testing.T) {
			out, err := decString(tt.in, decodeOptions{NonStrict: true})
			var se *jsonv.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("toJSON(%q, NonStrict) = %q, %v; want an error at %d:%d", tt.in, out, err, tt.line, tt.col)
			}
			if got, want := err.Error(), fmt.Sprintf("%d:%d: %s", tt.line, tt.col, tt.msg); got != want {
				t.Errorf("toJSON(%q, NonStrict)\n got: %s\nwant: %s", tt.in, got, want)
			}
		})
	}
}

// The rules of v4.4 (the reference library 4.4.0): what v4.1's non-strict
// mode read as a literal key, or filled in, is an error in both modes,
// with its position.
func TestDecodeV44Errors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"no length", "key[]: 1,2", 1, 5, `expected the array length after "[", found "]:"`},
		{"not a length", "a[x]: 1", 1, 3, `expected the array length after "[", found "x]:"`},
		{"text before the colon", "foo[2]extra: a,b", 1, 7, `unexpected "extra:" between the array header and its colon`},
		{"a second bracket", "foo[1][bar]: 10", 1, 7, `unexpected "[bar]:" between the array header and its colon`},
		{"a space before the colon", "b[2] : 2", 1, 5, `unexpected " :" between the array header and its colon`},
		{"a space before the bracket", "nums [3]: 1,2,3", 1, 5, `unexpected space before "[": an array header's "[" follows its key directly (foo[2]: …), and a key holding " [" is quoted ("foo [2]": …)`},
		{"a space before a nested group", "items[1]{a {b}}:\n  1", 1, 11, `unexpected space before the nested field group of "a": write a{…}`},
		{"an empty field list", "c[1]{}: 3", 1, 6, "empty field list {}: a field list needs at least one field"},
		{"a keyed header without fields", "m[2:]:\n  k: 5", 1, 6, "a keyed header [N:] needs a field list, as in key[N:]{a,b}:"},
		{"a field list split by another delimiter", "t[1\t]{a,b}:\n  1", 1, 8, "the field list is split by comma, but the header declares the tab delimiter"},
		{"content after a field list's colon", "a[2]{x,y}: 1,2", 1, 12, `unexpected "1,2" after a tabular header's colon: its rows go on the lines below`},
		{"a keyless header in an object", "k[1]: 1\n[1]: 2", 2, 1, `array header without a key: only the document's first line or a list item ("- [N]: …") may omit the key`},
		{"text after a quoted key", "\"k\" x: 1", 1, 5, `expected a colon after the quoted key, found "x"`},
		{"a row's missing cell", "items[2]{id,value}:\n  1,null\n  2", 3, 4, "tabular row has 1 cell, the header declares 2 fields"},
		{"an entry row's missing cell", "m[1:]{v,w}:\n  k: 1", 2, 7, "entry row has 1 cell, the header declares 2 fields"},
		{"an entry line without a colon", "u[2:]{x}:\n  a: 1\n  boom", 3, 3, `expected an entry row (key: cells), found "boom" with no colon`},
		{"an indented first line", "  a: 1\nb: 2", 1, 3, "unexpected indentation: the first line of a document is not indented"},
		{"an indented root array", "  [2]:\n  - 1\n  - 2", 1, 3, "unexpected indentation: the first line of a document is not indented"},
		{"a truncated header", "a: 1\nm[1:]{v", 2, 8, `unmatched "{": the field list is not closed`},
	}
	for _, tt := range tests {
		for _, strict := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/strict=%v", tt.name, strict), func(t *testing.T) {
				out, err := decString(tt.in, decodeOptions{NonStrict: !strict})
				want := fmt.Sprintf("%d:%d: %s", tt.line, tt.col, tt.msg)
				if err == nil || err.Error() != want {
					t.Errorf("toJSON(%q) = %q, %v\nwant the error %s", tt.in, out, err, want)
				}
			})
		}
	}
	// Strict only: a tab in a blank line's indentation.
	if _, err := decString("a:\n\t\nb: 1", decodeOptions{}); err == nil || err.Error() != "2:1: tab in indentation: indent with spaces only" {
		t.Errorf("a blank line holding a tab, strict: %v", err)
	}
}

func decManyKeysJSON(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return "{" + b.String() + "}"
}

func decMust(t *testing.T, in string, opts decodeOptions) string {
	t.Helper()
	out, err := decString(in, opts)
	if err != nil {
		t.Fatalf("toJSON(%q): %v", in, err)
	}
	return out
}

// Strict-mode forms the fixtures do not show.
func TestDecodeForms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\uFEFFa: 1", `{"a":1}`},
		{"a: 1\r\nb:\r\n  c: \"x\\ry\"\r\n  d: \"x\ry\x01\"\r\n", "{\"a\":1,\"b\":{\"c\":\"x\\ry\",\"d\":\"x\\ry\\u0001\"}}"},
		{"- a: 1", `{"- a":1}`},
		{"\"foo [2]\": bar", `{"foo [2]":"bar"}`},
		{"my-key[2]: a,b", `{"my-key":["a","b"]}`},
		{"a b[1]{\"c\"}:\n  x", `{"a b":[{"c":"x"}]}`},
		{"a\"b: 1\"", `"a\"b: 1\""`},
		{"u[1]{x[2]:y}:\n  1", `{"u":[{"x[2]:y":1}]}`},
		{"\"q\"[2|]: a|b", `{"q":["a","b"]}`},
		{"a:\n  b[1]:\n    - c[2]{x,y}:\n        1,2\n        3,4\n      d: 5\n  e: 6", `{"a":{"b":[{"c":[{"x":1,"y":2},{"x":3,"y":4}],"d":5}],"e":6}}`},
		{"t[2]{a}:\n  \"x:y\"\n  z", `{"t":[{"a":"x:y"},{"a":"z"}]}`},
		{"[1]:\n  - [2]:\n    - [1]: a\n    - []", `[[["a"],[]]]`},
		{"a: -\nb: -1\nc: .5\nd: true1\ne: nul", `{"a":"-","b":-1,"c":".5","d":"true1","e":"nul"}`},
		{"# c\n\n\"x:y\"", `"x:y"`},
		{"[2]", `"[2]"`},
		{"k: \"a\" ", `{"k":"a"}`},
		{"f[1]{\"a\\tb\",\"{}\"}:\n  1,2", `{"f":[{"a\tb":1,"{}":2}]}`},
		{"x[1]{a{b{c{d}}}}:\n  1", `{"x":[{"a":{"b":{"c":{"d":1}}}}]}`},
	}
	for _, tt := range tests {
		got, err := decString(tt.in, decodeOptions{})
		if err != nil || got != tt.want+"\n" {
			t.Errorf("toJSON(%q)\n got: %q, %v\nwant: %s", tt.in, got, err, tt.want)
		}
	}
}

// A line longer than MaxLineSize is an error, not an allocation.
func TestDecodeMaxLineSize(t *testing.T) {
	line := "k: " + strings.Repeat("x", 997) // 1000 bytes
	if _, err := decString(line+"\n", decodeOptions{MaxLineSize: 1000}); err != nil {
		t.Errorf("a line of exactly the limit: %v", err)
	}
	_, err := decString(line+"x\n", decodeOptions{MaxLineSize: 1000})
	var se *jsonv.SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 1 || !strings.Contains(se.Msg, "longer than the limit of 1000 bytes") {
		t.Errorf("a line past the limit: %v", err)
	}
	// An endless line from a stream stops at the limit.
	r := io.MultiReader(strings.NewReader("k: "), decEndlessReader('x'))
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	err = toJSON(io.Discard, r, decodeOptions{MaxLineSize: 1 << 20})
	runtime.ReadMemStats(&m1)
	if !errors.As(err, &se) {
		t.Errorf("endless line: %v", err)
	}
	if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 8<<20 {
		t.Errorf("endless line with a 1 MiB limit allocated %d bytes", grew)
	}
}

type decEndlessReader byte

func (e decEndlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// Nesting is bounded: a document deeper than maxDecodeNesting is an error, not a
// stack overflow; one within it decodes.
func TestDecodeDeepNesting(t *testing.T) {
	nested := func(levels int) io.Reader {
		return &decLineGen{n: levels, line: func(i int, b []byte) []byte {
			b = append(b, strings.Repeat(" ", i)...)
			return append(b, "a:\n"...)
		}}
	}
	var out bytes.Buffer
	if err := toJSON(&out, nested(3000), decodeOptions{IndentSize: 1}); err != nil {
		t.Fatalf("3000 levels: %v", err)
	}
	if !json.Valid(out.Bytes()) || strings.Count(out.String(), "{") != 3001 {
		t.Errorf("3000 levels: bad output %.80s…", out.String())
	}
	err := toJSON(io.Discard, nested(maxDecodeNesting+1), decodeOptions{IndentSize: 1})
	var se *jsonv.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "nesting deeper than 10000 levels") {
		t.Errorf("%d levels: %v", maxDecodeNesting+1, err)
	}
	// Nested field groups count too.
	deep := "x[1]" + strings.Repeat("{a", maxDecodeNesting+1) + strings.Repeat("}", maxDecodeNesting+1) + ":\n  1"
	if _, err := decString(deep, decodeOptions{}); !errors.As(err, &se) || !strings.Contains(se.Msg, "nesting deeper") {
		t.Errorf("deep field groups: %v", err)
	}
	// Deep lists of lists: [1]: then - [1]: one level deeper each time.
	var b strings.Builder
	b.WriteString("[1]:\n")
	for i := 1; i <= 2000; i++ {
		b.WriteString(strings.Repeat(" ", i) + "- [1]:\n")
	}
	b.WriteString(strings.Repeat(" ", 2001) + "- x\n")
	got, err := decString(b.String(), decodeOptions{IndentSize: 1})
	if err != nil || got != strings.Repeat("[", 2001)+`"x"`+strings.Repeat("]", 2001)+"\n" {
		t.Errorf("deep lists: %.60q, %v", got, err)
	}
}

// decLineGen generates n lines without holding them.
type decLineGen struct {
	n, i       int
	line       func(i int, b []byte) []byte
	buf, store []byte
}

func (g *decLineGen) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		g.store = g.line(g.i, g.store[:0])
		g.buf = g.store
		g.i++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// A large tabular input is decoded as a stream: from a reader returning
// one byte at a time, and in memory that does not grow with the input.
func TestDecodeStreaming(t *testing.T) {
	in := decTabularInput(20_000)
	want := decMust(t, string(in), decodeOptions{})
	var out bytes.Buffer
	if err := toJSON(&out, iotest.OneByteReader(bytes.NewReader(in)), decodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Fatal("one byte at a time gives another output")
	}
	if !json.Valid(out.Bytes()) {
		t.Fatal("output is not JSON")
	}
	out.Reset()
	if err := toJSON(&out, iotest.HalfReader(bytes.NewReader(decListInput(5000))), decodeOptions{Elements: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 5000 {
		t.Fatalf("Elements: %d lines, want 5000", n)
	}

	// 2 million rows (about 110 MB of TOON) in a few MB.
	rows := 2_000_000
	if testing.Short() {
		rows = 200_000
	}
	gen := &decLineGen{n: rows + 1, line: func(i int, b []byte) []byte {
		if i == 0 {
			return fmt.Appendf(b, "[%d]{id,name,email,active,score}:\n", rows)
		}
		n := int64(i)
		b = strconv.AppendInt(append(b, "  "...), n, 10)
		b = strconv.AppendInt(append(b, ",User "...), n, 10)
		b = strconv.AppendInt(append(b, ",user"...), n, 10)
		b = strconv.AppendInt(append(b, "@example.com,true,"...), n%100, 10)
		return append(b, ".5\n"...)
	}}
	for _, opts := range []decodeOptions{{}, {NonStrict: true}, {Elements: true, JSONIndent: "  "}} {
		gen.i, gen.buf = 0, nil
		var cw decByteCounter
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		err := toJSON(&cw, gen, opts)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 4<<20 {
			t.Errorf("%+v: decoding %d bytes allocated %d bytes", opts, cw.n, grew)
		}
		if testing.Short() {
			break
		}
	}
}

type decByteCounter struct{ n int64 }

func (w *decByteCounter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// Read and write errors are returned as they are.
func TestDecodeIOErrors(t *testing.T) {
	boom := errors.New("boom")
	err := toJSON(io.Discard, iotest.ErrReader(boom), decodeOptions{})
	if !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
	err = toJSON(decFailWriter{boom}, bytes.NewReader(decTabularInput(10_000)), decodeOptions{})
	if !errors.Is(err, boom) {
		t.Errorf("write error: %v", err)
	}
	err = toJSON(decFailWriter{boom}, strings.NewReader("a: 1"), decodeOptions{})
	if !errors.Is(err, boom) {
		t.Errorf("write error at the end: %v", err)
	}
}

type decFailWriter struct{ err error }

func (w decFailWriter) Write(p []byte) (int, error) { return 0, w.err }

// decTabularInput is a root tabular array of n rows {id,name,email,active,score}.
func decTabularInput(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[%d]{id,name,email,active,score}:\n", n)
	for i := range n {
		fmt.Fprintf(&b, "  %d,User %d,user%d@example.com,%t,%d.%d\n", i+1, i, i, i%3 == 0, i%1000, i%7+1)
	}
	return b.Bytes()
}

// decListInput is a root list array of n objects, each with an inline tags[3]
// array.
func decListInput(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[%d]:\n", n)
	for i := range n {
		fmt.Fprintf(&b, "  - id: %d\n    name: User %d\n    email: user%d@example.com\n    tags[3]: admin,ops,dev\n    active: %t\n", i+1, i, i, i%2 == 0)
	}
	return b.Bytes()
}

func decBench(b *testing.B, in []byte, opts decodeOptions) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	r := bytes.NewReader(in)
	for b.Loop() {
		r.Reset(in)
		if err := toJSON(io.Discard, r, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeTabular decodes a root tabular array of 100k rows.
func BenchmarkDecodeTabular(b *testing.B) { decBench(b, decTabularInput(100_000), decodeOptions{}) }

// BenchmarkDecodeList decodes a root list of 100k objects with an inline
// tags[3] array each.
func BenchmarkDecodeList(b *testing.B) { decBench(b, decListInput(100_000), decodeOptions{}) }

// BenchmarkDecodeListIndent is BenchmarkDecodeList with indented JSON.
func BenchmarkDecodeListIndent(b *testing.B) {
	decBench(b, decListInput(100_000), decodeOptions{JSONIndent: "  "})
}
