package records_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/toon"
)

// Records compacted on two workers and printed in input order; the
// record that is not valid JSON, and everything after it, is left to the
// single-worker loop, which meets the error where one Reader would.
func Example() {
	in := strings.NewReader(`[{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": tru}, {"id": 6}]`)
	h := records.Handler[[]string]{
		Work: func(b *records.Batch[[]string]) bool {
			b.Out = b.Out[:0]
			for i := range b.Len() {
				b.Out = append(b.Out, string(jsonv.Compacted(nil, b.Record(i))))
			}
			return true
		},
		Write: func(b *records.Batch[[]string]) error {
			for _, r := range b.Out {
				fmt.Println(r)
			}
			return nil
		},
	}
	rest, err := records.Run(context.Background(), in, records.Options{Workers: 2, Elements: true, BatchBytes: 16}, h)
	if err != nil {
		fmt.Println(err)
		return
	}
	for rest != nil {
		v, _, err := rest.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(string(jsonv.CompactInPlace(v)), "(one worker)")
	}
	// Output:
	// {"id":1}
	// {"id":2}
	// {"id":3}
	// {"id":4} (one worker)
	// error: 1:56: invalid character '}' in literal true (expecting 'e') (at /4/id)
}

// A table is written in one pass: the rows wait (in a temporary file, or
// here a buffer) until the header, known only at the end, has been written;
// a table that would not read back as written is refused before then.
func ExampleTableSink() {
	var rows strings.Builder
	ts := &records.TableSink{Rows: &rows, What: "record", Name: "users", Max: 5}
	for _, rec := range []string{`{"id":1,"name":"Ada"}`, `{"id":2,"name":"Bob"}`} {
		if err := ts.Write([]byte(rec)); err != nil {
			fmt.Println(err)
			return
		}
	}
	if r := ts.Report(); r.Lossy > 0 {
		for _, l := range ts.First() {
			fmt.Printf("%s: %s\n", l.Input, l.Lossy)
		}
		return
	}
	ts.Finish(os.Stdout, strings.NewReader(rows.String()), nil)
	// Output:
	// @toon 1.0
	// @keys id,name
	// 1,Ada
	// 2,Bob
}

// The values of two inputs, NDJSON and JSON, read as one document, an
// array of them, and written as TOON.
func ExampleReadDocument() {
	files := map[string]string{"a.ndjson": "{\"id\": 1}\n{\"id\": 2}\n", "b.json": "{\"id\": 3}"}
	d, err := records.ReadDocument([]string{"a.ndjson", "b.json"}, func(name string) (*records.Input, error) {
		return &records.Input{R: strings.NewReader(files[name]), Name: name, Close: func() {}}, nil
	}, 1<<20, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	d.EncodeTOON(os.Stdout, toonx.EncodeOptions{IndentSize: 2, Delimiter: byte(toon.Comma)})
	fmt.Println()
	// Output:
	// [3]{id}:
	//   1
	//   2
	//   3
}

// Copy writes the records of a source to a sink, here NDJSON lines from a
// JSON array formatted as Python writes it; with Workers of 2 or more it
// spreads the work where it can, and writes the same.
func ExampleCopy() {
	src, err := records.NewSource(strings.NewReader(`[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]`), "users.json", records.SourceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := records.Copy(context.Background(), src, &records.NDJSONSink{W: os.Stdout}, records.CopyOptions{Workers: 4})
	fmt.Println(n, "records", err)
	// Output:
	// {"id":1,"name":"Ada"}
	// {"id":2,"name":"Bob"}
	// 2 records <nil>
}
