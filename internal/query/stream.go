package query

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Stream reads JSON values back to back, as jq reads its input: one
// document, NDJSON, or values with any white space (or none, where they
// cannot run together) between them. It decodes each value in the one pass
// that checks it, so that a JSON stream is read once, not checked by one
// reader and decoded by another. Unlike toonkit's other readers, and like
// jq, it takes repeated names (the last value wins) and invalid UTF-8 (as
// U+FFFD).
//
// After ErrInvalid, Rest gives what a jsonv.Reader needs to read on from
// the bad value and report the error with its place and an excerpt.
type Stream struct {
	r    io.Reader
	dec  *Decoder
	max  int
	buf  []byte
	pos  int   // buf[pos:end] is unread
	end  int   //
	off  int64 // the stream offset of buf[0]
	eof  bool
	rerr error

	line      int // the line of buf[pos], 1-based
	lineStart int // the index in buf where that line starts; < 0: before buf
	lineRunes int // the runes of that line that are no longer in buf
	started   bool

	vpos, vline, vlineStart, vlineRunes int // the last value's place

	// A value that runs past what is buffered is decoded again only when
	// scan, fed the bytes as they come, finds its end (or the stream
	// ends, or the bytes have doubled since): a value that comes a byte
	// at a time is not decoded once per byte.
	scan     jsonv.EndScan
	scanning bool // scan is fed the value at pos
	tried    int  // the bytes buffered at the last attempt
	// made says the text is toonkit's own JSON (a TOON document's), which
	// is valid: a value cut short is tried again only when scan finds its
	// end, not each time the bytes double (which finds a malformed one
	// early, and costs a TOON document's one value several decodes).
	made bool
}

// NewStream returns a Stream of r that decodes with dec. A value longer
// than maxSize bytes is an error (*jsonv.TooLargeError).
func NewStream(r io.Reader, dec *Decoder, maxSize int) *Stream {
	return &Stream{r: r, dec: dec, max: maxSize, buf: make([]byte, 0, 64<<10), line: 1}
}

// reset makes s a Stream of r that starts at the start of a line of an
// input, at its place at (a line > 1 past its byte order mark), keeping
// its buffer.
func (s *Stream) reset(r io.Reader, at jsonv.Position) {
	*s = Stream{r: r, dec: s.dec, max: s.max, buf: s.buf[:0], line: 1}
	if at.Line > 1 {
		s.off, s.line, s.started = at.Offset, at.Line, true
	}
}

// Next returns the next value; io.EOF after the last.
func (s *Stream) Next() (any, error) {
	for {
		if !s.started {
			if s.end-s.pos < 3 && !s.eof {
				s.fill()
				continue
			}
			s.started = true
			if bytes.HasPrefix(s.buf[s.pos:s.end], []byte("\xef\xbb\xbf")) {
				s.pos += 3 // a byte order mark
				s.lineStart = s.pos
			}
		}
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				break
			}
			if c == '\n' {
				s.line, s.lineStart, s.lineRunes = s.line+1, s.pos+1, 0
			}
			s.pos++
		}
		if s.pos == s.end {
			if s.eof {
				if s.rerr != nil {
					return nil, s.rerr
				}
				return nil, io.EOF
			}
			s.fill()
			continue
		}
		if s.scanning {
			if !s.scan.Feed(s.buf[s.pos:s.end]) && !s.eof && (s.made || s.end-s.pos < 2*s.tried) {
				s.fill()
				continue
			}
		}
		s.vpos, s.vline, s.vlineStart, s.vlineRunes = s.pos, s.line, s.lineStart, s.lineRunes
		v, n, short, err := s.dec.prefix(s.buf[s.pos:s.end], !s.eof)
		if short && !s.scanning {
			s.scan, s.scanning = jsonv.EndScan{}, true
		}
		s.tried = s.end - s.pos
		if !short {
			s.scanning = false
		}
		if err == nil && n > s.max {
			return nil, &jsonv.TooLargeError{Pos: s.Position(), Limit: int64(s.max)}
		}
		if err == nil {
			if k := bytes.Count(s.buf[s.pos:s.pos+n], []byte{'\n'}); k > 0 {
				s.line += k
				s.lineStart = s.pos + bytes.LastIndexByte(s.buf[s.pos:s.pos+n], '\n') + 1
				s.lineRunes = 0
			}
			s.pos += n
			return v, nil
		}
		if !short {
			return nil, ErrInvalid
		}
		if s.end-s.pos > s.max {
			return nil, &jsonv.TooLargeError{Pos: s.Position(), Limit: int64(s.max)}
		}
		s.fill()
	}
}

// fill reads more: what is unread moves to the front of the buffer (with
// what is left of its line before it, up to 4 KiB, for excerpts), which
// grows when the value being read fills it.
func (s *Stream) fill() {
	keep := max(s.pos-4096, s.lineStart, 0)
	for keep > 0 && keep < s.end && s.buf[keep]&0xC0 == 0x80 {
		keep-- // not within a character: its runes are counted
	}
	if s.lineStart < keep {
		// runes of the current line (and the last value's) that leave the buffer
		s.lineRunes += utf8.RuneCount(s.buf[max(s.lineStart, 0):keep])
	}
	if s.vpos >= keep && s.vlineStart < keep {
		s.vlineRunes += utf8.RuneCount(s.buf[max(s.vlineStart, 0):keep])
	}
	if keep > 0 {
		n := copy(s.buf[:cap(s.buf)], s.buf[keep:s.end])
		s.off += int64(keep)
		s.pos -= keep
		s.end = n
		s.lineStart -= keep
		s.vpos -= keep
		s.vlineStart -= keep
	}
	if s.end == cap(s.buf) {
		nb := make([]byte, 0, 2*cap(s.buf))
		s.buf = append(nb, s.buf[:s.end]...)
	}
	s.buf = s.buf[:cap(s.buf)]
	want := min(len(s.buf), s.end+512<<10)
	n, err := s.r.Read(s.buf[s.end:want])
	s.end += n
	s.buf = s.buf[:s.end]
	if err != nil {
		s.eof = true
		if err != io.EOF {
			s.rerr = err
		}
	}
}

// Position is the place of the last value Next returned (or failed on).
func (s *Stream) Position() jsonv.Position {
	col := s.vlineRunes + 1
	if s.vpos >= 0 {
		col += utf8.RuneCount(s.buf[max(s.vlineStart, 0):s.vpos])
	}
	return jsonv.Position{Offset: s.off + int64(s.vpos), Line: s.vline, Column: col}
}

// Buffered is the number of bytes read and not yet decoded.
func (s *Stream) Buffered() int { return len(jsonv.TrimSpace(s.buf[s.pos:s.end])) }

// Rest returns, after Next failed with ErrInvalid, the stream from the bad
// value on and the options that make a jsonv.Reader read it as the rest of
// this stream, so that the error it finds has its place and excerpt.
func (s *Stream) Rest() (io.Reader, jsonv.Options) {
	pos := s.Position()
	opts := jsonv.Options{Start: pos, MaxValueSize: int64(s.max)}
	if pos.Column > 1 {
		opts.StartLine = bytes.Clone(s.buf[max(s.vlineStart, s.vpos-72, 0):s.vpos])
	}
	rest := io.Reader(bytes.NewReader(bytes.Clone(s.buf[s.vpos:s.end])))
	if !s.eof {
		rest = io.MultiReader(rest, s.r)
	}
	return rest, opts
}

func (s *Stream) String() string { return fmt.Sprintf("query.Stream at %s", s.Position()) }
