package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// WriteError is an error of writing an output, or of putting it in place:
// "cannot write NAME: reason".
type WriteError struct {
	Name string
	Err  error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("cannot write %s: %s", e.Name, reason(e.Err))
}

// reason is err without the path a *fs.PathError names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Buffer is the size of an Output's buffer.
const Buffer = 256 << 10

// Output is where a command writes: a stream (standard output) or a File,
// buffered. A file is written atomically: a failed run leaves no partial
// output, and the output may name an input. Its first error sticks: every
// later Write, Flush and Commit returns it, the same value.
type Output struct {
	path   string // "" for the stream
	file   *File
	w      *bufio.Writer
	failed error
	held   *Held // the stream, held until Commit (HoldAll)
	stream io.Writer
	wrap   func(error) error
}

// NewOutput is the output to path, or to stream when path is "" or "-".
// Its errors, a *WriteError or a *TempError, are passed through wrap
// (nil: kept as they are) once, when they happen.
func NewOutput(stream io.Writer, path string, wrap func(error) error) *Output {
	if wrap == nil {
		wrap = func(err error) error { return err }
	}
	o := &Output{wrap: wrap, stream: stream}
	if path != "" && path != "-" {
		o.path = path
	} else {
		o.w = bufio.NewWriterSize(stream, Buffer)
	}
	return o
}

// HoldAll makes the stream all or nothing, as a file output is: what is
// written is held (Held) and passed on by Commit, or dropped by Abort. A
// failed run then writes no partial output even to a pipe, in bounded
// memory. A stream that is /dev/null is not held: nothing keeps what it is
// given, so the hold's temporary file would be written for nothing.
//
// (A regular file on stdout is held too. Writing it in place and cutting
// it back on failure would lose data: the file may be one of the run's
// inputs, read after the output began, or be shared with another process
// writing the same redirection, whose output a cut would take with it.)
func (o *Output) HoldAll() {
	if o.path != "" || o.held != nil {
		return
	}
	if o.w.Buffered() == 0 && isDevNull(o.stream) {
		return
	}
	o.held = &Held{}
}

// isDevNull reports whether stream is /dev/null.
func isDevNull(stream io.Writer) bool {
	f, ok := stream.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}

// Name is the output's name for messages: its path, or <stdout>.
func (o *Output) Name() string {
	if o.path == "" {
		return "<stdout>"
	}
	return o.path
}

// Path is the output's path, "" for the stream.
func (o *Output) Path() string { return o.path }

// Err is the output's first error, or nil.
func (o *Output) Err() error { return o.failed }

// Open opens a file output, when it is not open yet; an error is not
// kept as the output's own.
func (o *Output) Open() error {
	if o.w != nil {
		return nil
	}
	f, err := Open(o.path)
	if err != nil {
		return o.wrap(&WriteError{Name: o.path, Err: err})
	}
	o.file, o.w = f, bufio.NewWriterSize(f.Writer(), Buffer)
	return nil
}

// writeError is the output's error for err, an error of a write to it
// (or, held, of the temporary file that holds it).
func (o *Output) writeError(err error) error {
	if te := (*TempError)(nil); errors.As(err, &te) {
		return o.wrap(te)
	}
	return o.wrap(&WriteError{Name: o.Name(), Err: err})
}

func (o *Output) Write(p []byte) (int, error) {
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
	if err := o.Open(); err != nil {
		o.failed = err
		return 0, err
	}
	if len(p) >= Buffer && o.w.Buffered() > 0 {
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
// Held output stays held.
func (o *Output) Flush() error {
	if o.failed != nil || o.w == nil || o.held != nil {
		return o.failed
	}
	if err := o.w.Flush(); err != nil {
		o.failed = o.writeError(err)
		return o.failed
	}
	return nil
}

// Commit flushes the output and, for a file, puts it in place. After the
// output failed, it aborts it and returns the failure.
func (o *Output) Commit() error {
	if o.failed != nil {
		o.Abort()
		return o.failed
	}
	if err := o.Open(); err != nil {
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
			return o.wrap(&WriteError{Name: o.path, Err: err})
		}
	}
	return nil
}

// Abort discards a file output; stream output written so far is flushed,
// since a stream consumer has seen it already in part, and so is a device
// or FIFO written in place. Held output is dropped.
func (o *Output) Abort() {
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
