// Package toonfmt writes a TOON document in its canonical form: what the
// encoder writes for the document's value, with the document's indent and
// delimiter (unless Options say otherwise) and its full-line comments
// kept, each before the line it came before.
//
// The value never changes: Format decodes what it wrote and compares the
// JSON with the input's, and returns an error rather than output that
// differs. Formatting is idempotent: Format of Format's output is the same
// bytes.
//
// Comments ("#" after spaces only, on a line of its own; TOON has no
// comment after content) are placed by the JSON their following line
// makes: a comment goes before the first line of the canonical form whose
// JSON reaches past the point where its line's JSON begins, indented as
// that line. So a comment before a list item that becomes a table row
// goes before that row; one before a field that joins its item's row goes
// before the row. Comments after the last content line end the output,
// unindented. Blank lines are dropped.
package toonfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/toonx"
)

// Options configure Format.
type Options struct {
	// Indent is the output's spaces per level; 0 keeps the document's
	// (the least indentation of its indented lines; 2 when none is).
	Indent int
	// Delimiter is the output's delimiter (',', '\t' or '|'); 0 keeps the
	// document's (that of its first array header with one, else comma).
	Delimiter byte
	// NonStrict reads the document with the non-strict rules.
	NonStrict bool
	// MaxLineSize bounds one input line; 0 means 64 MiB.
	MaxLineSize int
}

// ErrChanged is matched by the error of a document whose canonical form
// would not decode to the same value (a bug; Format then writes nothing).
var ErrChanged = errors.New("toonfmt: the canonical form would change the value")

// Layout is what Format found of a document's own form.
type Layout struct {
	Indent    int  // spaces per level
	Delimiter byte // ',', '\t' or '|'
}

// Detect returns the document's indent and delimiter, as Format keeps them.
func Detect(src []byte) Layout {
	l := Layout{Delimiter: ','}
	for line := range lines(src) {
		n, blank, comment := Line(line)
		if blank || comment || line[n] == '\t' {
			continue
		}
		if n > 0 && (l.Indent == 0 || n < l.Indent) {
			l.Indent = n
		}
		if l.Delimiter == ',' {
			if d, ok := headerDelimiter(line[n:]); ok {
				l.Delimiter = d
			}
		}
	}
	if l.Indent == 0 {
		l.Indent = 2
	}
	return l
}

// Line is what a TOON line (without its "\n") is, as the decoder reads
// it: the spaces that begin it, and whether it is blank (white space
// only) or a full-line comment ("#" after spaces only: after a tab, "#"
// is content, §5.1).
func Line(line []byte) (indent int, blank, comment bool) {
	t := bytes.TrimRight(line, " \t\r")
	for indent < len(t) && t[indent] == ' ' {
		indent++
	}
	return indent, indent == len(t), indent < len(t) && t[indent] == '#'
}

// headerDelimiter finds, in the key of line (outside quoted strings,
// before the colon that ends the key), an array header's bracket with a
// delimiter marker ([N|], [N<tab>], or a keyed table's [N:|]) followed by
// ':' or '{'.
func headerDelimiter(line []byte) (byte, bool) {
	quoted := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == ':':
			return 0, false // the key ended before any header: a value follows
		case !quoted && c == '[':
			j := i + 1
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			digits := j > i+1
			if digits && j < len(line) && line[j] == ':' { // a keyed table, [N:]
				j++
			}
			if digits && j+2 < len(line) && (line[j] == '|' || line[j] == '\t') && line[j+1] == ']' && (line[j+2] == ':' || line[j+2] == '{') {
				return line[j], true
			}
			if digits && j < len(line) && line[j] == ']' {
				return 0, false // the first header says comma
			}
		}
	}
	return 0, false
}

// lines yields src's lines without their "\n" or "\r\n", a byte order
// mark dropped from the first.
func lines(src []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
		for len(src) > 0 {
			line := src
			if i := bytes.IndexByte(src, '\n'); i >= 0 {
				line, src = src[:i], src[i+1:]
			} else {
				src = nil
			}
			line = bytes.TrimSuffix(line, []byte("\r"))
			if !yield(line) {
				return
			}
		}
	}
}

// comment is a full-line comment: its text from "#", trailing white space
// dropped, and the number of the content line after it (0: none).
type comment struct {
	text []byte
	next int
}

// comments finds src's full-line comments, each with the content line it
// comes before.
func comments(src []byte) []comment {
	var cs []comment
	pending := 0 // comments still waiting for their content line
	num := 0
	for line := range lines(src) {
		num++
		n, blank, isComment := Line(line)
		switch {
		case blank:
		case isComment:
			// Non-strict, ill-formed UTF-8 was read (the strict decoder
			// refuses it); the comment is written well-formed.
			text := bytes.TrimRight(line[n:], " \t\r")
			cs = append(cs, comment{text: bytes.ToValidUTF8(text, []byte("\uFFFD"))})
			pending++
		default:
			for i := len(cs) - pending; i < len(cs); i++ {
				cs[i].next = num
			}
			pending = 0
		}
	}
	return cs
}

// lineEnd is a content line and where its JSON ends (toonx.DecodeOptions.OnLine).
type lineEnd struct {
	end  int64
	line int
}

// decode is the compact JSON of src and, when ends is not nil, the end of
// each content line's JSON in it, appended to *ends.
func decode(src []byte, indent int, opts Options, ends *[]lineEnd) ([]byte, error) {
	var js bytes.Buffer
	js.Grow(len(src) + len(src)/2 + 64)
	err := decodeTo(&js, src, indent, opts, ends)
	return js.Bytes(), err
}

func decodeTo(w io.Writer, src []byte, indent int, opts Options, ends *[]lineEnd) error {
	dopts := toonx.DecodeOptions{IndentSize: indent, NonStrict: opts.NonStrict, MaxLineSize: opts.MaxLineSize}
	if ends != nil {
		dopts.OnLine = func(end int64, line, _ int) { *ends = append(*ends, lineEnd{end, line}) }
	}
	return toonx.ToJSON(w, bytes.NewReader(src), dopts)
}

// sameAs is a writer that checks that what is written to it is want,
// from its start.
type sameAs struct {
	want []byte
	off  int
	diff bool
}

func (s *sameAs) Write(p []byte) (int, error) {
	if !s.diff && (len(p) > len(s.want)-s.off || !bytes.Equal(p, s.want[s.off:s.off+len(p)])) {
		s.diff = true
	}
	s.off += len(p)
	return len(p), nil
}

// Format returns the canonical form of the TOON document src, ending with
// a newline (an empty document with no comments is empty). A malformed
// document is the decoder's error (a *jsonv.SyntaxError with the
// position, wrapped as toon.ToJSON wraps it).
func Format(src []byte, opts Options) ([]byte, error) {
	layout := Detect(src)
	cs := comments(src)
	var ends, outEnds *[]lineEnd
	if len(cs) > 0 {
		// Only comments need to know which line made which JSON.
		ends, outEnds = new([]lineEnd), new([]lineEnd)
	}
	value, err := decode(src, layout.Indent, opts, ends)
	if err != nil {
		return nil, err
	}
	if opts.Indent != 0 {
		layout.Indent = opts.Indent
	}
	if opts.Delimiter != 0 {
		layout.Delimiter = opts.Delimiter
	}
	var canon bytes.Buffer
	canon.Grow(len(src) + 64)
	if err := toonx.FromJSON(&canon, value, toonx.EncodeOptions{IndentSize: layout.Indent, Delimiter: layout.Delimiter}); err != nil {
		return nil, fmt.Errorf("toonfmt: encoding the value: %w", err)
	}
	if opts.Delimiter == 0 && layout.Delimiter != ',' && Detect(canon.Bytes()).Delimiter != layout.Delimiter {
		// The canonical form has no header that shows the delimiter
		// found (an empty array's, say), so it would be read as comma
		// the next time, with other quoting: comma it is, now.
		canon.Reset()
		layout.Delimiter = ','
		if err := toonx.FromJSON(&canon, value, toonx.EncodeOptions{IndentSize: layout.Indent, Delimiter: ','}); err != nil {
			return nil, fmt.Errorf("toonfmt: encoding the value: %w", err)
		}
	}
	// The value is kept: the canonical form decodes (strict) to the same
	// JSON, byte for byte.
	check := &sameAs{want: value}
	if err := decodeTo(check, canon.Bytes(), layout.Indent, Options{MaxLineSize: opts.MaxLineSize}, outEnds); err != nil || check.diff || check.off != len(value) {
		return nil, ErrChanged
	}
	if len(cs) == 0 {
		if canon.Len() > 0 {
			canon.WriteByte('\n')
		}
		return canon.Bytes(), nil
	}

	// Each comment's place: the canonical line it goes before (an index
	// into outLines), or len(outLines) for the end.
	var outLines [][]byte
	for line := range lines(canon.Bytes()) {
		outLines = append(outLines, line)
	}
	before := make([][]comment, len(outLines)+1)
	for _, c := range cs {
		at := len(outLines)
		if c.next > 0 {
			at = placeOf(c.next, *ends, *outEnds, value, len(outLines))
		}
		before[at] = append(before[at], c)
	}

	var out bytes.Buffer
	out.Grow(canon.Len() + len(src)/8)
	for i := 0; i <= len(outLines); i++ {
		var indent []byte
		if i < len(outLines) {
			line := outLines[i]
			indent = line[:len(line)-len(bytes.TrimLeft(line, " "))]
		}
		for _, c := range before[i] {
			out.Write(indent)
			out.Write(c.text)
			out.WriteByte('\n')
		}
		if i < len(outLines) {
			out.Write(outLines[i])
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

// placeOf is the index in the canonical lines of the one that a comment
// before input line next goes before: the first whose JSON ends past the
// point where next's own JSON begins (its closing brackets and separator
// skipped); n, the end, when there is none.
func placeOf(next int, ends, outEnds []lineEnd, value []byte, n int) int {
	var start int64
	for _, e := range ends {
		if e.line >= next {
			break
		}
		start = max(start, e.end)
	}
	for start < int64(len(value)) && (value[start] == '}' || value[start] == ']' || value[start] == ',') {
		start++
	}
	for _, e := range outEnds {
		if e.end > start && e.line >= 1 && e.line <= n {
			return e.line - 1
		}
	}
	return n
}
