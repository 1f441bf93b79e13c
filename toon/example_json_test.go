package toon_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/toonkit/toonkit/toon"
)

// FromJSON transcodes JSON text to TOON without Go values: numbers keep
// their digits, members their order.
func ExampleFromJSON() {
	js := []byte(`{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Lin"}],"total":12345678901234567890}`)
	if err := toon.FromJSON(os.Stdout, js, toon.MarshalOptions{Delimiter: toon.Pipe}); err != nil {
		fmt.Println(err)
	}
	fmt.Println() // FromJSON writes no final newline (§12)
	// Output:
	// users[2|]{id|name}:
	//   1|Ada
	//   2|Lin
	// total: 12345678901234567890
}

// ToJSON streams a TOON document to JSON text, here as NDJSON.
func ExampleToJSON() {
	doc := "[2]{id,name}:\n  1,Ada\n  2,Lin\n"
	if err := toon.ToJSON(os.Stdout, strings.NewReader(doc), toon.UnmarshalOptions{Elements: true}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"id":1,"name":"Ada"}
	// {"id":2,"name":"Lin"}
}

// A malformed document gives a *SyntaxError with its position.
func ExampleToJSON_syntaxError() {
	err := toon.ToJSON(&bytes.Buffer{}, strings.NewReader("a: 1\nb\n"), toon.UnmarshalOptions{})
	var se *toon.SyntaxError
	fmt.Println(errors.As(err, &se), se.Line)
	// Output:
	// true 2
}

// A TOON stream holds one document: a second Encode writes nothing and
// returns ErrSecondDocument. Several values go in one document as a slice.
func ExampleEncoder_Encode_twice() {
	var out bytes.Buffer
	enc := toon.NewEncoder(&out)
	fmt.Println(enc.Encode([]int{1, 2}))
	fmt.Println(enc.Encode([]int{3}) == toon.ErrSecondDocument)
	var back []int
	fmt.Println(toon.NewDecoder(&out).Decode(&back), back)
	// Output:
	// <nil>
	// true
	// <nil> [1 2]
}
