package cli_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/toonkit/toonkit/internal/cli"
)

// A Reporter prints an error, its hint, and returns its exit status.
func ExampleReporter_Report() {
	var stderr bytes.Buffer
	ios := &cli.IOStreams{Out: os.Stdout, ErrOut: &stderr, Getenv: func(string) string { return "" }}
	code := cli.NewReporter(ios).Report(cli.UsageErrorf("give a FILE, or pipe data in", "no input: standard input is a terminal"), true)
	fmt.Print(stderr.String())
	fmt.Println("exit status", code)
	// Output:
	// toonkit: error: no input: standard input is a terminal
	// toonkit: hint: give a FILE, or pipe data in
	// exit status 2
}
