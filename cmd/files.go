package cmd

import (
	"errors"
	"fmt"
	"github.com/toonkit/toonkit/internal/size"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/outfile"
)

const stdinName = "<stdin>"

// input is one named input stream.
type input struct {
	Name string
	R    io.Reader
	f    *os.File
}

func (in *input) Close() {
	if in.f != nil {
		in.f.Close()
	}
}

// inputNames returns the inputs to read: the arguments, or stdin when there
// are none. Reading a terminal with no arguments is a usage error, since it
// is almost always a mistake.
func inputNames(ios *IOStreams, args []string, cmdPath string) ([]string, error) {
	if len(args) == 0 {
		if ios.IsStdinTTY() {
			return nil, usageErrorf(fmt.Sprintf("give a FILE, or pipe data in: cat capture.bin | %s", cmdPath),
				"no input: standard input is a terminal")
		}
		return []string{"-"}, nil
	}
	return args, nil
}

// openInput opens a named input; "-" is stdin.
func openInput(ios *IOStreams, name string) (*input, error) {
	if name == "-" {
		return &input{Name: stdinName, R: ios.In}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, ioErrorf("cannot read %s: %s", name, pathErrText(err))
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, ioErrorf("cannot read %s: it is a directory", name)
	}
	return &input{Name: name, R: f, f: f}, nil
}

// regular tells whether the input is a regular file, which never waits for
// more input.
func (i *input) regular() bool {
	if i.f == nil {
		return false
	}
	st, err := i.f.Stat()
	return err == nil && st.Mode().IsRegular()
}

func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// shellArg is an input's name as a shell reads it back, for the commands
// that hints print: "-" for standard input, and a name holding anything
// but letters, digits and ./_-+,:@%= in single quotes.
func shellArg(name string) string {
	if name == stdinName {
		return "-"
	}
	if name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-+,:@%=") == "" {
		return name
	}
	return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
}

// readError wraps an error met while reading an input.
func readError(name string, err error) error {
	return ioErrorf("cannot read %s: %s", name, pathErrText(err))
}

// output is where a command writes: outfile.Output, whose errors are
// I/O errors (exit status 3).
type output = outfile.Output

func newOutput(ios *IOStreams, path string) *output {
	return outfile.NewOutput(ios.Out, path, ioError)
}

// ioError is err, an error of an output or a temporary file, as an I/O
// error (exit status 3).
func ioError(err error) error { return &ExitError{Code: ExitIO, Err: err} }

// refuseBinaryTTY is the usage error for binary output bound for a terminal.
func refuseBinaryTTY(ios *IOStreams, oflag string) error {
	if oflag == "" && ios.IsStdoutTTY() {
		return usageErrorf("redirect or pipe the output, name a file with -o FILE, or force it with -o -",
			"refusing to write binary frames to a terminal")
	}
	return nil
}

// sizeOf sets n to the bytes of a size flag, or is its usage error.
func sizeOf(f *size.Flag, n *int) error {
	if err := f.Err(); err != nil {
		return usageErrorf("", "%v", err)
	}
	*n = f.N()
	return nil
}
