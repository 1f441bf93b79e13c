package cmd

import (
	"bufio"
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

// output is where a command writes. "" and "-" are stdout; a file is
// written atomically (outfile.File): a failed run leaves no partial output,
// and -o may name an input.
type output struct {
	ios    *IOStreams
	path   string // "" for stdout
	file   *outfile.File
	w      *bufio.Writer
	failed error
	held   *outfile.Held // stdout held until Commit (holdAll)
}

// holdAll makes standard output all or nothing, as a file output is: what
// is written is held (outfile.Held) and passed on by Commit, or dropped by
// Abort. A failed run then writes no partial output even to a pipe, in
// bounded memory.
func (o *output) holdAll() {
	if o.path == "" && o.held == nil {
		o.held = &outfile.Held{}
	}
}

// outputBuffer is the size of an output's buffer.
const outputBuffer = 256 << 10

func newOutput(ios *IOStreams, path string) *output {
	o := &output{ios: ios}
	if path != "" && path != "-" {
		o.path = path
	} else {
		o.w = bufio.NewWriterSize(ios.Out, outputBuffer)
	}
	return o
}

// Name is the output's name for messages.
func (o *output) Name() string {
	if o.path == "" {
		return "<stdout>"
	}
	return o.path
}

// refuseBinaryTTY is the usage error for binary output bound for a terminal.
func refuseBinaryTTY(ios *IOStreams, oflag string) error {
	if oflag == "" && ios.IsStdoutTTY() {
		return usageErrorf("redirect or pipe the output, name a file with -o FILE, or force it with -o -",
			"refusing to write binary frames to a terminal")
	}
	return nil
}

func (o *output) open() error {
	if o.w != nil {
		return nil
	}
	f, err := outfile.Open(o.path)
	if err != nil {
		return ioErrorf("cannot write %s: %s", o.path, pathErrText(err))
	}
	o.file, o.w = f, bufio.NewWriterSize(f.Writer(), outputBuffer)
	return nil
}

// writeError is the output's error for err, an error of a write to it
// (or, held, of the temporary file that holds it).
func (o *output) writeError(err error) error {
	if te := (*outfile.TempError)(nil); errors.As(err, &te) {
		return &ExitError{Code: ExitIO, Err: te}
	}
	return ioErrorf("cannot write %s: %s", o.Name(), pathErrText(err))
}

func (o *output) Write(p []byte) (int, error) {
	if o.failed != nil {
		return 0, o.failed
	}
	if o.held != nil {
		n, err := o.held.Write(p)
		if err != nil {
			o.failed = o.writeError(err)
		}
		return n, o.failed
	}
	if err := o.open(); err != nil {
		o.failed = err
		return 0, err
	}
	if len(p) >= outputBuffer && o.w.Buffered() > 0 {
		// A block as large as the buffer is written as it is, not
		// copied into it: what is buffered goes first.
		if err := o.w.Flush(); err != nil {
			o.failed = o.writeError(err)
			return 0, o.failed
		}
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.failed = o.writeError(err)
		return n, o.failed
	}
	return n, nil
}

// Flush passes buffered output on. Commands call it when their input has
// nothing more buffered, so that a live stream (tail -f capture | toonkit
// decode) is not held back, while a file is still written in large blocks.
func (o *output) Flush() error {
	if o.failed != nil || o.w == nil || o.held != nil {
		return o.failed
	}
	if err := o.w.Flush(); err != nil {
		o.failed = o.writeError(err)
		return o.failed
	}
	return nil
}

// Commit flushes the output and, for a file, puts it in place.
func (o *output) Commit() error {
	if o.failed != nil {
		o.Abort()
		return o.failed
	}
	if err := o.open(); err != nil {
		return err
	}
	if h := o.held; h != nil {
		o.held = nil
		err := h.PassOn(o.w)
		h.Drop()
		if err != nil {
			return o.writeError(err)
		}
	}
	if err := o.w.Flush(); err != nil {
		o.Abort()
		return o.writeError(err)
	}
	if o.file != nil {
		err := o.file.Commit()
		o.file = nil
		if err != nil {
			return ioErrorf("cannot write %s: %s", o.path, pathErrText(err))
		}
	}
	return nil
}

// Abort discards a file output; stdout output written so far is flushed,
// since a stream consumer has seen it already in part, and so is a device
// or FIFO written in place.
func (o *output) Abort() {
	if o.held != nil {
		o.held.Drop()
		o.held = nil
	}
	if o.w != nil && (o.path == "" || o.file != nil && o.file.InPlace()) {
		o.w.Flush()
	}
	if o.file != nil {
		o.file.Abort()
		o.file = nil
	}
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
