package jsonv_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Dedupe keeps one member of each name at the place of the first, as jq
// does: echo '{"a":1,"b":2,"a":3}' | jq -c . gives {"a":3,"b":2}.
func TestDedupe(t *testing.T) {
	for _, tc := range []struct {
		in, last, first string
	}{
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`, `{"a":1,"b":2}`},
		{`{"a":{"x":1},"a":{"y":2}}`, `{"a":{"y":2}}`, `{"a":{"x":1}}`},
		{` [ {"k": "v\u00e9", "k" : [1, 2.50e3]} , true ] `, `[{"k":[1,2.50e3]},true]`, `[{"k":"v\u00e9"},true]`},
		{`{"\u0061":1,"a":2}`, `{"\u0061":2}`, `{"\u0061":1}`}, // names compare unescaped
		{`{"s":"\ud800","s":"x"}`, `{"s":"x"}`, `{"s":"\ud800"}`},
		{`{}`, `{}`, `{}`},
		{`"plain"`, `"plain"`, `"plain"`},
	} {
		for keep, want := range map[jsonv.Duplicates]string{jsonv.DuplicatesLast: tc.last, jsonv.DuplicatesFirst: tc.first} {
			got, err := jsonv.Dedupe(nil, []byte(tc.in), keep)
			if err != nil || string(got) != want {
				t.Errorf("Dedupe(%s, %v) = %s, %v; want %s", tc.in, keep, got, err, want)
			}
		}
	}
	// Many members: the names go into a map, the order stays the first's.
	var in, want strings.Builder
	in.WriteString("{")
	want.WriteString("{")
	for i := range 40 {
		if i > 0 {
			in.WriteString(",")
			want.WriteString(",")
		}
		fmt.Fprintf(&in, `"k%d":0`, i)
		fmt.Fprintf(&want, `"k%d":9`, i)
	}
	for i := range 40 {
		fmt.Fprintf(&in, `,"k%d":9`, i)
	}
	in.WriteString("}")
	want.WriteString("}")
	if got, err := jsonv.Dedupe(nil, []byte(in.String()), jsonv.DuplicatesLast); err != nil || string(got) != want.String() {
		t.Errorf("40 names twice: %s, %v", got, err)
	}
	for _, bad := range []string{`{"a":1,}`, `{"a":`, `[1 2]`, `{"a":1} 2`} {
		if _, err := jsonv.Dedupe(nil, []byte(bad), jsonv.DuplicatesLast); err == nil {
			t.Errorf("Dedupe(%s): no error", bad)
		}
	}
}

// A Reader with Duplicates gives the values deduped, and its positions and
// errors are those of the text as it is; without, a repeated name is a
// *SyntaxError with DuplicateName.
func TestReaderDuplicates(t *testing.T) {
	text := "{\"a\":1,\n \"b\":2,\n \"a\":3}\n{\"ok\":true}\n{\"x\": NaN, \"x\": 1}\n[1,\n"
	r := jsonv.NewReader(strings.NewReader(text), jsonv.Options{})
	_, _, err := r.Next()
	var se *jsonv.SyntaxError
	if !errors.As(err, &se) || !se.DuplicateName || se.Pos.String() != "3:2" {
		t.Fatalf("without Duplicates: %v (%+v)", err, se)
	}
	r = jsonv.NewReader(strings.NewReader(text), jsonv.Options{Duplicates: jsonv.DuplicatesLast, NonFinite: true})
	var got []string
	for {
		v, pos, err := r.Next()
		if err == io.EOF {
			t.Fatal("no error at the unclosed array")
		}
		if err != nil {
			if !errors.As(err, &se) || se.DuplicateName || se.Pos.String() != "7:1" {
				t.Fatalf("error %v (%+v), want one at 7:1", err, se)
			}
			break
		}
		got = append(got, pos.String()+" "+string(v))
	}
	want := []string{`1:1 {"a":3,"b":2}`, `4:1 {"ok":true}`, `5:1 {"x":1}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseDuplicates(t *testing.T) {
	for i, n := range jsonv.DuplicatesNames {
		if d, err := jsonv.ParseDuplicates(strings.ToUpper(n)); err != nil || int(d) != i || d.String() != n {
			t.Errorf("ParseDuplicates(%s) = %v, %v", n, d, err)
		}
	}
	if _, err := jsonv.ParseDuplicates("merge"); err == nil || err.Error() != `unknown value "merge" (supported: error, last, first)` {
		t.Errorf("ParseDuplicates(merge): %v", err)
	}
}

// FuzzDedupe: a value without repeated names comes out as its compact
// form; one with them comes out valid, its names no longer repeating,
// and a Reader with Duplicates gives the same; anything else is an error,
// never a panic.
func FuzzDedupe(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":2,"a":3}`, `[{"x":[{"y":1,"y":2}]},{"x":0,"x":{}}]`, `{"\u0061":1,"a":2}`, `"s"`, `{"a":`, `[1,]`, `{"a":1} {"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, keep := range []jsonv.Duplicates{jsonv.DuplicatesLast, jsonv.DuplicatesFirst} {
			got, err := jsonv.Dedupe(nil, b, keep)
			if err != nil {
				if jsonv.Check(b) == nil {
					t.Fatalf("Dedupe(%q): %v on a valid value", b, err)
				}
				continue
			}
			if cerr := jsonv.Check(got); cerr != nil {
				t.Fatalf("Dedupe(%q) = %q, not valid: %v", b, got, cerr)
			}
			if jsonv.Check(b) == nil {
				// No name repeats: the value without its white space, its
				// names, strings and numbers spelled as b spells them (as
				// Dedupe's doc says; AppendCompact would respell escapes).
				want := jsontext.Value(bytes.Clone(b))
				if err := want.Compact(); err != nil || string(got) != string(want) {
					t.Fatalf("Dedupe(%q) = %q, want %q (%v)", b, got, want, err)
				}
			}
			r := jsonv.NewReader(bytes.NewReader(b), jsonv.Options{Duplicates: keep})
			v, _, rerr := r.Next()
			if rerr == nil {
				if _, _, err := r.Next(); err == io.EOF {
					c, _ := jsonv.AppendCompact(nil, v)
					if want, _ := jsonv.AppendCompact(nil, got); string(c) != string(want) {
						t.Fatalf("Reader of %q gave %q, Dedupe %q", b, c, want)
					}
				}
			}
		}
	})
}

// Dedupe keeps one member of each name, where the first stood, as jq does.
func ExampleDedupe() {
	last, _ := jsonv.Dedupe(nil, []byte(`{"a": 1, "b": 2, "a": 3}`), jsonv.DuplicatesLast)
	first, _ := jsonv.Dedupe(nil, []byte(`{"a": 1, "b": 2, "a": 3}`), jsonv.DuplicatesFirst)
	fmt.Println(string(last))
	fmt.Println(string(first))
	// Output:
	// {"a":3,"b":2}
	// {"a":1,"b":2}
}
