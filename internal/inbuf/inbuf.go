// Package inbuf is the read buffer under toonkit's stream readers (binary
// frames, JSON values): one buffer holds the bytes read ahead; bytes before
// Pos are consumed and are dropped when room is needed; the buffer grows
// only when the unread bytes fill it, to about twice its size at most (an
// eighth more on the last step) and never past Max, so that its size follows the bytes that have actually arrived
// and a length field in the input never sizes an allocation.
package inbuf

import (
	"bytes"
	"errors"
	"io"
)

// Buffer reads R ahead. Buf[Pos:End] are the unread bytes; Base is the
// absolute offset of Buf[0].
type Buffer struct {
	R       io.Reader
	Buf     []byte
	Pos     int
	End     int
	Base    int64
	EOF     bool
	ReadErr error // a read error other than io.EOF

	// First is the size of the first buffer, Steady the size a buffer is
	// given once a stream outgrows the first one (a larger buffer means
	// fewer values cut at its end), and Max the largest it may grow to.
	First, Steady, Max int
	// Drop, when set, is called with the consumed bytes before they are
	// dropped.
	Drop func(gone []byte)
	// Fresh, when set, gives the buffer that the unread bytes move to
	// whenever room is needed, in place of moving them within Buf, so that
	// the bytes of a buffer are never written again once read into it: a
	// caller may hold on to slices of them. old is the buffer left (nil
	// at first); the result must be at least size bytes long.
	Fresh func(old []byte, size int) []byte
}

// Fill makes at least n bytes available from Pos unless the stream ends,
// fails, or the buffer would pass Max first, and reports how many are.
func (b *Buffer) Fill(n int) int { return b.fill(n, n) }

// More reads at least one byte more than are available from Pos (unless
// the stream ends, fails, or the buffer is full at Max), for a caller that
// does not know how many it needs (a value whose end has not been seen): a
// full buffer doubles. It reports how many bytes are available.
func (b *Buffer) More() int {
	have := b.End - b.Pos
	return b.fill(have+1, 2*have)
}

func (b *Buffer) fill(n, want int) int {
	for b.End-b.Pos < n && !b.EOF && b.ReadErr == nil {
		if b.End == len(b.Buf) && !b.makeRoom(n, want) {
			break
		}
		m, err := b.R.Read(b.Buf[b.End:])
		b.End += m
		if err == io.EOF {
			b.EOF = true
		} else if err != nil {
			b.ReadErr = err
		}
	}
	return b.End - b.Pos
}

// makeRoom drops the consumed bytes, or grows the buffer, so that there is
// room to read into; false when the buffer is at Max and full of unread
// bytes.
func (b *Buffer) makeRoom(n, want int) bool {
	switch {
	case len(b.Buf) == 0:
		b.resize(min(b.First, b.Max))
		return true
	case b.Pos > 0 && b.Fresh != nil:
		// A buffer of the steady size, or one that holds n bytes.
		b.resize(min(b.Max, max(b.Steady, n)))
		return true
	case b.Pos > 0 && len(b.Buf) < min(b.Steady, b.Max):
		b.resize(min(b.Steady, b.Max))
		return true
	case b.Pos > 0:
		b.resize(len(b.Buf)) // drop only
		return true
	}
	limit := min(b.Max, max(n+b.First, want)) // the most that can be useful
	size := min(2*len(b.Buf), limit)
	// The last step goes to the limit, or to Max, when they are close,
	// rather than doubling just short of them and growing again just past.
	if limit-size <= size/8 {
		size = limit
	}
	if b.Max-size <= size/8 {
		size = b.Max
	}
	if size <= len(b.Buf) {
		return false
	}
	b.resize(size)
	return true
}

// resize moves the unread bytes to the start of a buffer of size bytes
// (the same one when size is its size), dropping the consumed ones.
func (b *Buffer) resize(size int) {
	if b.Drop != nil && b.Pos > 0 {
		b.Drop(b.Buf[:b.Pos])
	}
	nb := b.Buf
	switch {
	case b.Fresh != nil:
		nb = b.Fresh(b.Buf, size)
	case size != len(b.Buf):
		nb = make([]byte, size)
	}
	b.End = copy(nb, b.Buf[b.Pos:b.End])
	b.Base += int64(b.Pos)
	b.Pos = 0
	b.Buf = nb
}

// ErrLineTooLong is returned by Line for a line longer than its limit.
var ErrLineTooLong = errors.New("line too long")

// Line returns the next line without its LF, valid until the next call,
// says whether an LF ended it (the last line of a stream may lack one),
// and consumes it. At the end of the stream it returns io.EOF; a line
// longer than max bytes gives ErrLineTooLong and is not consumed; a read
// error is returned as it is.
func (b *Buffer) Line(max int) (line []byte, lf bool, err error) {
	from := 0 // the bytes before have no newline
	for {
		buf := b.Buf[b.Pos:b.End]
		i := bytes.IndexByte(buf[from:], '\n')
		if i >= 0 {
			i += from
		}
		from = len(buf)
		if i > max {
			return nil, false, ErrLineTooLong
		} else if i >= 0 {
			b.Pos += i + 1
			return buf[:i], true, nil
		}
		if len(buf) > max {
			return nil, false, ErrLineTooLong
		}
		if b.More() == len(buf) {
			switch {
			case b.ReadErr != nil:
				return nil, false, b.ReadErr
			case !b.EOF:
				return nil, false, ErrLineTooLong // full at Max
			case len(buf) == 0:
				return nil, false, io.EOF
			}
			b.Pos += len(buf)
			return buf, false, nil
		}
	}
}
