package jsonv

import "github.com/toonkit/toonkit/internal/inbuf"

// MoreValue is b.More for a reader that has parsed the parsed bytes
// unread in b, a value's first bytes, and found the value not ended in
// them. It reads on until an EndScan says it is time to parse again, or
// the unread bytes are twice parsed, or More stops adding to them (the
// end of the input, a read error, a buffer full at its Max). It reports
// how many bytes are unread, as More does.
//
// A reader that parsed again after each More would parse a value that
// arrives in n reads n times over, which is quadratic on a pipe (64 KiB a
// read): 5 s for one 14 MB value on stdin, against 0.3 s from a file.
// After MoreValue, a value is parsed about twice at most.
func MoreValue(b *inbuf.Buffer, parsed int) int {
	var sc EndScan
	for {
		have := b.End - b.Pos
		n := b.More()
		if n == have || n >= 2*parsed || sc.Feed(b.Buf[b.Pos:b.End]) {
			return n
		}
	}
}

// EndScan finds, without parsing it, where a JSON value ends, from its
// bytes as they come: it follows the strings and the brackets. A reader
// whose parse of a value's first bytes ran out of bytes feeds it what
// more it reads, and parses again when Feed says so, rather than after
// each read. The zero value is ready for a value's first byte.
type EndScan struct {
	off    int    // bytes scanned
	open   []byte // the brackets open, innermost last
	str    bool   // within a string
	esc    bool   // after a backslash in a string
	scalar bool   // a number or a literal, which ends at a byte not in it
	done   bool
}

// Feed scans v, the value's bytes so far from its first (the bytes fed
// before are not scanned again), and reports whether the value ends in
// them, or holds a byte that no valid value holds there (a closing
// bracket of the other kind, a control character in a string): either
// way, the time to parse it. Once true, it stays true.
func (s *EndScan) Feed(v []byte) bool {
	i := s.off
	if i == 0 && len(v) > 0 {
		switch c := v[0]; c {
		case '"':
			s.str = true
		case '{', '[':
			s.open = append(s.open, c)
		default:
			s.scalar = true
		}
		i = 1
	}
	for ; i < len(v) && !s.done; i++ {
		c := v[i]
		switch {
		case s.str:
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.str = false
				s.done = len(s.open) == 0
			case c < 0x20:
				s.done = true
			}
		case s.scalar:
			s.done = !(c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '.' || c == '+' || c == '-')
		case c == '"':
			s.str = true
		case c == '{' || c == '[':
			s.open = append(s.open, c)
		case c == '}' || c == ']':
			// '{'+2 is '}', '['+2 is ']'
			s.done = len(s.open) == 0 || s.open[len(s.open)-1] != c-2 || len(s.open) == 1
			if len(s.open) > 0 {
				s.open = s.open[:len(s.open)-1]
			}
		}
	}
	s.off = max(s.off, len(v))
	return s.done
}
