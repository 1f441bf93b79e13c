package cutwriter_test

import (
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/cutwriter"
)

// A writer whose reader has gone away is let go of.
func Example() {
	r, pw := io.Pipe() // nobody reads r
	defer r.Close()
	w := cutwriter.New(pw)
	done := make(chan error)
	go func() { _, err := w.Write([]byte("frames")); done <- err }()
	w.Cut() // a signal came
	fmt.Println(<-done)
	// Output: output abandoned (it was not being read)
}
