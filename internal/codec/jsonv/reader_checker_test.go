package jsonv_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// chunks reads b n bytes at a time (the last read may be shorter).
type chunks struct {
	b []byte
	n int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// readAll is what r gives, value by value: the value and its position, or
// the error (its type and every field) that ends it. Where r notes the
// members of an object (Options.Members), they must be those jsonv.Members
// finds.
func readAll(r *jsonv.Reader) []string {
	var out []string
	for {
		v, pos, err := r.Next()
		if err != nil {
			if err != io.EOF {
				out = append(out, fmt.Sprintf("%T %+v", err, err))
			}
			return out
		}
		if mems, ok := r.Members(); ok {
			if got, want := noted(v, mems), members(v); got != want {
				return append(out, fmt.Sprintf("members of %s: %s, want %s", v, got, want))
			}
		}
		out = append(out, fmt.Sprintf("%+v %s", pos, v))
	}
}

// noted is the members of obj as Reader.Members gives them, one a line.
func noted(obj []byte, mems []jsonv.Member) string {
	var b strings.Builder
	for _, m := range mems {
		fmt.Fprintf(&b, "%s=%s\n", obj[m.NameStart:m.NameEnd], obj[m.ValueStart:m.ValueEnd])
	}
	return b.String()
}

// members is the members of obj as jsonv.Members finds them, one a line.
func members(obj []byte) string {
	var b strings.Builder
	jsonv.Members(obj, func(name []byte, _ bool, v []byte) { fmt.Fprintf(&b, "%s=%s\n", name, v) })
	return b.String()
}

// sameReads checks that a Reader gives what a Reader that reads every
// value with jsontext gives, with the input read n bytes at a time (0: at
// once), values and array elements alike.
func sameReads(t *testing.T, name string, in []byte, n int) {
	t.Helper()
	for _, elements := range []bool{false, true} {
		src := func() io.Reader {
			if n <= 0 {
				return bytes.NewReader(in)
			}
			return &chunks{in, n}
		}
		opts := jsonv.Options{MaxValueSize: 1 << 12, Elements: elements}
		got, want := readAll(jsonv.NewReader(src(), opts)), readAll(jsonv.JSONTextReader(src(), opts))
		// Offsets: the same values at the same offsets, and an error
		// where there is one.
		oo := opts
		oo.Offsets = true
		ro, rw := jsonv.NewReader(src(), oo), jsonv.JSONTextReader(src(), opts)
		for {
			v, pos, err := ro.Next()
			wv, wpos, werr := rw.Next()
			if (err == nil) != (werr == nil) || err == io.EOF != (werr == io.EOF) || !bytes.Equal(v, wv) || pos != (jsonv.Position{Offset: wpos.Offset}) {
				t.Fatalf("%s (elements %v, reads of %d, offsets): %q at %+v, %v; want %q at offset %d, %v", name, elements, n, v, pos, err, wv, wpos.Offset, werr)
			}
			if err != nil {
				break
			}
		}
		opts.Members = true
		if withMembers := readAll(jsonv.NewReader(src(), opts)); strings.Join(withMembers, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s (elements %v, reads of %d, members): the Reader gives\n%s\nbut jsontext alone\n%s", name, elements, n, strings.Join(withMembers, "\n"), strings.Join(want, "\n"))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s (elements %v, reads of %d): the Reader gives\n%s\nbut jsontext alone\n%s", name, elements, n, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// The Reader reads objects and arrays as producers write them (compact,
// and as Python's json.dumps writes them: ", " and ": ", indented, CRLF,
// non-ASCII escaped or kept) in the Checker's one pass, never with
// jsontext, and gives the same values, positions and elements as jsontext;
// asked to, it notes the members of every object, as jsonv.Members finds
// them.
func TestReaderChecksWhatProducersWrite(t *testing.T) {
	in := producerRecords(40, ` \/ \u00e9`)
	array := append(append([]byte("[\n"), bytes.ReplaceAll(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"), []byte(",\n"))...), "\n]\n"...)
	texts := []pyjson.Text{{Name: "compact", JSON: in}, {Name: "array", JSON: array},
		{Name: "ascii", JSON: pyjson.Dumps(t, in)}, {Name: "no-ascii", JSON: pyjson.Dumps(t, in, "--no-ascii")}}
	for _, s := range pyjson.Styles {
		texts = append(texts, pyjson.Text{Name: s.Name, JSON: pyjson.Dumps(t, in, s.Flags...)},
			pyjson.Text{Name: s.Name + " array", JSON: pyjson.Dumps(t, array, s.Flags...)})
	}
	for _, text := range texts {
		for _, elements := range []bool{false, true} {
			r := jsonv.NewReader(bytes.NewReader(text.JSON), jsonv.Options{MaxValueSize: 1 << 20, Elements: elements, Members: true})
			objects := 0
			for {
				v, _, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", text.Name, err)
				}
				if v[0] != '{' {
					continue
				}
				objects++
				mems, ok := r.Members()
				if !ok {
					t.Fatalf("%s (elements %v): no members noted for %.80s...", text.Name, elements, v)
				}
				if got, want := noted(v, mems), members(v); got != want {
					t.Fatalf("%s (elements %v): members\n%s\nwant\n%s", text.Name, elements, got, want)
				}
			}
			if isArray := jsonv.TrimSpace(text.JSON)[0] == '['; objects < 40 && (elements || !isArray) {
				t.Fatalf("%s (elements %v): %d objects", text.Name, elements, objects)
			}
			if r.SlowReads() != 0 {
				t.Errorf("%s (elements %v): %d values read by jsontext, not by the one pass", text.Name, elements, r.SlowReads())
			}
		}
		sameReads(t, text.Name, text.JSON, 0)
		sameReads(t, text.Name, text.JSON, 777) // values cut by the reads
	}
}

// FuzzReaderChecker: whatever the input and the size of the reads, the
// Reader gives what a Reader that reads every value with jsontext gives:
// the same values and positions, the same errors where they are.
func FuzzReaderChecker(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n[2]", `{"a":1}x`, `[1]]`, `{"a":1}{"b":2}`, `[1,2]3`, "{\"a\": 1, \"b\": [true, null]}\r\n{\"c\":\r\n  {}}\r\n",
		`{"a":1,"a":2}`, `{"a\u0062":1,"ab":2}`, `{"\u00e9":1}`, "{\"a\":\"\xff\"}", `{"a":"\ud800"}`, "{\"a\":\"x\ty\"}",
		`[[[[[[[[]]]]]]]]`, `{"a":[1,2,{"b":"c"}],"d":-0.5e+3}`, "[\n  {\"a\": 1},\n  {\"b\": 2}\n]", `[{"a":1},{"a":2}`, `{"a":tru}`,
		`{"a":1 "b":2}`, `{"a" 1}`, `[01]`, `[1.]`, `{"a":"\x"}`, "\xEF\xBB\xBF{\"bom\":1}", `{"x":"` + strings.Repeat("é", 3000) + `"}`,
	} {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, n uint16) {
		sameReads(t, fmt.Sprintf("%q", in), in, int(n))
	})
}
