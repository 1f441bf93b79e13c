package jsonv_test

import (
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// A Reader asked for the members of its objects notes them as it checks
// each one, whatever its white space: the caller need not scan it again.
func ExampleReader_Members() {
	in := "{\"id\": 1, \"name\": \"Ann\"}\r\n{\"id\":2,\"tags\":[\"a\", \"b\"]}\n"
	r := jsonv.NewReader(strings.NewReader(in), jsonv.Options{Members: true})
	for {
		obj, _, err := r.Next()
		if err != nil {
			break
		}
		mems, _ := r.Members()
		var pairs []string
		for _, m := range mems {
			pairs = append(pairs, fmt.Sprintf("%s=%s", obj[m.NameStart:m.NameEnd], obj[m.ValueStart:m.ValueEnd]))
		}
		fmt.Println(strings.Join(pairs, " "))
	}
	// Output:
	// id=1 name="Ann"
	// id=2 tags=["a", "b"]
}
