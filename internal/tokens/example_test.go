package tokens_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/tokens"
)

// A Counter counts what is written to it, offline.
func ExampleCounter() {
	c, err := tokens.NewCounter("o200k_base")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprint(c, "[2]{id,name}:\n  1,Ada\n  2,Lin")
	n, err := c.Counts()
	fmt.Printf("%d bytes, %d characters, %d tokens, %v\n", n.Bytes, n.Chars, n.Tokens, err)
	// Output:
	// 29 bytes, 29 characters, 18 tokens, <nil>
}
