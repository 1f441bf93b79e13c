package errwriter_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/errwriter"
)

// limited accepts max bytes, then fails every write.
type limited struct {
	strings.Builder
	max int
}

var errFull = errors.New("full")

func (l *limited) Write(p []byte) (int, error) {
	if l.Len()+len(p) > l.max {
		return 0, errFull
	}
	return l.Builder.Write(p)
}

// The first error is kept and nothing is written after it, even what
// would fit.
func TestFirstErrorKept(t *testing.T) {
	l := &limited{max: 5}
	w := &errwriter.Writer{W: l}
	fmt.Fprint(w, "abc")
	fmt.Fprint(w, "defg")
	fmt.Fprint(w, "h")
	if !errors.Is(w.Err, errFull) || l.String() != "abc" {
		t.Errorf("got %q and %v, want %q and %v", l.String(), w.Err, "abc", errFull)
	}
}

// short writes n < len(p) and no error, as a broken writer may.
type short struct{}

func (short) Write(p []byte) (int, error) { return len(p) / 2, nil }

func TestShortWrite(t *testing.T) {
	w := &errwriter.Writer{W: short{}}
	if n, err := w.Write([]byte("abcd")); n != 2 || err != io.ErrShortWrite || w.Err != io.ErrShortWrite {
		t.Errorf("got %d, %v (kept %v), want 2 and io.ErrShortWrite", n, err, w.Err)
	}
}

func Example() {
	w := &errwriter.Writer{W: os.Stdout}
	fmt.Fprintln(w, "line 1")
	fmt.Fprintln(w, "line 2")
	if w.Err != nil {
		fmt.Println("not all written:", w.Err)
	}
	// Output:
	// line 1
	// line 2
}
