package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
)

// Document is the JSON value to encode as TOON (records.Document).
type Document struct {
	*records.Document
	Counted bool // the statistics have counted the input already
	// OneValue makes an input of several JSON values ErrSeveralValues in
	// WriteTOON, with nothing written, instead of the array of them: for a
	// caller that reads such an input otherwise (convert, as records).
	OneValue bool
}

// ErrSeveralValues is WriteTOON's error for a OneValue document that holds
// several JSON values.
var ErrSeveralValues = errors.New("the input holds several JSON values")

// ReadDocument reads the inputs as one JSON value (records.ReadDocument);
// with mapOK, a single large regular file is mapped into memory.
func ReadDocument(ios *IOStreams, names []string, limit int, mapOK bool) (*Document, error) {
	d, err := records.ReadDocument(names, documentInput(ios), limit, mapOK)
	if err != nil {
		return nil, SourceError(err)
	}
	return &Document{Document: d}, nil
}

// documentInput opens an input of a document.
func documentInput(ios *IOStreams) func(name string) (*records.Input, error) {
	return func(name string) (*records.Input, error) {
		in, err := OpenInput(ios, name)
		if err != nil {
			return nil, err
		}
		return &records.Input{R: in.R, Name: in.Name, File: in.File, Close: in.Close, Regular: in.Regular()}, nil
	}
}

// ReadDocumentKeeping is ReadDocument for inputs whose objects may repeat
// member names, one member of each kept as keep says
// (records.ReadDocumentKeeping).
func ReadDocumentKeeping(ios *IOStreams, names []string, limit int, keep jsonv.Duplicates) (*Document, error) {
	d, err := records.ReadDocumentKeeping(names, documentInput(ios), limit, keep)
	if err != nil {
		return nil, SourceError(err)
	}
	return &Document{Document: d}, nil
}

// WriteTOON encodes a document to out and commits it; nothing is written
// on failure. The document gets one final newline, as the reference CLI
// writes it (toon.FromJSON's text has none); the statistics count the
// document without it.
func WriteTOON(ios *IOStreams, out *Output, st *Stats, doc *Document, opts toonx.EncodeOptions) error {
	var nonFinite int // NaN and Infinity, as Python writes them, become null
	opts.NonFinite = func(n int) { nonFinite = n }
	err := EncodeTOON(out, st, doc, opts)
	var ee *ExitError
	if err != nil && !doc.Many && !errors.As(err, &ee) {
		// The fast path failed: find out why with the JSON reader, which
		// gives positions; several values make an array.
		arr, verr := doc.Array()
		switch {
		case verr != nil:
			err = SourceError(verr)
		case arr != nil && doc.OneValue:
			out.Abort()
			return ErrSeveralValues
		case arr != nil:
			out.Abort()
			out = NewOutput(ios, out.Path())
			err = EncodeTOON(out, st, &Document{Document: arr}, opts)
		}
	}
	if err != nil {
		out.Abort()
		if errors.As(err, &ee) {
			return err
		}
		return InvalidError(fmt.Errorf("%s: %w", doc.Name, err), "")
	}
	out.Write([]byte("\n")) // a failure is Commit's to report
	if err := out.Commit(); err != nil {
		return err
	}
	if nonFinite > 0 {
		where, in := doc.Name+": ", ""
		if doc.Inputs > 1 { // the count is theirs together
			where, in = "", fmt.Sprintf(" in the %d inputs", doc.Inputs)
		}
		NewReporter(ios).Notef("note: %s%d non-finite %s (NaN/Infinity, as Python's json.dumps writes them)%s written as null (TOON §3)", where, nonFinite, Plural(nonFinite, "number", "numbers"), in)
	}
	if st != nil {
		return st.Print(ios, codec.TOON)
	}
	return nil
}

// EncodeTOON encodes doc to out (and to st), without the final newline.
func EncodeTOON(out *Output, st *Stats, doc *Document, opts toonx.EncodeOptions) error {
	var w io.Writer = out
	if st != nil {
		w = io.MultiWriter(out, st.Out)
	}
	if err := doc.EncodeTOON(w, opts); err != nil {
		if out.Err() != nil {
			return out.Err()
		}
		return SourceError(err)
	}
	if st != nil && !doc.Counted {
		compact, err := jsonv.AppendCompactNonFinite(nil, doc.Value)
		if err != nil {
			return err
		}
		st.Document(compact)
	}
	return out.Err()
}
