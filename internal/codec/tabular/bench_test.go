package tabular

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/gentable"
)

// benchTable is the first 4 MB of the bench's table input (gentable),
// its rows and the members jsonv.Reader noted for each.
type benchTable struct {
	json []byte
	rows [][]byte
	mems [][]jsonv.Member
}

var loadBenchTable = sync.OnceValue(func() (t benchTable) {
	var buf bytes.Buffer
	if err := gentable.Write(&buf, 4e6, 1); err != nil {
		panic(err)
	}
	t.json = buf.Bytes()
	r := jsonv.NewReader(bytes.NewReader(t.json), jsonv.Options{Elements: true, Members: true})
	for {
		v, _, err := r.Next()
		if err == io.EOF {
			return t
		}
		if err != nil {
			panic(err)
		}
		mems, ok := r.Members()
		if !ok {
			panic("no members noted")
		}
		t.rows = append(t.rows, bytes.Clone(v))
		t.mems = append(t.mems, append([]jsonv.Member(nil), mems...))
	}
})

// BenchmarkTable is convert --to tabular's work on the bench's rows (MB/s
// of the JSON): AppendRow, the work of -j 1 after the reader; Split and
// SplitMembers, a worker's of -j N after its Reader; AppendRows, the
// writer's of -j N, on rows split already.
func BenchmarkTable(b *testing.B) {
	t := loadBenchTable()
	rows, mems, size := t.rows, t.mems, int64(len(t.json))
	b.Run("AppendRow", func(b *testing.B) {
		var w RowWriter
		var line []byte
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range rows {
				line, _ = w.AppendRow(line[:0], r, nil)
			}
		}
	})
	b.Run("Split", func(b *testing.B) {
		var rs Rows
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			rs.Reset()
			for _, r := range rows {
				if err := rs.Split(r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("SplitMembers", func(b *testing.B) {
		var rs Rows
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			rs.Reset()
			for i, r := range rows {
				rs.SplitMembers(r, mems[i])
			}
		}
	})
	b.Run("AppendRows", func(b *testing.B) {
		var rs Rows
		for i, r := range rows {
			rs.SplitMembers(r, mems[i])
		}
		var w RowWriter
		var line []byte
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			line = w.AppendRows(line[:0], &rs, nil)
		}
	})
}
