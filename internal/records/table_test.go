package records

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/tabular"
)

// table writes the records of each input (name: NDJSON text) to a
// TableSink and returns it, with what its Rows hold.
func table(t *testing.T, ts *TableSink, inputs ...[2]string) *bytes.Buffer {
	t.Helper()
	rows := &bytes.Buffer{}
	ts.Rows = rows
	for _, in := range inputs {
		src, err := NewSource(strings.NewReader(in[1]), in[0], SourceOptions{Format: codec.NDJSON})
		if err != nil {
			t.Fatal(err)
		}
		ts.Src = src
		if err := src.Each(ts.Write); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// The rows are written as they come; Finish puts the header first and
// gives the rows written before a key appeared its empty cell, naming the
// input of each such cell.
func TestTableSinkFinish(t *testing.T) {
	ts := &TableSink{Max: 5}
	rows := table(t, ts, [2]string{"a.ndjson", `{"id":1}` + "\n"}, [2]string{"b.ndjson", `{"id":2,"name":"x"}` + "\n"})
	var out bytes.Buffer
	var late []string
	if err := ts.Finish(&out, rows, func(l tabular.NamedLossy) { late = append(late, fmt.Sprintf("%s: %s", l.Input, l.Lossy)) }); err != nil {
		t.Fatal(err)
	}
	want := "@toon 1.0\n@keys id,name\n1,\n2,x\n"
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(late) != 1 || !strings.HasPrefix(late[0], "a.ndjson: ") {
		t.Errorf("late cells: %q, want one, of a.ndjson", late)
	}
}

// A lossy cell is kept with its input's name (the first Max of them, in row
// order, the first late key among them), or given to Lossy as it is found.
func TestTableSinkLosses(t *testing.T) {
	in := [][2]string{
		{"a.ndjson", `{"id":"1"}` + "\n" + `{"id":"2"}` + "\n"},
		{"b.ndjson", `{"id":"3","x":1}` + "\n"},
	}
	ts := &TableSink{Max: 2}
	table(t, ts, in...)
	var got []string
	for _, l := range ts.First() {
		got = append(got, fmt.Sprintf("%s row %d %s", l.Input, l.Row, l.Key))
	}
	if diff := cmp.Diff([]string{"a.ndjson row 0 id", "a.ndjson row 0 x"}, got); diff != "" {
		t.Errorf("First (-want +got):\n%s", diff)
	}
	if r := ts.Report(); r.Lossy != 5 {
		t.Errorf("Lossy = %d, want 5 (three numeric strings, two missing cells)", r.Lossy)
	}
	lossy := ts.Check()
	if lossy == nil || lossy.Cells != 5 || len(lossy.First) != 2 || lossy.Error() != "5 cells would not read back as written: the table is not written" {
		t.Errorf("Check = %+v, want 5 cells, the first 2", lossy)
	}
	fine := &TableSink{}
	table(t, fine, [2]string{"c.ndjson", `{"id":1}` + "\n"})
	if fine.Check() != nil {
		t.Errorf("a lossless table: Check = %v", fine.Check())
	}
	if ts.InputOf(2) != "b.ndjson" || ts.InputOf(1) != "a.ndjson" {
		t.Errorf("InputOf: %q %q", ts.InputOf(1), ts.InputOf(2))
	}

	var seen []string
	ts = &TableSink{Lossy: func(l tabular.NamedLossy) { seen = append(seen, l.Input) }}
	table(t, ts, in...)
	if diff := cmp.Diff([]string{"a.ndjson", "a.ndjson", "b.ndjson"}, seen); diff != "" {
		t.Errorf("Lossy calls (-want +got):\n%s", diff)
	}
	if len(ts.First()) != 0 {
		t.Errorf("First with Lossy set and no Max: %v", ts.First())
	}
}

// A record that is no object is a *RowError naming it: by its source's
// place, or by What and its number.
func TestTableSinkRowError(t *testing.T) {
	ts := &TableSink{Rows: &bytes.Buffer{}, What: "result", Name: "the results"}
	if err := ts.Write([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	err := ts.Write([]byte(`[1]`))
	var re *RowError
	if !errors.As(err, &re) || !errors.Is(err, tabular.ErrNotObject) || re.Where != "result 2" {
		t.Fatalf("err = %v, want a RowError of result 2, ErrNotObject", err)
	}
	if ts.InputOf(0) != "the results" {
		t.Errorf("InputOf(0) = %q", ts.InputOf(0))
	}
}

// AutoSink keeps both a table and the compact JSON; a record that is no
// object settles it for JSON, with that record's error as the reason, and
// the JSON holds every record; a table of objects that pays is chosen.
func TestAutoSink(t *testing.T) {
	choose := func(ndjson string) (bool, string, string) {
		var rows, js bytes.Buffer
		a := &AutoSink{Table: &TableSink{Rows: &rows, Max: 5}, JSON: &JSONSink{W: &js, Compact: true}}
		src, err := NewSource(strings.NewReader(ndjson), "in.ndjson", SourceOptions{Format: codec.NDJSON})
		if err != nil {
			t.Fatal(err)
		}
		a.Table.Src = src
		if err := src.Each(a.Write); err != nil {
			t.Fatalf("%q: %v", ndjson, err)
		}
		if err := a.End(); err != nil {
			t.Fatal(err)
		}
		ok, why := a.Choose()
		return ok, why, js.String()
	}
	var objects strings.Builder
	for i := range 20 {
		fmt.Fprintf(&objects, `{"id": %d, "name": "user %d", "active": true}`+"\n", i, i)
	}
	if ok, why, js := choose(objects.String()); !ok || !strings.Contains(why, "smaller") || !strings.HasPrefix(js, `[{"id":0,`) {
		t.Errorf("20 objects: table %v (%s), JSON %.20q; want the table", ok, why, js)
	}
	ok, why, js := choose("{\"id\": 1}\n[1, 2]\n{\"id\": 3}\n")
	if ok || !strings.Contains(why, "in.ndjson:2") || js != `[{"id":1},[1,2],{"id":3}]`+"\n" {
		t.Errorf("a record that is no object: table %v (%s), JSON %q; want JSON with every record", ok, why, js)
	}
	if ok, why, _ := choose(`{"id": 1}` + "\n"); ok || !strings.Contains(why, "row") {
		t.Errorf("one object: table %v (%s), want JSON: too few rows", ok, why)
	}
}
