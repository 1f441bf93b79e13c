package outfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toonkit/toonkit/internal/outfile"
)

// An output file is written beside its target and put in place by Commit:
// until then, the target is as it was.
func Example() {
	dir, _ := os.MkdirTemp("", "outfile-example")
	defer os.RemoveAll(dir)
	target := filepath.Join(dir, "users.toon")
	os.WriteFile(target, []byte("old\n"), 0o644)

	f, err := outfile.Open(target)
	if err != nil {
		fmt.Println(err)
		return
	}
	io.WriteString(f.Writer(), "new\n")
	b, _ := os.ReadFile(target)
	fmt.Printf("before Commit: %q\n", b)
	if err := f.Commit(); err != nil {
		fmt.Println(err)
	}
	b, _ = os.ReadFile(target)
	fmt.Printf("after Commit: %q\n", b)
	// Output:
	// before Commit: "old\n"
	// after Commit: "new\n"
}
