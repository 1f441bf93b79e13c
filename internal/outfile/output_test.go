package outfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOutputStreamHeldUntilCommit(t *testing.T) {
	var stream bytes.Buffer
	o := NewOutput(&stream, "-", nil)
	o.HoldAll()
	o.Write([]byte("a"))
	if err := o.Flush(); err != nil || stream.Len() != 0 {
		t.Fatalf("held output passed on by Flush: %q, %v", stream.String(), err)
	}
	if err := o.Commit(); err != nil || stream.String() != "a" {
		t.Fatalf("Commit: %q, %v", stream.String(), err)
	}

	stream.Reset()
	o = NewOutput(&stream, "", nil)
	o.HoldAll()
	o.Write([]byte("dropped"))
	o.Abort()
	if stream.Len() != 0 {
		t.Fatalf("Abort passed held output on: %q", stream.String())
	}

	// Not held, what was written reaches the stream on Flush and on Abort.
	o = NewOutput(&stream, "", nil)
	o.Write([]byte("x"))
	if stream.Len() != 0 {
		t.Fatal("the stream is not buffered")
	}
	o.Abort()
	if stream.String() != "x" || o.Name() != "<stdout>" || o.Path() != "" {
		t.Fatalf("Abort: %q, name %q", stream.String(), o.Name())
	}
}

func TestOutputFileInPlaceOnlyOnCommit(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.txt")
	os.WriteFile(target, []byte("old"), 0o600)
	o := NewOutput(nil, target, nil)
	o.Write([]byte("new"))
	o.Flush()
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Fatalf("target written before Commit: %q", b)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(b) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("after Commit: %q, mode %v", b, st.Mode().Perm())
	}

	o = NewOutput(nil, target, nil)
	o.Write([]byte("failed run"))
	o.Abort()
	entries, _ := os.ReadDir(dir)
	if b, _ := os.ReadFile(target); string(b) != "new" || len(entries) != 1 {
		t.Fatalf("Abort left %q and %d files", b, len(entries))
	}
}

type wrapped struct{ error }

func (w wrapped) Unwrap() error { return w.error }

func TestOutputErrorSticksWrappedOnce(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	o := NewOutput(nil, dir, func(err error) error { calls++; return wrapped{err} })
	_, err := o.Write([]byte("x"))
	var we *WriteError
	if !errors.As(err, &we) || err.Error() != "cannot write "+dir+": it is a directory" {
		t.Fatalf("Write to a directory: %v", err)
	}
	if _, ok := err.(wrapped); !ok || calls != 1 {
		t.Fatalf("error not wrapped once: %T, %d calls", err, calls)
	}
	_, again := o.Write([]byte("y"))
	if again != err || o.Flush() != err || o.Err() != err || o.Commit() != err || calls != 1 {
		t.Fatal("the first error is not the one returned after it")
	}
}
