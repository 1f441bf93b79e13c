package records_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/mapfile"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
)

// RootArray decides whether a document's root is an array from as few
// bytes as tell it, so that a live stream is not held back; with more to
// come it waits rather than guess.
func TestRootArray(t *testing.T) {
	for _, c := range []struct {
		format         codec.Format
		p              string
		whole          bool
		array, decided bool
	}{
		{codec.JSON, "[", false, true, true},
		{codec.JSON, " \r\n\t{", false, false, true},
		{codec.JSON, "\xEF\xBB\xBF[1]", true, true, true},
		{codec.JSON, "  \n", false, false, false},
		{codec.JSON, "  \n", true, false, true},
		{codec.JSON, "", true, false, true},
		{codec.TOON, "a", false, false, true},
		{codec.TOON, "  ", false, false, false},
		{codec.TOON, "\n\n  [2]: a,b", false, true, true},
		{codec.TOON, "# a comment", false, false, false},
		{codec.TOON, "# a comment\n[1]: x", false, true, true},
		{codec.TOON, "# a comment\n  ", false, false, false},
		{codec.TOON, "# a comment\n  ", true, false, true},
		{codec.TOON, "key[2]: a,b", false, false, true},
	} {
		array, decided := records.RootArray(c.format, []byte(c.p), c.whole)
		if array != c.array || decided != c.decided {
			t.Errorf("%s %q (whole %v): array %v, decided %v; want %v, %v", c.format, c.p, c.whole, array, decided, c.array, c.decided)
		}
	}
}

// Source.RootArray peeks no further than the byte or line that decides: on
// a pipe that has given only that much, it answers without waiting.
func TestSourceRootArrayLive(t *testing.T) {
	for _, c := range []struct {
		first string
		from  codec.Format
		array bool
	}{
		{"  [", codec.JSON, true},
		{"{", codec.JSON, false},
		{"# c\n[2]:", codec.TOON, true},
		{"a: 1\n", codec.TOON, false},
		{"@toon 1.0\n", "", true},
	} {
		pr, pw := io.Pipe()
		go pw.Write([]byte(c.first))
		s, err := records.NewSource(pr, "in", records.SourceOptions{Format: c.from})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.RootArray(); got != c.array {
			t.Errorf("%q: RootArray %v, want %v", c.first, got, c.array)
		}
		pw.Close()
		s.Close()
	}
}

func TestReadAll(t *testing.T) {
	data, err := records.ReadAll(strings.NewReader("12345678"), "in", 8)
	if err != nil || string(data) != "12345678" {
		t.Fatalf("%q %v", data, err)
	}
	_, err = records.ReadAll(strings.NewReader("123456789"), "in", 8)
	var e *records.Error
	if !errors.As(err, &e) || e.Kind != records.TooLarge || err.Error() != "in: the input passes the limit of 8 bytes" {
		t.Fatalf("%#v", err)
	}
	path := filepath.Join(t.TempDir(), "f.json")
	os.WriteFile(path, []byte(`{"a": 1}`), 0o644)
	f, _ := os.Open(path)
	defer f.Close()
	if data, err := records.ReadAll(f, path, 100); err != nil || string(data) != `{"a": 1}` {
		t.Fatalf("%q %v", data, err)
	}
}

func TestJSONValues(t *testing.T) {
	vs, err := records.JSONValues("in", []byte("{\"a\": 1}\r\n[2, 3] 4"), 100)
	if err != nil || string(records.JoinArray(vs)) != `[{"a": 1},[2, 3],4]` {
		t.Fatalf("%q %v", vs, err)
	}
	if got := string(records.JoinArray(nil)); got != "[]" {
		t.Fatalf("JoinArray(nil) = %s", got)
	}
	_, err = records.JSONValues("in", []byte("1\n2\n{\"a\" 1}"), 100)
	var e *records.Error
	var se *jsonv.SyntaxError
	if !errors.As(err, &e) || e.Kind != records.BadJSON || !errors.As(err, &se) || se.Pos.Line != 3 || se.Pos.Column != 6 {
		t.Fatalf("%v", err)
	}
}

// users is n users as Python's json.dumps(v, indent=2) writes them: a
// table, or with a tags array each, not one.
func users(t *testing.T, n int, tags bool) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"User %d"`, i, i)
		if tags {
			b.WriteString(`,"tags":["a"]`)
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return pyjson.Dumps(t, b.Bytes(), "--indent", "2")
}

// A mapped document gives toonx.FromJSON's text, a table or not, whatever
// the limit (a regular file has none); a file too small is not mapped.
func TestMapDocument(t *testing.T) {
	dir := t.TempDir()
	for _, tags := range []bool{false, true} {
		doc := users(t, 40000, tags)
		if len(doc) < records.MapThreshold {
			t.Fatalf("%d bytes: too small to be mapped", len(doc))
		}
		path := filepath.Join(dir, "u.json")
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		d := records.MapDocument(f, path, 1000)
		if d == nil {
			f.Close()
			if mapfile.Map(f, 1) == nil {
				t.Skip("files are not mapped on this system")
			}
			t.Fatal("not mapped")
		}
		encodesAsFromJSON(t, fmt.Sprintf("tags %v", tags), d, doc, toonx.EncodeOptions{})
		if _, err := f.Stat(); err == nil {
			t.Fatal("the file was left open")
		}
	}
	small := filepath.Join(dir, "s.json")
	os.WriteFile(small, []byte(`{"a":1}`), 0o644)
	f, _ := os.Open(small)
	defer f.Close()
	if records.MapDocument(f, small, 1<<30) != nil {
		t.Fatal("a small file was mapped")
	}
}

// ReadDocument takes one input as it is, without its byte order mark; the
// values of several inputs make an array; their errors are *Error, with the
// input's name, or open's as they are.
func TestReadDocument(t *testing.T) {
	files := map[string]string{"a.json": "\ufeff{\"a\": 1}", "b.ndjson": "1\n2\n", "c.json": "[true]", "bad.json": "[1,"}
	closed := 0
	open := func(name string) (*records.Input, error) {
		text, ok := files[name]
		if !ok {
			return nil, os.ErrNotExist
		}
		return &records.Input{R: strings.NewReader(text), Name: name, Close: func() { closed++ }}, nil
	}
	d, err := records.ReadDocument([]string{"a.json"}, open, 1<<20, true)
	if err != nil || string(d.Value) != `{"a": 1}` || d.Many || d.Name != "a.json" {
		t.Errorf("one input: %+v, %v", d, err)
	}
	d, err = records.ReadDocument([]string{"b.ndjson", "c.json"}, open, 1<<20, true)
	if err != nil || string(d.Value) != `[1,2,[true]]` || !d.Many || d.Name != "c.json" {
		t.Errorf("two inputs: %q, %v", d.Value, err)
	}
	if closed != 3 {
		t.Errorf("%d inputs closed, want 3", closed)
	}
	_, err = records.ReadDocument([]string{"b.ndjson", "bad.json"}, open, 1<<20, true)
	var re *records.Error
	if !errors.As(err, &re) || re.Name != "bad.json" {
		t.Errorf("bad input: %v", err)
	}
	if _, err = records.ReadDocument([]string{"nope"}, open, 1<<20, true); err != os.ErrNotExist {
		t.Errorf("open's error: %v", err)
	}
	if _, err = records.ReadDocument([]string{"c.json"}, open, 3, false); !errors.As(err, &re) || re.Kind != records.TooLarge {
		t.Errorf("over the limit, read into memory: %v", err)
	}
	// A stream that may be written to a temporary file has no limit.
	if d, err = records.ReadDocument([]string{"c.json"}, open, 3, true); err != nil || string(d.Value) != "[true]" {
		t.Errorf("over the limit, a stream that may be spooled: %+v, %v", d, err)
	}
}

// Any two inputs: no panic; their values, read as one document, are an
// array of valid JSON (with NaN and Infinity, as json.loads reads them),
// or an *Error.
func FuzzReadDocument(f *testing.F) {
	f.Add([]byte("{\"a\": 1}\n{\"b\": 2}\n"), []byte("[1, 2]"))
	f.Add([]byte("\ufeff1 2 3"), []byte(""))
	f.Add([]byte("[1,"), []byte("x"))
	f.Add([]byte("NaN\n[Infinity]"), []byte(`{"a": -Infinity}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		open := func(name string) (*records.Input, error) {
			in := map[string][]byte{"a": a, "b": b}[name]
			return &records.Input{R: bytes.NewReader(in), Name: name, Close: func() {}}, nil
		}
		d, err := records.ReadDocument([]string{"a", "b"}, open, 1<<16, false)
		var re *records.Error
		switch {
		case err != nil && !errors.As(err, &re):
			t.Fatalf("%T %v", err, err)
		case err == nil && (!d.Many || !jsonv.Valid(jsonv.MaskNonFinite(nil, d.Value))): // NaN: json.loads's
			t.Fatalf("not a valid array: %q", d.Value)
		}
	})
}

// One value stays one value: the only input, JSON or TOON, whose root is
// not an array; an array, several inputs, or an NDJSON stream (read as
// NDJSON, or named .ndjson when the format is detected) are records.
func TestSourceOneValue(t *testing.T) {
	for _, c := range []struct {
		name, text string
		format     codec.Format
		inputs     int
		one        bool
	}{
		{"a.json", `{"a": 1}`, "", 1, true},
		{"a.json", `[{"a": 1}]`, "", 1, false},
		{"a.json", `{"a": 1}`, "", 2, false},
		{"a.toon", "a: 1\n", "", 1, true},
		{"a.toon", "[1]: 1\n", "", 1, false},
		{"<stdin>", `{"a": 1}` + "\n", "", 1, true},
		{"a.ndjson", `{"a": 1}` + "\n", "", 1, false},
		{"a.jsonl", `{"a": 1}` + "\n", "", 1, false},
		{"a.ndjson", `{"a": 1}` + "\n", codec.JSON, 1, true},
		{"a.txt", `{"a": 1}` + "\n", codec.NDJSON, 1, false},
		{"a.toon", "@toon 1.0\n@keys a\n1\n", "", 1, false},
	} {
		src, err := records.NewSource(strings.NewReader(c.text), c.name, records.SourceOptions{Format: c.format})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.OneValue(c.inputs, c.format != ""); got != c.one {
			t.Errorf("%s %q (format %q, %d inputs): OneValue %v, want %v", c.name, c.text, c.format, c.inputs, got, c.one)
		}
	}
}

// ReadDocumentKeeping keeps one member of each repeated name, as asked;
// one input of one value is that value, NDJSON and several inputs an
// array; an error keeps its position.
func TestReadDocumentKeeping(t *testing.T) {
	files := map[string]string{"a.json": "{\"a\":1,\n\"a\":2}", "b.ndjson": "{\"x\":1,\"x\":[3]}\n{\"y\":0}\n", "bad.json": "{\"a\":1,\n\"a\":}"}
	open := func(name string) (*records.Input, error) {
		return &records.Input{R: strings.NewReader(files[name]), Name: name, Close: func() {}}, nil
	}
	for _, c := range []struct {
		names []string
		keep  jsonv.Duplicates
		want  string
		many  bool
	}{
		{[]string{"a.json"}, jsonv.DuplicatesLast, `{"a":2}`, false},
		{[]string{"a.json"}, jsonv.DuplicatesFirst, `{"a":1}`, false},
		{[]string{"b.ndjson"}, jsonv.DuplicatesLast, `[{"x":[3]},{"y":0}]`, true},
		{[]string{"a.json", "b.ndjson"}, jsonv.DuplicatesLast, `[{"a":2},{"x":[3]},{"y":0}]`, true},
	} {
		d, err := records.ReadDocumentKeeping(c.names, open, 1<<20, c.keep)
		if err != nil || string(d.Value) != c.want || d.Many != c.many {
			t.Errorf("%v %v: %v, %v; want %s", c.names, c.keep, d, err, c.want)
		}
	}
	_, err := records.ReadDocumentKeeping([]string{"bad.json"}, open, 1<<20, jsonv.DuplicatesLast)
	if err == nil || err.Error() != "bad.json:2:5: invalid character '}' at start of value (at /a)" {
		t.Errorf("bad.json: %v", err)
	}
}

// encodesAsFromJSON checks that d, the document of doc, encodes as
// toonx.FromJSON encodes doc.
func encodesAsFromJSON(t *testing.T, what string, d *records.Document, doc []byte, opts toonx.EncodeOptions) {
	t.Helper()
	var got, want bytes.Buffer
	if err := d.EncodeTOON(&got, opts); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := toonx.FromJSON(&want, doc, opts); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("%s: the document's TOON (%d bytes) differs from toonx.FromJSON's (%d)", what, got.Len(), want.Len())
	}
}
