package records_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

func TestJSONSink(t *testing.T) {
	recs := []string{`{"a":1,"b":[1,2]}`, `"x"`}
	tests := []struct {
		name            string
		compact, single bool
		n               int
		want            string
	}{
		{name: "none", n: 0, want: "[]\n"},
		{name: "none compact", compact: true, n: 0, want: "[]\n"},
		{name: "one", n: 1, want: "[\n  {\n    \"a\": 1,\n    \"b\": [\n      1,\n      2\n    ]\n  }\n]\n"},
		{name: "two compact", compact: true, n: 2, want: "[{\"a\":1,\"b\":[1,2]},\"x\"]\n"},
		{name: "single", single: true, n: 1, want: "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}\n"},
		{name: "single compact", single: true, compact: true, n: 1, want: "{\"a\":1,\"b\":[1,2]}\n"},
		{name: "single then two", single: true, compact: true, n: 2, want: "[{\"a\":1,\"b\":[1,2]},\"x\"]\n"},
		{name: "single none", single: true, n: 0, want: "[]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, preIndented := range []bool{false, true} {
				var buf bytes.Buffer
				s := &records.JSONSink{W: &buf, Compact: tc.compact, Single: tc.single}
				for _, r := range recs[:tc.n] {
					var err error
					if preIndented && !tc.compact {
						err = s.WriteIndented([]byte(r), jsonv.AppendIndent(nil, []byte(r), "  ", "  "))
					} else {
						err = s.Write([]byte(r))
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if err := s.End(); err != nil {
					t.Fatal(err)
				}
				if buf.String() != tc.want {
					t.Fatalf("wrote\n%s\nwant\n%s", buf.String(), tc.want)
				}
			}
		})
	}
}

func TestNDJSONSink(t *testing.T) {
	var buf bytes.Buffer
	s := &records.NDJSONSink{W: &buf}
	for _, r := range []string{`{"a":1}`, `[]`} {
		if err := s.Write([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.End(); err != nil || buf.String() != "{\"a\":1}\n[]\n" {
		t.Fatalf("%v %q", err, buf.String())
	}
}

// Frames read as records (nested or flat) and written by a BinarySink
// are the frames read, byte for byte, compressed ones too.
func TestBinarySinkRoundTrip(t *testing.T) {
	in := frames(t, kado.CompressAlways, `{"task":"sum","args":[1,2]}`, `{"b":"`+strings.Repeat("x", 300)+`"}`)
	for _, flat := range []bool{false, true} {
		src, err := records.NewSource(bytes.NewReader(in), "in.bin", records.SourceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		src.Flat = flat
		var out bytes.Buffer
		snk := &records.BinarySink{W: kado.NewWriter(&out, kado.CompressAlways), Seq: 1, Src: src}
		if err := src.Each(snk.Write); err != nil {
			t.Fatal(err)
		}
		if err := snk.End(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("flat %v: wrote\n%x\nwant\n%x", flat, out.Bytes(), in)
		}
	}
}

func TestBinarySinkErrors(t *testing.T) {
	// Not a record: named by its place in the source, or as "result N".
	src, err := records.NewSource(strings.NewReader("{\"header\": {\"type\": 1}, \"payload\": {}}\n{\"x\": 1}\n"), "in", records.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	snk := &records.BinarySink{W: kado.NewWriter(&out, kado.CompressNever), Seq: 1, Src: src}
	err = src.Each(snk.Write)
	var ee *records.EncodeError
	if !errors.As(err, &ee) || ee.Err != records.ErrNotRecord || ee.Where != "in:2:1" || ee.Name != "in" || !ee.Text {
		t.Fatalf("error %#v", err)
	}
	if out.Len() == 0 {
		t.Fatal("the first record was not written")
	}

	snk = &records.BinarySink{W: kado.NewWriter(&out, kado.CompressNever), What: "result"}
	if err := snk.Write([]byte(`{"header":{"type":1},"payload":{}}`)); err != nil {
		t.Fatal(err)
	}
	err = snk.Write([]byte(`[1]`))
	if !errors.As(err, &ee) || ee.Err != records.ErrNotRecord || ee.Where != "result 2" || ee.Text {
		t.Fatalf("error %#v", err)
	}

	// A payload whose type cannot be told: the field at the record's
	// place.
	src, err = records.NewSource(strings.NewReader("\n\n  {\"header\": {}, \"payload\": {\"zzz\": 1}}"), "in", records.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snk = &records.BinarySink{W: kado.NewWriter(&out, kado.CompressNever), Src: src}
	err = src.Each(snk.Write)
	var se *jsonv.SyntaxError
	if !errors.As(err, &ee) || ee.Kind != kado.UnknownType || !errors.As(ee.Err, &se) || se.Pos.Line != 3 || se.Pos.Column != 3 {
		t.Fatalf("error %#v", err)
	}
}

func TestDocumentSink(t *testing.T) {
	for _, c := range []struct {
		single bool
		recs   []string
		want   string
	}{
		{true, []string{`{"a":1}`}, `{"a":1}`},
		{false, []string{`{"a":1}`}, `[{"a":1}]`},
		{true, []string{`1`, `[2]`}, `[1,[2]]`},
		{true, nil, `[]`},
	} {
		s := &records.DocumentSink{Name: "in", Single: c.single}
		buf := []byte{}
		for _, r := range c.recs {
			buf = append(buf[:0], r...)
			if err := s.Write(buf); err != nil { // kept as a copy
				t.Fatal(err)
			}
			buf[0] = 'X'
		}
		if err := s.End(); err != nil {
			t.Fatal(err)
		}
		d := s.Document()
		if string(d.Value) != c.want || d.Name != "in" || !d.Many {
			t.Errorf("%v %q: %s, want %s", c.single, c.recs, d.Value, c.want)
		}
		if d := s.Document(); string(d.Value) != "[]" {
			t.Errorf("the records were kept after Document: %s", d.Value)
		}
	}
}
