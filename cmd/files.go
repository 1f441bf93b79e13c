package cmd

import (
	"errors"
	"fmt"
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
	return outfile.NewOutput(ios.Out, path, func(err error) error { return &ExitError{Code: ExitIO, Err: err} })
}

// refuseBinaryTTY is the usage error for binary output bound for a terminal.
func refuseBinaryTTY(ios *IOStreams, oflag string) error {
	if oflag == "" && ios.IsStdoutTTY() {
		return usageErrorf("redirect or pipe the output, name a file with -o FILE, or force it with -o -",
			"refusing to write binary frames to a terminal")
	}
	return nil
}

// parseSize reads a byte size such as 1048576, 64KiB, 64k, 64MB or 1GiB.
// All units are powers of 1024.
func parseSize(s string) (int, error) {
	n, err := parseSizeUpTo(s, 1<<31-1, "2GiB")
	return int(n), err
}

// parseSizeUpTo reads a size as parseSize does, of at most max bytes
// (written maxText in the error).
func parseSizeUpTo(s string, max int64, maxText string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	var mult int64 = 1
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscanf(t, "%d", &n); err != nil || fmt.Sprint(n) != t || n <= 0 {
		return 0, fmt.Errorf("invalid size %q (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)", s)
	}
	if n > max/mult {
		return 0, fmt.Errorf("size %q is too large (at most %s)", s, maxText)
	}
	return n * mult, nil
}
