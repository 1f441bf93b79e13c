package cutwriter_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/toonkit/toonkit/internal/cutwriter"
)

// Writes go through until Cut; a write blocked underneath (a pipe nobody
// reads) returns ErrCut when Cut comes, and so do the later ones.
func TestCut(t *testing.T) {
	var buf bytes.Buffer
	w := cutwriter.New(&buf)
	if n, err := w.Write([]byte("hello")); n != 5 || err != nil || buf.String() != "hello" {
		t.Fatalf("%d %v %q", n, err, buf.String())
	}
	r, pw := io.Pipe() // nobody reads r: a write blocks
	defer r.Close()
	w = cutwriter.New(pw)
	done := make(chan error)
	go func() {
		_, err := w.Write([]byte("stuck"))
		done <- err
	}()
	w.Cut()
	if err := <-done; !errors.Is(err, cutwriter.ErrCut) {
		t.Fatalf("the blocked write: %v", err)
	}
	if _, err := w.Write([]byte("more")); !errors.Is(err, cutwriter.ErrCut) {
		t.Fatalf("a later write: %v", err)
	}
	w.Cut()
}

// The error of the writer underneath is the write's.
func TestError(t *testing.T) {
	r, pw := io.Pipe()
	r.Close()
	if _, err := cutwriter.New(pw).Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatal(err)
	}
}
