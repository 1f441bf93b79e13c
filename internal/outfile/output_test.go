package outfile

import (
	"bytes"
	"errors"
	"io"
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

// HoldAll spares /dev/null and an empty regular file on standard output
// the hold's temporary file: /dev/null keeps nothing, and the empty file
// is written in place and cut back to empty when the run fails (or a
// signal ends it). Any other stream is held.
func TestOutputHoldAllStreamKinds(t *testing.T) {
	spools := t.TempDir()
	t.Setenv("TMPDIR", spools)
	big := bytes.Repeat([]byte("0123456789abcdef"), (HeldInMemory+1<<20)/16)
	noSpool := func(what string) {
		t.Helper()
		if e, _ := os.ReadDir(spools); len(e) != 0 {
			t.Fatalf("%s: a temporary file was made: %v", what, e)
		}
	}
	dir := t.TempDir()
	open := func(name string, content string) *os.File {
		t.Helper()
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	size := func(f *os.File) int64 {
		t.Helper()
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}

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
	noSpool("/dev/null")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}

	// An empty file: in place, no spool; Commit keeps it, Abort empties it.
	for _, commit := range []bool{true, false} {
		f := open("empty.json", "")
		o = NewOutput(f, "", nil)
		o.Beside(os.Stderr)
		o.HoldAll()
		o.Write(big)
		noSpool("an empty file")
		if size(f) < int64(HeldInMemory) {
			t.Fatalf("an empty file is not written in place: %d bytes before Commit", size(f))
		}
		if commit {
			if err := o.Commit(); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(f.Name()); !bytes.Equal(b, big) {
				t.Fatalf("after Commit: %d bytes, want %d", len(b), len(big))
			}
			continue
		}
		o.Abort()
		if n := size(f); n != 0 {
			t.Fatalf("Abort left %d bytes in the file", n)
		}
		// What the stream writes next starts at the file's start.
		f.WriteString("error\n")
		if b, _ := os.ReadFile(f.Name()); string(b) != "error\n" {
			t.Fatalf("after Abort and a write: %q", b)
		}
	}

	// A signal's RemoveTemps cuts the file back too.
	f := open("signal.json", "")
	o = NewOutput(f, "", nil)
	o.HoldAll()
	o.Write(big)
	o.Flush()
	RemoveTemps()
	if n := size(f); n != 0 {
		t.Fatalf("RemoveTemps left %d bytes", n)
	}
	// A write still in flight after the cut (another goroutine's, before
	// the exit) lands nowhere: no hole of zeros, no bytes past it.
	o.Write(big)
	if err := o.Flush(); err == nil || size(f) != 0 {
		t.Fatalf("a write after the cut: %v, %d bytes in the file", err, size(f))
	}

	// Held: a file with content (written after it, then cut back, it
	// would lose nothing, but a file that is also an input could be read
	// back), and a file that another stream (standard error) shares.
	for _, c := range []struct {
		name, content string
		shared        bool
	}{{"content.json", "kept\n", false}, {"shared.json", "", true}} {
		f := open(c.name, c.content)
		f.Seek(0, io.SeekEnd)
		o = NewOutput(f, "", nil)
		if c.shared {
			o.Beside(f)
		}
		o.HoldAll()
		o.Write(big)
		if o.held == nil || size(f) != int64(len(c.content)) {
			t.Fatalf("%s: not held (%d bytes written)", c.name, size(f))
		}
		o.Abort()
		if b, _ := os.ReadFile(f.Name()); string(b) != c.content {
			t.Fatalf("%s: Abort left %q", c.name, b)
		}
		noSpool(c.name + " after Abort")
	}
}
