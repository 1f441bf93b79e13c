package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// output is where a command writes. "" and "-" are stdout. A regular file
// (or a new one) is written to a temporary file in the same folder, created
// on first write, and renamed over the target by Commit, so that a failed
// run leaves no partial output and -o may name an input; a symlink is
// followed to its target first. Anything else that exists (a device such as
// /dev/null, a FIFO, a terminal) is written in place.
type output struct {
	ios     *IOStreams
	path    string // "" for stdout
	target  string // path with symlinks resolved
	tmp     *os.File
	direct  *os.File // a non-regular file written in place
	w       *bufio.Writer
	mode    fs.FileMode
	replace bool // the target exists: keep its mode
	failed  error
	held    *held // stdout held until Commit (holdAll)
}

// holdAll makes standard output all or nothing, as a file output is: what
// is written is held (in memory up to heldInMemory bytes, then in a
// temporary file) and passed on by Commit, or dropped by Abort. A failed
// run then writes no partial output even to a pipe, in bounded memory.
func (o *output) holdAll() {
	if o.path == "" && o.held == nil {
		o.held = &held{}
	}
}

// heldInMemory is how much held output stays in memory before it goes to
// a temporary file.
const heldInMemory = 4 << 20

// held is output kept back until the run succeeds.
type held struct {
	mem   []byte
	spool *spool
}

func (h *held) Write(p []byte) (int, error) {
	if h.mem == nil && h.spool == nil {
		// Once, at its full size: growing it by doubling would copy it
		// and leave the old buffers for the collector.
		h.mem = make([]byte, 0, heldInMemory)
	}
	if h.spool == nil && len(h.mem)+len(p) <= heldInMemory {
		h.mem = append(h.mem, p...)
		return len(p), nil
	}
	if h.spool == nil {
		s, err := newSpool("output")
		if err != nil {
			return 0, err
		}
		h.spool = s
		if _, err := s.w.Write(h.mem); err != nil {
			return 0, s.fail(err)
		}
		h.mem = nil
	}
	if _, err := h.spool.w.Write(p); err != nil {
		return 0, h.spool.fail(err)
	}
	return len(p), nil
}

// passOn writes what is held to w.
func (h *held) passOn(w io.Writer) error {
	if h.spool == nil {
		_, err := w.Write(h.mem)
		return err
	}
	rd, err := h.spool.reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, rd)
	return err
}

func (h *held) drop() {
	h.mem = nil
	if h.spool != nil {
		h.spool.remove()
		h.spool = nil
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
	fail := func(err error) error { return ioErrorf("cannot write %s: %s", o.path, pathErrText(err)) }
	o.target = o.path
	if t, err := filepath.EvalSymlinks(o.path); err == nil {
		o.target = t
	}
	st, err := os.Stat(o.target)
	switch {
	case err == nil && st.IsDir():
		return ioErrorf("cannot write %s: it is a directory", o.path)
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(o.target, os.O_WRONLY, 0)
		if err != nil {
			return fail(err)
		}
		o.direct = f
		o.w = bufio.NewWriterSize(f, outputBuffer)
		return nil
	case err == nil:
		o.replace, o.mode = true, st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return fail(err)
	}
	f, err := tracked(func() (*os.File, error) { return createTemp(o.target) })
	if err != nil {
		return fail(err)
	}
	o.tmp = f
	o.w = bufio.NewWriterSize(f, outputBuffer)
	return nil
}

// createTemp creates a new file beside target, with the permissions a new
// file gets from the umask.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	for i := 0; ; i++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d-%d", base, os.Getpid(), rand.Uint32()))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			return f, err
		}
	}
}

func (o *output) Write(p []byte) (int, error) {
	if o.failed != nil {
		return 0, o.failed
	}
	if o.held != nil {
		n, err := o.held.Write(p)
		if err != nil {
			o.failed = err
		}
		return n, err
	}
	if err := o.open(); err != nil {
		o.failed = err
		return 0, err
	}
	if len(p) >= outputBuffer && o.w.Buffered() > 0 {
		// A block as large as the buffer is written as it is, not
		// copied into it: what is buffered goes first.
		if err := o.w.Flush(); err != nil {
			o.failed = ioErrorf("cannot write %s: %s", o.Name(), pathErrText(err))
			return 0, o.failed
		}
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.failed = ioErrorf("cannot write %s: %s", o.Name(), pathErrText(err))
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
		o.failed = ioErrorf("cannot write %s: %s", o.Name(), pathErrText(err))
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
		err := h.passOn(o.w)
		h.drop()
		if err != nil {
			if ee := (*ExitError)(nil); errors.As(err, &ee) {
				return err
			}
			return ioErrorf("cannot write %s: %s", o.Name(), pathErrText(err))
		}
	}
	if err := o.w.Flush(); err != nil {
		o.Abort()
		return ioErrorf("cannot write %s: %s", o.Name(), pathErrText(err))
	}
	if o.direct != nil {
		if err := o.direct.Close(); err != nil {
			return ioErrorf("cannot write %s: %s", o.path, pathErrText(err))
		}
		o.direct = nil
		return nil
	}
	if o.tmp == nil {
		return nil
	}
	name := o.tmp.Name()
	var err error
	if o.replace {
		err = o.tmp.Chmod(o.mode)
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	o.tmp = nil
	if err == nil {
		err = os.Rename(name, o.target)
	}
	untrackTemp(name)
	if err != nil {
		os.Remove(name)
		return ioErrorf("cannot write %s: %s", o.path, pathErrText(err))
	}
	return nil
}

// Abort discards a file output; stdout output written so far is flushed,
// since a stream consumer has seen it already in part.
func (o *output) Abort() {
	if o.held != nil {
		o.held.drop()
		o.held = nil
	}
	if o.tmp != nil {
		name := o.tmp.Name()
		o.tmp.Close()
		os.Remove(name)
		untrackTemp(name)
		o.tmp = nil
		return
	}
	if o.direct != nil {
		o.w.Flush()
		o.direct.Close()
		o.direct = nil
		return
	}
	if o.w != nil && o.path == "" {
		o.w.Flush()
	}
}

// Temporary files in progress, removed by removeTemps when a signal ends
// the run.
var temps struct {
	sync.Mutex
	names map[string]bool
}

// tracked creates a temporary file and tracks it, with no moment between
// the two at which a signal's removeTemps would miss it.
func tracked(create func() (*os.File, error)) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	f, err := create()
	if err == nil {
		if temps.names == nil {
			temps.names = map[string]bool{}
		}
		temps.names[f.Name()] = true
	}
	return f, err
}

func untrackTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// removeTemps deletes every temporary output file still in progress.
func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// parseSize reads a byte size such as 1048576, 64KiB, 64k, 64MB or 1GiB.
// All units are powers of 1024.
func parseSize(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	var n int
	if _, err := fmt.Sscanf(t, "%d", &n); err != nil || fmt.Sprint(n) != t || n <= 0 {
		return 0, fmt.Errorf("invalid size %q (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)", s)
	}
	if n > (1<<31-1)/mult {
		return 0, fmt.Errorf("size %q is too large (at most 2GiB)", s)
	}
	return n * mult, nil
}
