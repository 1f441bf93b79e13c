package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGuardCutShort checks that reading a mapped file that was cut short
// meanwhile is an error, not a crash, and that other panics pass.
func TestGuardCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 3<<12), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := Map(f, 3<<12)
	if m == nil {
		t.Skip("files are not mapped on this system")
	}
	defer Unmap(m)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sink byte
	err = Guard(m, func() error {
		sink = m[2<<12]
		return nil
	})
	if err != ErrCutShort {
		t.Fatalf("error %v (read %q), want the file cut short", err, sink)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the other panic", r)
		}
	}()
	Guard(m, func() error { panic("other") })
}
