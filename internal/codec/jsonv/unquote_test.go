package jsonv

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// stringSeeds are JSON strings as producers write them, and strings that
// are not valid, each with something after it or not.
var stringSeeds = []string{
	`""`, `"a"`, `"plain ASCII text of some length, longer than a word"`,
	`"{\n  \"items\": [\n    {\n      \"id\": 1,\n      \"name\": \"caf\u00e9\"\n    }\n  ]\n}"`, // json.dumps(json.dumps(v, indent=2))
	`"caf\u00e9 \ud83d\ude00 \u2028 \u0000 \u001f \/ \b\f\n\r\t \\ \""`,
	"\"Ελληνικά naïve 😀 日本語\"", "\"\x7f\"", "\"a\r\nb\"",
	`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\ud800"`, `"\ud800x"`, `"\uDBFF\uDFFF"`,
	"\"\xff\"", "\"\xed\xa0\x80\"", "\"\xc3\"", "\"a\tb\"", "\"a\nb\"",
	`"\x"`, `"\u12"`, `"\u12g4"`, `"\`, `"abc\"`, `"`, `x`, ``, `"a"b"`,
	`"a", "b"`, `"a"}`, `"\\"`, `"\\\""`, `"12345678\"9"`,
}

// FuzzAppendString: AppendString and AppendUnquote fail where
// jsontext.AppendUnquote fails on the string that b starts with, and
// otherwise give the same text; the string read is the one a decoder
// reads; dst keeps its bytes.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The string a decoder reads at b's start, if any.
		var want []byte
		var wantErr error
		d := jsontext.NewDecoder(bytes.NewReader(b))
		v, err := d.ReadValue()
		n := int(d.InputOffset())
		if err == nil && (v.Kind() != '"' || b[0] != '"') { // white space first: not a string at b's start
			err = errString
		}
		if err == nil {
			want, wantErr = jsontext.AppendUnquote(nil, v)
		}
		got, m, gotErr := AppendString([]byte("dst"), b)
		switch {
		case err != nil:
			// Not a string a decoder reads whole; AppendString may
			// still read one that ends before the decoder's error (b =
			// `"a"x`): then that string must be valid alone.
			if gotErr == nil {
				if w, e := jsontext.AppendUnquote(nil, b[:m]); e != nil || !bytes.Equal(got, append([]byte("dst"), w...)) {
					t.Fatalf("AppendString(%q) read %q as %q; jsontext: %q, %v", b, b[:m], got, w, e)
				}
			}
		case (gotErr == nil) != (wantErr == nil):
			t.Fatalf("AppendString(%q): error %v, jsontext's %v", b, gotErr, wantErr)
		case gotErr == nil && (m != n || !bytes.Equal(got, append([]byte("dst"), want...))):
			t.Fatalf("AppendString(%q) = %q after %d bytes, want %q after %d", b, got, m, want, n)
		case gotErr != nil && string(got) != "dst":
			t.Fatalf("AppendString(%q) failed and left %q", b, got)
		}
		// AppendUnquote takes b whole.
		u, uErr := AppendUnquote(nil, b)
		w, wErr := jsontext.AppendUnquote(nil, b)
		if (uErr == nil) != (wErr == nil) || uErr == nil && !bytes.Equal(u, w) {
			t.Fatalf("AppendUnquote(%q) = %q, %v; jsontext: %q, %v", b, u, uErr, w, wErr)
		}
	})
}

// A string longer than a word, with its escapes at each offset within
// one: the eight-byte reads stop where they must.
func TestAppendStringEscapesAtEveryOffset(t *testing.T) {
	for _, esc := range []string{`\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, "é", "\x01", `"`} {
		for i := range 20 {
			s := `"` + strings.Repeat("a", i) + esc + strings.Repeat("b", 20-i) + `"`
			want, wantErr := jsontext.AppendUnquote(nil, s)
			got, err := AppendUnquote(nil, []byte(s))
			if (err == nil) != (wantErr == nil) || err == nil && !bytes.Equal(got, want) {
				t.Errorf("AppendUnquote(%q) = %q, %v; want %q, %v", s, got, err, want, wantErr)
			}
		}
	}
}

// FuzzCheckerValid: Valid is jsontext.Value.IsValid, escaped lone
// surrogates refused, whatever the Checker leaves to it.
func FuzzCheckerValid(f *testing.F) {
	for _, s := range checkerSeeds {
		f.Add([]byte(s))
	}
	for _, s := range stringSeeds {
		f.Add([]byte(`{"a": ` + s + `}`))
	}
	var c Checker
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := c.Valid(in), jsontext.Value(in).IsValid(); got != want {
			t.Fatalf("Valid(%q) = %v, jsontext %v", in, got, want)
		}
		// The lenient checks stay lenient after a strict one.
		if _, err := c.Compacted(nil, in); (err == nil) != (Check(in) == nil) {
			t.Fatalf("Compacted(%q) after Valid: %v, Check %v", in, err, Check(in))
		}
	})
}

// The Checker vouches for escaped surrogate pairs on its own under Valid,
// and refuses each lone one there while Check takes it.
func TestCheckerValidSurrogates(t *testing.T) {
	var c Checker
	c.strict = true
	if _, ok := c.scan([]byte(`{"a":"\ud83d\ude00 \uD83D\uDE00"}`)); !ok {
		t.Error("scan (strict) left a surrogate pair to jsontext")
	}
	c.strict = false
	for _, s := range []string{`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `["\ud83d","\ude00"]`, `"\ud800\ud800"`} {
		if c.Valid([]byte(s)) {
			t.Errorf("Valid(%s) = true", s)
		}
		if Check([]byte(s)) != nil {
			t.Errorf("Check(%s) refused it", s)
		}
	}
}
