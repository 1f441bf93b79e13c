package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/toonkit/toonkit/internal/outfile"
	"github.com/toonkit/toonkit/internal/size"
)

// StdinName is standard input's name in messages.
const StdinName = "<stdin>"

// Input is one named input stream.
type Input struct {
	Name string
	R    io.Reader
	File *os.File // nil: standard input
}

// Close closes the input's file, if it has one.
func (in *Input) Close() {
	if in.File != nil {
		in.File.Close()
	}
}

// InputNames returns the inputs to read: the arguments, or stdin when there
// are none. Reading a terminal with no arguments is a usage error, since it
// is almost always a mistake.
func InputNames(ios *IOStreams, args []string, cmdPath string) ([]string, error) {
	if len(args) == 0 {
		if ios.IsStdinTTY() {
			return nil, UsageErrorf(fmt.Sprintf("give a FILE, or pipe data in: cat capture.bin | %s", cmdPath),
				"no input: standard input is a terminal")
		}
		return []string{"-"}, nil
	}
	return args, nil
}

// OpenInput opens a named input; "-" is stdin. With ios.Given, what is
// read of it is written there too (--stats counts it).
func OpenInput(ios *IOStreams, name string) (*Input, error) {
	in, err := openInput(ios, name)
	if err == nil && ios.Given != nil {
		in.R = io.TeeReader(in.R, ios.Given)
	}
	return in, err
}

func openInput(ios *IOStreams, name string) (*Input, error) {
	if name == "-" {
		return &Input{Name: StdinName, R: ios.In}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, IOErrorf("cannot read %s: %s", name, PathErrText(err))
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, IOErrorf("cannot read %s: it is a directory", name)
	}
	return &Input{Name: name, R: f, File: f}, nil
}

// Regular tells whether the input is a regular file, which never waits for
// more input.
func (i *Input) Regular() bool {
	if i.File == nil {
		return false
	}
	st, err := i.File.Stat()
	return err == nil && st.Mode().IsRegular()
}

// PathErrText is err's text without the path that an *fs.PathError adds.
func PathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ShellArg is an input's name as a shell reads it back, for the commands
// that hints print: "-" for standard input, and a name holding anything
// but letters, digits and ./_-+,:@%= in single quotes.
func ShellArg(name string) string {
	if name == StdinName {
		return "-"
	}
	if name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-+,:@%=") == "" {
		return name
	}
	return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
}

// EachInput calls each with every input in order, a folder (for fmt and
// validate) replaced by the files under it that keep accepts, in lexical
// order, the dot-folders below it (.git) left out. "-" and any name that
// is no folder are given as they are, for opening them to say what is
// wrong; err is the error of a path under a folder that cannot be read,
// and the walk goes on.
func EachInput(inputs []string, keep func(path string) bool, each func(path string, err error)) {
	for _, in := range inputs {
		if st, err := os.Stat(in); in == "-" || err != nil || !st.IsDir() {
			each(in, nil)
			continue
		}
		err := filepath.WalkDir(in, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				each(path, err)
			case d.IsDir() && path != in && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.IsDir() && keep(path):
				each(path, nil)
			}
			return nil
		})
		if err != nil {
			each(in, err)
		}
	}
}

// ReadError wraps an error met while reading an input.
func ReadError(name string, err error) error {
	return IOErrorf("cannot read %s: %s", name, PathErrText(err))
}

// Output is where a command writes: outfile.Output, whose errors are
// I/O errors (exit status 3).
type Output = outfile.Output

// NewOutput returns the output to path, or to ios.Out for "" or "-".
func NewOutput(ios *IOStreams, path string) *Output {
	return outfile.NewOutput(ios.Out, path, IOError)
}

// IOError is err, an error of an output or a temporary file, as an I/O
// error (exit status 3).
func IOError(err error) error { return &ExitError{Code: ExitIO, Err: err} }

// RefuseBinaryTTY is the usage error for binary output bound for a terminal.
func RefuseBinaryTTY(ios *IOStreams, oflag string) error {
	if oflag == "" && ios.IsStdoutTTY() {
		return UsageErrorf("redirect or pipe the output, name a file with -o FILE, or force it with -o -",
			"refusing to write binary frames to a terminal")
	}
	return nil
}

// SizeOf sets n to the bytes of a size flag, or is its usage error.
func SizeOf(f *size.Flag, n *int) error {
	if err := f.Err(); err != nil {
		return UsageErrorf("", "%v", err)
	}
	*n = f.N()
	return nil
}

// Workers is the worker count that a --jobs value asks for.
func Workers(jobs int) (int, error) {
	if jobs < 0 {
		return 0, UsageErrorf("", "--jobs: want a whole number of workers, 1 or more (0: the usable CPUs), found %d", jobs)
	}
	if jobs == 0 {
		return runtime.GOMAXPROCS(0), nil
	}
	return jobs, nil
}

// PathCommand is the hint for name, given where a command was expected
// (toonkit data.json), when it is a file's path: one that exists, or that
// holds a slash or a dot (an extension). The hint is the command that
// reads it, runnable as printed: decode for TOON, binary frames and
// captures (by the extension), encode for anything else. It is "" for
// a name that is no path.
func PathCommand(name string, exists bool) string {
	if name == "" || strings.HasPrefix(name, "-") || !exists && !strings.ContainsAny(name, `./\`) {
		return ""
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".toon", ".bin", ".kado", ".pcap", ".pcapng":
		return "to decode a file, run: toonkit decode " + ShellArg(name)
	}
	return "to encode a file, run: toonkit encode " + ShellArg(name)
}
