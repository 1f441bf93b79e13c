package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A temporary file is tracked in the same moment it is made: RemoveTemps
// (a signal's handler) waits while it is made, and then finds it.
func TestTempFileTrackedAsMade(t *testing.T) {
	dir := t.TempDir()
	f, err := Track(func() (*os.File, error) {
		if temps.TryLock() {
			temps.Unlock()
			t.Error("the file is made while RemoveTemps could run")
		}
		return CreateBeside(filepath.Join(dir, "out.ndjson"))
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	RemoveTemps()
	if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
		t.Fatalf("%s is left behind: %v", f.Name(), err)
	}
}

// entries lists the files of dir, the temporary ones among them.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return names // "*" matches names that start with a dot too
}

// Until Commit the target is untouched and the output sits in a temporary
// file beside it; Commit renames it over the target, keeping the target's
// permissions; Abort leaves the target as it was and nothing beside it.
func TestFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	os.WriteFile(target, []byte("old\n"), 0o600)
	f, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f.Writer(), "half")
	if b, _ := os.ReadFile(target); string(b) != "old\n" {
		t.Fatalf("target written before Commit: %q", b)
	}
	if n := entries(t, dir); len(n) != 2 {
		t.Fatalf("files: %v, want the target and a temporary file", n)
	}
	f.Abort()
	if b, _ := os.ReadFile(target); string(b) != "old\n" {
		t.Fatalf("target after Abort: %q", b)
	}
	if n := entries(t, dir); len(n) != 1 {
		t.Fatalf("files after Abort: %v", n)
	}

	f, err = Open(target)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f.Writer(), "new\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(b) != "new\n" || st.Mode().Perm() != 0o600 {
		t.Fatalf("after Commit: %q, mode %v; want new, 0600", b, st.Mode().Perm())
	}
	if n := entries(t, dir); len(n) != 1 {
		t.Fatalf("files after Commit: %v", n)
	}
}

// A symlink is followed (the link stays a link); a directory is ErrIsDir;
// a device is written in place.
func TestFileTargets(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	link := filepath.Join(dir, "link.txt")
	os.WriteFile(real, []byte("old"), 0o644)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	f, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f.Writer(), "new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("target of the link: %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if _, err := Open(dir); err != ErrIsDir {
		t.Errorf("Open(dir) = %v, want ErrIsDir", err)
	}
	f, err = Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	if !f.InPlace() {
		t.Errorf("%s is not written in place", os.DevNull)
	}
	if err := f.Commit(); err != nil {
		t.Error(err)
	}
}

// Held keeps output in memory up to HeldInMemory, then in a spool; PassOn
// gives it back whole, Drop removes the spool.
func TestHeldSpills(t *testing.T) {
	var h Held
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range HeldInMemory>>20 + 2 {
		if _, err := h.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if h.spool == nil {
		t.Fatal("no spool beyond HeldInMemory")
	}
	name := h.spool.f.Name()
	var out bytes.Buffer
	if err := h.PassOn(&out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != HeldInMemory+2<<20 {
		t.Errorf("passed on %d bytes, want %d", out.Len(), HeldInMemory+2<<20)
	}
	h.Drop()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("spool %s left behind", name)
	}
}

func TestTempErrorText(t *testing.T) {
	pe := &os.PathError{Op: "write", Path: "/tmp/x", Err: errors.New("no space left on device")}
	for _, c := range []struct {
		err  *TempError
		want string
	}{
		{&TempError{Err: pe}, "cannot make a temporary file: no space left on device"},
		{&TempError{Name: "/tmp/x", Err: pe}, "cannot write the temporary file /tmp/x: no space left on device"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		if !errors.Is(c.err, pe) {
			t.Error("TempError does not unwrap")
		}
	}
	if !strings.Contains((&TempError{Err: io.EOF}).Error(), "EOF") {
		t.Error("a plain error's text is lost")
	}
}
