package toon_test

import (
	"fmt"
	"os"

	"github.com/toonkit/toonkit/toon"
)

// JSON as Python's json.dumps writes it by default: its non-finite floats
// become null (§3), and EncodeOptions.NonFinite is told how many there
// were, once the document is written.
func ExampleEncodeOptions_nonFinite() {
	py := []byte(`[{"id": 1, "score": NaN}, {"id": 2, "score": Infinity}, {"id": 3, "score": -Infinity}]`)
	nonFinite := 0
	opts := toon.EncodeOptions{NonFinite: func(n int) { nonFinite = n }}
	if err := toon.Encode(os.Stdout, py, opts); err != nil {
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
