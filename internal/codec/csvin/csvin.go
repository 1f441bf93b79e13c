// Package csvin reads CSV and TSV tables as JSON records, for toonkit's
// commands that take JSON (`--from csv`, `--from tsv`, and files named
// .csv or .tsv).
//
// The text is read with encoding/csv (RFC 4180: quoted fields, quotes
// doubled inside them, line ends within them, CRLF or LF), the comma or
// the tab as the delimiter; a UTF-8 byte order mark at the start is
// skipped, and empty lines are passed over (encoding/csv's rule). The
// first row is the header: its cells are the fields of every record, in
// order, and each must be a name, given once. Every later row is a record,
// a JSON object with a member per field; a row with more or fewer cells
// than the header is an error naming its line.
//
// Cells are typed by one rule, so that a value reads back as written in
// every format toonkit writes (docs/formats/csv.md):
//
//   - an empty cell is null;
//   - true and false (in lowercase) are booleans;
//   - a number is a cell that is a JSON number already in the canonical
//     form TOON writes: 42, -3.5, 0.001, 1e-7, 12345678901234567890
//     (digits kept exactly); 007, 1.50, 1e3, -0, +1 and .5 stay strings,
//     since TOON would write them otherwise;
//   - anything else is a string, as written.
//
// Options.Strings keeps every cell a string (an empty cell "").
// Quoting does not change a cell's type: encoding/csv, like Python's csv
// module, does not say whether a field was quoted.
//
// Errors are *Error, with the line (and column) of the problem.
package csvin

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/toon"
)

// DefaultMaxSize bounds one row's text.
const DefaultMaxSize = jsonv.DefaultMaxValueSize

// Options configure a Reader.
type Options struct {
	// Comma is the delimiter: ',' (CSV, the zero value) or '\t' (TSV).
	Comma rune
	// Strings keeps every cell a string; an empty cell is "".
	Strings bool
	// MaxSize bounds the text of one row; 0: DefaultMaxSize.
	MaxSize int
}

// ErrorKind tells what an *Error is about.
type ErrorKind int

const (
	// Syntax: a quote out of place (encoding/csv's ParseError).
	Syntax ErrorKind = iota
	// Ragged: a row whose cells are more or fewer than the header's.
	Ragged
	// Header: a header cell that is empty, or a name given twice.
	Header
	// Limit: a row passes Options.MaxSize.
	Limit
	// Encoding: a cell that is not UTF-8 (a file in Latin-1 or
	// Windows-1252, say), which JSON cannot hold as it is.
	Encoding
)

// Error is a table that cannot be read as records: its Kind, and the
// position, message and hint (a *jsonv.SyntaxError, which Unwrap gives,
// so that toonkit's error reporting shows it).
type Error struct {
	Kind   ErrorKind
	Syntax *jsonv.SyntaxError
}

func (e *Error) Error() string { return e.Syntax.Error() }

// Unwrap is the *jsonv.SyntaxError.
func (e *Error) Unwrap() error { return e.Syntax }

// Reader reads the records of a table.
type Reader struct {
	opts   Options
	lim    *limitReader
	cr     *csv.Reader
	begun  bool
	err    error
	header []string
	names  [][]byte // the header's names, quoted
	hline  int
	after  int // the line after the last row read
	rec    []byte
}

// NewReader reads the table in r.
func NewReader(r io.Reader, opts Options) *Reader {
	if opts.Comma == 0 {
		opts.Comma = ','
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	br := bufio.NewReader(r)
	if p, _ := br.Peek(3); bytes.Equal(p, []byte("\xEF\xBB\xBF")) {
		br.Discard(3)
	}
	lim := &limitReader{r: br, allowed: int64(opts.MaxSize)}
	cr := csv.NewReader(lim)
	cr.Comma = opts.Comma
	cr.FieldsPerRecord = -1 // the Reader says which row and how
	cr.ReuseRecord = true
	return &Reader{opts: opts, lim: lim, cr: cr, after: 1}
}

// limitReader stops a row that passes the limit: it reads no further
// than allowed bytes past the end of the last row.
type limitReader struct {
	r       io.Reader
	n       int64 // bytes read
	allowed int64
	hit     bool
}

// slack is how far encoding/csv's buffer may read ahead of a row.
const slack = 64 << 10

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n >= l.allowed+slack {
		l.hit = true
		return 0, errTooLarge
	}
	if room := l.allowed + slack - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

var errTooLarge = errors.New("row too large")

// Header returns the table's fields, read from its first row; nil for an
// empty input.
func (r *Reader) Header() ([]string, error) {
	if err := r.begin(); err != nil {
		return nil, err
	}
	return r.header, nil
}

func (r *Reader) begin() error {
	if r.begun {
		return r.err
	}
	r.begun = true
	row, err := r.read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		r.err = err
		return err
	}
	r.hline, _ = r.cr.FieldPos(0)
	if err := r.checkUTF8(row); err != nil {
		return err
	}
	seen := map[string]int{}
	for i, name := range row {
		line, col := r.cr.FieldPos(i)
		switch first, ok := seen[name]; {
		case name == "":
			r.err = r.fail(Header, line, col, fmt.Sprintf("header cell %d is empty: every column needs a name", i+1), "name every column in the header row (the first row)")
		case ok:
			r.err = r.fail(Header, line, col, fmt.Sprintf("header names %q twice (cells %d and %d)", name, first+1, i+1), "give each column a name of its own in the header row (the first row)")
		}
		if r.err != nil {
			return r.err
		}
		seen[name] = i
		r.header = append(r.header, name)
		r.names = append(r.names, jsonv.AppendQuote(nil, name))
	}
	return nil
}

// read reads a row, its errors made *Error.
func (r *Reader) read() ([]string, error) {
	row, err := r.cr.Read()
	r.lim.allowed = r.cr.InputOffset() + int64(r.opts.MaxSize)
	if err == nil && len(row) > 0 {
		// The next row starts after this one's last line at the earliest.
		line, _ := r.cr.FieldPos(len(row) - 1)
		r.after = line + strings.Count(row[len(row)-1], "\n") + 1
	}
	if err == nil || err == io.EOF {
		return row, err
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if pe.Err == csv.ErrQuote && pe.StartLine != pe.Line {
			msg = fmt.Sprintf("%s (the field starts on line %d)", msg, pe.StartLine)
		}
		if errors.Is(pe.Err, errTooLarge) {
			return nil, r.tooLarge(pe.StartLine)
		}
		return nil, r.fail(Syntax, pe.Line, pe.Column, msg, `a quote within a field is doubled (""), and a field holding a quote is quoted: "say ""hi"""`)
	}
	if r.lim.hit {
		return nil, r.tooLarge(r.after)
	}
	return nil, err
}

// checkUTF8 fails for a row with a cell that is not UTF-8: such a byte
// would become U+FFFD in JSON, the data changed without a word (and two
// header names could become one). The error is at the cell, and names the
// byte and the text before it in the cell.
func (r *Reader) checkUTF8(row []string) error {
	for i, cell := range row {
		if utf8.ValidString(cell) {
			continue
		}
		at := 0
		for at < len(cell) {
			c, size := utf8.DecodeRuneInString(cell[at:])
			if c == utf8.RuneError && size == 1 {
				break
			}
			at += size
		}
		where := "at its start"
		if at > 0 {
			before := cell[:at]
			if n := utf8.RuneCountInString(before); n > 20 {
				before = string([]rune(before)[n-20:])
			}
			where = fmt.Sprintf("after %q", before)
		}
		line, col := r.cr.FieldPos(i)
		r.err = r.fail(Encoding, line, col, fmt.Sprintf("cell %d is not UTF-8: the byte 0x%02X %s", i+1, cell[at], where),
			"toonkit reads CSV and TSV in UTF-8; convert the file first, for example: iconv -f WINDOWS-1252 -t UTF-8 data.csv > data-utf8.csv")
		return r.err
	}
	return nil
}

func (r *Reader) tooLarge(line int) error {
	return r.fail(Limit, line, 0, fmt.Sprintf("the row from this line on passes the limit of %d bytes", r.opts.MaxSize), "")
}

func (r *Reader) fail(kind ErrorKind, line, col int, msg, hint string) error {
	return &Error{Kind: kind, Syntax: &jsonv.SyntaxError{Pos: jsonv.Position{Line: line, Column: col}, Msg: msg, Hint: hint}}
}

// Next returns the next record, a compact JSON object valid until the
// next call, and its position (the line its row starts on); io.EOF after
// the last.
func (r *Reader) Next() ([]byte, jsonv.Position, error) {
	if err := r.begin(); err != nil {
		return nil, jsonv.Position{}, err
	}
	if r.err != nil {
		return nil, jsonv.Position{}, r.err
	}
	if r.header == nil {
		return nil, jsonv.Position{}, io.EOF
	}
	row, err := r.read()
	if err != nil {
		if err != io.EOF {
			r.err = err
		}
		return nil, jsonv.Position{}, err
	}
	line, _ := r.cr.FieldPos(0)
	if len(row) != len(r.header) {
		r.err = r.fail(Ragged, line, 0, fmt.Sprintf("the row has %d %s, the header (line %d) has %d", len(row), plural(len(row)), r.hline, len(r.header)),
			"every row has a cell for each column of the header; an empty cell is two delimiters side by side")
		return nil, jsonv.Position{}, r.err
	}
	if err := r.checkUTF8(row); err != nil {
		return nil, jsonv.Position{}, err
	}
	r.rec = append(r.rec[:0], '{')
	for i, cell := range row {
		if i > 0 {
			r.rec = append(r.rec, ',')
		}
		r.rec = append(append(r.rec, r.names[i]...), ':')
		r.rec = AppendCell(r.rec, cell, r.opts.Strings)
	}
	r.rec = append(r.rec, '}')
	return r.rec, jsonv.Position{Line: line, Column: 1}, nil
}

func plural(n int) string {
	if n == 1 {
		return "cell"
	}
	return "cells"
}

// AppendCell appends the JSON value of a cell by the package's rule: an
// empty cell null, true and false booleans, a JSON number in TOON's
// canonical form a number, anything else a string; with asStrings, always
// a string.
func AppendCell(dst []byte, cell string, asStrings bool) []byte {
	switch {
	case asStrings:
	case cell == "":
		return append(dst, "null"...)
	case cell == "true" || cell == "false":
		return append(dst, cell...)
	case IsNumber(cell):
		return append(dst, cell...)
	}
	return jsonv.AppendQuote(dst, cell)
}

// IsNumber reports whether a cell is a number by the package's rule: JSON
// number syntax, already in the canonical form TOON writes (so that it
// reads back as written).
func IsNumber(cell string) bool {
	if cell == "" || !(cell[0] == '-' || cell[0] >= '0' && cell[0] <= '9') || !toon.IsNumber([]byte(cell)) {
		return false
	}
	if cell[0] == '-' && len(cell) > 1 && !(cell[1] >= '0' && cell[1] <= '9') {
		return false
	}
	return string(toon.AppendNumber(nil, []byte(cell))) == cell
}
