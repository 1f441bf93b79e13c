package convert_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/toon"
)

// RunEncode is `toonkit encode --to toon`: standard input, here a string,
// written as one TOON document on standard output.
func ExampleRunEncode() {
	ios := &cli.IOStreams{In: strings.NewReader(`{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Lin"}]}`),
		Out: os.Stdout, ErrOut: os.Stderr, Getenv: func(string) string { return "" }}
	err := convert.RunEncode(&convert.EncodeOptions{IO: ios, Inputs: []string{"-"}, To: codec.TOON,
		MaxFrameSize: 64 << 20, TOON: convert.TOONOptions{Indent: 2, Delimiter: toon.Comma}})
	fmt.Println("error:", err)
	// Output:
	// users[2]{id,name}:
	//   1,Ada
	//   2,Lin
	// error: <nil>
}

// Run's errors carry their exit status: here a JSON syntax error, exit
// status 1 (cli.ExitInvalid), with the input's name and place.
func ExampleRun_error() {
	ios := &cli.IOStreams{In: strings.NewReader(`{"a":1,}`), Out: os.Stdout, ErrOut: os.Stderr, Getenv: func(string) string { return "" }}
	err := convert.Run(&convert.Options{IO: ios, Inputs: []string{"-"}, To: codec.NDJSON, MaxFrameSize: 64 << 20, Jobs: 1})
	fmt.Println(cli.ExitCode(err, true), err)
	// Output:
	// 1 <stdin>:1:8: invalid character '}' at start of string (expecting '"')
}
