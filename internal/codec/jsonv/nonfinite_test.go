package jsonv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readValues reads every value of in, and the error that ends them (nil at
// the end).
func readValues(t testing.TB, r io.Reader, opts Options) (values []string, pos []Position, err error) {
	t.Helper()
	jr := NewReader(r, opts)
	for {
		v, p, err := jr.Next()
		if err == io.EOF {
			return values, pos, nil
		}
		if err != nil {
			return values, pos, err
		}
		values = append(values, string(v))
		pos = append(pos, p)
	}
}

// What Python's json.dumps writes for non-finite floats is read as it is
// with NonFinite, in every place a value may stand and whatever the reads
// cut; without it, the error keeps its position and gains the hint.
func TestReaderNonFinite(t *testing.T) {
	in := "{\"a\": NaN, \"b\": [Infinity, -Infinity], \"\\u00e9\": -Infinity}\n" +
		"NaN\n-Infinity\n[NaN,NaN]\n" + `{"x": 1, "y": Infinity}` + "\n"
	want := []string{`{"a": NaN, "b": [Infinity, -Infinity], "\u00e9": -Infinity}`, "NaN", "-Infinity", "[NaN,NaN]", `{"x": 1, "y": Infinity}`}
	for _, r := range []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return strings.NewReader(in) }},
		{"one-byte", func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) }},
		{"half", func() io.Reader { return iotest.HalfReader(strings.NewReader(in)) }},
	} {
		got, pos, err := readValues(t, r.r(), Options{NonFinite: true})
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, %v; want %q", r.name, got, err, want)
		}
		if len(pos) == len(want) && (pos[1] != Position{Offset: int64(strings.Index(in, "\nNaN") + 1), Line: 2, Column: 1} || pos[4].Line != 5) {
			t.Errorf("%s: positions %v", r.name, pos)
		}
	}

	// A top-level array given element by element.
	got, _, err := readValues(t, strings.NewReader(`[NaN, 1, -Infinity, {"a": Infinity}]`), Options{NonFinite: true, Elements: true})
	if err != nil || strings.Join(got, " ") != `NaN 1 -Infinity {"a": Infinity}` {
		t.Errorf("elements: %q, %v", got, err)
	}

	// Without NonFinite: the error of before, with the hint.
	for _, c := range []struct{ in, msg string }{
		{`{"x": NaN}`, `1:7: invalid character 'N' at start of value (at /x)`},
		{`[1, -Infinity]`, `1:6: invalid character 'I' in number (expecting digit) (at /1)`},
		{"\n  Infinity", `2:3: invalid character 'I' at start of value`},
	} {
		_, _, err := readValues(t, strings.NewReader(c.in), Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != c.msg || se.Hint != NonFiniteHint || Hint(err) != NonFiniteHint {
			t.Errorf("%q: %v (hint %q), want %s with the hint", c.in, err, Hint(err), c.msg)
		}
	}
}

// Only NaN, Infinity and -Infinity, spelled as json.loads spells them and
// where a value may stand, are values: every other error is what it was,
// where it was, and has no hint.
func TestReaderNonFiniteStrict(t *testing.T) {
	for _, in := range []string{
		`[nan]`, `[inf]`, `[+Infinity]`, `[-NaN]`, `[NaNx]`, `[Infinit]`, `[NaN NaN]`,
		`{"a":1,NaN:2}`, `{NaN}`, `[1NaN]`, `NaN NaN x`, `{"a": NaN, "b": tru}`, `[NaN`,
	} {
		_, _, gotErr := readValues(t, strings.NewReader(in), Options{NonFinite: true})
		// The same text with json.loads's values as numbers of their length.
		_, _, wantErr := readValues(t, strings.NewReader(string(MaskNonFinite(nil, []byte(in)))), Options{})
		if gotErr == nil || wantErr == nil {
			t.Errorf("%q: %v, %v: want errors", in, gotErr, wantErr)
			continue
		}
		var se *SyntaxError
		errors.As(gotErr, &se)
		if gotErr.Error() != wantErr.Error() && !strings.Contains(in, "NaN NaN") {
			t.Errorf("%q: %v, want %v", in, gotErr, wantErr)
		}
		if se == nil || se.Hint != "" {
			t.Errorf("%q: %v: want a syntax error without a hint", in, gotErr)
		}
	}
}

func TestMaskNonFinite(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": NaN, "NaN": [Infinity,-Infinity]}`: `{"a": 1e1, "NaN": [10000000,-10000000]}`,
		` NaN `:                  ` 1e1 `,
		`["Infinity", Infinity]`: `["Infinity", 10000000]`,
		`{"a":1,NaN:2}`:          `{"a":1,NaN:2}`,
		`[NaNx, nan, -1, -NaN]`:  `[NaNx, nan, -1, -NaN]`,
		"[1]\nNaN":               "[1]\nNaN", // the first value only
	} {
		if got := string(MaskNonFinite(nil, []byte(in))); got != want {
			t.Errorf("MaskNonFinite(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHintAt(t *testing.T) {
	for in, want := range map[string]bool{"NaN": true, "NaN,": true, "-Infinity]": true, "Infinityx": false, "nan": false, "1": false} {
		if got := HintAt([]byte(in), 0) != ""; got != want {
			t.Errorf("HintAt(%q, 0): %v, want %v", in, got, want)
		}
	}
	if HintAt([]byte("-Infinity"), 1) == "" || HintAt([]byte("x"), 5) != "" {
		t.Error("HintAt: the I of -Infinity, or past the end")
	}
}

// FuzzReaderNonFinite: with NonFinite, the Reader never panics; every value
// it hands out is valid JSON once its NaN and Infinity values are masked,
// where it stands in the input; a text without them is read as without
// NonFinite, values and errors.
func FuzzReaderNonFinite(f *testing.F) {
	for _, s := range []string{"{\"a\": NaN}\n[Infinity, -Infinity]", "NaN -Infinity 1", `[NaN`, `{"a":1,NaN:2}`, `[nan, +Infinity]`, "[1, Inf", `{"a":1}`} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, elements bool) {
		opts := Options{MaxValueSize: 1 << 16, Elements: elements, NonFinite: true}
		got, pos, gotErr := readValues(t, iotest.HalfReader(bytes.NewReader(in)), opts)
		err := gotErr
		for i, v := range got {
			if !Valid(MaskNonFinite(nil, []byte(v))) || !bytes.HasPrefix(in[pos[i].Offset:], []byte(v)) {
				t.Fatalf("value %q at %v of %q", v, pos[i], in)
			}
		}
		// The Checker's one pass and jsontext's read of the masked value
		// agree, values and errors.
		slow := NewReader(bytes.NewReader(in), opts)
		slow.noChk = true
		for i := 0; ; i++ {
			v, p, err := slow.Next()
			if i == len(got) {
				if err == nil || err != io.EOF && fmt.Sprint(err) != fmt.Sprint(gotErr) {
					t.Fatalf("%q: the Checker ends with %v, jsontext alone gives %q, %v", in, gotErr, v, err)
				}
				break
			}
			if err != nil || string(v) != got[i] || p != pos[i] {
				t.Fatalf("%q: value %d: the Checker gives %q at %v, jsontext alone %q at %v, %v", in, i, got[i], pos[i], v, p, err)
			}
		}
		if bytes.ContainsAny(in, "NI") {
			return
		}
		opts.NonFinite = false
		want, wantPos, wantErr := readValues(t, bytes.NewReader(in), opts)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(pos) != len(wantPos) || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%q: %q %v, without NonFinite %q %v", in, got, err, want, wantErr)
		}
	})
}

func TestAppendCompactNonFinite(t *testing.T) {
	got, err := AppendCompactNonFinite([]byte("x"), []byte(`{"a": NaN, "b": [ -Infinity ]}`))
	if err != nil || string(got) != `x{"a":NaN,"b":[-Infinity]}` {
		t.Errorf("%q, %v", got, err)
	}
	if got, err := AppendCompactNonFinite([]byte("x"), []byte(`{"a": nan}`)); err == nil || string(got) != "x" {
		t.Errorf("nan: %q, %v", got, err)
	}
}
