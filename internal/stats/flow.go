package stats

import (
	"io"

	"github.com/toonkit/toonkit/internal/tokens"
)

// Flow counts what a conversion reads and writes, for `--stats`: the
// input as compact JSON (its records as one array, or one document), the
// input as it was given (its bytes as read, written to Given), and the
// output as it is written to Out.
type Flow struct {
	in, out, given *tokens.Counter
	n              int // records counted; -1: a document
}

// NewFlow returns a Flow counting with the tokenizer encoding (one of
// tokens.Encodings).
func NewFlow(encoding string) (*Flow, error) {
	in, err := tokens.NewCounter(encoding)
	if err != nil {
		return nil, err
	}
	out, err := tokens.NewCounter(encoding)
	if err != nil {
		return nil, err
	}
	given, err := tokens.NewCounter(encoding)
	if err != nil {
		return nil, err
	}
	return &Flow{in: in, out: out, given: given}, nil
}

// Given counts what is written to it: the input as it was given, its
// bytes as they were read (several inputs one after the other).
func (f *Flow) Given() io.Writer { return f.given }

// GivenCounts returns the counts of the input as given.
func (f *Flow) GivenCounts() (tokens.Counts, error) { return f.given.Counts() }

// Record counts one record of the input, compact, as an element of the
// array of them all.
func (f *Flow) Record(rec []byte) {
	if f.n == 0 {
		f.in.Write([]byte{'['})
	} else {
		f.in.Write([]byte{','})
	}
	f.in.Write(rec)
	f.n++
}

// Document counts the whole input, one compact JSON value, instead of
// records.
func (f *Flow) Document(v []byte) {
	f.in.Write(v)
	f.n = -1
}

// DocumentWriter counts what is written to it as the whole input, one
// compact JSON value, instead of records (Document, written in pieces).
func (f *Flow) DocumentWriter() io.Writer {
	f.n = -1
	return f.in
}

// Out counts what is written to it: the output.
func (f *Flow) Out() io.Writer { return f.out }

// Counts closes the input's array (an empty one when no record came) and
// returns the counts of the input and of the output.
func (f *Flow) Counts() (in, out tokens.Counts, err error) {
	switch {
	case f.n == 0:
		f.in.Write([]byte("[]"))
	case f.n > 0:
		f.in.Write([]byte{']'})
	}
	f.n = -1
	if in, err = f.in.Counts(); err != nil {
		return in, out, err
	}
	out, err = f.out.Counts()
	return in, out, err
}
