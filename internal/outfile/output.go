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
	held   *Held    // the stream, held until Commit (HoldAll)
	cut    *cutFile // the stream, an empty file written in place (HoldAll)
	stream io.Writer
	beside []io.Writer // other streams of the run (Beside)
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

// Beside names the run's other streams (standard error): HoldAll writes
// in place only to a file that none of them shares.
func (o *Output) Beside(streams ...io.Writer) { o.beside = append(o.beside, streams...) }

// HoldAll makes the stream all or nothing, as a file output is: what is
// written is held (Held) and passed on by Commit, or dropped by Abort. A
// failed run then writes no partial output even to a pipe, in bounded
// memory.
//
// Two streams need no hold, and are spared its temporary file. One that is
// /dev/null keeps nothing. One that is an empty regular file that no
// Beside stream shares (toonkit decode big.toon > big.json) is written in
// place, and Abort (or a signal's RemoveTemps) truncates it back to empty.
func (o *Output) HoldAll() {
	if o.path != "" || o.held != nil || o.cut != nil {
		return
	}
	if o.w.Buffered() > 0 {
		// Written already: the hold goes after it, as it always has.
		o.held = &Held{}
		return
	}
	switch f, how := streamKind(o.stream, o.beside); how {
	case discarded:
		return
	case emptyFile:
		o.cut = newCutFile(f)
		o.w.Reset(o.cut)
		return
	}
	o.held = &Held{}
}

const (
	other = iota
	discarded
	emptyFile
)

// streamKind says whether stream is /dev/null (discarded), an empty
// regular file at its start that no stream of beside shares (emptyFile),
// or other.
func streamKind(stream io.Writer, beside []io.Writer) (*os.File, int) {
	f, ok := stream.(*os.File)
	if !ok || f == nil {
		return nil, other
	}
	st, err := f.Stat()
	if err != nil {
		return nil, other
	}
	if st.Mode()&fs.ModeCharDevice != 0 {
		if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
			return f, discarded
		}
		return nil, other
	}
	if !st.Mode().IsRegular() || st.Size() != 0 {
		return nil, other
	}
	if at, err := f.Seek(0, io.SeekCurrent); err != nil || at != 0 {
		return nil, other
	}
	for _, b := range beside {
		if bf, ok := b.(*os.File); ok && bf != nil {
			if bst, err := bf.Stat(); err == nil && os.SameFile(st, bst) {
				return nil, other
			}
		}
	}
	return f, emptyFile
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
	if o.cut != nil {
		o.cut.keep()
		o.cut = nil
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
// or FIFO written in place. Held output is dropped, and an empty file
// written in place by HoldAll is truncated back to empty.
func (o *Output) Abort() {
	if o.held != nil {
		o.held.Drop()
		o.held = nil
	}
	if o.cut != nil {
		// Written in place: what the buffer holds is dropped, and the
		// file is cut back to empty.
		o.w.Reset(o.stream)
		o.cut.cutBack()
		o.cut = nil
	}
	if o.w != nil && (o.path == "" || o.file != nil && o.file.InPlace()) {
		o.w.Flush()
	}
	if o.file != nil {
		o.file.Abort()
		o.file = nil
	}
}
