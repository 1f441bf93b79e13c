package toon

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"testing"
)

// encodeBenchRecords returns a JSON array of n records {id, name, email,
// active, score} as JSON.stringify writes them and, with tags, a tags array
// of 3 strings (which makes the array a list rather than a table).
func encodeBenchRecords(n int, tags bool) []byte {
	b := []byte{'['}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"name":"User %d","email":"user%d@example.com","active":%t,"score":%s`,
			i, i, i, i%3 == 0, strconv.FormatFloat(math.Round(float64(i%100000)/7*100)/100, 'f', -1, 64))
		if tags {
			b = fmt.Appendf(b, `,"tags":["alpha","beta%d","gamma"]`, i%7)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func runEncodeBench(b *testing.B, doc []byte) {
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := FromJSON(io.Discard, doc, MarshalOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeTabular encodes a ~2 MB root array of uniform flat
// objects: the tabular form.
func BenchmarkEncodeTabular(b *testing.B) { runEncodeBench(b, encodeBenchRecords(20000, false)) }

// BenchmarkEncodeList encodes a ~2 MB root array of objects holding an
// array each: the list form.
func BenchmarkEncodeList(b *testing.B) { runEncodeBench(b, encodeBenchRecords(15000, true)) }
