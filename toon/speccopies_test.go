package toon

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The spec copies in testdata/toon-spec (v4.0 for this package's tests,
// v4.1.0 and v4.1.1 for issue 33's) are there with their LICENSE, and,
// when ../shared/specs is beside the repository, byte-equal to it: the
// same files, the same bytes, none added or left out.
func TestSpecCopies(t *testing.T) {
	copies := map[string]string{
		"v4.0":   "toon-v4",
		"v4.1.0": filepath.Join("toon-v4.1", "v4.1.0"),
		"v4.1.1": filepath.Join("toon-v4.1", "v4.1.1"),
	}
	shared := filepath.Join("..", "..", "shared", "specs")
	_, err := os.Stat(shared)
	haveShared := err == nil
	for name, src := range copies {
		dir := filepath.Join("..", "testdata", "toon-spec", name)
		got := specFiles(t, dir)
		if len(got["LICENSE"]) == 0 {
			t.Errorf("%s: no LICENSE", dir)
		}
		if n := len(got); n < 20 {
			t.Errorf("%s: %d files, want the spec's fixtures", dir, n)
		}
		if !haveShared {
			continue
		}
		want := specFiles(t, filepath.Join(shared, src))
		for f, b := range want {
			if g, ok := got[f]; !ok {
				t.Errorf("%s: %s is missing", dir, f)
			} else if !bytes.Equal(g, b) {
				t.Errorf("%s: %s differs from %s", dir, f, filepath.Join(shared, src, f))
			}
		}
		for f := range got {
			if _, ok := want[f]; !ok {
				t.Errorf("%s: %s is not in %s", dir, f, filepath.Join(shared, src))
			}
		}
	}
}

// specFiles reads every file under dir, by its slash path relative to dir.
func specFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
