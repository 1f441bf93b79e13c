package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/kado"
)

// Sink writes records, compact JSON values, in one encoding.
type Sink interface {
	// Write writes the next record.
	Write(rec []byte) error
	// End ends the output, after the last record.
	End() error
}

// JSONSink writes the records as one JSON array, indented by two spaces
// or Compact on one line; or, Single, the one record of an input that is
// one value as itself (until a second record comes: then it is an array).
// The output ends with a newline.
type JSONSink struct {
	W       io.Writer
	Compact bool
	Single  bool
	held    []byte
	n       int
	buf     []byte
}

// Write writes rec as the array's next element.
func (s *JSONSink) Write(rec []byte) error { return s.WriteIndented(rec, nil) }

// WriteIndented writes rec, given indented as an element of the indented
// array (jsonv.AppendIndent(nil, rec, "  ", "  ")) when it is not nil: a
// caller may indent the records on workers of its own.
func (s *JSONSink) WriteIndented(rec, indented []byte) error {
	if s.Single {
		if s.n == 0 {
			s.held, s.n = append(s.held[:0], rec...), 1
			return nil
		}
		s.Single, s.n = false, 0
		if err := s.element(s.held, nil); err != nil {
			return err
		}
	}
	return s.element(rec, indented)
}

// element writes a record as the array's next element.
func (s *JSONSink) element(rec, indented []byte) error {
	s.buf = s.buf[:0]
	switch {
	case s.Compact && s.n == 0:
		s.buf = append(s.buf, '[')
	case s.Compact:
		s.buf = append(s.buf, ',')
	case s.n == 0:
		s.buf = append(s.buf, "[\n  "...)
	default:
		s.buf = append(s.buf, ",\n  "...)
	}
	switch {
	case s.Compact:
		s.buf = append(s.buf, rec...)
	case indented != nil:
		s.buf = append(s.buf, indented...)
	default:
		s.buf = jsonv.AppendIndent(s.buf, rec, "  ", "  ")
	}
	s.n++
	_, err := s.W.Write(s.buf)
	return err
}

// End closes the array (or writes the single value) and the line.
func (s *JSONSink) End() error {
	var err error
	switch {
	case s.Single && s.n == 1 && s.Compact:
		_, err = s.W.Write(append(append(s.buf[:0], s.held...), '\n'))
	case s.Single && s.n == 1:
		_, err = s.W.Write(append(jsonv.AppendIndent(s.buf[:0], s.held, "", "  "), '\n'))
	case s.n == 0:
		_, err = io.WriteString(s.W, "[]\n")
	case s.Compact:
		_, err = io.WriteString(s.W, "]\n")
	default:
		_, err = io.WriteString(s.W, "\n]\n")
	}
	return err
}

// NDJSONSink writes one record per line.
type NDJSONSink struct{ W io.Writer }

var newline = []byte{'\n'}

// Write writes rec and a line end.
func (s *NDJSONSink) Write(rec []byte) error {
	if _, err := s.W.Write(rec); err != nil {
		return err
	}
	_, err := s.W.Write(newline)
	return err
}

// End does nothing: every line is ended.
func (s *NDJSONSink) End() error { return nil }

// ErrNotRecord says that a value given to a BinarySink is not a record
// as decode writes it.
var ErrNotRecord = errors.New(`not a record as decode writes it ({"header":{...},"payload":...})`)

// EncodeError is an error of BinarySink: the record at Where cannot be
// framed.
type EncodeError struct {
	// Where names the record: its Source's Where, or "What N".
	Where string
	// Name is the Source's name; Text says that the record comes from a
	// text input (not frames), at Pos in it.
	Name string
	Text bool
	// Kind is kado.FrameHeader's problem, when Err is a
	// *jsonv.SyntaxError: the field at fault, at the record's position.
	Kind kado.EncodeProblem
	// Err is ErrNotRecord, a *jsonv.SyntaxError (see Kind), or another
	// error of kado.FrameHeader.
	Err error
}

func (e *EncodeError) Error() string { return fmt.Sprintf("%s: %v", e.Where, e.Err) }

func (e *EncodeError) Unwrap() error { return e.Err }

// BinarySink writes a Kado frame per record: decode's records (a header
// and a payload), or the flat ones of a table's rows, keeping the header
// fields they hold (kado.FrameHeader).
type BinarySink struct {
	W *kado.Writer
	// Header: what a record without them gives the frame's header (Type,
	// Timestamp, Now).
	Header kado.EncodeStreamOptions
	// Seq is the sequence id of the next frame whose record has none.
	Seq uint64
	// Src is the source of the record being written, for errors; What
	// names the records without one: "result" makes "result 3".
	Src  *Source
	What string
	buf  []byte
	n    int
}

// where names the record being written, for messages.
func (s *BinarySink) where() string {
	if s.Src == nil {
		return fmt.Sprintf("%s %d", s.What, s.n)
	}
	return s.Src.Where()
}

// encodeError is err for the record being written.
func (s *BinarySink) encodeError(err error) *EncodeError {
	e := &EncodeError{Where: s.where(), Err: err}
	if s.Src != nil {
		e.Name, e.Text = s.Src.name, s.Src.bd == nil
	}
	return e
}

// Write writes rec as a frame. A record that cannot be framed is an
// *EncodeError.
func (s *BinarySink) Write(rec []byte) error {
	s.n++
	v := rec
	if nested, ok := kado.UnflattenRecord(s.buf[:0], rec); ok {
		s.buf, v = nested, nested
	}
	if r, err := kado.ParseRecord(v); err == nil && !r.IsRecord {
		return s.encodeError(ErrNotRecord)
	}
	h, p, err := kado.FrameHeader(v, s.Seq, &s.Header)
	if err != nil {
		e := s.encodeError(err)
		var ee *kado.EncodeError
		var re *kado.RecordError
		if errors.As(err, &ee) && errors.As(ee.Err, &re) {
			se := &jsonv.SyntaxError{Pointer: re.Pointer, Msg: re.Msg}
			if s.Src != nil {
				se.Pos = s.Src.shown.pos
			}
			e.Kind, e.Err = ee.Kind, se
		}
		return e
	}
	s.Seq++
	_, err = s.W.WriteFrame(h, jsonv.CompactInPlace(p))
	return err
}

// WriteFrame writes a whole frame as it is (one read and kept as read),
// counted as a record.
func (s *BinarySink) WriteFrame(frame []byte) error {
	s.n++
	return s.W.WriteRaw(frame)
}

// End does nothing: every frame is whole.
func (s *BinarySink) End() error { return nil }

// DocumentSink holds the records written to it as one Document, for an
// encoding that needs them all before it writes (TOON declares every
// array's length before its items): with Single, one record is the
// document itself; otherwise (or with several) the array of them.
type DocumentSink struct {
	Name   string // the document's, for messages
	Single bool
	all    [][]byte
}

// Write keeps a copy of rec.
func (s *DocumentSink) Write(rec []byte) error {
	s.all = append(s.all, bytes.Clone(rec))
	return nil
}

// End does nothing: Document gives what was written.
func (s *DocumentSink) End() error { return nil }

// Document is the document of the records written so far (checked JSON:
// Many), and lets go of them.
func (s *DocumentSink) Document() *Document {
	d := &Document{Name: s.Name, Many: true}
	if s.Single && len(s.all) == 1 {
		d.Value = s.all[0]
	} else {
		d.Value = JoinArray(s.all)
	}
	s.all = nil
	return d
}
