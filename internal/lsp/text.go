package lsp

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// encoding is how a Position's character counts: in UTF-16 code units
// (LSP's default) or, when the client offers it (LSP 3.17's
// positionEncoding), in bytes of UTF-8.
type encoding int

const (
	utf16Units encoding = iota
	utf8Bytes
)

// text is one version of a document: its bytes and where each line
// starts. A text is never changed once made; an edit makes a new one, so
// that diagnostics running on another goroutine read a stable copy.
type text struct {
	src    []byte
	starts []int // the offset of each line's first byte; starts[0] == 0
}

func newText(src []byte) *text {
	t := &text{src: src, starts: make([]int, 1, 1+len(src)/32)}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		t.starts = append(t.starts, i)
	}
	return t
}

// lines is the count of lines (a final newline ends the last line: the
// empty line after it counts, as editors show it).
func (t *text) lines() int { return len(t.starts) }

// line is line n (0-based) without its line end ("\n" or "\r\n").
func (t *text) line(n int) []byte {
	if n < 0 || n >= len(t.starts) {
		return nil
	}
	end := len(t.src)
	if n+1 < len(t.starts) {
		end = t.starts[n+1] - 1
	}
	return bytes.TrimSuffix(t.src[t.starts[n]:end], []byte("\r"))
}

// offset is the byte offset of p; a position past a line's end is that
// line's end, and one past the last line the end of the text (as LSP
// asks). A character inside a UTF-16 surrogate pair counts as the rune's
// start.
func (t *text) offset(p protocol.Position, enc encoding) int {
	n := int(p.Line)
	if n >= len(t.starts) {
		return len(t.src)
	}
	line := t.line(n)
	start := t.starts[n]
	want := int(p.Character)
	if enc == utf8Bytes {
		return start + min(want, len(line))
	}
	units := 0
	for i := 0; i < len(line); {
		if units >= want {
			return start + i
		}
		r, size := utf8.DecodeRune(line[i:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		if units > want {
			return start + i // inside a surrogate pair
		}
		i += size
	}
	return start + len(line)
}

// position is the Position of byte offset off.
func (t *text) position(off int, enc encoding) protocol.Position {
	off = max(0, min(off, len(t.src)))
	n := t.lineOf(off)
	line := t.src[t.starts[n]:off]
	if enc == utf8Bytes {
		return protocol.Position{Line: uint32(n), Character: uint32(len(line))}
	}
	return protocol.Position{Line: uint32(n), Character: uint32(utf16Len(line))}
}

// lineOf is the 0-based line holding byte offset off.
func (t *text) lineOf(off int) int {
	lo, hi := 0, len(t.starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if t.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// lineStart is the offset of line n's first byte (the text's end past the
// last line).
func (t *text) lineStart(n int) int {
	if n >= len(t.starts) {
		return len(t.src)
	}
	return t.starts[max(n, 0)]
}

// span is the Range of bytes [start, end).
func (t *text) span(start, end int, enc encoding) protocol.Range {
	return protocol.Range{Start: t.position(start, enc), End: t.position(end, enc)}
}

// runeColumn is the byte offset of the 1-based column col, counted in
// characters (runes), of line n (0-based): how the decoder and validate
// count columns.
func (t *text) runeColumn(n, col int) int {
	line := t.line(n)
	i := 0
	for c := 1; c < col && i < len(line); c++ {
		_, size := utf8.DecodeRune(line[i:])
		i += size
	}
	return t.lineStart(n) + i
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n += utf16.RuneLen(r)
		if r == utf8.RuneError && size == 1 {
			n = n - utf16.RuneLen(r) + 1 // an invalid byte: U+FFFD, one unit
		}
		b = b[size:]
	}
	return n
}

// change is one of textDocument/didChange's contentChanges. Its Range is
// a pointer, unlike protocol.TextDocumentContentChangeEvent's: a change
// with no range replaces the whole text, and one at 0:0 inserts at the
// start, which a Range value cannot tell apart.
type change struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// didChangeParams are textDocument/didChange's params, with change.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []change                                 `json:"contentChanges"`
}

// apply returns the text with the changes made in order.
func (t *text) apply(changes []change, enc encoding) (*text, error) {
	cur := t
	for _, c := range changes {
		if c.Range == nil {
			cur = newText([]byte(c.Text))
			continue
		}
		start, end := cur.offset(c.Range.Start, enc), cur.offset(c.Range.End, enc)
		if end < start {
			return nil, fmt.Errorf("a change's range ends before it starts (%d:%d to %d:%d)", c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character)
		}
		b := make([]byte, 0, len(cur.src)-(end-start)+len(c.Text))
		b = append(b, cur.src[:start]...)
		b = append(b, c.Text...)
		b = append(b, cur.src[end:]...)
		cur = newText(b)
	}
	return cur, nil
}
