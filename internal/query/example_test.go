package query_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/query"
)

// A filter over one record: the big integer stays exact, the decimal keeps
// its digits, and the object passed through keeps its key order.
func Example() {
	q, err := query.Compile(`.id += 1 | {id, price, tags: .meta}`, query.Options{})
	if err != nil {
		panic(err)
	}
	order := q.NewOrder()
	v, err := query.Decode([]byte(`{"id": 12345678901234567890, "price": 9.50, "meta": {"z": 1, "a": 2}}`), order)
	if err != nil {
		panic(err)
	}
	enc := query.Encoder{Order: order}
	it := q.Run(context.Background(), v)
	for {
		r, ok := it.Next()
		if !ok {
			break
		}
		if err, ok := r.(error); ok {
			panic(err)
		}
		fmt.Println(string(enc.Append(nil, r)))
	}
	// Output:
	// {"id":12345678901234567891,"price":9.50,"tags":{"z":1,"a":2}}
}

// A filter over an NDJSON stream on two workers: the results come in input
// order, each input's with its place; a runtime error ends that input's
// results only. A bad line would end the workers' part: the Stream
// returned reads on from there, as the single-worker loop's would.
func ExampleQuery_RunJobs() {
	q, err := query.Compile(`if .n == 2 then error("two") else {n, twice: (.n * 2)} end`, query.Options{})
	if err != nil || !q.Parallel() {
		panic(err)
	}
	in := strings.NewReader("{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n")
	var dec query.Decoder
	rest, err := q.RunJobs(context.Background(), in, query.JobsOptions{Workers: 2, MaxSize: 1 << 20, Decoder: &dec,
		Encode: func(e *query.Encoder, dst []byte, v any) []byte { return append(e.Append(dst, v), '\n') }},
		func(r *query.Result) error {
			fmt.Printf("line %d: %s", r.Pos.Line, r.Out)
			if r.Err != nil {
				fmt.Printf("%v\n", r.Err)
			}
			return nil
		})
	if err != nil {
		panic(err)
	}
	if rest != nil { // not here: every line was settled by the workers
		_, err := rest.Next()
		fmt.Println(err == io.EOF)
	}
	// Output:
	// line 1: {"n":1,"twice":2}
	// line 2: error: two
	// line 3: {"n":3,"twice":6}
}

// Variables as jq's --arg, --argjson and --args give them: the last value
// of a name wins, and $ARGS holds them all.
func ExampleVars() {
	var vs query.Vars
	vs.Set("who", "ada")
	vs.Set("n", 1)
	vs.Set("who", "grace")
	vs.Positional("x")
	names, values := vs.Bind()
	q, err := query.Compile(`[$who, $n, $ARGS]`, query.Options{Variables: names})
	if err != nil {
		panic(err)
	}
	it := q.Run(context.Background(), nil, values...)
	r, _ := it.Next()
	fmt.Println(names)
	var enc query.Encoder
	fmt.Println(string(enc.Append(nil, r)))
	// Output:
	// [$who $n $ARGS]
	// ["grace",1,{"named":{"n":1,"who":"grace"},"positional":["x"]}]
}

// jq's variable flags, as a command line gives them (--arg, --argjson,
// --rawfile, --args), taken in jq's order.
func ExampleVars_Parse() {
	var vs query.Vars
	err := vs.Parse(query.VarFlags{
		Arg:        []string{"who=ada"},
		ArgJSON:    []string{"n=3"},
		RawFile:    []string{"note=note.txt"},
		Positional: []string{"s:x", "j:[1]"},
		OpenFile:   func(name string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("hello\n")), nil },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	names, values := vs.Bind()
	q, err := query.Compile(`[$who, $n, $note, $ARGS.positional]`, query.Options{Variables: names})
	if err != nil {
		panic(err)
	}
	r, _ := q.Run(context.Background(), nil, values...).Next()
	var enc query.Encoder
	fmt.Println(string(enc.Append(nil, r)))
	fmt.Println(vs.Parse(query.VarFlags{ArgJSON: []string{"n={"}}))
	// Output:
	// ["ada",3,"hello\n",["x",[1]]]
	// --argjson n: not a JSON value: {
}
