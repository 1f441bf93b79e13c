package lsp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

// bigDocument is a TOON document of about size bytes: a config block, a
// table of customers, and a list of orders with nested items, as an
// agent's data file holds them.
func bigDocument(size int) string {
	var b strings.Builder
	b.WriteString("# customers and their orders\nconfig:\n  model: gpt-5\n  max_tokens: 4096\n  tags[3]: crm,orders,eu\n")
	rows := size / 2 / 60
	fmt.Fprintf(&b, "customers[%d]{id,name,email,city,active,score}:\n", rows)
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "  %d,Customer %d,c%d@example.com,\"Springfield, %d\",%t,%d.5\n", i, i, i, i%50, i%3 == 0, i%100)
	}
	orders := size / 2 / 110
	fmt.Fprintf(&b, "orders[%d]:\n", orders)
	for i := 0; i < orders; i++ {
		fmt.Fprintf(&b, "  - id: o%d\n    customer: %d\n    items[2]{sku,qty}:\n      A%d,1\n      B%d,2\n", i, i%rows, i, i)
	}
	return b.String()
}

// BenchmarkRediagnose is what an edit costs in a 10 MB document: the
// change applied to the text, and the document diagnosed again (strict
// TOON, every problem; then, in /schema, the JSON Schema it names).
func BenchmarkRediagnose(b *testing.B) {
	src := bigDocument(10 << 20)
	for _, withSchema := range []bool{false, true} {
		name := "toon"
		doc := src
		path := ""
		if withSchema {
			name = "schema"
			dir := b.TempDir()
			path = filepath.Join(dir, "big.toon")
			os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type":"object","properties":{"customers":{"type":"array","items":{"type":"object","required":["id"],"properties":{"score":{"type":"number","minimum":0}}}}}}`), 0o644)
			doc = "#:schema s.json\n" + src
		}
		b.Run(name, func(b *testing.B) {
			s := &Server{}
			t := newText([]byte(doc))
			line := uint32(strings.Count(doc[:strings.Index(doc, "customers[")], "\n") + 5) // a row
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Type one digit into a score, then take it out.
				ch := change{Range: rng(line, 2, line, 2), Text: "9"}
				if i%2 == 1 {
					ch = change{Range: rng(line, 2, line, 3), Text: ""}
				}
				next, err := t.apply([]change{ch}, utf16Units)
				if err != nil {
					b.Fatal(err)
				}
				t = next
				if ds := s.diagnose(t, path, utf16Units); len(ds) != 0 {
					b.Fatalf("%d diagnostics: %+v", len(ds), ds[0])
				}
			}
		})
	}
}

// BenchmarkEditToDiagnostics is the same over the protocol, as an editor
// sees it: didChange sent, to the publishDiagnostics of that version
// received.
func BenchmarkEditToDiagnostics(b *testing.B) {
	src := bigDocument(10 << 20)
	c := newClient(b, Options{}, nil)
	u := uri.File(filepath.Join(b.TempDir(), "big.toon"))
	if ds := c.open(u, src); len(ds) != 0 {
		b.Fatalf("%+v", ds[0])
	}
	line := uint32(strings.Count(src[:strings.Index(src, "customers[")], "\n") + 5)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := rng(line, 2, line, 2)
		text := "9"
		if i%2 == 1 {
			r, text = rng(line, 2, line, 3), ""
		}
		c.edit(u, int32(i+2), r, text)
		if ds := c.wait(u, int32(i+2)); len(ds) != 0 {
			b.Fatalf("%+v", ds[0])
		}
	}
}

// BenchmarkFeatures is the cost of the requests that read the outline of
// a 10 MB document, which is made again after each edit.
func BenchmarkFeatures(b *testing.B) {
	src := []byte(bigDocument(10 << 20))
	t := newText(src)
	off := bytes.Index(src, []byte("customers[")) + 200
	b.Run("outline+hover", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			o := newOutline(t, 0)
			if o.hover(off, utf16Units) == nil {
				b.Fatal("no hover")
			}
		}
	})
	o := newOutline(t, 0)
	b.Run("symbols", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			o.symbols(utf16Units)
		}
	})
	b.Run("format", func(b *testing.B) {
		s := &Server{}
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			if _, err := s.format(t, nil, utf16Units); err != nil {
				b.Fatal(err)
			}
		}
	})
}
