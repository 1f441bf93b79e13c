package jsonv_test

import (
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
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

// Python's json.dumps writes non-finite floats as NaN, Infinity and
// -Infinity by default: not JSON, so an error with a hint, unless the
// Reader is told to read them as json.loads does.
func ExampleOptions_nonFinite() {
	py := `{"x": NaN, "y": -Infinity}`
	_, _, err := jsonv.NewReader(strings.NewReader(py), jsonv.Options{}).Next()
	fmt.Println(err)
	fmt.Println(jsonv.Hint(err))
	v, _, _ := jsonv.NewReader(strings.NewReader(py), jsonv.Options{NonFinite: true}).Next()
	fmt.Println(string(v))
	// Output:
	// 1:7: invalid character 'N' at start of value (at /x)
	// NaN and Infinity are not JSON; Python writes them for non-finite floats unless json.dumps(..., allow_nan=False)
	// {"x": NaN, "y": -Infinity}
}
