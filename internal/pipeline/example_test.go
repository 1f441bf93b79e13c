package pipeline_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/pipeline"
)

// Lines are read in batches of two, upper-cased by three workers, and
// written in input order.
func Example() {
	sc := bufio.NewScanner(strings.NewReader("alpha\nbeta\ngamma\ndelta\nepsilon\n"))
	read := func() ([]string, error) {
		var batch []string
		for len(batch) < 2 && sc.Scan() {
			batch = append(batch, sc.Text())
		}
		if len(batch) == 0 {
			return nil, io.EOF
		}
		return batch, nil
	}
	work := func(batch []string) (string, error) {
		var b strings.Builder
		for _, s := range batch {
			b.WriteString(strings.ToUpper(s) + "\n")
		}
		return b.String(), nil
	}
	write := func(s string) error {
		fmt.Print(s)
		return nil
	}
	if err := pipeline.Run(context.Background(), pipeline.Options{Workers: 3}, read, work, write); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// ALPHA
	// BETA
	// GAMMA
	// DELTA
	// EPSILON
}
