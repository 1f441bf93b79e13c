package query_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/query"
)

// A filter run over the values of two inputs in different formats, NDJSON
// and a TOON document, detected; each result printed with where its input
// value was.
func ExampleInputs() {
	files := map[string]string{
		"a.ndjson": "{\"id\": 1, \"tags\": [\"x\"]}\n{\"id\": 2, \"tags\": []}\n",
		"b.toon":   "id: 3\ntags[2]: y,z\n",
	}
	qi := query.NewInputs(query.InputOptions{
		Names: []string{"a.ndjson", "b.toon"},
		Open: func(name string) (*query.Opened, error) {
			return &query.Opened{R: strings.NewReader(files[name]), Name: name, Close: func() {}}, nil
		},
	})
	defer qi.Close()
	q, err := query.Compile(`{id, n: (.tags | length)}`, query.Options{Inputs: qi})
	if err != nil {
		panic(err)
	}
	order := q.NewOrder()
	qi.SetOrder(order)
	enc := query.Encoder{Order: order}
	for {
		v, err := qi.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		it := q.Run(context.Background(), v)
		for r, ok := it.Next(); ok; r, ok = it.Next() {
			fmt.Printf("%s %s\n", qi.Where(), enc.Append(nil, r))
		}
	}
	// Output:
	// a.ndjson:1:1 {"id":1,"n":1}
	// a.ndjson:2:1 {"id":2,"n":0}
	// b.toon {"id":3,"n":2}
}

// RunInputs runs a filter over every input value as jq's command line
// does: a runtime error is reported with its place and the run goes on.
func ExampleQuery_RunInputs() {
	qi := query.NewInputs(query.InputOptions{Names: []string{"a.ndjson"},
		Open: func(name string) (*query.Opened, error) {
			return &query.Opened{R: strings.NewReader("{\"n\": 1}\n{\"n\": 0}\n{\"n\": 4}\n"), Name: name, Close: func() {}}, nil
		}})
	defer qi.Close()
	q, err := query.Compile(`if .n == 0 then error("zero") else {half: (.n / 2)} end`, query.Options{Inputs: qi})
	if err != nil {
		panic(err)
	}
	res, err := q.RunInputs(context.Background(), qi, query.RunOptions{
		Encode: func(e *query.Encoder, dst []byte, v any) []byte { return append(e.Append(dst, v), '\n') },
		Write:  func(b []byte) error { _, err := os.Stdout.Write(b); return err },
		Fail: func(err error, where func() string) error {
			fmt.Printf("%s: %s\n", where(), query.Message(err))
			return nil
		},
	})
	fmt.Println(res.Outputs, res.Failed, err)
	// Output:
	// {"half":0.5}
	// a.ndjson:2:1: zero
	// {"half":2}
	// 2 true <nil>
}
