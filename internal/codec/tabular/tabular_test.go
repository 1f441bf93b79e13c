package tabular

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// encodeAll encodes the objects of a JSON array (given as its elements) and
// returns the text and the lossy cells.
func encodeAll(t *testing.T, rows ...string) (string, []Lossy) {
	t.Helper()
	var ks KeySet
	for _, r := range rows {
		if err := ks.Add([]byte(r)); err != nil {
			t.Fatalf("KeySet.Add(%s): %v", r, err)
		}
	}
	var lossy []Lossy
	note := func(l Lossy) { lossy = append(lossy, l) }
	e := NewEncoder(ks.Keys())
	out := e.AppendHeader(nil)
	for _, r := range rows {
		var err error
		if out, err = e.AppendRow(out, []byte(r), note); err != nil {
			t.Fatalf("AppendRow(%s): %v", r, err)
		}
	}
	return string(out), lossy
}

// decodeAll decodes a table into the JSON array of its rows.
func decodeAll(in string, r io.Reader) (string, error) {
	if r == nil {
		r = strings.NewReader(in)
	}
	d := NewDecoder(r, DecoderOptions{})
	var rows []string
	for {
		obj, _, err := d.Next()
		if err == io.EOF {
			return "[" + strings.Join(rows, ",") + "]", nil
		}
		if err != nil {
			return "", err
		}
		rows = append(rows, string(obj))
	}
}

// The spec's example, both ways.
func TestSpecExample(t *testing.T) {
	json := `[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"},{"id":3,"name":"Charlie"}]`
	text := "@toon 1.0\n@keys id,name\n1,Alice\n2,Bob\n3,Charlie\n"
	got, lossy := encodeAll(t, `{"id":1,"name":"Alice"}`, `{"id":2,"name":"Bob"}`, `{"id":3,"name":"Charlie"}`)
	if got != text || len(lossy) != 0 {
		t.Fatalf("encode = %q, lossy %v; want %q", got, lossy, text)
	}
	back, err := decodeAll(text, nil)
	if err != nil || back != json {
		t.Fatalf("decode = %s, %v; want %s", back, err, json)
	}
	// The spec counts 87 and 49 characters; they are 73 and 47 (48 with
	// the final newline toonkit writes).
	if len(json) != 73 || len(strings.TrimSuffix(text, "\n")) != 47 {
		t.Fatalf("the example is %d and %d characters", len(json), len(text))
	}
}

// The spec's escaping table and value types.
func TestEscapingAndTypes(t *testing.T) {
	cases := []struct{ value, cell string }{
		{`"a,b"`, `a\cb`},
		{`"line1\nline2"`, `line1\nline2`},
		{`"line1\rline2"`, `line1\rline2`},
		{`"C:\\path"`, `C:\\path`},
		{`"\\c is not a comma"`, `\\c is not a comma`},
		{`null`, ``},
		{`true`, `true`},
		{`false`, `false`},
		{`42`, `42`},
		{`3.14`, `3.14`},
		{`1e+20`, `1e+20`},
		{`-0.0`, `-0.0`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`"Hello, World"`, `Hello\c World`},
		{`{"key":"value"}`, `{"key":"value"}`},
		{`[1,2,3]`, `[1\c2\c3]`},
		{`{ "a" : [ 1 ] }`, `{"a":[1]}`},
		{`"null"`, `null`},
		{`"é ☃ 😀"`, `é ☃ 😀`},
	}
	for _, c := range cases {
		row := `{"v":` + c.value + `}`
		got, lossy := encodeAll(t, row)
		want := "@toon 1.0\n@keys v\n" + c.cell + "\n"
		if got != want {
			t.Errorf("%s: encode = %q, want %q", c.value, got, want)
		}
		back, err := decodeAll(got, nil)
		if c.value == `{ "a" : [ 1 ] }` {
			row = `{"v":{"a":[1]}}`
		}
		if err != nil || back != "["+row+"]" {
			t.Errorf("%s: decode = %s, %v; want [%s]", c.value, back, err, row)
		}
		if len(lossy) != 0 {
			t.Errorf("%s: reported lossy: %v", c.value, lossy)
		}
	}
}

// What the format cannot say is reported, cell by cell.
func TestLossyCells(t *testing.T) {
	cases := []struct{ row, why string }{
		{`{"v":"42"}`, "reads back as a number"},
		{`{"v":"1e5"}`, "reads back as a number"},
		{`{"v":"true"}`, "reads back as a boolean"},
		{`{"v":""}`, "empty string"},
		{`{"v":"[1, 2]"}`, "string of JSON"},
		{`{"v":"{\"a\":1}"}`, "string of JSON"},
	}
	for _, c := range cases {
		_, lossy := encodeAll(t, c.row)
		if len(lossy) != 1 || !strings.Contains(lossy[0].Why, c.why) || lossy[0].Key != "v" || lossy[0].Row != 0 {
			t.Errorf("%s: lossy %v, want one %q", c.row, lossy, c.why)
		}
	}
	// Not lossy: strings that only look a little like something else.
	for _, row := range []string{`{"v":"01"}`, `{"v":"1."}`, `{"v":" 42"}`, `{"v":"True"}`, `{"v":"[not json"}`, `{"v":"null"}`, `{"v":"1_000"}`} {
		if _, lossy := encodeAll(t, row); len(lossy) != 0 {
			t.Errorf("%s: reported lossy: %v", row, lossy)
		}
	}
	// A missing key.
	_, lossy := encodeAll(t, `{"a":1,"b":2}`, `{"a":3}`)
	if len(lossy) != 1 || lossy[0].Row != 1 || lossy[0].Key != "b" || !strings.Contains(lossy[0].Why, "missing") {
		t.Errorf("missing key: %v", lossy)
	}
}

// Keys are the union of all rows' keys in first-seen order (the Genesis
// reference keeps the first row's keys and drops the others').
func TestKeysAreTheUnion(t *testing.T) {
	got, _ := encodeAll(t, `{"a":1}`, `{"b":2,"a":3}`, `{"c,d":4}`)
	want := "@toon 1.0\n@keys a,b,c\\cd\n1,,\n3,2,\n,,4\n"
	if got != want {
		t.Fatalf("encode = %q, want %q", got, want)
	}
	back, err := decodeAll(got, nil)
	if err != nil || back != `[{"a":1,"b":null,"c,d":null},{"a":3,"b":2,"c,d":null},{"a":null,"b":null,"c,d":4}]` {
		t.Fatalf("decode = %s, %v", back, err)
	}
}

func TestDecodeForms(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"no final newline", "@toon 1.0\n@keys a\n1\n2", `[{"a":1},{"a":2}]`},
		{"CRLF", "@toon 1.0\r\n@keys a,b\r\n1,x\r\n", `[{"a":1,"b":"x"}]`},
		{"version 1.3", "@toon 1.3\n@keys a\n1\n", `[{"a":1}]`},
		{"zero rows", "@toon 1.0\n@keys a,b\n", `[]`},
		{"no keys", "@toon 1.0\n@keys\n\n\n", `[{},{}]`},
		{"the empty key", "@toon 1.0\n@keys \n\n1\n", `[{"":null},{"":1}]`},
		{"one column of nulls", "@toon 1.0\n@keys a\n\n1\n\n", `[{"a":null},{"a":1},{"a":null}]`},
		{"JSON cell", "@toon 1.0\n@keys a\n{\"x\":[1\\c 2]}\n", `[{"a":{"x":[1,2]}}]`},
		{"not JSON after all", "@toon 1.0\n@keys a\n[1\\c\n", `[{"a":"[1,"}]`},
		{"duplicate names are not JSON", "@toon 1.0\n@keys a\n{\"x\":1\\c\"x\":2}\n", `[{"a":"{\"x\":1,\"x\":2}"}]`},
		{"escaped key", "@toon 1.0\n@keys a\\cb,c\\\\d\n1,2\n", `[{"a,b":1,"c\\d":2}]`},
	}
	for _, c := range cases {
		for name, r := range map[string]io.Reader{"whole": nil, "one byte": iotest.OneByteReader(strings.NewReader(c.in))} {
			got, err := decodeAll(c.in, r)
			if err != nil || got != c.want {
				t.Errorf("%s (%s): %s, %v; want %s", c.name, name, got, err, c.want)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ name, in, msg, excerpt string }{
		{"empty", "", "1:1: expected the @toon 1.0 line, found an empty input", ""},
		{"not a table", "id,name\n", `1:1: expected the @toon 1.0 line, found "id,name"`, "id,name"},
		{"version 2", "@toon 2.0\n@keys a\n", "1:7: version 2.0 is not supported: toonkit reads version 1.x", "@toon 2.0"},
		{"bad version", "@toon one\n", `1:7: expected a version 1.x, found "one"`, "@toon one"},
		{"no keys line", "@toon 1.0\n1,2\n", `2:1: expected the @keys line, found "1,2"`, "1,2"},
		{"no keys line at the end", "@toon 1.0\n", "1:10: expected the @keys line, found the end of the input", "@toon 1.0"},
		{"duplicate key", "@toon 1.0\n@keys a,b,a\n", `2:11: duplicate key "a"`, "@keys a,b,a"},
		{"too few cells", "@toon 1.0\n@keys a,b,c\n1,2\n", "3:4: row has 2 cells, expected 3 (one per key)", "1,2"},
		{"too many cells", "@toon 1.0\n@keys a,b\n1,2,3,4\n", "3:4: row has 4 cells, expected 2 (one per key)", "1,2,3,4"},
		{"blank row, two keys", "@toon 1.0\n@keys a,b\n1,2\n\n3,4\n", "4:1: row has 1 cell, expected 2 (one per key)", ""},
		{"unknown escape", "@toon 1.0\n@keys a\nx\\ty\n", `3:2: unknown escape \t (expected \\, \c, \n or \r)`, `x\ty`},
		{"lone backslash", "@toon 1.0\n@keys a,b\n1,x\\\n", `3:4: a lone \ at the end of a cell (write \\ for a backslash)`, `1,x\`},
		{"invalid UTF-8", "@toon 1.0\n@keys a\nab\xffc\n", "3:3: invalid UTF-8", "ab\uFFFDc"},
		{"row with no keys", "@toon 1.0\n@keys\nx\n", `3:1: expected an empty row (the table has no keys), found "x"`, "x"},
	}
	for _, c := range cases {
		_, err := decodeAll(c.in, nil)
		var se *jsonv.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a syntax error", c.name, err)
			continue
		}
		if se.Error() != c.msg || se.Excerpt != c.excerpt {
			t.Errorf("%s:\ngot  %q excerpt %q\nwant %q excerpt %q", c.name, se.Error(), se.Excerpt, c.msg, c.excerpt)
		}
		if []rune(se.Excerpt + " ")[se.Caret] != []rune(c.excerpt + " ")[se.Pos.Column-1] {
			t.Errorf("%s: caret %d does not stand under column %d", c.name, se.Caret, se.Pos.Column)
		}
	}
}

// Each documented difference from the Genesis reference
// (infrastructure/toon_encoder.py), asserted.
func TestDifferencesFromGenesis(t *testing.T) {
	// 1. It unescapes twice: the literal text a\cb comes back as a,b.
	// toonkit writes a\\cb and reads back a\cb.
	text, _ := encodeAll(t, `{"v":"a\\cb"}`)
	if !strings.Contains(text, `a\\cb`) {
		t.Errorf("a\\cb encoded as %q", text)
	}
	if back, err := decodeAll(text, nil); err != nil || back != `[{"v":"a\\cb"}]` {
		t.Errorf("a\\cb came back as %s, %v", back, err)
	}
	// 2. It types cells with Python's float()/int(): 1e+20 stays a string,
	// 1_000 and " 42" become numbers. toonkit follows the JSON grammar.
	back, err := decodeAll("@toon 1.0\n@keys a,b,c,d,e\n1e+20,1_000, 42,Infinity,02134\n", nil)
	if err != nil || back != `[{"a":1e+20,"b":"1_000","c":" 42","d":"Infinity","e":"02134"}]` {
		t.Errorf("typing: %s, %v", back, err)
	}
	// 3. It skips blank rows: a one-column table loses its null rows.
	text, _ = encodeAll(t, `{"a":null}`, `{"a":1}`, `{"a":null}`)
	if back, err := decodeAll(text, nil); err != nil || back != `[{"a":null},{"a":1},{"a":null}]` {
		t.Errorf("null rows: %s, %v", back, err)
	}
	// 4. It writes keys unescaped: a key with a comma makes two columns.
	text, _ = encodeAll(t, `{"a,b":1,"c":2}`)
	if !strings.Contains(text, "@keys a\\cb,c\n") {
		t.Errorf("keys line of %q", text)
	}
	if back, err := decodeAll(text, nil); err != nil || back != `[{"a,b":1,"c":2}]` {
		t.Errorf("escaped key: %s, %v", back, err)
	}
}

func TestNotAnObject(t *testing.T) {
	var ks KeySet
	if err := ks.Add([]byte(`[1]`)); !errors.Is(err, ErrNotObject) || err.Error() != "expected an object, found an array" {
		t.Fatalf("err = %v", err)
	}
	e := NewEncoder([]string{"a"})
	if _, err := e.AppendRow(nil, []byte(`{"b":1}`), nil); err == nil {
		t.Fatal("a row with a key outside the table was written")
	}
}

// writeRows writes rows with a RowWriter and returns the table, its report
// and every lossy cell reported, by AppendRow and by Finish.
func writeRows(t *testing.T, rows ...string) (string, Report, []Lossy) {
	t.Helper()
	var w RowWriter
	var lossy []Lossy
	note := func(l Lossy) { lossy = append(lossy, l) }
	var body []byte
	for _, r := range rows {
		var err error
		if body, err = w.AppendRow(body, []byte(r), note); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := w.Finish(&out, bytes.NewReader(body), note); err != nil {
		t.Fatal(err)
	}
	return out.String(), w.Report(), lossy
}

func check(t *testing.T, rows ...string) (Report, []Lossy) {
	t.Helper()
	_, r, l := writeRows(t, rows...)
	return r, l
}

func TestRowWriter(t *testing.T) {
	// The spec's example pays: 48 bytes (with the final newline) against 73.
	r, _ := check(t, `{"id":1,"name":"Alice"}`, `{"id":2,"name":"Bob"}`, `{"id":3,"name":"Charlie"}`)
	if ok, why := r.Pays(); !ok || r.TableBytes != 48 || r.JSONBytes != 73 || r.Overlap != 1 || r.Lossy != 0 {
		t.Fatalf("report %+v: %v %s", r, ok, why)
	}
	// Row 0 lacks a key that a later row brings: its cell is added when
	// the table is finished.
	text, r, lossy := writeRows(t, `{"a":1}`, `{"a":2,"b":3}`, `{"a":4,"b":5}`)
	if text != "@toon 1.0\n@keys a,b\n1,\n2,3\n4,5\n" || r.Lossy != 1 || r.FirstLate == nil || r.FirstLate.Row != 0 || r.FirstLate.Key != "b" || r.Overlap != 0.5 {
		t.Fatalf("table %q, report %+v, first late %+v", text, r, r.FirstLate)
	}
	if len(lossy) != 1 || lossy[0].String() != `row 0, key "b": missing, reads back as null` {
		t.Fatalf("lossy %v", lossy)
	}
	if ok, why := r.Pays(); ok || !strings.Contains(why, "share 50% of their keys") {
		t.Fatalf("pays: %v, %s", ok, why)
	}
	// A later row lacks a key seen before it; a row of no keys first.
	text, r, lossy = writeRows(t, `{}`, `{"a":1,"b":2}`, `{"a":"3"}`, `{"c":4}`)
	if text != "@toon 1.0\n@keys a,b,c\n,,\n1,2,\n3,,\n,,4\n" || r.Lossy != 9 || len(lossy) != 9 {
		t.Fatalf("table %q, report %+v, lossy %v", text, r, lossy)
	}
	// Nesting is counted, not lossy, and keeps the table out of auto.
	r, _ = check(t, `{"a":{"b":[1]}}`, `{"a":{"b":[2]}}`)
	if r.Lossy != 0 || r.Deep != 2 || r.FirstDeep.Row != 0 {
		t.Fatalf("report %+v", r)
	}
	if ok, why := r.Pays(); ok || !strings.Contains(why, "nested deeper") {
		t.Fatalf("pays: %v, %s", ok, why)
	}
	// One row, or too little saving, is JSON.
	if r, _ := check(t, `{"a":1}`); func() bool { ok, _ := r.Pays(); return ok }() {
		t.Fatal("one row pays")
	}
	r, _ = check(t, `{"a":"x"}`, `{"a":"y"}`)
	if ok, why := r.Pays(); ok || !strings.Contains(why, "not more than 20%") {
		t.Fatalf("pays: %v, %s (%+v)", ok, why, r)
	}
}
