package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/toonkit/toonkit/internal/toonfmt"
	"github.com/toonkit/toonkit/internal/toonx"

	"github.com/toonkit/toonkit/internal/toonspec"
)

// lookup is the value at path in v (a JSON value decoded with UseNumber).
func lookup(v any, path []any) (any, bool) {
	for _, e := range path {
		switch e := e.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[e]; !ok {
				return nil, false
			}
		case int:
			a, ok := v.([]any)
			if !ok || e >= len(a) {
				return nil, false
			}
			v = a[e]
		}
	}
	return v, true
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// checkOutline compares the outline of a document that decodes with its
// value: every node's path is in the value, with the type the outline
// gives it; every header's count of elements is the array's length.
func checkOutline(t *testing.T, name, src string, indent int) int {
	t.Helper()
	j, err := toJSON([]byte(src), indent, 0)
	if err != nil {
		return 0 // the decoder rejects it: nothing to compare with
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var value any
	if err := d.Decode(&value); err != nil {
		if len(j) == 0 {
			return 0 // an empty document
		}
		t.Fatalf("%s: %v", name, err)
	}
	o := newOutline(newText([]byte(src)), indent)
	checked := 0
	fail := func(nd *node, format string, args ...any) {
		t.Errorf("%s: line %d (%q): %s\n%s", name, nd.line+1, nd.content.text(o.src), fmt.Sprintf(format, args...), src)
	}
	o.walk(func(nd *node) {
		if nd.kind == kValue {
			if got, want := kindOf(nd.value.text(o.src)), jsonType(value); got != want {
				fail(nd, "root value type %s, want %s", got, want)
			}
			return
		}
		v, ok := lookup(value, nd.path)
		if !ok {
			fail(nd, "path %s not in the value %s", jqPath(nd.path), j)
			return
		}
		checked++
		want := jsonType(v)
		got := nd.typeOf(o.src)
		if nd.kind == kItem {
			got = nd.itemType(o.src)
		}
		if got != want {
			fail(nd, "type %s, the value's is %s", got, want)
		}
		if h := nd.hdr; h != nil {
			n := -1
			switch v := v.(type) {
			case []any:
				n = len(v)
			case map[string]any:
				n = len(v)
			}
			if a := h.actual(nd); a != n {
				fail(nd, "%d elements, the value has %d", a, n)
			}
			for i, c := range h.inline {
				if e, ok := lookup(v, []any{i}); !ok || kindOf(c.text(o.src)) != jsonType(e) {
					fail(nd, "inline value %d %q is %s, the value's %v", i, c.text(o.src), kindOf(c.text(o.src)), e)
				}
			}
		}
		if nd.kind == kRow {
			h := nd.parent.hdr
			if len(nd.cells) != len(h.leaves) {
				fail(nd, "%d cells, %d fields", len(nd.cells), len(h.leaves))
				return
			}
			for i, c := range nd.cells {
				p := nd.path
				for _, l := range h.leaves[i] {
					p = appendPath(p, l)
				}
				e, ok := lookup(value, p)
				if !ok || kindOf(c.text(o.src)) != jsonType(e) {
					fail(nd, "cell %d at %s: %s, the value's %v", i, jqPath(p), kindOf(c.text(o.src)), e)
				}
			}
		}
	})
	return checked
}

// The outline agrees with the decoder on every spec fixture that decodes
// in strict mode.
func TestOutlineAgreesWithDecoder(t *testing.T) {
	cases, err := toonspec.Load("../../testdata/toon-spec")
	if err != nil {
		t.Fatal(err)
	}
	docs, nodes := 0, 0
	for _, c := range cases {
		src, ok := c.Text()
		if !ok || c.ShouldError || c.NonStrict() || c.Options["expandPaths"] != nil && c.Options["expandPaths"] != "off" {
			continue
		}
		indent := 0
		if n, ok := c.Options["indent"].(float64); ok {
			indent = int(n)
		}
		if n := checkOutline(t, c.File+": "+c.Name, src, indent); n > 0 {
			docs++
			nodes += n
		}
	}
	if docs < 500 {
		t.Fatalf("only %d fixtures compared", docs)
	}
	t.Logf("%d documents, %d nodes", docs, nodes)
}

// FuzzOutline: no document, offset or edit makes the outline, its
// features or an edit panic, and each selection range holds the one
// inside it.
func FuzzOutline(f *testing.F) {
	cases, err := toonspec.Load("../../testdata/toon-spec")
	if err != nil {
		f.Fatal(err)
	}
	for i, c := range cases {
		if src, ok := c.Text(); ok && i%3 == 0 {
			f.Add(src, uint16(i), uint16(i*7), "x")
		}
	}
	f.Add("users[2]{id,p{n}}:\n  1,\"a\n  - x\n[3|]: a|\"b", uint16(5), uint16(2), "\"")
	f.Fuzz(func(t *testing.T, src string, at, n uint16, ins string) {
		tx := newText([]byte(src))
		o := newOutline(tx, 0)
		off := int(at) % (len(src) + 1)
		o.hover(off, utf16Units)
		o.symbols(utf16Units)
		o.folds()
		sel := o.selection(off, utf16Units)
		for s := &sel; s.Parent != nil; s = s.Parent {
			a, b := tx.offset(s.Range.Start, utf16Units), tx.offset(s.Range.End, utf16Units)
			pa, pb := tx.offset(s.Parent.Range.Start, utf16Units), tx.offset(s.Parent.Range.End, utf16Units)
			if pa > a || pb < b {
				t.Fatalf("selection %d-%d is not inside its parent %d-%d", a, b, pa, pb)
			}
		}
		if nd := o.at(off); nd != nil {
			if tok, delim, ok := o.tokenAt(nd, off); ok {
				o.quoted(tok, delim)
			}
		}
		o.walk(func(nd *node) { o.rewriteArray(nd) })
		p := tx.position(off, utf16Units)
		q := protocol.Position{Line: p.Line + uint32(n%3), Character: uint32(n)}
		if tx.offset(q, utf16Units) < off {
			p, q = q, p
		}
		t2, err := tx.apply([]change{{Range: &protocol.Range{Start: p, End: q}, Text: ins}}, utf16Units)
		if err != nil {
			t.Fatal(err)
		}
		if t2.lines() != bytes.Count(t2.src, []byte("\n"))+1 {
			t.Fatalf("%d lines in %q", t2.lines(), t2.src)
		}
	})
}

// The outline agrees with the decoder on what the encoder writes of the
// repository's sample JSON, with each delimiter and indent, and on its
// TOON samples.
func TestOutlineOfEncodedSamples(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/demo/*.json")
	files2, _ := filepath.Glob("../../testdata/corpus/*/*.json")
	files = append(files, files2...)
	if len(files) < 5 {
		t.Fatalf("only %d samples", len(files))
	}
	nodes := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !json.Valid(b) {
			continue
		}
		for _, delim := range []byte{',', '\t', '|'} {
			for _, indent := range []int{2, 4} {
				var out bytes.Buffer
				if err := toonx.FromJSON(&out, b, toonx.EncodeOptions{IndentSize: indent, Delimiter: delim}); err != nil {
					continue
				}
				nodes += checkOutline(t, fmt.Sprintf("%s (%q, %d)", f, delim, indent), out.String(), indent)
			}
		}
	}
	// Random values: the shapes and strings the encoder quotes.
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 400; i++ {
		b, _ := json.Marshal(randomValue(r, 0))
		for _, delim := range []byte{',', '\t', '|'} {
			var out bytes.Buffer
			if err := toonx.FromJSON(&out, b, toonx.EncodeOptions{Delimiter: delim}); err != nil {
				t.Fatal(err)
			}
			nodes += checkOutline(t, fmt.Sprintf("random %d (%q): %s", i, delim, b), out.String(), 0)
		}
	}
	toons, _ := filepath.Glob("../../testdata/demo/*.toon")
	for _, f := range toons {
		b, _ := os.ReadFile(f)
		nodes += checkOutline(t, f, string(b), 0)
	}
	if nodes < 1000 {
		t.Fatalf("only %d nodes compared", nodes)
	}
	t.Logf("%d nodes", nodes)
}

var sampleKeys = []string{"id", "name", "a b", "x:y", "", "1", "tags", "user", "k[0]", "-", "é", "q\"", "#c"}
var sampleStrings = []string{"", "Ann", "a,b", "a|b", "a\tb", "true", "05", "1.5", "-", "- x", " lead", "trail ", "say \"hi\"", "[]", "{}", "x: y", "#", "null", "😀", "1e3"}

// randomValue is a JSON value of a few levels: objects, arrays of
// primitives, of objects of one shape (tables), of mixed values.
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(10); {
	case depth > 3 || k < 3:
		switch r.IntN(5) {
		case 0:
			return r.IntN(2000) - 1000
		case 1:
			return r.IntN(2) == 0
		case 2:
			return nil
		case 3:
			return float64(r.IntN(1000)) / 8
		}
		return sampleStrings[r.IntN(len(sampleStrings))]
	case k < 6:
		m := map[string]any{}
		for n := r.IntN(4); n >= 0; n-- {
			m[sampleKeys[r.IntN(len(sampleKeys))]] = randomValue(r, depth+1)
		}
		return m
	case k < 8:
		// a table: rows of one shape
		keys := sampleKeys[:1+r.IntN(4)]
		var rows []any
		for n := r.IntN(4); n >= 0; n-- {
			row := map[string]any{}
			for _, key := range keys {
				row[key] = randomValue(r, 9)
			}
			rows = append(rows, row)
		}
		return rows
	}
	var a []any
	for n := r.IntN(4); n > 0; n-- {
		a = append(a, randomValue(r, depth+1))
	}
	return a
}

// newIndent finds what toonfmt.Detect finds.
func TestNewIndent(t *testing.T) {
	for _, src := range []string{"", "a: 1\n", "a:\n    b: 1\n", "a:\n  # x\n   \n\tc\n    b: 1\n", "a:\n  b:\n    c: 1\n", "x:\n   y: 1\r\n", "a:\n \n  b: 1"} {
		if got, want := newIndent(newText([]byte(src))), toonfmt.Detect([]byte(src)).Indent; got != want {
			t.Errorf("%q: %d, Detect says %d", src, got, want)
		}
	}
}
