package records

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/outfile"
)

// The rows wait in a temporary file; WriteTable writes the header, then
// the rows.
func TestSpooledTableWritesAtTheEnd(t *testing.T) {
	st, err := NewSpooledTable(&TableSink{What: "result", Name: "the results", Max: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Remove()
	for _, rec := range []string{`{"id":1,"name":"Alice"}`, `{"id":2,"name":"Bob"}`} {
		if err := st.Write([]byte(rec)); err != nil {
			t.Fatal(err)
		}
	}
	if st.Check() != nil {
		t.Fatal("a lossless table is lossy")
	}
	var out bytes.Buffer
	if err := st.WriteTable(&out, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "@toon") || !strings.Contains(got, "name") || strings.Count(got, "\n") < 4 {
		t.Fatalf("table:\n%s", got)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// An error of writing the table is the spool's, through wrap.
func TestSpooledTableWrapsErrors(t *testing.T) {
	wrapped := 0
	st, err := NewSpooledTable(&TableSink{Max: 5}, func(err error) error { wrapped++; return err })
	if err != nil {
		t.Fatal(err)
	}
	st.Write([]byte(`{"a":1}`))
	err = st.WriteTable(failingWriter{}, nil)
	var te *outfile.TempError
	if !errors.As(err, &te) || wrapped != 1 {
		t.Fatalf("WriteTable: %v (%d wrapped)", err, wrapped)
	}
	name := te.Name
	st.Remove()
	if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) || filepath.Base(name)[:13] != "toonkit-rows-" {
		t.Fatalf("the spool %s is left, or misnamed: %v", name, err)
	}
}
