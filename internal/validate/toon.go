package validate

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/toonfmt"
	"github.com/toonkit/toonkit/internal/toonx"
)

// The rules of a TOON document (spec v4.4, strict mode), each a code.
var toonRules = []Rule{
	{"TOON000", Error, "a well-formed TOON document (spec v4.4)"},
	{"TOON001", Error, "indentation: spaces only, a multiple of the indent, one level deeper for a block's lines, none on the first line"},
	{"TOON002", Error, "an array holds as many items, rows or entries as its header declares ([N])"},
	{"TOON003", Error, "a table's row has one cell per field of its header"},
	{"TOON004", Error, "array headers: key[N]: or key[N]{fields}: with no space inside, a length without leading zeros, the header's delimiter in its field list"},
	{"TOON005", Error, "key: value lines, \"- \" list items and entry rows, each with its colon"},
	{"TOON006", Error, "quoted strings closed, with the escapes \\\\ \\\" \\n \\r \\t \\uXXXX only, and nothing after the closing quote"},
	{"TOON007", Error, "no key twice in an object, no field twice in a header"},
	{"TOON008", Error, "valid UTF-8"},
	{"TOON009", Error, "no blank line inside an array"},
	{"TOON010", Error, "nothing after a root array or a lone root value"},
	{"TOON011", Error, "lines within --max-frame-size, nesting within 1,000 levels"},
}

// toonCode is the rule a TOON decoder error breaks, told by its message's
// own words, the document's text (quoted in it) left out (TestTOONCodes
// holds one document for each).
func toonCode(msg string) string {
	msg = unquoted(msg)
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(msg, x) {
				return true
			}
		}
		return false
	}
	switch {
	case has("invalid UTF-8"):
		return "TOON008"
	case has("longer than the limit", "nesting deeper than"):
		return "TOON011"
	case has("blank line inside an array"):
		return "TOON009"
	case has("duplicate key", "duplicate field name"):
		return "TOON007"
	case has("after the end of the root"):
		return "TOON010"
	case has("tab in indentation", "indentation of", "indentation jumps", "unexpected indentation"):
		return "TOON001"
	case has(" cell", " cells") && has("the header declares"):
		return "TOON003"
	case has("array declares", "object declares"):
		return "TOON002"
	case has("unterminated string", "invalid escape", "after the closing quote"):
		return "TOON006"
	case has("array header", "array length", "after the array length", "keyed header", "tabular header", "field list", "field name", "field group", `before "["`, `unmatched "{"`):
		return "TOON004"
	case has("missing colon", "expected a colon", "expected a list item", "expected an entry row"):
		return "TOON005"
	}
	return "TOON000"
}

// unquoted is msg without its quoted parts ("..." with \ escapes), where
// the decoder quotes the document's text.
func unquoted(msg string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
			b.WriteByte('"')
		case !in:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// maxTOONProblems is how many problems TOON reports of one document, and
// maxTOONRetry the largest document it reads again to find more than the
// first.
const (
	maxTOONProblems = 100
	maxTOONRetry    = 16 << 20
	maxTOONReread   = 256 << 20 // the bytes read again, in all, for one document
)

// TOON checks a TOON document in strict mode (spec v4.4), indented by
// opts.TOONIndent spaces a level (0: 2), and reports its problems, each at its line and column with its rule's code. The decoder
// stops at the first; to find the next, the line of each problem found
// and the lines below it that it opens (more indented) are made comments,
// and the document is read again: up to 100 problems, in documents of up
// to 16 MiB (a larger one is read once, in bounded memory, for its first),
// and no more than 256 MiB read again in all.
// A count that no longer matches because a line it covers was taken out is
// not reported. It returns 1, the document.
func TOON(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	var kept bytes.Buffer
	tee := io.TeeReader(r, &limitedBuffer{b: &kept, max: maxTOONRetry})
	dopts := toonx.DecodeOptions{MaxLineSize: opts.MaxFrameSize, IndentSize: opts.TOONIndent}
	err := toonx.ToJSON(io.Discard, tee, dopts)
	if err == nil {
		return 1, nil
	}
	var se *jsonv.SyntaxError
	if !errors.As(err, &se) {
		return 1, err
	}
	found := []Finding{textFinding(name, se, 0, toonCode(se.Msg))}
	if _, err := io.Copy(io.Discard, tee); err != nil || kept.Len() > maxTOONRetry {
		emit(found[0])
		return 1, err // too large to read again: the first problem only
	}
	found = moreTOONProblems(kept.Bytes(), se, name, dopts, found)
	slices.SortStableFunc(found, func(a, b Finding) int { return cmp.Compare(a.Line, b.Line) })
	for _, f := range found {
		if !emit(f) {
			break
		}
	}
	return 1, nil
}

// moreTOONProblems adds to found the problems of doc after the first, se.
func moreTOONProblems(doc []byte, se *jsonv.SyntaxError, name string, dopts toonx.DecodeOptions, found []Finding) []Finding {
	lines := bytes.SplitAfter(doc, []byte("\n"))
	cut := map[int]bool{} // the 0-based lines made comments
	for reread := 0; len(found) < maxTOONProblems && reread+len(doc) <= maxTOONReread; reread += len(doc) {
		at := se.Pos.Line - 1
		if at < 0 || at >= len(lines) || cut[at] {
			return found // no progress: stop
		}
		for i, end := at, blockEnd(lines, at); i < end; i++ {
			lines[i] = commentLine(lines[i])
			cut[i] = true
		}
		err := toonx.ToJSON(io.Discard, bytes.NewReader(bytes.Join(lines, nil)), dopts)
		if err == nil || !errors.As(err, &se) {
			return found
		}
		if toonCode(se.Msg) == "TOON002" && coversCut(lines, se.Pos.Line-1, cut) {
			continue // the count of a block a problem's line was taken from
		}
		found = append(found, textFinding(name, se, 0, toonCode(se.Msg)))
	}
	return found
}

// limitedBuffer keeps the first max bytes written to it, and one more to
// say that there were more.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max + 1 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// indentOf is the count of spaces that begin line, or -1 for a blank or
// comment line.
func indentOf(line []byte) int {
	n, blank, comment := toonfmt.Line(bytes.TrimSuffix(line, []byte("\n")))
	if blank || comment {
		return -1
	}
	return n
}

// blockEnd is the index of the first line after lines[at] and the lines
// it opens (those after it, more indented, blank and comment lines among
// them, but not after them).
func blockEnd(lines [][]byte, at int) int {
	base := indentOf(lines[at])
	end := at + 1
	if base < 0 {
		return end // a blank line (TOON009) opens nothing
	}
	for i := at + 1; i < len(lines); i++ {
		n := indentOf(lines[i])
		if n < 0 {
			continue
		}
		if n <= base {
			break
		}
		end = i + 1
	}
	return end
}

// coversCut reports whether the block that lines[at] opens (the lines
// after it, up to the next as little indented) holds a line made a
// comment.
func coversCut(lines [][]byte, at int, cut map[int]bool) bool {
	if at < 0 || at >= len(lines) {
		return false
	}
	base := indentOf(lines[at])
	for i := at + 1; i < len(lines); i++ {
		if cut[i] {
			return true
		}
		if n := indentOf(lines[i]); n >= 0 && n <= base {
			return false
		}
	}
	return false
}

// commentLine is line made a comment, its line end kept.
func commentLine(line []byte) []byte {
	if bytes.HasSuffix(line, []byte("\n")) {
		return []byte("#\n")
	}
	return []byte("#")
}
