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

// HoldAll spares /dev/null the hold's temporary file, and holds any other
// stream: a regular file too, empty or not (written in place, it could be
// read back as an input, or cut under another writer).
func TestOutputHoldAllStreamKinds(t *testing.T) {
	spools := t.TempDir()
	t.Setenv("TMPDIR", spools)
	big := bytes.Repeat([]byte("0123456789abcdef"), (HeldInMemory+1<<20)/16)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	o := NewOutput(null, "", nil)
	o.HoldAll()
	o.Write(big)
	if o.held != nil {
		t.Fatal("output to /dev/null is held")
	}
	if e, _ := os.ReadDir(spools); len(e) != 0 {
		t.Fatalf("/dev/null: a temporary file was made: %v", e)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}

	for _, content := range []string{"", "kept\n"} {
		p := filepath.Join(t.TempDir(), "out.json")
		os.WriteFile(p, []byte(content), 0o644)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		o = NewOutput(f, "", nil)
		o.HoldAll()
		o.Write(big)
		o.Flush()
		if b, _ := os.ReadFile(p); o.held == nil || string(b) != content {
			t.Fatalf("a file holding %q: not held (%d bytes written)", content, len(b))
		}
		o.Abort()
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Fatalf("a file holding %q: Abort left %d bytes", content, len(b))
		}
		f.Close()
	}
}
