package query

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// run runs filter on the JSON input and returns the results, compact.
func run(t *testing.T, filter, input string, f Format) []string {
	t.Helper()
	q, err := Compile(filter, Options{})
	if err != nil {
		t.Fatalf("Compile(%q): %v", filter, err)
	}
	o := q.NewOrder()
	v, err := Decode([]byte(input), o)
	if err != nil {
		t.Fatalf("Decode(%q): %v", input, err)
	}
	e := Encoder{Order: o, Format: f}
	var out []string
	it := q.Run(context.Background(), v)
	for {
		r, ok := it.Next()
		if !ok {
			return out
		}
		if err, ok := r.(error); ok {
			t.Fatalf("%s: %v", filter, err)
		}
		out = append(out, string(e.Append(nil, r)))
	}
}

func TestNumbers(t *testing.T) {
	cases := []struct{ filter, input, want string }{
		{".", `12345678901234567890`, `12345678901234567890`},
		{". + 1", `12345678901234567890`, `12345678901234567891`},
		{". * 10", `-9223372036854775808`, `-92233720368547758080`},
		{".", `1.50`, `1.50`},
		{".", `1e2`, `1e2`},
		{".", `3.14159265358979323846264338`, `3.14159265358979323846264338`},
		{".", `-0`, `-0`},
		{". + 0", `1.50`, `1.5`},
		{". * 2", `1.25`, `2.5`},
		{"tostring", `1.50`, `"1.50"`},
		{". == 1.5", `1.50`, `true`},
		{"0.1 + 0.2", `null`, `0.30000000000000004`},
		{"1e17 + 0", `null`, `1e+17`},
		{"1e-5 + 0", `null`, `1e-05`},
		{"0.0001 + 0", `null`, `0.0001`},
		{"1e300 * 1e300", `null`, `1.7976931348623157e+308`},
		{"[nan]", `null`, `[null]`},
		{"sort", `[3, 1.5, 12345678901234567890, -1]`, `[-1,1.5,3,12345678901234567890]`},
	}
	for _, c := range cases {
		got := run(t, c.filter, c.input, Format{})
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s on %s = %q, want %s", c.filter, c.input, got, c.want)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	v, err := Decode([]byte(` {"a": [1, 9223372036854775807, 9223372036854775808, 2.5, "x\u00e9\ud83d\ude00\n", true, false, null]} `), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := v.(map[string]any)["a"].([]any)
	if a[0] != 1 || a[1] != math.MaxInt64 {
		t.Errorf("ints: %#v %#v", a[0], a[1])
	}
	if b, ok := a[2].(*big.Int); !ok || b.String() != "9223372036854775808" {
		t.Errorf("big: %#v", a[2])
	}
	if a[3] != json.Number("2.5") || a[4] != "xé😀\n" || a[5] != true || a[6] != false || a[7] != nil {
		t.Errorf("values: %#v", a[3:])
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `01`, `1.`, `-`, `"\x"`, `"a`, `tru`, `1 2`, "\"\x01\"", `{"a":1,}`, `1e`, `"\ud800"x`} {
		if _, err := Decode([]byte(bad), nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q): %v, want ErrInvalid", bad, err)
		}
	}
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := Decode([]byte(deep), nil); err == nil {
		t.Errorf("Decode of %d nested arrays: no error", maxDepth+2)
	}
}

func TestKeyOrder(t *testing.T) {
	in := `{"zeta": 1, "alpha": {"y": 1, "x": 2}, "mid": [{"b": 1, "a": 2}, {"a": 3, "b": 4}]}`
	cases := []struct{ filter, want string }{
		{".", `{"zeta":1,"alpha":{"y":1,"x":2},"mid":[{"b":1,"a":2},{"a":3,"b":4}]}`},
		{".alpha", `{"y":1,"x":2}`},
		{".mid[1]", `{"a":3,"b":4}`},
		// a copy with the same keys takes the order the key set was read in
		{".alpha.x = 5 | .alpha", `{"y":1,"x":5}`},
		// object literals keep the filter's order
		{"{mid: 1, zeta: 2}", `{"mid":1,"zeta":2}`},
		{`1 as $x | {"q r": 1, $x, a: 2}`, `{"q r":1,"x":1,"a":2}`},
		{"[.mid[] | {b, a}]", `[{"b":1,"a":2},{"b":4,"a":3}]`},
		// one key added to an object read: last, as jq writes it
		{".alpha + {w: 0}", `{"y":1,"x":2,"w":0}`},
		{".c = 1", `{"zeta":1,"alpha":{"y":1,"x":2},"mid":[{"b":1,"a":2},{"a":3,"b":4}],"c":1}`},
		// built otherwise: sorted
		{"{w: 0} + {v: 1} + {u: 2}", `{"u":2,"v":1,"w":0}`},
	}
	for _, c := range cases {
		got := run(t, c.filter, in, Format{})
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s = %q, want %s", c.filter, got, c.want)
		}
	}
	if got := run(t, ".alpha", in, Format{Sort: true}); got[0] != `{"x":2,"y":1}` {
		t.Errorf("-S: %s", got[0])
	}
}

func TestFormats(t *testing.T) {
	in := `{"b": [1, {}], "a": [], "s": "é\u0001\u007f<>&\u2028"}`
	cases := []struct {
		f    Format
		want string
	}{
		{Format{}, `{"b":[1,{}],"a":[],"s":"é\u0001\u007f<>&` + "\u2028" + `"}`},
		{Format{Indent: 2}, "{\n  \"b\": [\n    1,\n    {}\n  ],\n  \"a\": [],\n  \"s\": \"é\\u0001\\u007f<>&\u2028\"\n}"},
		{Format{Tab: true}, "{\n\t\"b\": [\n\t\t1,\n\t\t{}\n\t],\n\t\"a\": [],\n\t\"s\": \"é\\u0001\\u007f<>&\u2028\"\n}"},
		{Format{ASCII: true}, `{"b":[1,{}],"a":[],"s":"\u00e9\u0001\u007f<>&\u2028"}`},
	}
	for _, c := range cases {
		if got := run(t, ".", in, c.f); got[0] != c.want {
			t.Errorf("%+v:\n%s\nwant\n%s", c.f, got[0], c.want)
		}
	}
	if got := string(appendString(nil, "a\xffb😀", true)); got != `"a\ufffdb\ud83d\ude00"` {
		t.Errorf("ascii: %s", got)
	}
	if got := string(appendString(nil, "a\xffb", false)); got != "\"a\uFFFDb\"" {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestCompileError(t *testing.T) {
	cases := []struct {
		filter string
		offset int
	}{
		{".a | map(.b", 11},
		{".a | }", 5},
		{".a | nosuch(1)", 5},
		{".a + $nope", 5},
	}
	for _, c := range cases {
		_, err := Compile(c.filter, Options{})
		var ce *CompileError
		if !errors.As(err, &ce) || ce.Offset != c.offset || ce.Filter != c.filter {
			t.Errorf("Compile(%q): %#v, want offset %d", c.filter, err, c.offset)
		}
	}
}

func TestUsesInputs(t *testing.T) {
	for filter, want := range map[string]bool{".": false, "[inputs]": true, "def f: input; f": true, `{a: 1} | .input`: false, "first(inputs)": true} {
		q, err := Compile(filter, Options{Inputs: gojq.NewIter[any]()})
		if err != nil {
			t.Fatal(err)
		}
		if q.UsesInputs() != want {
			t.Errorf("UsesInputs(%q) = %v", filter, !want)
		}
	}
}

// What an input teaches about key order ends with it (Forget): the next
// input's objects come out the same whatever came before.
func TestOrderForget(t *testing.T) {
	q, err := Compile(`.x = 1`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := q.NewOrder()
	enc := Encoder{Order: o}
	out := func(in string) string {
		v, err := Decode([]byte(in), o)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := q.Run(context.Background(), v).Next()
		defer o.Forget()
		return string(enc.Append(nil, r))
	}
	if got := out(`{"x": 0, "b": 1, "a": 2}`); got != `{"x":1,"b":1,"a":2}` {
		t.Errorf("first input: %s", got)
	}
	// {a, b, x}: no longer known by the first input's order
	if got := out(`{"b": 1, "a": 2}`); got != `{"a":2,"b":1,"x":1}` && got != `{"b":1,"a":2,"x":1}` {
		t.Errorf("second input: %s", got)
	}
	if got := out(`{"a": 2, "b": 1}`); got != `{"a":2,"b":1,"x":1}` {
		t.Errorf("third input: %s, want the new key last after its own order", got)
	}
}

// AppendResult writes results as jq's -r and -j do: strings raw, other
// values as JSON; a newline after each but with -j.
func TestAppendResult(t *testing.T) {
	for _, c := range []struct {
		f    Format
		want string
	}{
		{Format{}, "\"a\\tb\"\n[1]\n"},
		{Format{Raw: true}, "a\tb\n[1]\n"},
		{Format{Join: true}, "a\tb[1]"},
	} {
		e := Encoder{Format: c.f}
		got := string(e.AppendResult(e.AppendResult(nil, "a\tb"), []any{1}))
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}
