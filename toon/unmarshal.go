package toon

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"sort"
	"strconv"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// UnmarshalOptions configure everything that reads TOON: Unmarshal, a
// Decoder and ToJSON. The zero value decodes as the spec's defaults do:
// strict mode, an indentation of 2 spaces, numbers in an interface as
// float64, compact JSON from ToJSON. UseNumber and DisallowUnknownFields
// concern Go values, and ToJSON does not read them; JSONIndent and
// Elements concern JSON text, and only ToJSON reads them.
type UnmarshalOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// NonStrict turns off the strict-mode checks of §14 (strict is the
	// default) with v4.4's five recoveries, and no other: declared counts
	// are advisory, duplicate keys resolve last-write-wins, indentation
	// depth is floor(spaces/IndentSize) + tabs, blank lines inside arrays
	// are skipped, a block's first line may be more than one level deeper.
	// It never skips a line nor fills one in: a malformed header, a row
	// without a cell for each field, an indented first line, an
	// over-indented line or content after a root array is an error with
	// its position, as in strict mode.
	NonStrict bool
	// UseNumber puts a number decoded into an interface value as a
	// json.Number (its canonical text, an integer in plain digits)
	// instead of a float64.
	UseNumber bool
	// DisallowUnknownFields makes a key that matches no field of the
	// struct it is decoded into an error (an *UnmarshalFieldError).
	DisallowUnknownFields bool
	// MaxLineSize bounds one input line; 0 means 64 MiB.
	MaxLineSize int
	// MaxSize bounds the document, in bytes; 0 means no bound. A larger
	// document is an error that matches ErrTooLarge, met before it is
	// stored (Unmarshal) or as soon as the Decoder or ToJSON reads past
	// the bound.
	MaxSize int64
	// JSONIndent is the indentation unit of the JSON ToJSON writes, "  "
	// for the form of JSON.stringify(v, null, 2); "" writes compact JSON.
	JSONIndent string
	// Elements makes ToJSON write a root array as its elements, each as
	// one compact JSON value on its own line (NDJSON), instead of as one
	// array.
	Elements bool
}

// ErrTooLarge is matched by the error of a document larger than
// UnmarshalOptions.MaxSize.
var ErrTooLarge = errors.New("toon: document too large")

// sizeError is a document over the MaxSize.
type sizeError struct{ limit int64 }

func (e *sizeError) Error() string {
	return fmt.Sprintf("the document passes the limit of %d bytes", e.limit)
}

func (e *sizeError) Is(target error) bool { return target == ErrTooLarge }

// limitedReader reads r and fails past n bytes.
type limitedReader struct {
	r     io.Reader
	n     int64 // bytes left
	limit int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, &sizeError{l.limit}
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return 0, &sizeError{l.limit}
	}
	return n, err
}

// Unmarshal decodes the TOON document data (spec v4.4, strict mode) and
// stores its value in v, a non-nil pointer, as encoding/json's Unmarshal
// stores a JSON value: objects go to structs (fields matched by the
// `toon` tag, else the `json` tag, else the field name, exactly or else
// case-insensitively), to maps with string, integer or TextUnmarshaler
// keys, or to an interface as map[string]any; arrays go to slices, arrays
// or []any; numbers to Go numbers (exactly: an int64 or uint64 keeps every
// digit), to json.Number or, in an interface, float64; a type with an
// UnmarshalJSON method is given the JSON text of its value, one with
// UnmarshalText the text of a string (time.Time: RFC 3339). Numbers come
// in the canonical form of §2 (1.5 for 1.50); an integer that it writes
// with an exponent (from 1e21 up) is given to json.Number and UnmarshalJSON
// in plain digits, so that a *big.Int reads it.
//
// A malformed document gives a *SyntaxError, and v is left as it was; a
// value that does not fit its Go type gives an *UnmarshalTypeError for
// the first such value, after the rest has been stored, as encoding/json
// does. Hostile input is bounded: nesting deeper than 10000 levels is a
// *SyntaxError, a line longer than MaxLineSize too, and a declared array
// length sizes nothing.
func Unmarshal(data []byte, v any) error {
	return UnmarshalOptions{}.Unmarshal(data, v)
}

// Unmarshal decodes data into v as the package's Unmarshal does, with the
// options o.
func (o UnmarshalOptions) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{reflect.TypeOf(v)}
	}
	if o.MaxSize > 0 && int64(len(data)) > o.MaxSize {
		return &sizeError{o.MaxSize}
	}
	// The decoder makes the whole JSON form in the buffer, never
	// flushing it.
	buf := getJSONBuf(len(data))
	defer putJSONBuf(buf)
	d := newBytesDecoder(data, o.decodeOptions(), buf.b)
	err := d.run()
	buf.b = d.out
	putBytesDecoder(d)
	if err != nil {
		return wrapSyntaxError(err)
	}
	err = o.store(buf.b, rv)
	if te, ok := err.(*UnmarshalTypeError); ok {
		te.locate(data, o, te.jsonOff)
	}
	if fe, ok := err.(*UnmarshalFieldError); ok {
		fe.locate(data, o)
	}
	return err
}

// decodeOptions is what ToJSON, Unmarshal and a Decoder give the decoder.
func (o UnmarshalOptions) decodeOptions() decodeOptions {
	return decodeOptions{IndentSize: o.IndentSize, NonStrict: o.NonStrict, JSONIndent: o.JSONIndent, Elements: o.Elements, MaxLineSize: o.MaxLineSize}
}

// store decodes the valid compact JSON value js into the pointer rv.
func (o UnmarshalOptions) store(js []byte, rv reflect.Value) error {
	r := ureader{buf: js, keep: -1, useNumber: o.UseNumber, disallowUnknown: o.DisallowUnknownFields}
	return r.store(rv)
}

// store decodes the reader's value into the pointer rv: the first error
// of a method, else the first type or field error; errTruncated if the
// source ended early.
func (r *ureader) store(rv reflect.Value) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p != errTruncated {
				panic(p)
			}
			err = errTruncated
		}
	}()
	if err := decoderFor(rv.Type().Elem())(r, rv.Elem()); err != nil {
		return err
	}
	switch e := r.saved.(type) {
	case *UnmarshalTypeError:
		e.Field = pathString(e.segs)
		return e
	case *UnmarshalFieldError:
		e.Field = pathString(e.segs)
		return e
	}
	return nil
}

// A Decoder reads a TOON document from an input stream and stores it in
// Go values.
type Decoder struct {
	r    io.Reader
	opts UnmarshalOptions
	done bool
	err  error
}

// NewDecoder returns a Decoder that reads from r, to its end: a TOON
// stream is one document.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: r}
}

// UseNumber makes the Decoder put numbers decoded into an interface as
// json.Number rather than float64.
func (d *Decoder) UseNumber() { d.opts.UseNumber = true }

// DisallowUnknownFields makes a key that matches no field of the struct
// it is decoded into an error.
func (d *Decoder) DisallowUnknownFields() { d.opts.DisallowUnknownFields = true }

// SetOptions sets the Decoder's options, UseNumber and
// DisallowUnknownFields among them.
func (d *Decoder) SetOptions(o UnmarshalOptions) { d.opts = o }

// Decode reads the TOON document from the input, up to its end (a TOON
// stream is one document), and stores its value in v as Unmarshal does.
// An empty input is the empty object (§12 of the spec). After the
// document has been decoded, or an error met, later calls return io.EOF
// or the same error.
//
// It reads in constant memory, as ToJSON does: the document's JSON form
// is stored in v chunk by chunk as the lines are read, never held whole
// (v itself holds what it holds; in non-strict mode an object's JSON is
// held until the object closes, as ToJSON holds it). So, unlike Unmarshal, a document found
// malformed at line n leaves v with what the lines before n stored; the
// error is a *SyntaxError all the same.
func (d *Decoder) Decode(v any) error {
	if d.err != nil {
		return d.err
	}
	if d.done {
		return io.EOF
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{reflect.TypeOf(v)}
	}
	d.done = true
	var derr error
	lines := new(lineTable)
	next, stop := iter.Pull(func(yield func([]byte) bool) {
		in := d.r
		if d.opts.MaxSize > 0 {
			in = &limitedReader{r: in, n: d.opts.MaxSize, limit: d.opts.MaxSize}
		}
		dec := newStreamDecoder(yieldWriter(yield), in, d.opts.decodeOptions())
		dec.flushAt = decoderChunk
		dec.onLine = lines.add
		derr = dec.decode()
		putBytesDecoder(dec)
	})
	defer stop()
	r := ureader{keep: -1, src: next, lines: lines, useNumber: d.opts.UseNumber, disallowUnknown: d.opts.DisallowUnknownFields}
	err := r.store(rv)
	// The rest of the document is read: a syntax error comes before any
	// other, as with Unmarshal.
	for _, ok := next(); ok; _, ok = next() {
	}
	if derr != nil {
		err = wrapSyntaxError(derr)
	}
	d.err = err
	return err
}

// decoderChunk is the size of the chunks of JSON a Decoder stores; tests
// make it 1, a chunk for each line.
var decoderChunk = decodeFlushSize

// yieldWriter hands each chunk Decode writes to the reader of a Decoder.
type yieldWriter func([]byte) bool

func (w yieldWriter) Write(p []byte) (int, error) {
	if !w(p) {
		return 0, errDecoderStopped
	}
	return len(p), nil
}

var errDecoderStopped = errors.New("toon: decoder stopped")

// SyntaxError is a malformed TOON document: the message, and the line and
// column (1-based, in characters) where the fault was found. It wraps the
// *jsonv.SyntaxError that toonkit's byte-level decoder gives, which holds
// an excerpt of the line.
type SyntaxError struct {
	Line, Column int
	Offset       int64 // byte offset in the input
	Msg          string
	err          *jsonv.SyntaxError
}

// Error returns the message with the position: the text of ToJSON's error.
func (e *SyntaxError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap returns the *jsonv.SyntaxError with the excerpt of the line.
func (e *SyntaxError) Unwrap() error {
	if e.err == nil {
		return nil
	}
	return e.err
}

// wrapSyntaxError turns the decoder's *jsonv.SyntaxError into a *SyntaxError;
// other errors (of the reader) are returned as they are.
func wrapSyntaxError(err error) error {
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Line: se.Pos.Line, Column: se.Pos.Column, Offset: se.Pos.Offset, Msg: se.Msg, err: se}
	}
	return err
}

// UnmarshalTypeError is a TOON value that cannot be stored in the Go
// value of its place.
type UnmarshalTypeError struct {
	Value string       // the TOON value: "string", "number 1.5", "object", "array", "bool"
	Type  reflect.Type // the Go type it could not be stored in
	// Field is the path of the value from the root: keys joined by dots,
	// array indexes in brackets ("users[3].tags[0]"); "" for the root.
	Field string
	// Line and Column (1-based) locate the value in the input: the line
	// and the start of its content (a key, a row, a list item).
	Line, Column int
	// Err is the error of an UnmarshalText or UnmarshalJSON method, or
	// of a number's conversion, if any.
	Err error

	jsonOff int64 // offset of the value in the JSON form
	segs    []pathSeg
}

// Error returns "line:column: toon: cannot unmarshal ... into Go value ... of type ...".
func (e *UnmarshalTypeError) Error() string {
	var b []byte
	if e.Line > 0 {
		b = fmt.Appendf(b, "%d:%d: ", e.Line, e.Column)
	}
	b = append(b, "toon: cannot unmarshal "...)
	b = append(b, e.Value...)
	b = append(b, " into Go "...)
	if e.Field != "" {
		b = append(b, "value "...)
		b = append(b, e.Field...)
		b = append(b, " of type "...)
	} else {
		b = append(b, "value of type "...)
	}
	b = append(b, e.Type.String()...)
	if e.Err != nil {
		b = append(b, ": "...)
		b = append(b, e.Err.Error()...)
	}
	return string(b)
}

// Unwrap returns the error of the method or conversion that failed, if any.
func (e *UnmarshalTypeError) Unwrap() error { return e.Err }

// UnmarshalFieldError is a key that matches no field of the struct it is
// decoded into, when unknown fields are disallowed.
type UnmarshalFieldError struct {
	Key          string
	Type         reflect.Type // the struct type
	Field        string       // the path of the key, as in UnmarshalTypeError
	Line, Column int          // of the key, when known

	jsonOff int64
	segs    []pathSeg
}

// Error returns "line:column: toon: unknown field ... in Go value of type ...".
func (e *UnmarshalFieldError) Error() string {
	var b []byte
	if e.Line > 0 {
		b = fmt.Appendf(b, "%d:%d: ", e.Line, e.Column)
	}
	b = fmt.Appendf(b, "toon: unknown field %s in Go value of type %s", strconv.Quote(e.Key), e.Type)
	if e.Field != "" {
		b = append(b, " at "...)
		b = append(b, e.Field...)
	}
	return string(b)
}

// InvalidUnmarshalError is an argument of Unmarshal or Decoder.Decode that is not
// a non-nil pointer.
type InvalidUnmarshalError struct {
	Type reflect.Type
}

// Error returns what the argument is instead of a non-nil pointer.
func (e *InvalidUnmarshalError) Error() string {
	if e.Type == nil {
		return "toon: Unmarshal(nil)"
	}
	if e.Type.Kind() != reflect.Pointer {
		return "toon: Unmarshal(non-pointer " + e.Type.String() + ")"
	}
	return "toon: Unmarshal(nil " + e.Type.String() + ")"
}

// errLineHook stops a decoder whose onLine hook says so.
var errLineHook = errors.New("toon: stopped by the line hook")

// locateJSON finds the line of data whose decoding writes the byte at
// offset off of the JSON form: its number and the column (1-based) of its
// content. 0, 0 if it is not found.
func locateJSON(data []byte, o UnmarshalOptions, off int64) (line, col int) {
	d := newBytesDecoder(data, o.decodeOptions(), nil)
	d.onLine = func(end int64, ln, c int) bool {
		if end > off {
			line, col = ln, c+1
			return true
		}
		return false
	}
	d.run() // errLineHook once found
	putBytesDecoder(d)
	return line, col
}

// lineTable maps the JSON form held by a Decoder's reader to the lines
// it came from: the end of each line's JSON, in order.
type lineTable struct {
	ends  []lineEnd
	start int // ends[:start] are dropped
}

type lineEnd struct {
	end       int64
	line, col int32
}

func (t *lineTable) add(end int64, line, col int) bool {
	t.ends = append(t.ends, lineEnd{end, int32(line), int32(col)})
	return false
}

// drop forgets the lines whose JSON ends before base.
func (t *lineTable) drop(base int64) {
	for t.start < len(t.ends) && t.ends[t.start].end <= base {
		t.start++
	}
	if t.start > 1024 && t.start > len(t.ends)/2 {
		n := copy(t.ends, t.ends[t.start:])
		t.ends, t.start = t.ends[:n], 0
	}
}

// find is the line and column (1-based) of the byte at off; 0, 0 if the
// table does not hold it.
func (t *lineTable) find(off int64) (line, col int) {
	e := t.ends[t.start:]
	i := sort.Search(len(e), func(i int) bool { return e[i].end > off })
	if i == len(e) {
		return 0, 0
	}
	return int(e[i].line), int(e[i].col) + 1
}

func (e *UnmarshalTypeError) locate(data []byte, o UnmarshalOptions, off int64) {
	e.Line, e.Column = locateJSON(data, o, off)
}

func (e *UnmarshalFieldError) locate(data []byte, o UnmarshalOptions) {
	e.Line, e.Column = locateJSON(data, o, e.jsonOff)
}
