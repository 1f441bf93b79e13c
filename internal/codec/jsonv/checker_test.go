package jsonv

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// checkerSeeds are values the Checker vouches for on its own and values it
// leaves to Check.
var checkerSeeds = []string{
	`{"a":1,"b":[1.50,-0,1e+20,true,false,null],"c":{"d":"x\"y\\z\n"}}`,
	`{ "a" : [1, 2.50, -0] }`,
	"{\r\n  \"a\": [\r\n    1\r\n  ]\r\n}",
	`"\u0041\/\u00e9\uD83D\uDE00\u001F"`, `"\ud800"`, `"caf\u00e9"`,
	"\"Ελληνικά naïve 😀 \u2028\"", "\"\x7f\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"a\tb\"",
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"\u0061":1}`, `{"é":1,"é":2}`,
	`[]`, `{}`, `[ ]`, `{ }`, `[[],{}]`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{,}`, `[,1]`,
	`0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-7`, `-12.5e+3`, `truex`, `tru`, `nul`, `1 2`, ` 1 `, ``, ` `,
	`"`, `"\`, `"\x"`, `"\u12"`, `"\u12g4"`, `[1]]`, `[1}`, `{"a":1]`, `{"a":[}`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600),
}

// manyMembers is an object with n members named k0..k(n-1), the last one
// named again when dup.
func manyMembers(n int, dup bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	if dup {
		fmt.Fprintf(&b, `"k%d":0,`, n-1)
	}
	b.WriteString(`"end":{"k0":[{"k0":1}]}}`)
	return b.String()
}

// FuzzChecker: the Checker gives what Check, Compacted and CompactInPlace
// give, errors included, and when it vouches for a value on its own the
// value is valid and its compact prefix is compactPrefix's.
func FuzzChecker(f *testing.F) {
	for _, s := range checkerSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(manyMembers(40, false)))
	f.Add([]byte(manyMembers(40, true)))
	var c Checker
	f.Fuzz(func(t *testing.T, in []byte) {
		want := Check(in)
		if k, ok := c.scan(in); ok {
			if want != nil {
				t.Fatalf("scan vouched for %q; Check: %v", in, want)
			}
			if p := compactPrefix(in); k != p {
				t.Fatalf("scan(%q): compact prefix %d, compactPrefix %d", in, k, p)
			}
		}
		orig := bytes.Clone(in)
		got, err := c.Compacted([]byte("junk"), in)
		if fmt.Sprint(err) != fmt.Sprint(want) {
			t.Fatalf("Compacted(%q): error %v, Check: %v", in, err, want)
		}
		if err == nil && !bytes.Equal(got, Compacted(nil, in)) {
			t.Fatalf("Compacted(%q) = %q, want %q", in, got, Compacted(nil, in))
		}
		got, err = c.CompactInPlace(in)
		if fmt.Sprint(err) != fmt.Sprint(want) {
			t.Fatalf("CompactInPlace(%q): error %v, Check: %v", orig, err, want)
		}
		if err != nil && !bytes.Equal(in, orig) {
			t.Fatalf("CompactInPlace(%q) failed and changed its input to %q", orig, in)
		}
		if err == nil && !bytes.Equal(got, CompactInPlace(orig)) {
			t.Fatalf("CompactInPlace(%q) = %q, want %q", orig, got, CompactInPlace(bytes.Clone(orig)))
		}
	})
}

// The checks that the one pass does itself: duplicate names, among a few
// members and among many (a map), at any depth; invalid UTF-8; bad
// escapes; grammar. Each is refused by scan and reported as Check reports
// it.
func TestCheckerRefusesWhatCheckRefuses(t *testing.T) {
	var c Checker
	for _, in := range []string{
		`{"a":1,"a":2}`, manyMembers(33, true), manyMembers(200, true), `[{"x":{"b":1,"c":2,"b":3}}]`,
		"\"\xff\"", "\"\xed\xa0\x80\"", "{\"\xc3\":1}", `"\x"`, `"\u12g4"`, `[1,]`, `01`, `1 2`, ``, `{"a":1]`,
	} {
		want := Check([]byte(in))
		if want == nil {
			t.Fatalf("Check accepted %q", in)
		}
		if _, ok := c.scan([]byte(in)); ok {
			t.Errorf("scan vouched for %q", in)
		}
		if _, err := c.Compacted(nil, []byte(in)); fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("Compacted(%q): %v; Check: %v", in, err, want)
		}
	}
	// Names that are equal only at other depths or in other objects are
	// not duplicates.
	for _, in := range []string{manyMembers(33, false), manyMembers(200, false), `[{"a":1},{"a":2}]`, `{"a":{"a":{"a":1}},"b":{"a":2}}`} {
		if _, ok := c.scan([]byte(in)); !ok {
			t.Errorf("scan refused %q", in)
		}
	}
}

// TestCheckerDuplicateNames: a duplicate is found whatever the object's
// size (the list of names and, past linearNames, the map), wherever the
// name it repeats stands, with objects open around it and within it whose
// names are their own; names with escapes that decode equal ("a" and
// "\u0061") are duplicates too (Check's).
func TestCheckerDuplicateNames(t *testing.T) {
	var c Checker
	object := func(n, dup int) string {
		var b strings.Builder
		b.WriteString(`{"k1":1,"outer":{"k1":1,`)
		for i := range n {
			fmt.Fprintf(&b, `"name%d":{"name%d":%d},`, i, i, i)
		}
		if dup >= 0 {
			fmt.Fprintf(&b, `"name%d":0,`, dup)
		}
		b.WriteString(`"k2":2},"k2":2}`)
		return b.String()
	}
	for n := 1; n <= 2*linearNames+3; n++ {
		if in := object(n, -1); Check([]byte(in)) != nil {
			t.Fatalf("Check refused %s", in)
		} else if _, ok := c.scan([]byte(in)); !ok {
			t.Errorf("scan refused %s", in)
		}
		for _, d := range []int{0, n / 2, n - 1} {
			in := object(n, d)
			if _, ok := c.scan([]byte(in)); ok {
				t.Errorf("scan vouched for %s", in)
			}
			if _, err := c.Compacted(nil, []byte(in)); err == nil || fmt.Sprint(err) != fmt.Sprint(Check([]byte(in))) {
				t.Errorf("Compacted(%s): %v, want Check's %v", in, err, Check([]byte(in)))
			}
		}
	}
	for _, in := range []string{`{"a":1,"\u0061":2}`, `{"\u0061":1,"a":2}`, `{"é":1,"\u00e9":2}`, manyMembers(40, false)[:len(manyMembers(40, false))-1] + `,"k\u0031":1}`} {
		if _, err := c.Compacted(nil, []byte(in)); err == nil || !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("Compacted(%s): %v, want a duplicate name", in, err)
		}
	}
}
