package validate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/toonspec"
	"github.com/toonkit/toonkit/internal/toonx"
)

// toonFindings runs TOON over doc and gives its findings as
// "LINE:COL CODE".
func toonFindings(t testing.TB, doc string) []string {
	t.Helper()
	var got []string
	n, err := TOON(strings.NewReader(doc), "d.toon", Options{}, func(f Finding) bool {
		if f.File != "d.toon" || f.Severity != Error || f.Frame != -1 || f.Record != 0 {
			t.Fatalf("finding %+v", f)
		}
		got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Column, f.Code))
		return true
	})
	if err != nil || n != 1 {
		t.Fatalf("TOON(%q): %d records, %v", doc, n, err)
	}
	return got
}

// One document for each rule: its problem has that code.
func TestTOONCodes(t *testing.T) {
	for _, c := range []struct{ code, doc string }{
		{"TOON001", "a:\n   b: 1\n"},
		{"TOON001", "a:\n\tb: 1\n"},
		{"TOON001", "  a: 1\n"},
		{"TOON001", "a:\n  b:\n      c: 1\n"},
		{"TOON002", "n[3]: 1,2\n"},
		{"TOON002", "t[2]{a,b}:\n  1,2\n"},
		{"TOON002", "l[1]:\n  - 1\n  - 2\n"},
		{"TOON003", "t[1]{a,b}:\n  1\n"},
		{"TOON004", "nums [3]: 1,2,3\n"},
		{"TOON004", "m[1:]{v\n"},
		{"TOON004", "n[01]: 1\n"},
		{"TOON004", "t[1|]{a,b}:\n  1|2\n"},
		{"TOON005", "a: 1\nb\n"},
		{"TOON006", "a: \"x\n"},
		{"TOON006", "a: \"\\q\"\n"},
		{"TOON006", "a: \"x\"y\n"},
		{"TOON007", "a: 1\na: 2\n"},
		{"TOON007", "t[1]{a,a}:\n  1,2\n"},
		{"TOON008", "a: \xff\n"},
		{"TOON009", "l[2]:\n  - 1\n\n  - 2\n"},
		{"TOON010", "[1]: 1\nb: 2\n"},
		// The document's own words, quoted in a message, tell nothing.
		{"TOON005", "a: 1\nthe field name\n"},
		{"TOON010", "[2]: 1,2\nduplicate key: 1\n"},
		{"TOON006", "a: 1\nb: \"x\" nesting deeper than\n"},
	} {
		got := toonFindings(t, c.doc)
		if len(got) == 0 || !strings.HasSuffix(got[0], " "+c.code) {
			t.Errorf("%q: %v, want %s first", c.doc, got, c.code)
		}
	}
	// Every code is a rule.
	known := map[string]bool{}
	for _, r := range Rules() {
		known[r.Code] = true
	}
	for _, r := range toonRules {
		if !known[r.Code] || r.Text == "" {
			t.Errorf("%s is not among Rules()", r.Code)
		}
	}
}

// Every problem of a document, in one run, in the order of the lines;
// a count its removed line broke is not reported.
func TestTOONManyProblems(t *testing.T) {
	doc := "a: 1\nb[3]: x,y\nc:\n   d: 1\nitems[2]{id,name}:\n  1,Ada\n  2\nname: \"x\nk: 1\nk: 2\n"
	want := []string{"2:2 TOON002", "4:4 TOON001", "7:4 TOON003", "8:7 TOON006", "10:1 TOON007"}
	if got := toonFindings(t, doc); strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("findings %v, want %v", got, want)
	}
	// A blank line inside an array sets aside itself alone.
	if got := toonFindings(t, "a[3]:\n  - 1\n\n  - 2\n  - 3\nb: 1\nc[2]: 1\nd: \"open\n"); strings.Join(got, ", ") != "3:1 TOON009, 7:2 TOON002, 8:4 TOON006" {
		t.Fatalf("after a blank line: %v", got)
	}
	// Four spaces a level: TOON001 at the default indent, none with
	// TOONIndent 4.
	four := "a:\n    b: 1\n    c:\n        d: 2\n"
	if got := toonFindings(t, four); strings.Join(got, ", ") != "2:5 TOON001, 3:5 TOON001" {
		t.Fatalf("a four-space document, indent 2: %v", got)
	}
	n := 0
	TOON(strings.NewReader(four), "d.toon", Options{TOONIndent: 4}, func(Finding) bool { n++; return true })
	if n != 0 {
		t.Fatalf("a four-space document, indent 4: %d findings", n)
	}
	// Many problems: at most maxTOONProblems.
	var many strings.Builder
	for i := range 300 {
		fmt.Fprintf(&many, "k%d[2]: 1\n", i)
	}
	if got := toonFindings(t, many.String()); len(got) != maxTOONProblems {
		t.Fatalf("%d findings of 300 problems, want %d", len(got), maxTOONProblems)
	}
}

// The spec's fixtures: a strict document that decodes has no finding,
// and one that does not has its decoder's error first, with a code that
// is not the catch-all.
func TestTOONFixtures(t *testing.T) {
	cases, err := toonspec.Load("../../testdata/toon-spec")
	if err != nil {
		t.Fatal(err)
	}
	valid, invalid := 0, 0
	for _, tc := range toonspec.Decode(cases) {
		doc, _ := tc.Text()
		if len(tc.Options) > 0 {
			continue // non-strict, an indent, path expansion: not validate's reading
		}
		got := toonFindings(t, doc)
		derr := toonx.ToJSON(&bytes.Buffer{}, strings.NewReader(doc), toonx.DecodeOptions{})
		switch {
		case derr == nil && len(got) != 0:
			t.Errorf("%s: %q decodes, but validate finds %v", tc.File, doc, got)
		case derr != nil:
			invalid++
			var se *jsonv.SyntaxError
			if len(got) == 0 || !errors.As(derr, &se) || !strings.HasPrefix(got[0], fmt.Sprintf("%d:%d ", se.Pos.Line, se.Pos.Column)) || strings.HasSuffix(got[0], "TOON000") {
				t.Errorf("%s: %q: %v, decoder %v", tc.File, doc, got, derr)
			}
		default:
			valid++
		}
	}
	if valid < 300 || invalid < 30 {
		t.Fatalf("%d valid and %d invalid fixture documents", valid, invalid)
	}
}

func FuzzTOON(f *testing.F) {
	f.Add("a: 1\nb[3]: x,y\nc:\n   d: 1\n")
	f.Add("t[2]{a,b}:\n  1,2\n  3\n")
	f.Add("l[2]:\n  - 1\n\n  - 2\n")
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 1<<14 {
			return
		}
		got := toonFindings(t, doc)
		derr := toonx.ToJSON(&bytes.Buffer{}, strings.NewReader(doc), toonx.DecodeOptions{})
		var se *jsonv.SyntaxError
		switch {
		case derr == nil && len(got) != 0:
			t.Fatalf("%q decodes, findings %v", doc, got)
		case derr != nil && (len(got) == 0 || !errors.As(derr, &se)):
			t.Fatalf("%q: decoder %v, findings %v", doc, derr, got)
		case len(got) > maxTOONProblems:
			t.Fatalf("%d findings", len(got))
		}
		if se != nil && !containsPrefix(got, fmt.Sprintf("%d:%d ", se.Pos.Line, se.Pos.Column)) {
			t.Fatalf("%q: the decoder's error %v is not among %v", doc, derr, got)
		}
	})
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
