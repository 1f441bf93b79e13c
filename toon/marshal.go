package toon

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Marshal returns the TOON document of v, without a final newline (§12).
//
// The document is byte for byte FromJSON(json.Marshal(v)) (where no toon tag
// says otherwise): Go values map to TOON as encoding/json maps them to
// JSON, then as FromJSON writes that JSON.
//   - Struct fields are named by their `toon:"..."` tag, or by their
//     `json:"..."` tag when they have no toon tag, with encoding/json's
//     rules (omitempty, omitzero, string, "-", embedded structs, unexported
//     fields skipped).
//   - Maps with string (or integer, or encoding.TextMarshaler) keys are
//     objects with their keys sorted; slices and arrays are arrays (a
//     []byte is a base64 string); pointers and interfaces are their
//     value, nil is null.
//   - A time.Time is its RFC 3339 string; a json.Number, an int64, a
//     uint64 and a *big.Int keep all their digits; floats are written with
//     the shortest digits that read back as the same float.
//   - A json.Marshaler is written through its JSON, an
//     encoding.TextMarshaler as its text.
//
// An array of objects of one shape whose fields hold primitives (or
// objects of one shape in turn) is a table (§9.3), other arrays of objects
// are lists; an object whose members are all objects of one shape takes
// the keyed table form (§9.5). Marshal returns an
// *UnsupportedTypeError for channels, functions and complex numbers, an
// *UnsupportedValueError for NaN, ±Inf and cyclic values, and a
// *MarshalerError when a MarshalJSON or MarshalText method fails.
//
// Marshal walks v by reflection with encoders cached per type, writing
// TOON directly. Parts it cannot decide alone go through json.Marshal and
// the byte-level encoder, so that the output never differs from FromJSON's;
// they cost what json.Marshal and FromJSON cost: an object whose first two
// members are objects but not all of one struct type of primitives (it
// may be a keyed table), a table whose nested field groups are maps or
// structs with optional fields, a json.Marshaler's output, a map with
// other keys than strings.
func Marshal(v any) ([]byte, error) {
	return MarshalOptions{}.Marshal(v)
}

// MarshalOptions configure everything that writes TOON: Marshal, an
// Encoder and FromJSON. The zero value is the default: two spaces per
// level and the comma delimiter.
type MarshalOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// Delimiter is the document delimiter (§11.1): Comma (the default,
	// also for 0), Tab or Pipe.
	Delimiter Delimiter
}

// encodeOptions is what FromJSON and Marshal give the encoder.
func (o MarshalOptions) encodeOptions() encodeOptions {
	return encodeOptions{IndentSize: o.IndentSize, Delimiter: byte(o.Delimiter)}
}

// Marshal returns the TOON document of v with the options o, as the
// package function Marshal does.
func (o MarshalOptions) Marshal(v any) ([]byte, error) {
	m := getMarshalState()
	defer putMarshalState(m)
	// The document is made in a buffer of the size that the last
	// document of v's type had per element (of a slice, array or map; of
	// the value itself for other kinds, up to maxSizeHint), which is then
	// the result: no copy, and no growth when the documents of a type
	// have about one size per element.
	var hint *atomic.Int64
	units := int64(1)
	if v != nil {
		rv := reflect.ValueOf(v)
		hint = &planFor(rv.Type()).size
		for rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		switch rv.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			units += int64(rv.Len())
		}
	}
	pooled := m.e.out
	m.e.out = nil
	if hint != nil {
		if n := hint.Load() * units; n > 0 && (units > 1 || n <= maxSizeHint) {
			m.e.out = make([]byte, 0, n+n/16+64)
		}
	}
	err := m.write(v, o)
	out := m.e.out
	m.e.out = pooled
	if err != nil {
		return nil, err
	}
	if hint != nil {
		hint.Store(int64(len(out)) / units)
	}
	return out, nil
}

// maxSizeHint bounds the buffer made for a value that is not a container
// from the size of the last one.
const maxSizeHint = 256 << 10

// write makes the document of v in m.e.out.
func (m *marshalState) write(v any, o MarshalOptions) error {
	if err := m.reset(o, m.e.out); err != nil {
		return err
	}
	err := m.marshal(v)
	if err == errRestart {
		m.e.out, m.e.lines, m.e.dash = m.e.out[:0], false, -1
		var js []byte
		if js, err = json.Marshal(v); err != nil {
			return fromJSONError(err)
		}
		err = m.e.encodeSub(js, func(e *encoder) { e.root(e.ws(0)) })
	}
	return err
}

// An Encoder writes a TOON document to an output stream.
type Encoder struct {
	w    io.Writer
	opts MarshalOptions
	done bool // a document has been written
}

// ErrSecondDocument is the error of an Encoder's Encode called after it
// has written its document: TOON has no separator between documents, so
// a stream holds one (as a Decoder reads it).
var ErrSecondDocument = errors.New("toon: Encoder.Encode called twice: a TOON stream holds one document")

// NewEncoder returns an Encoder that writes to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w}
}

// SetOptions sets the indentation and delimiter of the documents written
// from now on.
func (enc *Encoder) SetOptions(o MarshalOptions) {
	enc.opts = o
}

// Encode writes the TOON document of v (see Marshal) to the stream,
// followed by a newline, in one Write; on an error it writes nothing.
// A stream holds one document, since TOON has no separator between
// documents: once a document has been written, a later call writes
// nothing and returns ErrSecondDocument. (To write several values, encode
// a slice of them: one document, an array, which a Decoder reads back
// into a slice.) A call that failed wrote nothing, and the next may write
// the document.
func (enc *Encoder) Encode(v any) error {
	if enc.done {
		return ErrSecondDocument
	}
	m := getMarshalState()
	defer putMarshalState(m)
	if err := m.write(v, enc.opts); err != nil {
		return err
	}
	m.e.out = append(m.e.out, '\n')
	n, err := enc.w.Write(m.e.out)
	enc.done = n > 0 // a failed Write that wrote part of it has begun the stream
	if cap(m.e.out) > 1<<20 {
		m.e.out = nil // a large document's buffer is not kept
	}
	return err
}

// An UnsupportedTypeError is returned by Marshal for a value of a type it
// cannot write: a channel, a function, a complex number, a map with keys
// of another type than strings, integers and encoding.TextMarshaler.
type UnsupportedTypeError struct {
	Type reflect.Type
}

// Error says which type.
func (e *UnsupportedTypeError) Error() string {
	return "toon: unsupported type: " + e.Type.String()
}

// An UnsupportedValueError is returned by Marshal for a value it cannot
// write: a NaN or infinite float, a cyclic structure, an invalid
// json.Number.
type UnsupportedValueError struct {
	Value reflect.Value
	Str   string
}

// Error says which value.
func (e *UnsupportedValueError) Error() string {
	return "toon: unsupported value: " + e.Str
}

// A MarshalerError is a failure of a MarshalJSON or MarshalText method, or
// invalid JSON returned by MarshalJSON.
type MarshalerError struct {
	Type   reflect.Type
	Err    error
	method string // MarshalJSON or MarshalText
}

// Error names the method, the type and the method's error.
func (e *MarshalerError) Error() string {
	method := e.method
	if method == "" {
		method = "MarshalJSON"
	}
	return "toon: error calling " + method + " for type " + e.Type.String() + ": " + e.Err.Error()
}

// Unwrap returns the method's error.
func (e *MarshalerError) Unwrap() error { return e.Err }

// fromJSONError turns an error of json.Marshal into this package's type.
func fromJSONError(err error) error {
	var ute *json.UnsupportedTypeError
	var uve *json.UnsupportedValueError
	var me *json.MarshalerError
	switch {
	case errors.As(err, &ute):
		return &UnsupportedTypeError{Type: ute.Type}
	case errors.As(err, &uve):
		return &UnsupportedValueError{Value: uve.Value, Str: uve.Str}
	case errors.As(err, &me):
		method := "MarshalJSON"
		if strings.Contains(me.Error(), "MarshalText") {
			method = "MarshalText"
		}
		return &MarshalerError{Type: me.Type, Err: me.Err, method: method}
	}
	// json.Number: "json: invalid number literal %q".
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return &UnsupportedValueError{Str: msg}
}

// errRestart stops the reflection walk: the value is written through
// json.Marshal and FromJSON instead, which give the error, if any, that
// encoding/json gives.
var errRestart = errors.New("toon: restart through JSON")

var marshalStates = sync.Pool{New: func() any { return new(marshalState) }}

func getMarshalState() *marshalState { return marshalStates.Get().(*marshalState) }

func putMarshalState(m *marshalState) {
	m.e.in, m.e.index = nil, nil
	clear(m.keys)
	m.keys = m.keys[:0]
	marshalStates.Put(m)
}

// reset prepares m to write with the options o.
func (m *marshalState) reset(o MarshalOptions, out []byte) error {
	e, err := newEncoderUnchecked(io.Discard, nil, o.encodeOptions())
	if err != nil {
		return err
	}
	m.e = *e
	m.e.out, m.e.hold = out[:0], true
	m.sclass = m.e.class
	for c := utf8.RuneSelf; c < 256; c++ {
		m.sclass[c] = classStop
	}
	m.level = 0
	return nil
}

// encodeSub writes, with the byte-level encoder's walk fn, the JSON text
// js into the output of e, at the output position of e: the part of a
// document that the reflection walk hands over.
func (e *encoder) encodeSub(js []byte, fn func(e *encoder)) error {
	index, err := validateJSON(js, nil) // a Marshaler's NaN is an error, as in encoding/json
	if err != nil {
		return err
	}
	in, idx := e.in, e.index
	e.in, e.index = js, index
	fn(e)
	e.in, e.index = in, idx
	return nil
}
