package records_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/gentable"
	"github.com/toonkit/toonkit/internal/mapfile"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
)

// streamed writes text to a file in dir and maps it as a document, which
// must be encoded in bounded memory (records.StreamFrom bytes or more).
func streamed(t *testing.T, dir string, text []byte, limit int) (*records.Document, string) {
	t.Helper()
	if len(text) < records.StreamFrom {
		t.Fatalf("%d bytes: too small to be streamed", len(text))
	}
	path := filepath.Join(dir, fmt.Sprintf("doc%d.json", len(text)))
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	// Its times set back, so that a change made later shows in them
	// however coarse the clock of the file system.
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	d := records.MapDocument(f, path, limit)
	if d == nil {
		f.Close()
		if mapfile.MapLazy(f, 1) == nil {
			t.Skip("files are not mapped on this system")
		}
		t.Fatal("not mapped")
	}
	return d, path
}

// A document of records.StreamFrom bytes or more, encoded in bounded
// memory, gives toonx.FromJSON's text, whatever the limit.
func TestStreamedDocument(t *testing.T) {
	doc := gentable.Mixed(records.StreamFrom + 1<<20)
	var want bytes.Buffer
	if err := toonx.FromJSON(&want, doc, toonx.EncodeOptions{Delimiter: '|', IndentSize: 4}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"|]{id|name|ok|score}:", "items[", "    - id: 0", "config:", "ports[2|]: 80|8000"} {
		if !bytes.Contains(want.Bytes(), []byte(s)) {
			t.Fatalf("the document does not take the form %q", s)
		}
	}
	d, _ := streamed(t, t.TempDir(), doc, 1000)
	encodesAsFromJSON(t, "streamed", d, doc, toonx.EncodeOptions{Delimiter: '|', IndentSize: 4})
}

// A streamed document that is not valid JSON is a BadJSON error at its line
// and column: with the JSON reader's words and pointer when it is within
// the limit, with the encoder's beyond it. Several values (NDJSON) are read
// into memory within the limit, for Array, and are too large beyond it.
func TestStreamedDocumentErrors(t *testing.T) {
	dir := t.TempDir()
	doc := gentable.Mixed(records.StreamFrom + 1<<20)
	at := bytes.Index(doc, []byte(`"svc-1000"`))
	bad := bytes.Clone(doc)
	bad[at-1] = 'x' // the indentation of a member name
	line := 1 + bytes.Count(bad[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(bad[:at], '\n')
	for _, c := range []struct {
		limit int
		msg   string
	}{
		{64 << 20, "invalid character 'x' at start of string"},
		{1 << 20, "unexpected character 'x' (want a member name)"},
	} {
		d, path := streamed(t, dir, bad, c.limit)
		err := d.EncodeTOON(io.Discard, toonx.EncodeOptions{})
		var re *records.Error
		var se *jsonv.SyntaxError
		if !errors.As(err, &re) || re.Kind != records.BadJSON || re.Name != path || !errors.As(err, &se) {
			t.Fatalf("limit %d: %v, want a BadJSON error", c.limit, err)
		}
		if se.Pos.Line != line || se.Pos.Column != col-1 || !strings.HasPrefix(se.Msg, c.msg) || !strings.Contains(se.Excerpt, `x"svc-1000"`) {
			t.Errorf("limit %d: %d:%d %q (excerpt %q), want %d:%d %q", c.limit, se.Pos.Line, se.Pos.Column, se.Msg, se.Excerpt, line, col-1, c.msg)
		}
	}

	var nd bytes.Buffer
	for i := 0; nd.Len() <= records.StreamFrom; i++ {
		fmt.Fprintf(&nd, "{\"id\": %d, \"text\": \"%s\"}\n", i, strings.Repeat("ab", 100))
	}
	d, _ := streamed(t, dir, nd.Bytes(), 64<<20)
	err := d.EncodeTOON(io.Discard, toonx.EncodeOptions{})
	if _, _, _, ok := toonx.InputError(err); !ok {
		t.Fatalf("NDJSON: %v, want the encoder's error for Array", err)
	}
	arr, err := d.Array()
	if err != nil || arr == nil || !arr.Many {
		t.Fatalf("NDJSON: Array gives %v, %v", arr, err)
	}
	d, _ = streamed(t, dir, append(nd.Bytes(), ' '), 1<<20)
	err = d.EncodeTOON(io.Discard, toonx.EncodeOptions{})
	var re *records.Error
	if !errors.As(err, &re) || re.Kind != records.TooLarge || !strings.Contains(err.Error(), "several JSON values") {
		t.Fatalf("NDJSON over the limit: %v", err)
	}
}

// A file that changes, or is cut short, while it is encoded in bounded
// memory is a ReadFailed error, not a crash or a document made of two
// versions.
func TestStreamedDocumentChanged(t *testing.T) {
	dir := t.TempDir()
	doc := gentable.Mixed(records.StreamFrom + 1<<20)
	for _, c := range []struct {
		name   string
		change func(path string) error
		want   error
	}{
		{"rewritten", func(path string) error {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte("]]]]"), int64(len(doc)/2)) // the same size, not valid
			return err
		}, records.ErrChanged},
		{"touched", func(path string) error {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt(doc[:1], 0) // the same bytes, written again
			return err
		}, records.ErrChanged},
		{"cut short", func(path string) error { return os.Truncate(path, int64(len(doc)/2)) }, nil},
	} {
		d, path := streamed(t, dir, doc, 64<<20)
		if err := c.change(path); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err := d.EncodeTOON(&out, toonx.EncodeOptions{})
		var re *records.Error
		if !errors.As(err, &re) || re.Kind != records.ReadFailed || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v (%d bytes written), want a ReadFailed error", c.name, err, out.Len())
		}
	}
}

// Standard input of records.SpoolFrom bytes or more is written to a
// temporary file and encoded in bounded memory; the file is removed once
// the document is encoded. A smaller input is read into memory.
func TestSpoolDocument(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, size := range []int{records.SpoolFrom - 100, records.SpoolFrom + 100, records.StreamFrom + 100} {
		doc := gentable.Mixed(size)
		open := func(name string) (*records.Input, error) {
			return &records.Input{R: io.MultiReader(bytes.NewReader(doc)), Name: "<stdin>", Close: func() {}}, nil
		}
		d, err := records.ReadDocument([]string{"-"}, open, 1000, true)
		if err != nil {
			t.Fatal(err)
		}
		spooled, _ := os.ReadDir(tmp)
		if size >= records.SpoolFrom && len(spooled) != 1 || size < records.SpoolFrom && (len(spooled) != 0 || string(d.Value) != string(doc)) {
			t.Fatalf("%d bytes: %d temporary files, %d bytes in memory", size, len(spooled), len(d.Value))
		}
		encodesAsFromJSON(t, fmt.Sprintf("%d bytes", size), d, doc, toonx.EncodeOptions{})
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Fatalf("%d bytes: %d temporary files left", size, len(left))
		}
	}
	// No temporary file can be made: read into memory, within the limit,
	// and the error says why.
	t.Setenv("TMPDIR", filepath.Join(tmp, "none"))
	doc := gentable.Mixed(records.SpoolFrom + 100)
	open := func(name string) (*records.Input, error) {
		return &records.Input{R: bytes.NewReader(doc), Name: "<stdin>", Close: func() {}}, nil
	}
	if d, err := records.ReadDocument([]string{"-"}, open, 64<<20, true); err != nil || string(d.Value) != string(doc) {
		t.Fatalf("no temporary folder, within the limit: %v", err)
	}
	_, err := records.ReadDocument([]string{"-"}, open, 1<<20, true)
	var re *records.Error
	if !errors.As(err, &re) || re.Kind != records.TooLarge || !strings.Contains(err.Error(), "could not be written to a temporary file") {
		t.Fatalf("no temporary folder, over the limit: %v", err)
	}
}
