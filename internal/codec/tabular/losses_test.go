package tabular_test

import (
	"fmt"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/tabular"
)

// A table refused for its lossy cells names the first of them in row
// order, the first late key's missing cell (row 0) among them.
func TestLossesFirst(t *testing.T) {
	var tw tabular.RowWriter
	ls := tabular.Losses{Max: 2}
	for i, row := range []string{`{"a":1}`, `{"a":"1"}`, `{"a":"2","b":1}`, `{"a":"3"}`} {
		input := fmt.Sprintf("f%d", i/2)
		if _, err := tw.AppendRow(nil, []byte(row), func(l tabular.Lossy) { ls.Add(input, l) }); err != nil {
			t.Fatal(err)
		}
	}
	r := tw.Report()
	got := ls.First(r, func(row int) string { return fmt.Sprintf("f%d", row/2) })
	var lines []string
	for _, l := range got {
		lines = append(lines, l.Input+": "+l.String())
	}
	want := fmt.Sprint([]string{`f0: row 0, key "b": ` + r.FirstLate.Why, "f0: " + got[1].Lossy.String()})
	if fmt.Sprint(lines) != want || got[1].Row != 1 || len(got) != 2 {
		t.Fatalf("got %q, want %s (row 1 second)", lines, want)
	}
}
