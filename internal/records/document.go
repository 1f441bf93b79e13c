package records

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/mapfile"
	"github.com/toonkit/toonkit/internal/toonx"
	_ "github.com/toonkit/toonkit/toon" // registers toonx's transcoders
)

// MapThreshold is the size from which MapDocument maps a file into memory
// rather than have it read: reading a file costs a page fault per 4 KiB of
// a new buffer, besides the copy.
const MapThreshold = 1 << 20

// Document is one JSON value to write whole (TOON declares every array's
// length before its items), and where it came from.
type Document struct {
	Name  string // the input, for messages
	Value []byte
	// Many says that Value is checked JSON, or an array made of several
	// values; otherwise it is one input as it was read, which the
	// encoder checks itself (the fast path).
	Many bool
	// Inputs is how many inputs the document was read from, when more
	// than one (ReadDocument): Name is then the last of them.
	Inputs int
	// mapped is the file, mapped in memory, when Value is yet to be read
	// from it (EncodeTOON); file is the file itself, open, and limit the
	// most it may be read of it.
	mapped []byte
	file   *os.File
	limit  int
}

// MapDocument is the document of f, a regular file of MapThreshold bytes
// or more but no more than limit, mapped into memory instead of read; nil
// when f is no such file or cannot be mapped. EncodeTOON reads it (a
// table straight from the mapping, anything else read into Value) and
// closes f.
func MapDocument(f *os.File, name string, limit int) *Document {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < MapThreshold || st.Size() > int64(limit) {
		return nil
	}
	m := mapfile.Map(f, st.Size())
	if m == nil {
		return nil
	}
	return &Document{Name: name, mapped: m, file: f, limit: limit}
}

// Input is an input ReadDocument reads: R, its name for messages, and
// the regular file R reads (nil when it is none), which may be mapped.
type Input struct {
	R     io.Reader
	Name  string
	File  *os.File
	Close func()
}

// ReadDocument reads the inputs, opened by open in turn, as one document:
// a single input as it is, without its byte order mark (the fast path:
// EncodeTOON checks it), or, with mapOK, mapped into memory (MapDocument)
// when it is a large enough regular file; the JSON values of several inputs
// make an array of them (Many). Its errors are open's, as they are, or
// *Error.
func ReadDocument(names []string, open func(name string) (*Input, error), limit int, mapOK bool) (*Document, error) {
	var values [][]byte
	var name string
	for _, n := range names {
		in, err := open(n)
		if err != nil {
			return nil, err
		}
		name = in.Name
		if mapOK && len(names) == 1 && in.File != nil {
			if d := MapDocument(in.File, name, limit); d != nil {
				return d, nil // EncodeTOON closes the file
			}
		}
		data, err := ReadAll(in.R, in.Name, limit)
		in.Close()
		if err != nil {
			return nil, err
		}
		if len(names) == 1 {
			// Without its byte order mark, which the statistics' compact
			// JSON has no place for (toon.FromJSON skips one too).
			return &Document{Name: name, Value: TrimBOM(data)}, nil
		}
		vs, err := JSONValues(in.Name, data, limit)
		if err != nil {
			return nil, err
		}
		values = append(values, vs...)
	}
	return &Document{Name: name, Value: JoinArray(values), Many: true, Inputs: len(names)}, nil
}

// ReadAll reads an input whole, refusing more than limit bytes (a TooLarge
// error). A regular file (r with a Stat method) is read into a buffer made
// once, of its size.
func ReadAll(r io.Reader, name string, limit int) ([]byte, error) {
	size := bytes.MinRead
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < int64(limit) {
			// Room for the whole file and the read that sees its end, so
			// that the buffer is never grown (and copied) on the way.
			size = int(st.Size()) + bytes.MinRead
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	n, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, &Error{Name: name, Kind: ReadFailed, Err: err}
	}
	if n > int64(limit) {
		return nil, &Error{Name: name, Kind: TooLarge, Err: fmt.Errorf("the input passes the limit of %d bytes", limit)}
	}
	return buf.Bytes(), nil
}

// JSONValues splits a text into its JSON values (copies), values back to
// back or NDJSON, for a TOON document: NaN, Infinity and -Infinity are
// values, as Python's json.loads reads them (toon.FromJSON writes them as
// null); a value that is not valid is a BadJSON *Error with its position.
func JSONValues(name string, data []byte, limit int) ([][]byte, error) {
	return jsonValues(name, data, limit, jsonv.DuplicatesError)
}

// jsonValues is JSONValues, objects whose member names repeat read as
// keep says (jsonv.Options.Duplicates).
func jsonValues(name string, data []byte, limit int, keep jsonv.Duplicates) ([][]byte, error) {
	jr := jsonv.NewReader(bytes.NewReader(data), jsonv.Options{MaxValueSize: int64(limit), NonFinite: true, Duplicates: keep})
	var out [][]byte
	for {
		v, _, err := jr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, JSONError(name, err)
		}
		out = append(out, bytes.Clone(v))
	}
}

// ReadDocumentKeeping is ReadDocument for inputs whose objects may repeat
// member names: each input is read whole and its values with one member
// of each name, as keep says (jsonv.Options.Duplicates), compact; one
// input of one value is that value, anything else an array of the values
// (Many). An input of no value is given as it is, for the encoder to
// refuse.
func ReadDocumentKeeping(names []string, open func(name string) (*Input, error), limit int, keep jsonv.Duplicates) (*Document, error) {
	var values [][]byte
	var name string
	var data []byte
	for _, n := range names {
		in, err := open(n)
		if err != nil {
			return nil, err
		}
		name = in.Name
		data, err = ReadAll(in.R, in.Name, limit)
		in.Close()
		if err != nil {
			return nil, err
		}
		vs, err := jsonValues(in.Name, data, limit, keep)
		if err != nil {
			return nil, err
		}
		values = append(values, vs...)
	}
	switch {
	case len(names) > 1:
		return &Document{Name: name, Value: JoinArray(values), Many: true, Inputs: len(names)}, nil
	case len(values) == 0:
		return &Document{Name: name, Value: TrimBOM(data)}, nil
	case len(values) == 1:
		return &Document{Name: name, Value: values[0]}, nil
	}
	return &Document{Name: name, Value: JoinArray(values), Many: true}, nil
}

// Array is the document of a single input (not Many) that holds several
// JSON values (NDJSON, values back to back): the array of them, as a Many
// document; nil when the document is Many, valid JSON, or one value (with
// NaN or Infinity, say). The error is JSONValues's: the first value that
// is not valid, with its position.
func (d *Document) Array() (*Document, error) {
	if d.Many || jsonv.Valid(d.Value) {
		return nil, nil
	}
	values, err := JSONValues(d.Name, d.Value, len(d.Value)+1)
	if err != nil || len(values) == 1 {
		return nil, err
	}
	return &Document{Name: d.Name, Value: JoinArray(values), Many: true}, nil
}

// JoinArray makes a JSON array of values.
func JoinArray(values [][]byte) []byte {
	n := 2
	for _, v := range values {
		n += len(v) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// EncodeTOON writes the document as TOON (toonx.FromJSON; a mapped table
// with toonx.EncodeTable, straight from the mapping). A mapped document's
// file is closed on return. A mapped file cut short while it is read is
// a ReadFailed *Error (mapfile.ErrCutShort), not a crash.
func (d *Document) EncodeTOON(w io.Writer, opts toonx.EncodeOptions) error {
	if d.mapped != nil {
		took, err := d.encodeMapped(w, opts)
		if took || err != nil {
			return err
		}
	}
	return toonx.FromJSON(w, d.Value, opts)
}

// encodeMapped encodes a document mapped in memory when it is a table
// (toonx.EncodeTable reads a value that may change or be cut short while it
// reads it); otherwise it reads the file into the document's value, for
// toonx.FromJSON. Either way the mapping and the file are closed on return.
func (d *Document) encodeMapped(w io.Writer, opts toonx.EncodeOptions) (took bool, err error) {
	m, f := d.mapped, d.file
	d.mapped, d.file = nil, nil
	defer f.Close()
	err = mapfile.Guard(m, func() error {
		var err error
		took, err = toonx.EncodeTable(w, m, opts)
		return err
	})
	mapfile.Unmap(m)
	if err == mapfile.ErrCutShort {
		return false, &Error{Name: d.Name, Kind: ReadFailed, Err: err}
	}
	if took || err != nil {
		return took, err
	}
	// Read rather than copied from the mapping, which would hold the file
	// twice for a while.
	d.Value, err = ReadAll(f, d.Name, d.limit)
	return false, err
}

// OneValue reports whether the source, one of inputs, holds one value
// that is not an array: it is the only input, JSON, TOON or YAML (one
// document), and its root is not an array. Such a value is written as itself (JSONSink.Single,
// DocumentSink.Single), not as an array of one record. An NDJSON stream
// is records, even of one line: a source read as NDJSON or, when its
// format was not named, a file named .ndjson or .jsonl. (One line on
// standard input, its format detected, is one value.) It is asked before
// the first record.
func (s *Source) OneValue(inputs int, named bool) bool {
	if f, ok := codec.FormatForExt(s.name); ok && f == codec.NDJSON && !named {
		return false
	}
	return inputs == 1 && !s.RootArray()
}

// RootArray reports whether the input's document is an array: JSON
// starting with "[", TOON whose first line that is not blank or a
// comment starts with "[", or a YAML stream of several documents, or of
// one whose root is a sequence. Other encodings hold records, an array. It
// peeks no further than the byte or line that decides, so that a live
// stream is not held back. It is asked before the first record.
func (s *Source) RootArray() bool {
	if s.format == codec.YAML {
		return s.yamlReader().Records() // the stream is read whole anyway
	}
	if s.format != codec.JSON && s.format != codec.TOON {
		return true
	}
	for n := 1; ; {
		n = max(n, s.br.Buffered())
		p, err := s.br.Peek(n)
		array, decided := RootArray(s.format, p, err != nil)
		if decided || err != nil {
			return array
		}
		n = len(p) + 1
	}
}

// RootArray decides from the start p of a JSON or TOON document whether
// its root is an array; whole says p is all there is. Undecided, more of
// the document is needed.
func RootArray(format codec.Format, p []byte, whole bool) (array, decided bool) {
	p = TrimBOM(p)
	if format == codec.JSON {
		t := jsonv.TrimSpace(p)
		return len(t) > 0 && t[0] == '[', len(t) > 0 || whole
	}
	for len(p) > 0 {
		line, rest, complete := bytes.Cut(p, []byte("\n"))
		t := bytes.TrimLeft(line, " ")
		switch {
		case len(bytes.TrimSpace(t)) == 0 || t[0] == '#':
			if !complete && !whole {
				return false, false // a blank or comment line, or not yet
			}
		default:
			return t[0] == '[', true
		}
		p = rest
	}
	return false, whole
}
