package toonfmt

import (
	"bytes"
	"cmp"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/toonspec"
	_ "github.com/toonkit/toonkit/toon" // registers the codec
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		opts           Options
	}{
		{"canonical stays", "a: 1\nb:\n  c: x\n", "a: 1\nb:\n  c: x\n", Options{}},
		{"final newline added", "a: 1", "a: 1\n", Options{}},
		{"CRLF, BOM, blank lines, trailing spaces", "\ufeffa: 1\r\n\r\nb: 2  \r\n", "a: 1\nb: 2\n", Options{}},
		{"quoting made canonical", "a: \"x\"\n\"b\": 1\n", "a: x\nb: 1\n", Options{}},
		{"numbers made canonical", "n[3]: 1.50,-0,1e3\n", "n[3]: 1.5,0,1000\n", Options{}},
		{"list of flat objects becomes a table", "items[2]:\n  - id: 1\n    name: Ada\n  - id: 2\n    name: Bob\n",
			"items[2]{id,name}:\n  1,Ada\n  2,Bob\n", Options{}},
		{"four spaces kept", "a:\n    b:\n        c: 1\n", "a:\n    b:\n        c: 1\n", Options{}},
		{"four spaces to two by flag", "a:\n    b:\n        c: 1\n", "a:\n  b:\n    c: 1\n", Options{Indent: 2}},
		{"pipe kept", "t[2|]{a|b}:\n  1|x\n  2|y\nn[2|]: 1|2\n", "t[2|]{a|b}:\n  1|x\n  2|y\nn[2|]: 1|2\n", Options{}},
		{"pipe to comma by flag", "n[2|]: 1|2\n", "n[2]: 1,2\n", Options{Delimiter: ','}},
		{"tab kept", "n[2\t]: 1\t2\n", "n[2\t]: 1\t2\n", Options{}},
		{"a quoted bracket is no header", "\"k[2|]:\": 1\nn[2]: 1,2\n", "\"k[2|]:\": 1\nn[2]: 1,2\n", Options{}},
		{"a bracket in a value is no header", "note: see[2|]:x\nd[2]: 1,2\n", "note: \"see[2|]:x\"\nd[2]: 1,2\n", Options{}},
		{"the first header with a marker", "l[1]:\n  - [2|]: a|b\n", "l[1|]:\n  - [2|]: a|b\n", Options{}},

		{"comment before the first line", "# top\na: 1\n", "# top\na: 1\n", Options{}},
		{"comment indented as its line", "a:\n# about b\n  b: 1\n", "a:\n  # about b\n  b: 1\n", Options{}},
		{"comments in order, trailing ones at the end", "# 1\n# 2\na: 1\n  # end\n", "# 1\n# 2\na: 1\n# end\n", Options{}},
		{"comment before a table row", "items[2]{id,name}:\n  1,Ada\n  # note\n  2,Bob\n", "items[2]{id,name}:\n  1,Ada\n  # note\n  2,Bob\n", Options{}},
		{"comment before a list item that becomes a row",
			"items[2]:\n  - id: 1\n    name: Ada\n  # Bob\n  - id: 2\n    name: Bob\n",
			"items[2]{id,name}:\n  1,Ada\n  # Bob\n  2,Bob\n", Options{}},
		{"comment before a field that joins its row",
			"items[2]:\n  - id: 1\n    # the name\n    name: Ada\n  - id: 2\n    name: Bob\n",
			"items[2]{id,name}:\n  # the name\n  1,Ada\n  2,Bob\n", Options{}},
		{"comment before a key after a nested block", "a:\n  b: 1\n# c next\nc: 2\n", "a:\n  b: 1\n# c next\nc: 2\n", Options{}},
		{"comment text kept, spaces after it dropped", "#x  y  \t\na: 1\n", "#x  y\na: 1\n", Options{}},
		{"only comments", "# a\n\n# b\n", "# a\n# b\n", Options{}},
		{"empty", "", "", Options{}},
		{"a root array", "[2]:\n  - a: 1\n  # two\n  - a: 2\n", "[2]{a}:\n  1\n  # two\n  2\n", Options{}},
		{"non-strict: last duplicate wins", "a: 1\na: 2\n", "a: 2\n", Options{NonStrict: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Format([]byte(c.in), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("Format(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			checkProperties(t, []byte(c.in), c.opts)
		})
	}
}

func TestFormatErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a: 1\nb[2]: 1\n", "2:"},
		{"a:\n   b: 1\n  c: 2\n", "2:"},
		{"a: \"x\n", "1:"},
	} {
		_, err := Format([]byte(c.in), Options{})
		var se *jsonv.SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Format(%q): %v, want a syntax error at %s", c.in, err, c.want)
		}
	}
}

// checkProperties checks what Format promises of src: the value is kept
// and a second Format changes nothing.
func checkProperties(t *testing.T, src []byte, opts Options) {
	t.Helper()
	got, err := Format(src, opts)
	if err != nil {
		if errors.Is(err, ErrChanged) {
			t.Fatalf("Format(%q): %v", src, err)
		}
		return
	}
	in, err := decode(src, Detect(src).Indent, opts, nil)
	if err != nil {
		t.Fatalf("%q formats but does not decode: %v", src, err)
	}
	out, err := decode(got, Detect(got).Indent, Options{}, nil)
	if err != nil {
		t.Fatalf("Format(%q) = %q, which does not decode (strict): %v", src, got, err)
	}
	if !bytes.Equal(in, out) {
		t.Fatalf("Format(%q) = %q changed the value:\n%s\n%s", src, got, in, out)
	}
	again, err := Format(got, Options{})
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("not idempotent:\nsrc  %q\nonce %q\ntwice %q (%v)", src, got, again, err)
	}
	// Every comment is kept, in its order.
	var was, is [][]byte
	for _, c := range comments(src) {
		was = append(was, c.text)
	}
	for _, c := range comments(got) {
		is = append(is, c.text)
	}
	if len(was) != len(is) || !bytes.Equal(bytes.Join(was, []byte("\n")), bytes.Join(is, []byte("\n"))) {
		t.Fatalf("Format(%q) = %q: comments %q, had %q", src, got, is, was)
	}
}

// specInputs are the TOON documents of the spec's decode fixtures and the
// expected TOON of its encode fixtures, with whether they are read
// non-strict; canonical holds the encode fixtures' TOON (the reference
// encoder's output, with the fixture's delimiter and indent).
func specInputs(t testing.TB) (docs []string, nonStrict []bool, canonical []encoded) {
	cases, err := toonspec.Load("../../testdata/toon-spec")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		s, ok := c.Text()
		if !ok {
			continue
		}
		docs, nonStrict = append(docs, s), append(nonStrict, c.NonStrict())
		if c.Category == "encode" {
			canonical = append(canonical, encoded{s, c.Delimiter()})
		}
	}
	return docs, nonStrict, canonical
}

// withComments is doc with comment lines put before some of its lines,
// at random indentations.
func withComments(doc string, r *rand.Rand) string {
	var b strings.Builder
	for i, line := range strings.Split(doc, "\n") {
		if r.IntN(3) == 0 {
			b.WriteString(strings.Repeat(" ", r.IntN(6)))
			b.WriteString("# c" + string(rune('a'+i%26)) + "\n")
		}
		b.WriteString(line + "\n")
	}
	if r.IntN(2) == 0 {
		b.WriteString("# trailing\n")
	}
	return b.String()
}

// The properties, on every spec fixture's document, and on each with
// comments added.
func TestFormatPropertiesOnFixtures(t *testing.T) {
	docs, nonStrict, _ := specInputs(t)
	r := rand.New(rand.NewPCG(1, 2))
	formatted := 0
	for i, doc := range docs {
		opts := Options{NonStrict: nonStrict[i]}
		if _, err := Format([]byte(doc), opts); err == nil {
			formatted++
		}
		checkProperties(t, []byte(doc), opts)
		for range 3 {
			checkProperties(t, []byte(withComments(doc, r)), opts)
		}
	}
	if formatted < 500 {
		t.Fatalf("only %d of %d fixture documents formatted", formatted, len(docs))
	}
}

// encoded is an encode fixture's TOON and the delimiter it was written with.
type encoded struct{ doc, delimiter string }

// What the reference encoder wrote (the spec's encode fixtures, with
// their delimiters and indents) is canonical already: fmt changes nothing
// but the final newline.
func TestFormatKeepsReferenceOutput(t *testing.T) {
	_, _, canonical := specInputs(t)
	if len(canonical) < 400 {
		t.Fatalf("only %d encode fixtures", len(canonical))
	}
	for _, c := range canonical {
		want := c.doc + "\n"
		if c.doc == "" {
			want = ""
		}
		// A document with no array header does not say its delimiter,
		// which quoting depends on (a,b is quoted under comma only).
		var opts Options
		if c.delimiter != "" {
			opts.Delimiter = c.delimiter[0]
		}
		if got, err := Format([]byte(c.doc), opts); err != nil || string(got) != want {
			t.Errorf("Format(%q) = %q, %v", c.doc, got, err)
		}
		// With its delimiter found in the document, where it is there.
		d := cmp.Or(opts.Delimiter, ',')
		if got, err := Format([]byte(c.doc), Options{}); Detect([]byte(c.doc)).Delimiter == d && (err != nil || string(got) != want) {
			t.Errorf("Format(%q) without the delimiter = %q", c.doc, got)
		}
	}
}

func FuzzFormat(f *testing.F) {
	docs, _, _ := specInputs(f)
	for _, d := range docs {
		f.Add([]byte(d), false)
	}
	f.Add([]byte("items[2]:\n  - id: 1\n    # c\n    name: Ada\n  - id: 2\n    name: Bob\n"), false)
	f.Fuzz(func(t *testing.T, src []byte, nonStrict bool) {
		if len(src) > 1<<16 {
			return
		}
		checkProperties(t, src, Options{NonStrict: nonStrict})
	})
}

// BenchmarkFormat: a 2,000-row list of objects with comments, made a
// table (make bench).
func BenchmarkFormat(b *testing.B) {
	var src strings.Builder
	src.WriteString("# users\nusers[2000]:\n")
	for i := range 2000 {
		if i%100 == 0 {
			src.WriteString("  # a hundred more\n")
		}
		src.WriteString("  - id: " + strconv.Itoa(i) + "\n    name: \"user " + strconv.Itoa(i) + "\"\n    active: true\n")
	}
	in := []byte(src.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Format(in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
