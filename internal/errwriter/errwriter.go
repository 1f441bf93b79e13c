// Package errwriter is an io.Writer that keeps the first error of the
// writer under it and drops every write after it, so that a renderer can
// write a whole view with no check after each piece and ask once, at the
// end, whether it all went out. internal/inspect's views and internal/report's
// reports write through it.
package errwriter

import "io"

// Writer writes to W until a write fails; from then on it writes nothing
// and returns Err, the first error. A short write without an error is
// io.ErrShortWrite.
type Writer struct {
	W   io.Writer
	Err error
}

// Write writes p to W, unless an earlier write failed.
func (e *Writer) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.Err = err
	return n, err
}
