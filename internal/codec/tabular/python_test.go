package tabular

import (
	"bytes"
	"testing"

	"github.com/toonkit/toonkit/internal/pyjson"
)

// pythonRows is a JSON array of the rows convert --to tabular takes:
// strings with commas, quotes, backslashes, line breaks and non-ASCII
// characters (which json.dumps escapes), numbers, booleans, nulls, and
// one-level arrays and objects.
const pythonRows = `[
{"id":1,"name":"Grace Müller","note":"Path C:\\work\\tmp, cleaned","score":93.1,"active":true,"ratio":0.001,"tags":["beta","gamma"]},
{"id":2,"name":"Fatima \"Fa\" Haddad","note":"Line one\nLine two\r\n","score":-20.5,"active":false,"ratio":null,"tags":[]},
{"id":3,"name":"José 陳 😀","note":"tab\there","score":1e+100,"active":true,"ratio":2,"tags":{"k":[1,2]}}
]`

// records is the elements of a JSON array, as convert's reader gives them
// (as written, not compacted).
func records(tb testing.TB, in []byte) [][]byte { return pyjson.Values(tb, in, true) }

// TestPythonFormattedRows: rows as json.dumps writes them (", " and ": ",
// or indent=2 with CRLF) make the same table as the same rows compact, by
// the same structural scan: no more allocations than compact rows (the
// decoder the splitter falls back on allocates for every row).
func TestPythonFormattedRows(t *testing.T) {
	for _, style := range pyjson.Styles {
		t.Run(style.Name, func(t *testing.T) {
			compact, py := pyjson.Pair(t, []byte(pythonRows), style)
			if bytes.Equal(compact, py) {
				t.Fatal("python3 wrote compact JSON")
			}
			table := func(in []byte) (string, Report, float64) {
				var strs []string
				for _, r := range records(t, in) {
					strs = append(strs, string(r))
				}
				text, rep, _ := writeRows(t, strs...)
				var w RowWriter
				var line []byte
				recs := records(t, in)
				allocs := testing.AllocsPerRun(20, func() {
					for _, r := range recs {
						line, _ = w.AppendRow(line[:0], r, nil)
					}
				})
				return text, rep, allocs
			}
			want, wantRep, wantAllocs := table(compact)
			got, gotRep, gotAllocs := table(py)
			if got != want {
				t.Errorf("Python-formatted rows give\n%s\ncompact rows\n%s", got, want)
			}
			if gotRep.Rows != wantRep.Rows || gotRep.Lossy != wantRep.Lossy || gotRep.Deep != wantRep.Deep || gotRep.TableBytes != wantRep.TableBytes {
				t.Errorf("report %+v, compact %+v", gotRep, wantRep)
			}
			if gotAllocs != wantAllocs {
				t.Errorf("%v allocations for the Python-formatted rows, %v for the compact rows: not the same path", gotAllocs, wantAllocs)
			}
		})
	}
}

// BenchmarkAppendRow is convert --to tabular's work per row, on the same
// 3000 rows compact and as json.dumps writes them; MB/s of the rows as
// written.
func BenchmarkAppendRow(b *testing.B) {
	var in []byte
	in = append(in, '[')
	for i := range 1000 {
		if i > 0 {
			in = append(in, ',')
		}
		in = append(in, bytes.Trim([]byte(pythonRows), "[]\n")...)
	}
	in = append(in, ']')
	for _, text := range pyjson.Texts(b, in) {
		b.Run(text.Name, func(b *testing.B) {
			py := text.JSON
			recs := records(b, py)
			var w RowWriter
			var line []byte
			b.SetBytes(int64(len(py)))
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range recs {
					line, _ = w.AppendRow(line[:0], r, nil)
				}
			}
		})
	}
}
