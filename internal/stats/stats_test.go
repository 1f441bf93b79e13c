package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/internal/tokenvectors"
	"github.com/toonkit/toonkit/toon"
)

type vector = tokenvectors.Vector

func loadVectors(t testing.TB) []vector { return tokenvectors.Load(t) }

func mustMeasure(t testing.TB, doc string, opts Options) *Report {
	t.Helper()
	rep, err := Measure([]byte(doc), opts)
	if err != nil {
		t.Fatalf("Measure(%.60q): %v", doc, err)
	}
	return rep
}

// The compact JSON row of a JSON array is tiktoken's count of the array
// (the published vectors), written in any formatting; the table of the
// three users is the table vector's.
func TestMeasureKnownCounts(t *testing.T) {
	tables := map[string]string{
		"@toon 1.0\n@keys id,name\n1,Alice\n2,Bob\n3,Charlie\n": `[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"},{"id":3,"name":"Charlie"}]`,
	}
	checked := 0
	for _, v := range loadVectors(t) {
		if c, err := jsonv.AppendCompact(nil, []byte(v.Text)); err == nil && string(c) == v.Text && strings.HasPrefix(v.Text, "[") {
			var spaced bytes.Buffer
			json.Indent(&spaced, []byte(v.Text), " ", "\t")
			for _, doc := range []string{v.Text, spaced.String()} {
				rep := mustMeasure(t, doc, Options{Tokenizers: []string{v.Encoding}, Formats: []string{JSON}})
				if got := rep.Rows[0]; got.Tokens[0] != v.Tokens || got.Bytes != int64(len(v.Text)) {
					t.Errorf("%s: json row of %.40q: %d tokens, %d bytes; want %d, %d", v.Encoding, v.Text, got.Tokens[0], got.Bytes, v.Tokens, len(v.Text))
				}
			}
			checked++
		}
		if doc, ok := tables[v.Text]; ok {
			rep := mustMeasure(t, doc, Options{Tokenizers: []string{v.Encoding}, Formats: []string{Tabular}})
			if got := rep.Rows[0]; got.Tokens[0] != v.Tokens || got.Bytes != int64(len(v.Text)) || got.Unavailable != "" {
				t.Errorf("%s: tabular row: %+v; want %d tokens, %d bytes", v.Encoding, got, v.Tokens, len(v.Text))
			}
			checked++
		}
	}
	if checked < 4 {
		t.Fatalf("only %d vectors checked", checked)
	}
}

// The TOON rows count what toon.FromJSON writes with each delimiter.
func TestMeasureTOONRows(t *testing.T) {
	doc := `{"items":[{"sku":"A1","qty":2,"note":"a, b"},{"sku":"B2","qty":1,"note":"c|d"}],"tags":["x","y z"]}`
	rep := mustMeasure(t, doc, Options{IndentSize: 4})
	for _, d := range []toon.Delimiter{toon.Comma, toon.Tab, toon.Pipe} {
		var text bytes.Buffer
		if err := toon.FromJSON(&text, []byte(doc), toon.MarshalOptions{IndentSize: 4, Delimiter: d}); err != nil {
			t.Fatal(err)
		}
		row := rep.Row("toon-" + d.String())
		for i, name := range rep.Tokenizers {
			c, _ := tokens.NewCounter(name)
			c.Write(text.Bytes())
			want, _ := c.Counts()
			if row.Bytes != want.Bytes || row.Chars != want.Chars || row.Tokens[i] != want.Tokens {
				t.Errorf("%s by %s: %+v; want %+v", row.Format, name, row, want)
			}
		}
	}
}

// A table that would not read back, or of records that are not objects,
// is no cheapest format: its row says why.
func TestMeasureTableUnavailable(t *testing.T) {
	for doc, why := range map[string]string{
		`[{"a":"1"},{"a":"x"}]`:        `1 cell would not read back as written (the first: record 1, key "a": "1" is a string that reads back as a number)`,
		`[{"a":1},{"b":2}]`:            `2 cells would not read back as written (the first: record 1, key "b" missing, reads back as null)`,
		`[{"a":1,"b":""},{"a":2}]`:     `2 cells would not read back as written (the first: record 1, key "b": "" is an empty string, which reads back as null)`,
		`{"a":true,"b":"false"}`:       `1 cell would not read back as written (the first: record 1, key "b": "false" is a string that reads back as a boolean)`,
		`[{"a":1},{"a":2},{"a":"[]"}]`: `1 cell would not read back as written (the first: record 3, key "a": "[]" is a string of JSON, which reads back as that JSON value)`,
		`[{"a":1},[2]]`:                "record 2: expected an object, found an array",
		`"text"`:                       "record 1: expected an object, found a string",
	} {
		rep := mustMeasure(t, doc, Options{Tokenizers: []string{"o200k_base"}})
		row := rep.Row(Tabular)
		if row.Unavailable != why || row.Tokens[0] != 0 {
			t.Errorf("%s: tabular row %+v; want unavailable %q", doc, row, why)
		}
		if c := rep.Cheapest(0); rep.Rows[c].Format == Tabular {
			t.Errorf("%s: the unavailable table is the cheapest", doc)
		}
	}
}

// Cheapest picks the fewest tokens: tab where tab is cheaper (numbers with
// commas in them must be quoted with the comma delimiter), comma where
// comma is.
func TestCheapestDelimiter(t *testing.T) {
	var tabby, commy strings.Builder
	tabby.WriteString("[")
	commy.WriteString("[")
	for i := range 40 {
		if i > 0 {
			tabby.WriteString(",")
			commy.WriteString(",")
		}
		fmt.Fprintf(&tabby, `{"id":%d,"price":"1,%03d.50","city":"Paris, France"}`, i, i)
		fmt.Fprintf(&commy, `{"id":%d,"name":"user %d","ok":true}`, i, i)
	}
	tabby.WriteString("]")
	commy.WriteString("]")
	formats := []string{TOONComma, TOONTab, TOONPipe}
	for doc, want := range map[string]string{tabby.String(): TOONTab, commy.String(): TOONComma} {
		rep := mustMeasure(t, doc, Options{Formats: formats})
		for i, name := range rep.Tokenizers {
			if got := rep.Rows[rep.Cheapest(i)].Format; got != want {
				t.Errorf("%.50s... by %s: cheapest %s, want %s (%+v)", doc, name, got, want, rep.Rows)
			}
		}
	}
}

// JSON as Python services write it is measured as the same data compact.
func TestMeasurePythonFormatted(t *testing.T) {
	in := []byte(`[{"id":1,"name":"Zoë","tags":["a","b"],"score":1.5,"ok":null},{"id":2,"name":"Bob \"B\"","tags":[],"score":-0.25,"ok":true}]`)
	for _, style := range pyjson.Styles {
		compact, py := pyjson.Pair(t, in, style)
		want := mustMeasure(t, string(compact), Options{})
		got := mustMeasure(t, string(py), Options{})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %+v\nwant %+v", style.Name, got, want)
		}
	}
}

// Several workers give the report one does.
func TestMeasureWorkers(t *testing.T) {
	doc := `[{"a":1,"b":"x"},{"a":2,"b":"y"}]`
	one := mustMeasure(t, doc, Options{Workers: 1})
	four := mustMeasure(t, doc, Options{Workers: 4})
	if fmt.Sprint(one) != fmt.Sprint(four) {
		t.Errorf("workers 4: %+v\nworkers 1: %+v", four, one)
	}
}

func TestMeasureErrors(t *testing.T) {
	if _, err := Measure([]byte(`[1,`), Options{}); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("bad JSON: %v", err)
	}
	if _, err := Measure([]byte(`[]`), Options{Tokenizers: []string{"p50k"}}); err == nil {
		t.Error("unknown tokenizer: no error")
	}
	if _, err := Measure([]byte(`[]`), Options{Formats: []string{"yaml"}}); err == nil {
		t.Error("unknown format: no error")
	}
}

func TestBar(t *testing.T) {
	for _, c := range []struct {
		frac  float64
		width int
		want  string
	}{
		{1, 4, "████"},
		{0.5, 4, "██"},
		{0.55, 4, "██▎"},
		{0.6, 4, "██▍"},
		{0.001, 4, "▏"},
		{0, 4, ""},
		{2, 3, "███"},
	} {
		if got := Bar(c.frac, c.width); got != c.want {
			t.Errorf("Bar(%v, %d) = %q, want %q", c.frac, c.width, got, c.want)
		}
	}
}

func FuzzMeasure(f *testing.F) {
	for _, s := range []string{`[{"a":1},{"a":2}]`, `{"x":[1,2,{"y":"z"}]}`, `"s"`, `[]`, `[[1],[2,3]]`, `[{"a":"1,2"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 4096 {
			return
		}
		one, err1 := Measure(doc, Options{Tokenizers: []string{"o200k_base"}, Workers: 1})
		four, err4 := Measure(doc, Options{Tokenizers: []string{"o200k_base"}, Workers: 4})
		if (err1 == nil) != (err4 == nil) || fmt.Sprint(one) != fmt.Sprint(four) {
			t.Fatalf("workers 1: %+v %v; workers 4: %+v %v", one, err1, four, err4)
		}
	})
}

// BenchmarkMeasure measures every format of a JSON array of flat records
// by one tokenizer, on one worker (MB/s of JSON input).
func BenchmarkMeasure(b *testing.B) {
	var doc strings.Builder
	doc.WriteString("[")
	for i := range 20000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"id":%d,"name":"User %d","email":"user%d@example.com","note":"line, \"quoted\"\n%d","active":%t,"score":%d.5,"ref":null}`, i, i, i, i*7919, i%3 == 0, i%97)
	}
	doc.WriteString("]")
	b.SetBytes(int64(doc.Len()))
	for b.Loop() {
		if _, err := Measure([]byte(doc.String()), Options{Tokenizers: []string{"o200k_base"}, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// WhyCheapest names the cheapest row by the tokenizer asked, the others'
// tokens in order, and the rows without counts with why.
func TestWhyCheapest(t *testing.T) {
	r := &Report{Tokenizers: []string{"a", "b"}, Rows: []Row{
		{Format: JSON, Tokens: []int64{10, 30}},
		{Format: Tabular, Unavailable: "2 cells would not read back as written"},
		{Format: TOONComma, Tokens: []int64{8, 31}},
		{Format: TOONTab, Tokens: []int64{9, 29}},
	}}
	want := "toon-comma: 8 tokens by a, the fewest (json 10, toon-tab 9); not tabular: 2 cells would not read back as written"
	if got := r.WhyCheapest(0); got != want {
		t.Errorf("by a: %q\nwant %q", got, want)
	}
	if got := r.WhyCheapest(1); !strings.HasPrefix(got, "toon-tab: 29 tokens by b, the fewest (json 30, toon-comma 31)") {
		t.Errorf("by b: %q", got)
	}
	if got := (&Report{Tokenizers: []string{"a"}, Rows: []Row{{Format: Tabular, Unavailable: "x"}}}).WhyCheapest(0); got != "" {
		t.Errorf("no row with counts: %q", got)
	}
}
