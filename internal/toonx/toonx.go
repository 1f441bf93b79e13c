// Package toonx gives toonkit's own packages the parts of package toon
// that are no part of its public API: the hooks the CLI needs. They are
// toon's byte-level transcoders (toon.FromJSON and toon.ToJSON) with
// options that the public ones do not have:
//   - EncodeOptions.NonFinite, told how many NaN and Infinity values were
//     written as null (encode's note on stderr);
//   - EncodeOptions.Release, told now and then of the progress through
//     a large value mapped in memory, to let go of its pages;
//   - InputError, the offset and reason of FromJSON's error for a value
//     it does not accept, for a message with the line and column;
//   - EncodeTable, the one-pass encoder of a table of primitives, safe on
//     a file mapped in memory that may change while it is read;
//   - DecodeOptions.OnLine, told which input line each piece of JSON was
//     made from (validate --schema places findings in TOON files so).
//
// The code is toon's; toon hands it over in its init function
// (Register), since toonx cannot import toon (toon imports toonx). So a
// program that calls toonx links toon too: every caller imports toon for
// its Delimiter and options anyway, and a call made without it panics
// with a message that says so.
package toonx

import (
	"errors"
	"io"
)

// EncodeOptions configure FromJSON and EncodeTable: toon.MarshalOptions
// and the NonFinite hook.
type EncodeOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// Delimiter is the document delimiter (toon.Delimiter's byte); 0
	// means comma.
	Delimiter byte
	// NonFinite, when not nil, is told how many NaN, Infinity and
	// -Infinity values were written as null, once the document is
	// written, when there were any. (Python's json.dumps writes
	// non-finite floats so, and json.loads reads them back; TOON has no
	// such numbers, and §3 makes them null.)
	NonFinite func(count int)
	// Release, when not nil, makes FromJSON encode in bounded memory a
	// value that is a file mapped in memory: the output is never held
	// (the one-pass table form, which holds it, is not taken), and
	// Release is called each time about ReleaseEvery bytes of the value
	// have been gone through (forwards), and every half million steps of
	// the walk, so that the caller can let go of the pages read (they are
	// read again when needed). It may panic to stop the encoding: when the file is
	// found to have changed, say, since the walk trusts what the
	// validating pass checked. The panic is the caller's to recover.
	Release func()
	// ReleaseEvery is the bytes gone through between calls of Release;
	// 0 means 8 MiB.
	ReleaseEvery int
}

// DecodeOptions configure ToJSON: the options of toon.UnmarshalOptions
// that toon.ToJSON reads, and the OnLine hook.
type DecodeOptions struct {
	// IndentSize is the number of spaces per level; 0 means 2.
	IndentSize int
	// NonStrict turns off the strict-mode checks (toon.UnmarshalOptions).
	NonStrict bool
	// JSONIndent is the indentation unit of the JSON written; "" writes
	// compact JSON.
	JSONIndent string
	// Elements writes a root array as its elements, one compact JSON
	// value a line (NDJSON).
	Elements bool
	// MaxLineSize bounds one input line; 0 means 64 MiB.
	MaxLineSize int
	// OnLine, when not nil, is told of each content line once its JSON
	// is made: the offset in the output at which that JSON ends, the
	// line's number and the column (1-based, in bytes) where its content
	// starts. It runs on the goroutine that decodes. A JSON byte at
	// offset o of the output was made from the first line told with an
	// end past o.
	OnLine func(end int64, line, col int)
}

// Funcs are the functions toon registers.
type Funcs struct {
	FromJSON    func(w io.Writer, value []byte, opts EncodeOptions) error
	EncodeTable func(w io.Writer, value []byte, opts EncodeOptions) (bool, error)
	ToJSON      func(w io.Writer, r io.Reader, opts DecodeOptions) error
}

var funcs *Funcs

// Register is called once, by package toon's init function.
func Register(f Funcs) {
	if funcs != nil {
		panic("toonx: Register called twice")
	}
	funcs = &f
}

func registered() *Funcs {
	if funcs == nil {
		panic("toonx: package toon is not linked: import github.com/toonkit/toonkit/toon")
	}
	return funcs
}

// FromJSON is toon.FromJSON with the options of EncodeOptions: it writes
// the TOON form of one JSON value to w, without a final newline.
func FromJSON(w io.Writer, value []byte, opts EncodeOptions) error {
	return registered().FromJSON(w, value, opts)
}

// EncodeTable writes the TOON form of value as FromJSON does when value
// is a root array of flat objects whose members come in one order (a
// table of primitives, §9.3), and reports whether it was; for any other
// value, valid or not, it reports false and writes nothing. The error is
// that of the options or of w.
//
// It suits a value that may change or vanish while it is read, such as a
// file mapped in memory: it goes through value once, from start to end,
// and writes nothing before it has reached the end; what it writes is
// made of the bytes it checked, as it read them; it ends whatever the
// bytes. (FromJSON goes through its value more than once.)
func EncodeTable(w io.Writer, value []byte, opts EncodeOptions) (bool, error) {
	return registered().EncodeTable(w, value, opts)
}

// ToJSON is toon.ToJSON with the options of DecodeOptions, OnLine among
// them. A malformed document gives a *jsonv.SyntaxError (which
// toon.ToJSON wraps in a *toon.SyntaxError).
func ToJSON(w io.Writer, r io.Reader, opts DecodeOptions) error {
	return registered().ToJSON(w, r, opts)
}

// InputError reports what FromJSON's error says of a value it does not
// accept: the byte offset in the value (past a byte order mark), the
// reason, and whether it is a member name given twice in an object; ok is
// false for any other error (the options', w's).
func InputError(err error) (off int, msg string, duplicateName, ok bool) {
	var ie interface {
		Input() (int, string, bool)
	}
	if !errors.As(err, &ie) {
		return 0, "", false, false
	}
	off, msg, duplicateName = ie.Input()
	return off, msg, duplicateName, true
}
