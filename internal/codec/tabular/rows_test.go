package tabular

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// rowsBoth writes the rows with AppendRow, one at a time, and with Rows
// split in batches of every size up to 8 (Split, or from 5 on SplitMembers
// where jsonv.Reader noted the members) and AppendRows, and fails when the
// bytes, the cells reported and the Reports differ.
func rowsBoth(t *testing.T, rows []string) {
	t.Helper()
	var one RowWriter
	var want []byte
	var wantLossy []Lossy
	wantErr := -1
	for i, r := range rows {
		var err error
		want, err = one.AppendRow(want, []byte(r), func(l Lossy) { wantLossy = append(wantLossy, l) })
		if err != nil {
			wantErr = i
			break
		}
	}
	for size := 1; size <= 8; size++ {
		// Batches of 5 to 8: the members as the Reader noted them
		// (SplitMembers) where it did.
		members := size > 4
		var tw RowWriter
		var got []byte
		var gotLossy []Lossy
		gotErr := -1
		var rs Rows
		for i := 0; i < len(rows) && gotErr < 0; i += size {
			rs.Reset()
			for k := i; k < min(i+size, len(rows)); k++ {
				if members {
					r := jsonv.NewReader(strings.NewReader(rows[k]), jsonv.Options{Members: true})
					v, _, err := r.Next()
					if mems, ok := r.Members(); ok && err == nil {
						rs.SplitMembers(v, mems)
						continue
					}
				}
				if err := rs.Split([]byte(rows[k])); err != nil {
					gotErr = k
					break
				}
			}
			got = tw.AppendRows(got, &rs, func(l Lossy) { gotLossy = append(gotLossy, l) })
		}
		if gotErr != wantErr {
			t.Fatalf("batches of %d: the error at row %d, want %d", size, gotErr, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("batches of %d:\n got %q\nwant %q", size, got, want)
		}
		if !reflect.DeepEqual(gotLossy, wantLossy) {
			t.Fatalf("batches of %d: lossy\n got %v\nwant %v", size, gotLossy, wantLossy)
		}
		if g, w := fmt.Sprintf("%+v", tw.Report()), fmt.Sprintf("%+v", one.Report()); g != w {
			t.Fatalf("batches of %d: report\n got %s\nwant %s", size, g, w)
		}
		var gt, wt strings.Builder
		if err := tw.Finish(&gt, bytes.NewReader(got), nil); err != nil {
			t.Fatal(err)
		}
		one.Finish(&wt, bytes.NewReader(want), nil)
		if gt.String() != wt.String() {
			t.Fatalf("batches of %d: the table\n%s\nwant\n%s", size, gt.String(), wt.String())
		}
	}
}

// Rows split apart and written by AppendRows make the table AppendRow
// makes: keys in other orders, keys missing, new keys late, lossy, deep and
// escaped cells, escaped names, Python's spacing, a row that is no object.
func TestRowsMatchAppendRow(t *testing.T) {
	cases := [][]string{
		{`{"id":1,"name":"Ann"}`, `{"id":2,"name":"Bob"}`},
		{`{"id": 1, "name": "Ann, A."}`, `{"name": "Bob\nB", "id": 2}`, `{"id": 3}`, `{"id": 4, "name": "x", "extra": [1, [2]]}`},
		{`{}`, `{"a":"42"}`, `{"a":"","b":"true"}`, `{"b":{"c":{"d":1}},"a":null}`},
		{`{"a\u002cb":"x\\y","\u00e9":"\ud800"}`, `{"é":1,"a,b":2}`},
		{`{"a":1}`, `[1]`, `{"a":2}`},
		{"{\r\n  \"a\": 1,\r\n  \"b\": \"[1]\"\r\n}", `{"b":2,"a":1,"c":3}`, `{"c":0}`},
		// The keys' names back to back, cut otherwise; the same keys
		// again after a lossy cell, a deep one, a missing one, new keys.
		{`{"ab":1,"c":2}`, `{"a":1,"bc":2}`, `{"ab":1,"c":2}`, `{"abc":1}`, `{"ab":3,"c":4}`},
		{`{"a":1,"b":2}`, `{"a":"","b":2}`, `{"a":1,"b":2}`, `{"a":[[1]],"b":2}`, `{"a":1,"b":2}`, `{"a":1}`, `{"a":1,"b":2}`, `{"a":1,"b":2,"c":3}`, `{"a":1,"b":2,"c":3}`},
		{`{}`, `{}`, `{"":1}`, `{"":2}`, `{}`},
	}
	for _, c := range cases {
		rowsBoth(t, c)
	}
}

// FuzzRowsMatchAppendRow: for any JSON array, its elements written through
// Rows and AppendRows give what AppendRow gives, byte for byte, with the
// same cells reported and the same Report.
func FuzzRowsMatchAppendRow(f *testing.F) {
	for _, s := range []string{`[{"id":1,"name":"Alice"},{"name":"Bob","id":2}]`, `[{"a":"42"},{"b":""},{"a":[[1]]}]`, `[{"a,b":"x\ny\r\\c"},{"c":null},{}]`, `[{"a":1},2]`, `[{"ab":1,"c":2},{"a":1,"bc":2},{"ab":1,"c":""}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !jsonv.Valid(in) || firstByte(in) != '[' {
			return
		}
		d := jsontext.NewDecoder(bytes.NewReader(in))
		d.ReadToken()
		var rows []string
		for d.PeekKind() != ']' {
			v, err := d.ReadValue()
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, string(v))
		}
		rowsBoth(t, rows)
	})
}
