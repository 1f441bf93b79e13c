package jsonv

import "bytes"

// Span sums up a stretch of text for positions, so that the position after
// many stretches can be found from their spans alone, in order, while the
// spans themselves are measured anywhere (on the workers of a pipeline).
type Span struct {
	Bytes int64
	Lines int    // line ends ('\n') in the stretch
	Runes int    // characters after its last line end (all of them without one)
	Tail  []byte // up to the last 72 bytes after its last line end
}

// SpanOf measures b, counting as a Reader counts (a byte that is not valid
// UTF-8 is a character unless it is a continuation byte). Tail points into
// b.
func SpanOf(b []byte) Span {
	s := Span{Bytes: int64(len(b))}
	last := b
	if n := bytes.Count(b, []byte{'\n'}); n > 0 {
		s.Lines = n
		last = b[bytes.LastIndexByte(b, '\n')+1:]
	}
	s.Runes, s.Tail = runeCount(last), tail(last)
	return s
}

// Mark is a place in a stream for Options.Start and Options.StartLine: a
// position and the text of its line before it (the last 72 bytes of it).
// The zero Mark is the start of a stream.
type Mark struct {
	Pos  Position
	Line []byte
}

// Advance moves m past the stretch that s measures.
func (m *Mark) Advance(s Span) {
	if m.Pos.Line == 0 {
		m.Pos = Position{Line: 1, Column: 1}
	}
	m.Pos.Offset += s.Bytes
	if s.Lines > 0 {
		m.Pos.Line += s.Lines
		m.Pos.Column = 1 + s.Runes
		m.Line = append(m.Line[:0], s.Tail...)
		return
	}
	m.Pos.Column += s.Runes
	m.Line = append(m.Line, s.Tail...)
	m.Line = append(m.Line[:0], tail(m.Line)...)
}
