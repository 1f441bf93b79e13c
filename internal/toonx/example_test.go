package toonx_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/toonx"
	_ "github.com/toonkit/toonkit/toon" // registers the transcoders
)

// JSON as Python's json.dumps writes it by default: its non-finite floats
// become null (§3), and EncodeOptions.NonFinite is told how many there
// were, once the document is written.
func ExampleEncodeOptions_nonFinite() {
	py := []byte(`[{"id": 1, "score": NaN}, {"id": 2, "score": Infinity}, {"id": 3, "score": -Infinity}]`)
	nonFinite := 0
	opts := toonx.EncodeOptions{NonFinite: func(n int) { nonFinite = n }}
	if err := toonx.FromJSON(os.Stdout, py, opts); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("\n%d non-finite numbers written as null\n", nonFinite)
	// Output:
	// [3]{id,score}:
	//   1,null
	//   2,null
	//   3,null
	// 3 non-finite numbers written as null
}

// A large value, a file mapped in memory say, is encoded in bounded
// memory with EncodeOptions.Release, which is called each time about
// ReleaseEvery bytes of it have been gone through (mapfile.Release lets go
// of the pages read); the text is the same. FromJSON's error for a value it
// does not accept gives its offset (InputError), for a line and column.
func ExampleEncodeOptions_release() {
	doc := []byte(`{"items": [` + strings.Repeat(`{"id": 1, "tags": ["a"]}, `, 40) + `{"id": 2, "tags": []}]}`)
	calls := 0
	opts := toonx.EncodeOptions{Release: func() { calls++ }, ReleaseEvery: 256}
	var out strings.Builder
	if err := toonx.FromJSON(&out, doc, opts); err != nil {
		fmt.Println(err)
	}
	lines := strings.Split(out.String(), "\n")
	fmt.Println(lines[0], lines[1], len(lines), "lines;", calls > 0)

	err := toonx.FromJSON(&out, []byte(`{"a": [1, 2,]}`), opts)
	off, msg, _, ok := toonx.InputError(err)
	fmt.Println(off, msg, ok)
	// Output:
	// items[41]:   - id: 1 83 lines; true
	// 12 unexpected character ']' (want a value) true
}

// EncodeTable takes only a table of primitives, in one pass.
func ExampleEncodeTable() {
	for _, doc := range []string{`[{"a":1,"b":"x"},{"a":2,"b":"y"}]`, `{"a":[1,2]}`} {
		took, err := toonx.EncodeTable(os.Stdout, []byte(doc), toonx.EncodeOptions{Delimiter: '|'})
		fmt.Printf("\ntable: %v, %v\n", took, err)
	}
	// Output:
	// [2|]{a|b}:
	//   1|x
	//   2|y
	// table: true, <nil>
	//
	// table: false, <nil>
}

// OnLine says which TOON line each piece of the JSON was made from.
func ExampleDecodeOptions_onLine() {
	in := "name: Ada\ntags[2]: x,y\n"
	opts := toonx.DecodeOptions{OnLine: func(end int64, line, col int) {
		fmt.Printf("line %d, column %d: JSON up to byte %d\n", line, col, end)
	}}
	if err := toonx.ToJSON(os.Stdout, strings.NewReader(in), opts); err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 1, column 1: JSON up to byte 13
	// line 2, column 1: JSON up to byte 30
	// {"name":"Ada","tags":["x","y"]}
}
