package query_test

import (
	"context"
	"fmt"

	"github.com/toonkit/toonkit/pkg/query"
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
