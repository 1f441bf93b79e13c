package stats

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/tokens"
)

// wholeReport counts the text that Encode writes of doc in each format,
// the document whole, with one Counter per format and tokenizer.
func wholeReport(t testing.TB, doc []byte) *Report {
	t.Helper()
	rep := &Report{Tokenizers: tokens.Encodings}
	for _, f := range Formats {
		row := Row{Format: f, Tokens: make([]int64, len(tokens.Encodings))}
		for i, name := range tokens.Encodings {
			c, _ := tokens.NewCounter(name)
			why, err := Encode(c, doc, f, Options{})
			if err != nil {
				t.Fatalf("Encode %s: %v", f, err)
			}
			n, err := c.Counts()
			if err != nil {
				t.Fatal(err)
			}
			row.Unavailable = why
			if why == "" {
				row.Bytes, row.Chars, row.Tokens[i] = n.Bytes, n.Chars, n.Tokens
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep
}

// counts is a report's figures without the reasons for a table's absence.
func countsOf(rep *Report) string {
	var b strings.Builder
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "%s %d %d %v %t\n", r.Format, r.Bytes, r.Chars, r.Tokens, r.Unavailable != "")
	}
	return b.String()
}

// streamInputs are arrays of records of every shape: the demo files, tables
// whose TOON form breaks late (into a list), lines of primitives,
// lists from the start, nesting, Unicode, empty containers.
func streamInputs(t testing.TB) map[string][]byte {
	in := map[string][]byte{}
	for _, n := range []string{"users.json", "orders.json", "data.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", n))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
			in[n] = b
		}
	}
	for _, n := range []string{"events.ndjson", "chiffon.ndjson", "session.ndjson"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", n))
		if err != nil {
			t.Fatal(err)
		}
		values, err := records.JSONValues(n, b, len(b)+1)
		if err != nil {
			t.Fatal(err)
		}
		in[n] = records.JoinArray(values)
	}
	gen := func(n int, f func(i int) string) []byte {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",\r\n ")
			}
			b.WriteString(f(i))
		}
		b.WriteString("]")
		return []byte(b.String())
	}
	in["table"] = gen(300, func(i int) string {
		return fmt.Sprintf(`{"id":%d,"name":"User %d","note":"a, \"b\"\r\nc|d\te","ok":%t,"score":%d.5,"ref":null}`, i, i, i%3 == 0, i%97)
	})
	in["keys in two orders"] = gen(200, func(i int) string {
		if i%2 == 1 {
			return fmt.Sprintf(`{"b":"x%d","a":%d}`, i, i)
		}
		return fmt.Sprintf(`{"a":%d,"b":"y%d"}`, i, i)
	})
	in["table, then nested"] = gen(200, func(i int) string {
		if i == 170 {
			return `{"a":1,"b":{"c":[1,2]}}`
		}
		return fmt.Sprintf(`{"a":%d,"b":"v%d"}`, i, i)
	})
	in["table, then other keys"] = gen(200, func(i int) string {
		if i >= 150 {
			return fmt.Sprintf(`{"a":%d,"c":"w"}`, i)
		}
		return fmt.Sprintf(`{"a":%d,"b":"v%d"}`, i, i)
	})
	in["primitives, then an object"] = gen(300, func(i int) string {
		if i == 250 {
			return `{"k":"v"}`
		}
		return fmt.Sprintf(`"s %d, x"`, i)
	})
	in["primitives"] = gen(300, func(i int) string { return fmt.Sprint([]string{`1`, `"a|b"`, `true`, `null`, `-0.5e3`, `""`}[i%6]) })
	in["list"] = gen(150, func(i int) string {
		return fmt.Sprintf(`{"id":%d,"tags":["x","y %d"],"deep":{"m":[{"n":%d}]}}`, i, i, i)
	})
	in["arrays"] = gen(120, func(i int) string { return fmt.Sprintf(`[%d,"Zoë",[%d]]`, i, i) })
	in["nested table"] = gen(120, func(i int) string { return fmt.Sprintf(`{"a":{"b":%d,"c":"ü"},"d":"日本%d"}`, i, i) })
	in["empty containers"] = gen(100, func(i int) string { return []string{`{}`, `[]`, `{}`}[i%3] })
	in["empty objects"] = gen(100, func(int) string { return `{}` })
	in["punctuation"] = gen(100, func(int) string { return `[[],{}]` })
	in["one"] = []byte(`[{"a":1}]`)
	in["none"] = []byte(`[]`)
	return in
}

// Measured record by record, in batches of any size, on one worker or
// several, the counts are those of the whole text of each format.
func TestStreamAgreesWithWholeText(t *testing.T) {
	defer func(b, s int) { batchBytes, spoolMem = b, s }(batchBytes, spoolMem)
	for name, doc := range streamInputs(t) {
		want := countsOf(wholeReport(t, doc))
		for _, size := range []int{1, 100, 4 << 10, 256 << 10} {
			if size == 1 && len(doc) > 8<<10 {
				continue // a batch a record: the 100 bytes take a few
			}
			for _, workers := range []int{1, 3} {
				batchBytes, spoolMem = size, 500
				got, err := Measure(doc, Options{Workers: workers})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if g := countsOf(got); g != want {
					t.Errorf("%s, batches of %d bytes, %d workers:\n%s\nwant (the whole text)\n%s", name, size, workers, g, want)
				}
			}
		}
	}
}

// JSON as Python services write it (json.dumps' separators, indented,
// ASCII escapes) is measured as the same records.
func TestStreamPythonFormatted(t *testing.T) {
	defer func(b int) { batchBytes = b }(batchBytes)
	batchBytes = 200
	doc := streamInputs(t)["table"]
	for _, style := range pyjson.Styles {
		compact, py := pyjson.Pair(t, doc, style)
		want := countsOf(wholeReport(t, compact))
		got, err := Measure(py, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if countsOf(got) != want {
			t.Errorf("%s:\n%s\nwant\n%s", style.Name, countsOf(got), want)
		}
	}
}

// A stream of any length is measured with a bounded number of records in
// memory: at most the batches in flight (workers+2), the one being
// filled and the one being handed over, each of batchBytes and a record.
// Counted from the Meter's own books, not from timing.
func TestStreamMemoryBound(t *testing.T) {
	defer func(b int) { batchBytes = b }(batchBytes)
	batchBytes = 2 << 10
	const workers = 2
	records := 20000
	m, err := NewMeter(Options{Tokenizers: []string{"o200k_base"}, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	total, longest := 0, 0
	for i := range records {
		rec := fmt.Appendf(nil, `{"id":%d,"name":"User %d","note":"%s"}`, i, i, strings.Repeat("x", i%200))
		total, longest = total+len(rec)+1, max(longest, len(rec)+1)
		if err := m.Record(rec); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := m.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Row(JSON).Bytes < int64(total) {
		t.Fatalf("json row %d bytes for %d bytes of records", rep.Row(JSON).Bytes, total)
	}
	bound := int64((workers + 2 + 2) * (batchBytes + longest))
	if got := m.maxHeld.Load(); got > bound || got == 0 {
		t.Errorf("at most %d bytes of records held of %d, want <= %d", got, total, bound)
	}
	if m.held.Load() != 0 {
		t.Errorf("%d bytes of records still held", m.held.Load())
	}
}

// One level of nesting (users.json: each user's tags, an array of strings
// in a cell) is what the A2A spec allows, and the table reads back as its
// records: the row counts. Deeper nesting reads back exactly in toonkit
// too, so the table counts, with a note that a Genesis sender would have
// used JSON. A table that does not read back names its first lossy cell.
func TestTableNesting(t *testing.T) {
	users, err := os.ReadFile("../../testdata/demo/users.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := mustMeasure(t, string(users), Options{Tokenizers: []string{"o200k_base"}})
	if row := rep.Row(Tabular); row.Unavailable != "" || row.Note != "" || row.Tokens[0] == 0 {
		t.Errorf("users.json: tabular row %+v", row)
	}
	var table bytes.Buffer
	if why, err := Encode(&table, users, Tabular, Options{}); why != "" || err != nil {
		t.Fatal(why, err)
	}
	src, err := records.NewSource(&table, "users.toon", records.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var back [][]byte
	if err := src.Each(func(rec []byte) error { back = append(back, append([]byte{}, rec...)); return nil }); err != nil {
		t.Fatal(err)
	}
	values, _ := records.JSONValues("users.json", users, len(users)+1)
	compact, _ := jsonv.AppendCompact(nil, users)
	if got := records.JoinArray(back); !bytes.Equal(got, compact) {
		t.Errorf("users.json's table reads back as\n%s\nwant\n%s (%d values)", got, compact, len(values))
	}

	deep := `[{"a":1,"b":{"c":[1]}},{"a":2,"b":{"c":[]}}]`
	for _, workers := range []int{1, 2} {
		rep = mustMeasure(t, deep, Options{Tokenizers: []string{"o200k_base"}, Workers: workers})
		row := rep.Row(Tabular)
		want := `2 cells are nested deeper than the one level the A2A spec allows (the first: record 1, key "b"); toonkit reads the table back exactly, a Genesis sender would have used JSON`
		if row.Unavailable != "" || row.Note != want || row.Tokens[0] == 0 {
			t.Errorf("deep: tabular row %+v", row)
		}
	}
	if row := mustMeasure(t, `{"a":[[1]]}`, Options{Tokenizers: []string{"o200k_base"}}).Row(Tabular); row.Note == "" {
		t.Errorf("one deep object: tabular row %+v", row)
	}
}

// FuzzStream: any array, measured in batches of a few bytes on several
// workers, counts as the whole text of each format.
func FuzzStream(f *testing.F) {
	for _, s := range []string{`[{"a":1},{"a":2},{"a":{"b":1}}]`, `[1,"x,y",{"a":[]}]`, `[{"b":"1","a":2},{"a":3,"b":"z"}]`,
		`[[1],[2,[3]],{}]`, `[{},{"a":null}]`, `["a\nb","\r\n"]`, `[{"k":"v|w\tx"},{"k":"- y"}]`} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, doc []byte, size uint8) {
		if len(doc) > 2048 || !jsonv.Valid(doc) || !bytes.HasPrefix(jsonv.TrimSpace(doc), []byte("[")) {
			return
		}
		want := countsOf(wholeReport(t, doc))
		defer func(b, s int) { batchBytes, spoolMem = b, s }(batchBytes, spoolMem)
		batchBytes, spoolMem = int(size%64)+1, 16
		got, err := Measure(doc, Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if g := countsOf(got); g != want {
			t.Fatalf("batches of %d bytes:\n%s\nwant (the whole text)\n%s", batchBytes, g, want)
		}
	})
}

// Why the joins need care: counts of a text cut at its records' joins do
// not add up (JSON's `},{` is one pre-token; a TOON row's line feed and
// the next row's indentation are counted together), while cut at
// tokens.Cuts they do.
func TestJoinsAtRecordsDoNotAddUp(t *testing.T) {
	count := func(s string) int64 {
		c, _ := tokens.NewCounter("o200k_base")
		c.Write([]byte(s))
		n, _ := c.Counts()
		return n.Tokens
	}
	for _, parts := range [][]string{
		{`[{"a":"x"}`, `,{"a":"y"}]`},
		{"[2]{a,b}:\n  x,\"y\"", "\n  z,w"},
	} {
		text := parts[0] + parts[1]
		whole := count(text)
		apart := count(parts[0]) + count(parts[1])
		if apart == whole {
			t.Errorf("%q: %d tokens apart, as many as whole", parts, apart)
		}
		first, last := tokens.Cuts([]byte(text))
		if first < 0 {
			t.Fatalf("%q: no cut", text)
		}
		if cut := count(text[:first]) + count(text[first:last]) + count(text[last:]); cut != whole {
			t.Errorf("%q cut at %d and %d: %d tokens, whole %d", text, first, last, cut, whole)
		}
	}
}

// A lossy table of ever new keys is not followed to its end: the row says
// how many cells of how many records.
func TestLossyTableOfNewKeys(t *testing.T) {
	m, err := NewMeter(Options{Tokenizers: []string{"o200k_base"}, Formats: []string{Tabular}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxLossyKeys + 100 {
		m.Record(fmt.Appendf(nil, `{"k%d":1}`, i))
	}
	rep, err := m.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.table.w.Keys()); got != maxLossyKeys+1 {
		t.Errorf("the table's writer took %d keys", got)
	}
	want := regexp.MustCompile(`^\d+ cells would not read back as written \(the first: record 1, key "k1" missing, reads back as null\), in the first 4097 records$`)
	if row := rep.Rows[0]; !want.MatchString(row.Unavailable) {
		t.Errorf("tabular row %+v", row)
	}
}

// A temporary file that cannot be made is a *TempError (an I/O error),
// not one of the data.
func TestTempFileError(t *testing.T) {
	defer func(s int) { spoolMem = s }(spoolMem)
	spoolMem = 16
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "none"))
	_, err := Measure(streamInputs(t)["table"], Options{Tokenizers: []string{"o200k_base"}, Workers: 2})
	var te *TempError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "cannot keep the records in a temporary file") {
		t.Fatalf("err = %v", err)
	}
}
