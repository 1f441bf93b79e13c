package tabular

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
)

// DecoderOptions configure a Decoder.
type DecoderOptions struct {
	// MaxLineSize bounds one line; 0 means jsonv.DefaultMaxValueSize.
	MaxLineSize int
}

// Decoder reads a table row by row, in memory bounded by the longest line.
type Decoder struct {
	in     inbuf.Buffer
	max    int
	line   int    // number of the line last read, 1-based
	lineAt int64  // offset of its first byte
	text   []byte // the line last read, without its line end
	keys   []string
	names  [][]byte // `"key":` for each key, quoted
	err    error
	obj    []byte
	cell   []byte
}

// NewDecoder returns a Decoder of r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	maxLine := opts.MaxLineSize
	if maxLine <= 0 {
		maxLine = jsonv.DefaultMaxValueSize
	}
	return &Decoder{max: maxLine, in: inbuf.Buffer{R: r, First: 32 << 10, Steady: 256 << 10, Max: min(maxLine+(32<<10), math.MaxInt32)}}
}

// readLine reads the next line into d.text, without its line end (LF or
// CR LF). It returns io.EOF at the end of the input; a final line without
// a line end counts when it is not empty.
func (d *Decoder) readLine() error {
	at := d.in.Base + int64(d.in.Pos)
	line, _, err := d.in.Line(d.max)
	if err == inbuf.ErrLineTooLong {
		d.line++
		d.lineAt, d.text = at, nil
		return d.errorAt(0, fmt.Sprintf("line %d passes the limit of %d bytes", d.line, d.max))
	}
	if err != nil {
		return err
	}
	d.line++
	d.lineAt = at
	d.text = bytes.TrimSuffix(line, []byte{'\r'})
	return nil
}

// errorAt is a syntax error at byte col (0-based) of the current line.
func (d *Decoder) errorAt(col int, msg string) *jsonv.SyntaxError {
	col = min(max(col, 0), len(d.text))
	e := &jsonv.SyntaxError{Msg: msg}
	e.Pos = jsonv.Position{Offset: d.lineAt + int64(col), Line: max(d.line, 1), Column: utf8.RuneCount(d.text[:col]) + 1}
	e.Excerpt, e.Caret = jsonv.Excerpt(d.text, col)
	return e
}

// header reads the `@toon` and `@keys` lines.
func (d *Decoder) header() error {
	if err := d.readLine(); err != nil {
		if err == io.EOF {
			return d.errorAt(0, "expected the "+Magic+" line, found an empty input")
		}
		return err
	}
	if err := checkUTF8(d); err != nil {
		return err
	}
	ver, ok := bytes.CutPrefix(d.text, []byte("@toon "))
	if !ok {
		return d.errorAt(0, fmt.Sprintf("expected the %s line, found %s", Magic, quoteLine(d.text)))
	}
	major, _, _ := bytes.Cut(ver, []byte("."))
	if !validVersion(ver) {
		return d.errorAt(6, fmt.Sprintf("expected a version 1.x, found %s", quoteLine(ver)))
	}
	if string(major) != "1" {
		return d.errorAt(6, fmt.Sprintf("version %s is not supported: toonkit reads version 1.x", ver))
	}
	if err := d.readLine(); err != nil {
		if err == io.EOF {
			return d.errorAt(len(d.text), "expected the @keys line, found the end of the input")
		}
		return err
	}
	if err := checkUTF8(d); err != nil {
		return err
	}
	list, ok := bytes.CutPrefix(d.text, []byte("@keys"))
	if !ok || len(list) > 0 && list[0] != ' ' {
		return d.errorAt(0, fmt.Sprintf("expected the @keys line, found %s", quoteLine(d.text)))
	}
	d.keys = d.keys[:0]
	if len(list) > 0 { // "@keys" alone: no keys; "@keys ": the one key ""
		seen := map[string]bool{}
		col := 6
		for _, raw := range bytes.Split(list[1:], []byte(",")) {
			k, err := d.unescape(nil, raw, col)
			if err != nil {
				return err
			}
			if seen[string(k)] {
				return d.errorAt(col, fmt.Sprintf("duplicate key %q", k))
			}
			seen[string(k)] = true
			d.keys = append(d.keys, string(k))
			col += len(raw) + 1
		}
	}
	d.names = d.names[:0]
	for _, k := range d.keys {
		q, _ := jsontext.AppendQuote(nil, k)
		d.names = append(d.names, append(q, ':'))
	}
	return nil
}

func validVersion(v []byte) bool {
	major, minor, dot := bytes.Cut(v, []byte("."))
	digits := func(b []byte) bool {
		if len(b) == 0 {
			return false
		}
		for _, c := range b {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return digits(major) && (!dot || digits(minor))
}

func checkUTF8(d *Decoder) error {
	if utf8.Valid(d.text) {
		return nil
	}
	for i := 0; i < len(d.text); {
		r, n := utf8.DecodeRune(d.text[i:])
		if r == utf8.RuneError && n == 1 {
			return d.errorAt(i, "invalid UTF-8")
		}
		i += n
	}
	return nil
}

func quoteLine(b []byte) string {
	if len(b) == 0 {
		return "an empty line"
	}
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "…"
	}
	return strconv.Quote(string(b))
}

// Keys returns the table's keys, reading the header when it has not been
// read yet.
func (d *Decoder) Keys() ([]string, error) {
	if d.line == 0 && d.err == nil {
		if err := d.header(); err != nil {
			d.err = err
		}
	}
	return d.keys, d.err
}

// Next returns the next row as a compact JSON object, valid until the next
// call, and the line it stands on. At the end of the table it returns io.EOF.
// A row that breaks a rule gives a *jsonv.SyntaxError and leaves the decoder
// at the next line, so that a caller may go on (see Recoverable); other
// errors are returned again by every call.
func (d *Decoder) Next() ([]byte, int, error) {
	if _, err := d.Keys(); err != nil {
		return nil, 0, err
	}
	if err := d.readLine(); err != nil {
		d.err = err
		return nil, 0, err
	}
	if err := checkUTF8(d); err != nil {
		return nil, 0, err
	}
	obj, err := d.row(d.obj[:0])
	if err != nil {
		return nil, 0, err
	}
	d.obj = obj
	return obj, d.line, nil
}

// Recoverable reports whether the decoder can go on after err, an error of
// Next: a bad row, not a bad header, an over-long line or a read error.
func (d *Decoder) Recoverable(err error) bool { return err != nil && err != io.EOF && d.err == nil }

// row turns the current line into a JSON object.
func (d *Decoder) row(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	line := d.text
	if len(d.keys) == 0 {
		if len(line) > 0 {
			return dst, d.errorAt(0, "expected an empty row (the table has no keys), found "+quoteLine(line))
		}
		return append(dst, '}'), nil
	}
	col := 0
	for i := range d.keys {
		end := bytes.IndexByte(line[col:], ',')
		last := i == len(d.keys)-1
		switch {
		case end < 0 && !last:
			return dst, d.errorAt(len(line), fmt.Sprintf("row has %d %s, expected %d (one per key)", i+1, plural(i+1, "cell", "cells"), len(d.keys)))
		case end >= 0 && last:
			n := len(d.keys) + bytes.Count(line[col:], []byte(","))
			return dst, d.errorAt(col+end, fmt.Sprintf("row has %d cells, expected %d (one per key)", n, len(d.keys)))
		case end < 0:
			end = len(line) - col
		}
		raw := line[col : col+end]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, d.names[i]...)
		var err error
		if dst, err = d.appendValue(dst, raw, col); err != nil {
			return dst, err
		}
		col += end + 1
	}
	return append(dst, '}'), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// appendValue appends the JSON value of a cell: empty is null, true and false
// are booleans, a JSON number is that number as written, text starting with
// { or [ that is JSON is that value, anything else a string.
func (d *Decoder) appendValue(dst, raw []byte, col int) ([]byte, error) {
	text, err := d.unescape(d.cell[:0], raw, col)
	if err != nil {
		return dst, err
	}
	d.cell = text
	switch {
	case len(text) == 0:
		return append(dst, "null"...), nil
	case string(text) == "true" || string(text) == "false" || IsNumber(text):
		return append(dst, text...), nil
	case (text[0] == '{' || text[0] == '[') && jsonv.Valid(text):
		return append(dst, jsonv.Compacted(nil, text)...), nil
	}
	out, err := jsontext.AppendQuote(dst, text)
	if err != nil {
		return dst, d.errorAt(col, "invalid UTF-8")
	}
	return out, nil
}

// unescape appends raw with its escapes `\\` `\c` `\n` `\r` undone; col is
// the byte column of raw in the line, for errors.
func (d *Decoder) unescape(dst, raw []byte, col int) ([]byte, error) {
	for {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return append(dst, raw...), nil
		}
		dst = append(dst, raw[:i]...)
		if i+1 == len(raw) {
			return dst, d.errorAt(col+i, `a lone \ at the end of a cell (write \\ for a backslash)`)
		}
		switch raw[i+1] {
		case '\\':
			dst = append(dst, '\\')
		case 'c':
			dst = append(dst, ',')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		default:
			r, _ := utf8.DecodeRune(raw[i+1:])
			return dst, d.errorAt(col+i, fmt.Sprintf(`unknown escape \%c (expected \\, \c, \n or \r)`, r))
		}
		col += i + 2
		raw = raw[i+2:]
	}
}
