package toon

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
)

// Marshal returns the TOON document of v, without a final newline (§12).
//
// The document is byte for byte Encode(json.Marshal(v)): Go values map to
// TOON as encoding/json maps them to JSON, then as Encode writes that JSON.
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
// An array of structs whose fields all hold primitives is a table (§9.3),
// other arrays of objects are lists. Marshal returns an
// *UnsupportedTypeError for channels, functions and complex numbers, an
// *UnsupportedValueError for NaN, ±Inf and cyclic values, and a
// *MarshalerError when a MarshalJSON or MarshalText method fails.
//
// Marshal walks v by reflection with encoders cached per type, writing
// TOON directly; parts it cannot decide alone (an object whose members
// may form a keyed table, a table with nested field groups, a
// json.Marshaler's output) go through json.Marshal and the byte-level
// encoder, so the output never differs from Encode's.
func Marshal(v any) ([]byte, error) {
	return MarshalOptions{}.Marshal(v)
}

// MarshalOptions configure Marshal and an Encoder. The zero value is the
// default: two spaces per level and the comma delimiter.
type MarshalOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// Delimiter is the document delimiter (§11.1): Comma (the default,
	// also for 0), Tab or Pipe.
	Delimiter Delimiter
}

// Marshal returns the TOON document of v with the options o, as the
// package function Marshal does.
func (o MarshalOptions) Marshal(v any) ([]byte, error) {
	var out sliceWriter
	if err := o.write(&out, v); err != nil {
		return nil, err
	}
	return out.b, nil
}

// write writes the document of v to w, as one Write when w is not a
// sliceWriter.
func (o MarshalOptions) write(w io.Writer, v any) error {
	m := getMarshalState()
	defer putMarshalState(m)
	if err := m.reset(w, o); err != nil {
		return err
	}
	err := m.marshal(v)
	if err == errRestart {
		m.e.out, m.e.lines, m.e.dash = m.e.out[:0], false, -1
		var js []byte
		if js, err = json.Marshal(v); err != nil {
			return fromJSONError(err)
		}
		if err = m.e.encodeSub(js, func(e *encoder) { e.root(e.ws(0)) }); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	m.e.flush()
	return m.e.err
}

// sliceWriter collects what is written in b.
type sliceWriter struct{ b []byte }

func (s *sliceWriter) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

// An Encoder writes TOON documents to an output stream.
type Encoder struct {
	w    io.Writer
	opts MarshalOptions
	buf  sliceWriter
}

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
// Each call writes one whole document: several calls write documents one
// after another, each ending with its newline, which a TOON decoder reads
// as one document only when there is a single call (TOON has no
// separator between documents).
func (enc *Encoder) Encode(v any) error {
	enc.buf.b = enc.buf.b[:0]
	if err := enc.opts.write(&enc.buf, v); err != nil {
		return err
	}
	enc.buf.b = append(enc.buf.b, '\n')
	_, err := enc.w.Write(enc.buf.b)
	if cap(enc.buf.b) > 1<<20 {
		enc.buf.b = nil // do not hold a large document's buffer
	}
	return err
}

// An UnsupportedTypeError is returned by Marshal for a value of a type it
// cannot write: a channel, a function, a complex number, a map with keys
// of another type than strings, integers and encoding.TextMarshaler.
type UnsupportedTypeError struct {
	Type reflect.Type
}

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
// json.Marshal and Encode instead, which give the error, if any, that
// encoding/json gives.
var errRestart = errors.New("toon: restart through JSON")

var marshalStates = sync.Pool{New: func() any { return new(marshalState) }}

func getMarshalState() *marshalState { return marshalStates.Get().(*marshalState) }

func putMarshalState(m *marshalState) {
	if cap(m.e.out) > 4*encodeChunk {
		m.e.out = nil
	}
	m.e.w, m.e.in, m.e.index = nil, nil, nil
	clear(m.keys)
	clear(m.vals)
	m.keys, m.vals = m.keys[:0], m.vals[:0]
	marshalStates.Put(m)
}

// reset prepares m to write to w with the options o.
func (m *marshalState) reset(w io.Writer, o MarshalOptions) error {
	e, err := newEncoderUnchecked(w, nil, EncodeOptions(o))
	if err != nil {
		return err
	}
	out := m.e.out
	if out == nil {
		out = make([]byte, 0, encodeChunk+encodeChunk/4)
	}
	m.e = *e
	m.e.out = out[:0]
	m.level = 0
	return nil
}

// encodeSub writes, with the byte-level encoder's walk fn, the JSON text
// js into the output of e, at the output position of e: the part of a
// document that the reflection walk hands over.
func (e *encoder) encodeSub(js []byte, fn func(e *encoder)) error {
	index, err := validateJSON(js)
	if err != nil {
		return err
	}
	in, idx := e.in, e.index
	e.in, e.index = js, index
	fn(e)
	e.in, e.index = in, idx
	return nil
}
