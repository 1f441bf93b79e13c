// Package cutwriter is a writer that can be let go of: after Cut, a write
// blocked in the writer underneath (a pipe nobody reads) returns at once
// with ErrCut, and so does every later write. `toonkit tap` writes its view
// through one, so that a signal ends it however blocked its stdout is.
//
// The writes are made by a goroutine of the Writer's, on a copy of the
// bytes; a write blocked when Cut comes stays blocked there (it ends with
// the process).
package cutwriter

import (
	"errors"
	"io"
	"sync"
)

// ErrCut is the error of the writes after Cut.
var ErrCut = errors.New("output abandoned (it was not being read)")

// Writer writes to an io.Writer until it is cut.
type Writer struct {
	w       io.Writer
	once    sync.Once // starts the goroutine
	cutOnce sync.Once
	req     chan []byte
	res     chan result
	cut     chan struct{}
}

type result struct {
	n   int
	err error
}

// New returns a Writer of w.
func New(w io.Writer) *Writer {
	return &Writer{w: w, req: make(chan []byte), res: make(chan result, 1), cut: make(chan struct{})}
}

func (c *Writer) run() {
	for {
		select {
		case p := <-c.req:
			n, err := c.w.Write(p)
			c.res <- result{n, err}
		case <-c.cut:
			return
		}
	}
}

// Write writes p, or returns ErrCut once Cut is called, even while the
// write underneath is still blocked.
func (c *Writer) Write(p []byte) (int, error) {
	select {
	case <-c.cut:
		return 0, ErrCut
	default:
	}
	c.once.Do(func() { go c.run() })
	select {
	case c.req <- append([]byte(nil), p...):
	case <-c.cut:
		return 0, ErrCut
	}
	select {
	case r := <-c.res:
		return r.n, r.err
	case <-c.cut:
		return 0, ErrCut
	}
}

// Cut makes the write under way, if any, and every later one return
// ErrCut. It may be called more than once, from any goroutine.
func (c *Writer) Cut() { c.cutOnce.Do(func() { close(c.cut) }) }
