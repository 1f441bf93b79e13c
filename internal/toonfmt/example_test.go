package toonfmt_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/toonfmt"
	_ "github.com/toonkit/toonkit/toon" // the codec
)

// A list of flat objects becomes a table, as encode writes it; the
// comments stay with their lines, and the four-space indent is kept.
func ExampleFormat() {
	src := []byte(`# the agent's tools
tools[2]:
    - name: search
        # seconds
        timeout: 30
    - name: "fetch"
        timeout: 10.0
`)
	out, err := toonfmt.Format(src, toonfmt.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// # the agent's tools
	// tools[2]{name,timeout}:
	//     # seconds
	//     search,30
	//     fetch,10
}
