package records_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
)

// The records of JSON that Python's json.dumps wrote with non-finite
// floats: errors with the hint, unless AllowNonFinite (TOON output), which
// gives them as they are; DocumentSink makes one document of them, which
// EncodeTOON writes with null.
func TestSourceAllowNonFinite(t *testing.T) {
	py := pyjson.Dumps(t, []byte(`[{"id": 1, "v": NaN}, {"id": 2, "v": -Infinity}]`))
	for _, format := range []codec.Format{"", codec.JSON} {
		s, err := records.NewSource(bytes.NewReader(py), "py.json", records.SourceOptions{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Next()
		var re *records.Error
		if !errors.As(err, &re) || re.Kind != records.BadJSON || jsonv.Hint(err) != jsonv.NonFiniteHint {
			t.Errorf("%q: %v, want a BadJSON error with the hint", format, err)
		}

		s, _ = records.NewSource(bytes.NewReader(py), "py.json", records.SourceOptions{Format: format})
		s.AllowNonFinite(true)
		var ds records.DocumentSink
		if err := s.Each(ds.Write); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		n := 0
		if err := ds.Document().EncodeTOON(&out, toonx.EncodeOptions{NonFinite: func(c int) { n = c }}); err != nil || n != 2 || out.String() != "[2]{id,v}:\n  1,null\n  2,null" {
			t.Errorf("%q: %q, %d, %v", format, out.String(), n, err)
		}
	}
}

// A single input of several values is their array; one value (with NaN,
// say), valid JSON or a Many document is none; a bad value is the error.
func TestDocumentArray(t *testing.T) {
	for in, want := range map[string]string{
		"{\"a\": NaN}\n{\"a\": 1}\n": `[{"a": NaN},{"a": 1}]`,
		`{"a": NaN}`:                 "",
		`[1, 2]`:                     "",
	} {
		arr, err := (&records.Document{Name: "in", Value: []byte(in)}).Array()
		got := ""
		if arr != nil {
			got = string(arr.Value)
			if !arr.Many {
				t.Errorf("%q: not Many", in)
			}
		}
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := (&records.Document{Name: "in", Value: []byte("1\nnan")}).Array(); err == nil {
		t.Error("a bad value: no error")
	}
}
