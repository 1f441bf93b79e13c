package jsonv_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// AppendString reads the JSON string at the start of its input and says
// where it ends: a caller that walks a message finds a string's end and
// its text in one pass. A string that jsontext refuses, such as an escaped
// lone surrogate, is refused.
func ExampleAppendString() {
	msg := []byte(`"{\"name\": \"caf\u00e9 \ud83d\ude00\"}", "next"`)
	text, n, err := jsonv.AppendString(nil, msg)
	fmt.Printf("%s %v\n", text, err)
	fmt.Printf("then: %s\n", msg[n:])

	_, _, err = jsonv.AppendString(nil, []byte(`"half \ud83d"`))
	fmt.Println(err)
	// Output:
	// {"name": "café 😀"} <nil>
	// then: , "next"
	// not a valid JSON string
}

// Valid answers as jsontext.Value.IsValid does, in one pass of its own.
func ExampleChecker_Valid() {
	var c jsonv.Checker
	for _, s := range []string{`{"a": "\ud83d\ude00"}`, `{"a": "\ud83d"}`, `{"a": 1, "a": 2}`} {
		fmt.Println(s, c.Valid([]byte(s)))
	}
	// Output:
	// {"a": "\ud83d\ude00"} true
	// {"a": "\ud83d"} false
	// {"a": 1, "a": 2} false
}
