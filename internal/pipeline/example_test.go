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

// lines is a batch of ExampleStream: the lines read, and what a worker
// made of them. The engine recycles it, buffers and all.
type lines struct {
	in  []string
	out []byte
}

// Lines are cut into batches of two, upper-cased by three workers and
// written in input order; the batches, at most InFlight of them, are the
// engine's and come back to Read once written.
func ExampleStream() {
	sc := bufio.NewScanner(strings.NewReader("alpha\nbeta\ngamma\ndelta\nepsilon\n"))
	err := pipeline.Stream(context.Background(), pipeline.Options{Workers: 3, InFlight: 4}, pipeline.Stages[lines]{
		Read: func(b *lines) error {
			b.in = b.in[:0]
			for len(b.in) < 2 && sc.Scan() {
				b.in = append(b.in, sc.Text())
			}
			if len(b.in) == 0 {
				return io.EOF
			}
			return nil
		},
		Work: func(b *lines) error {
			b.out = b.out[:0]
			for _, s := range b.in {
				b.out = append(append(b.out, strings.ToUpper(s)...), '\n')
			}
			return nil
		},
		Write: func(b *lines) error {
			fmt.Print(string(b.out))
			return nil
		},
	})
	if err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// ALPHA
	// BETA
	// GAMMA
	// DELTA
	// EPSILON
}
