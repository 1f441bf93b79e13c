package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/mapfile"
	"github.com/toonkit/toonkit/internal/outfile"
	"github.com/toonkit/toonkit/internal/toonx"
	_ "github.com/toonkit/toonkit/toon" // registers toonx's transcoders
)

// MapThreshold is the size from which MapDocument maps a file into memory
// rather than have it read: reading a file costs a page fault per 4 KiB of
// a new buffer, besides the copy.
const MapThreshold = 1 << 20

// StreamFrom is the size from which a document is encoded in bounded
// memory: its file is mapped without being read up front, and its pages
// are let go of as the encoder goes through them (toonx.EncodeOptions.Release),
// so that a document of any size is encoded in tens of megabytes. Standard
// input of that size or more is written to a temporary file first (the
// encoder goes through a document twice: TOON declares every array's length
// before its items) from SpoolFrom bytes on. A smaller document is mapped
// whole, or read.
const StreamFrom = 16 << 20

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
	// most it may be read of it into memory. stream says the mapping is
	// lazy, for the bounded-memory encoding (StreamFrom), and stat is
	// the file's state when it was mapped. done, when not nil, removes
	// the temporary file that standard input was written to.
	mapped []byte
	file   *os.File
	limit  int
	stream bool
	stat   os.FileInfo
	done   func()
}

// MapDocument is the document of f, a regular file of MapThreshold bytes
// or more, mapped into memory instead of read; nil when f is no such file
// or cannot be mapped. A file of StreamFrom bytes or more is encoded in
// bounded memory, whatever its size; limit is the most that may be read of
// it into memory when it holds several JSON values (NDJSON), which make an
// array. EncodeTOON reads it and closes f.
func MapDocument(f *os.File, name string, limit int) *Document {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < MapThreshold {
		return nil
	}
	stream := st.Size() >= StreamFrom
	var m []byte
	if stream {
		m = mapfile.MapLazy(f, st.Size())
	} else {
		m = mapfile.Map(f, st.Size())
		limit = max(limit, int(st.Size())) // read whole if not a table
	}
	if m == nil {
		return nil
	}
	return &Document{Name: name, mapped: m, file: f, limit: limit, stream: stream, stat: st}
}

// Input is an input ReadDocument reads: R, its name for messages, and
// the regular file R reads (nil when it is none), which may be mapped.
type Input struct {
	R     io.Reader
	Name  string
	File  *os.File
	Close func()
	// Regular says that R is a regular file, which ReadDocument need not
	// write to a temporary file to go through it twice.
	Regular bool
}

// ReadDocument reads the inputs, opened by open in turn, as one document:
// a single input as it is, without its byte order mark (the fast path:
// EncodeTOON checks it), or, with mapOK, mapped into memory (MapDocument)
// when it is a large enough regular file, or written to a temporary file
// and mapped when it is a stream of StreamFrom bytes or more (standard
// input); the JSON values of several inputs make an array of them (Many).
// Its errors are open's, as they are, or *Error.
func ReadDocument(names []string, open func(name string) (*Input, error), limit int, mapOK bool) (*Document, error) {
	var values [][]byte
	var name string
	for _, n := range names {
		in, err := open(n)
		if err != nil {
			return nil, err
		}
		name = in.Name
		if mapOK && len(names) == 1 {
			if in.File != nil {
				if d := MapDocument(in.File, name, limit); d != nil {
					return d, nil // EncodeTOON closes the file
				}
			}
			if !in.Regular {
				defer in.Close()
				return spoolDocument(in, limit)
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

// SpoolFrom is the size from which a document on a stream (standard input)
// is written to a temporary file, to be mapped as a file is, rather than
// read into memory.
const SpoolFrom = 4 << 20

// spoolDocument reads a stream (standard input) as one document: in memory
// when it ends within SpoolFrom bytes, or else written to a temporary file
// (outfile.Spool) that is mapped as MapDocument maps a large file, and
// removed once the document is encoded. When the temporary file cannot be
// made or mapped, the stream is read into memory, up to limit bytes.
func spoolDocument(in *Input, limit int) (*Document, error) {
	head := make([]byte, SpoolFrom) // made once, at its size: no garbage of growing it
	n, err := io.ReadFull(in.R, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &Document{Name: in.Name, Value: TrimBOM(head[:n])}, nil
	}
	if err != nil {
		return nil, &Error{Name: in.Name, Kind: ReadFailed, Err: err}
	}
	sp, err := outfile.NewSpool("input")
	var d *Document
	if err == nil {
		d, err = spoolTo(sp, head, in, limit)
		if d == nil {
			sp.Remove()
		}
	}
	if d != nil || err != nil && !isTempError(err) {
		return d, err
	}
	// No temporary file: in memory, as far as the limit lets it.
	data, rerr := ReadAll(io.MultiReader(bytes.NewReader(head), in.R), in.Name, limit)
	var re *Error
	if errors.As(rerr, &re) && re.Kind == TooLarge && err != nil {
		re.Err = fmt.Errorf("%w, and it could not be written to a temporary file: %v", re.Err, err)
	}
	if rerr != nil {
		return nil, rerr
	}
	return &Document{Name: in.Name, Value: TrimBOM(data)}, nil
}

// spoolTo writes head and the rest of in to sp and maps it: the document,
// or nil when it cannot be mapped. Its error is the temporary file's (a
// *outfile.TempError) or in's.
func spoolTo(sp *outfile.Spool, head []byte, in *Input, limit int) (*Document, error) {
	if _, err := sp.W.Write(head); err != nil {
		return nil, sp.Fail(err)
	}
	r := &noteReader{r: in.R}
	if _, err := sp.W.ReadFrom(r); err != nil {
		if r.err != nil {
			return nil, &Error{Name: in.Name, Kind: ReadFailed, Err: r.err}
		}
		return nil, sp.Fail(err)
	}
	f, err := sp.File()
	if err != nil {
		return nil, err
	}
	d := MapDocument(f, in.Name, limit)
	if d == nil {
		return nil, nil
	}
	d.done = sp.Remove
	return d, nil
}

// noteReader is r, its error noted.
type noteReader struct {
	r   io.Reader
	err error
}

func (n *noteReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		n.err = err
	}
	return k, err
}

// isTempError reports whether err is an error of a temporary file.
func isTempError(err error) bool {
	var te *outfile.TempError
	return errors.As(err, &te)
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
// with toonx.EncodeTable, straight from the mapping; a document of
// StreamFrom bytes or more in bounded memory). A mapped document's file is
// closed on return. A mapped file cut short, or changed, while it is read
// is a ReadFailed *Error (mapfile.ErrCutShort, ErrChanged), not a crash.
func (d *Document) EncodeTOON(w io.Writer, opts toonx.EncodeOptions) error {
	if d.done != nil {
		defer d.done()
		d.done = nil
	}
	if d.mapped != nil && d.stream {
		return d.encodeStreamed(w, opts)
	}
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
	d.Value, err = d.readMapped(f, len(m))
	return false, err
}

// readMapped reads the n bytes of the mapped file f into memory: read
// rather than copied from the mapping, which would hold the file twice for
// a while; from its start, the size it was mapped at (a spool's offset is
// at its end).
func (d *Document) readMapped(f *os.File, n int) ([]byte, error) {
	b := make([]byte, n)
	if k, err := f.ReadAt(b, 0); k < n {
		if err == io.EOF {
			err = mapfile.ErrCutShort
		}
		return nil, &Error{Name: d.Name, Kind: ReadFailed, Err: err}
	}
	return b, nil
}

// ErrChanged is the error of a mapped file that changed while it was
// encoded: the encoder goes through it twice, and trusts on the second
// pass what it checked on the first.
var ErrChanged = errors.New("it changed while it was read")

// encodeStreamed encodes a document mapped lazily in bounded memory: the
// pages gone through are let go of as the encoder goes (mapfile.Release),
// and the file is checked for changes each time (mapfile.Same): a changed
// file is an error, and so is any fault of the walk over it. The mapping
// and the file are closed on return.
func (d *Document) encodeStreamed(w io.Writer, opts toonx.EncodeOptions) error {
	m, f := d.mapped, d.file
	d.mapped, d.file = nil, nil
	defer f.Close()
	defer mapfile.Unmap(m)
	changed := func() bool {
		st, err := f.Stat()
		return err != nil || !mapfile.Same(d.stat, st)
	}
	opts.Release = func() {
		mapfile.Release(m)
		if changed() {
			panic(ErrChanged)
		}
	}
	err := mapfile.Guard(m, func() (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if _, fault := r.(interface{ Addr() uintptr }); fault {
				panic(r) // Guard's to tell
			}
			if r != ErrChanged && !changed() {
				panic(r)
			}
			err = ErrChanged
		}()
		return toonx.FromJSON(w, m, opts)
	})
	if err != mapfile.ErrCutShort && changed() {
		err = ErrChanged // whatever the encoder made of it
	}
	if err == mapfile.ErrCutShort || err == ErrChanged {
		return &Error{Name: d.Name, Kind: ReadFailed, Err: err}
	}
	if _, _, _, ok := toonx.InputError(err); ok {
		return d.streamedInputError(m, f, err)
	}
	return err
}

// streamedInputError is the error of a document encoded in bounded memory
// that the encoder did not accept (err, a toonx.InputError). Read again
// with the JSON reader, as ReadDocument's documents are when they fail,
// the error gets the same words and JSON pointer when its values are within
// the limit; several values (NDJSON) are read into memory, within the
// limit, for Array to make an array of them: err is returned for that.
// Otherwise the error is the encoder's, at its line and column.
func (d *Document) streamedInputError(m []byte, f *os.File, err error) error {
	jr := jsonv.NewReader(io.NewSectionReader(f, 0, int64(len(m))), jsonv.Options{MaxValueSize: int64(d.limit), NonFinite: true})
	values := 0
	for {
		_, _, jerr := jr.Next()
		if jerr == io.EOF {
			break
		}
		if jerr != nil && !errors.Is(jerr, jsonv.ErrTooLarge) {
			return JSONError(d.Name, jerr)
		}
		if jerr != nil {
			values = -1 // a value too large for the reader: the encoder's error
			break
		}
		values++
	}
	if values >= 2 {
		if len(m) > d.limit {
			return &Error{Name: d.Name, Kind: TooLarge, Err: fmt.Errorf("it holds several JSON values (NDJSON, say), which make one array that is built in memory, and it passes the limit of %d bytes for that", d.limit)}
		}
		var rerr error
		if d.Value, rerr = d.readMapped(f, len(m)); rerr != nil {
			return rerr
		}
		return err
	}
	off, msg, dup, _ := toonx.InputError(err)
	off += len(m) - len(TrimBOM(m)) // the encoder counts from past a byte order mark
	se := jsonv.SyntaxErrorAt(m, int64(off), msg)
	se.DuplicateName = dup
	return &Error{Name: d.Name, Kind: BadJSON, Err: se}
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
