package kado

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
)

// Frame is one frame as read from a stream. Payload is the payload as it is
// on the wire (compressed or not); it is valid until the next call to Next.
type Frame struct {
	Index  int   // 0-based position in the stream
	Offset int64 // absolute byte offset of the first header byte
	Header Header
	Raw    []byte // the HeaderSize header bytes followed by the payload
}

// Payload returns the wire payload (after the header).
func (f *Frame) Payload() []byte { return f.Raw[HeaderSize:] }

// Compressed reports whether the payload starts with the magic byte 0x5A.
func (f *Frame) Compressed() bool { return IsCompressed(f.Payload()) }

// Size is the number of bytes the frame occupies in the stream.
func (f *Frame) Size() int { return len(f.Raw) }

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// MaxFrameSize bounds a payload, on the wire and decompressed.
	// 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// BaseOffset is the absolute offset of the first byte of the stream
	// (for inputs read after a skip).
	BaseOffset int64
}

// Reader reads frames back to back from a stream, in memory bounded by the
// largest frame. Payload lengths never size an allocation before the bytes
// have arrived.
type Reader struct {
	in           inbuf.Buffer
	max          int
	index        int
	err          error // the error of the frame at pos, until Resync
	frame        Frame
	unrle        []byte
	jsonb        []byte
	chk          jsonv.Checker
	decompressed int // size of the last payload JSON looked at; -1: it did not decompress
}

const initialBuffer = 64 << 10

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ReaderOptions) *Reader {
	maxSize := opts.MaxFrameSize
	if maxSize <= 0 {
		maxSize = DefaultMaxFrameSize
	}
	return &Reader{max: maxSize, in: inbuf.Buffer{R: r, Base: opts.BaseOffset,
		First: initialBuffer, Steady: initialBuffer, Max: HeaderSize + maxSize + initialBuffer}}
}

// MaxFrameSize returns the payload limit in force.
func (r *Reader) MaxFrameSize() int { return r.max }

// Offset returns the absolute offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.in.Base + int64(r.in.Pos) }

// Buffered returns the bytes read from the stream but not yet consumed; they
// start at Offset(). After Next has failed with a *FrameError they start at
// the failed frame's first byte and hold at least what the reader looked at
// (the header, and for a truncated payload every byte up to the end of the
// stream), for display. The slice is valid until the next call to Next or
// Resync and must not be modified.
func (r *Reader) Buffered() []byte { return r.in.Buf[r.in.Pos:r.in.End] }

// Peek returns up to n bytes from Offset() on, reading more from the stream
// when fewer are buffered; it returns fewer only at the end of the stream or
// after a read error (which a later call to Next reports). After
// Next has failed with a *FrameError the bytes start at the failed frame's
// first byte, so that a caller can show what follows a bad header before it
// calls Resync. The slice is valid until the next call to Next, Peek or
// Resync and must not be modified.
func (r *Reader) Peek(n int) []byte {
	avail := r.in.Fill(n)
	return r.in.Buf[r.in.Pos : r.in.Pos+min(avail, max(n, 0))]
}

// Next returns the next frame. At the clean end of the stream it returns
// io.EOF; a frame that breaks a rule gives a *FrameError, returned again by
// every call until Resync; a read error is returned as it is.
func (r *Reader) Next() (*Frame, error) {
	if r.err != nil {
		return nil, r.err
	}
	avail := r.in.Fill(HeaderSize)
	if avail == 0 {
		if r.in.ReadErr != nil {
			return nil, r.in.ReadErr
		}
		return nil, io.EOF
	}
	off := r.Offset()
	if avail < HeaderSize {
		if r.in.ReadErr != nil {
			return nil, r.in.ReadErr
		}
		return nil, r.fail(&FrameError{Kind: TruncatedHeader, Field: "header", ByteOffset: off,
			Expected: fmt.Sprintf("%d header bytes", HeaderSize), Found: fmt.Sprintf("only %d %s", avail, plural(avail, "byte remains", "bytes remain"))})
	}
	h := ParseHeader(r.in.Buf[r.in.Pos:])
	if err := h.Check(r.max); err != nil {
		fe := err.(*FieldError)
		return nil, r.fail(&FrameError{Kind: fe.Kind, Field: fe.Field, ByteOffset: off + int64(fe.Offset), Expected: fe.Expected, Found: fe.Found})
	}
	need := HeaderSize + int(h.PayloadLength)
	if got := r.in.Fill(need); got < need {
		if r.in.ReadErr != nil {
			return nil, r.in.ReadErr
		}
		left := got - HeaderSize
		return nil, r.fail(&FrameError{Kind: TruncatedPayload, Field: "payloadLength", ByteOffset: off + OffPayloadLength,
			Expected: fmt.Sprintf("%d payload bytes", h.PayloadLength), Found: fmt.Sprintf("only %d %s", left, plural(left, "byte remains", "bytes remain"))})
	}
	r.frame = Frame{Index: r.index, Offset: off, Header: h, Raw: r.in.Buf[r.in.Pos : r.in.Pos+need]}
	r.in.Pos += need
	r.index++
	return &r.frame, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (r *Reader) fail(e *FrameError) error {
	e.Frame = r.index
	e.Offset = r.Offset()
	e.Header = append([]byte(nil), r.in.Buf[r.in.Pos:min(r.in.End, r.in.Pos+HeaderSize)]...)
	r.err = e
	return e
}

// Resync moves past a frame whose header or length failed: it looks for the
// next plausible header after the failed frame's first byte and reports how
// many bytes it passed over. (A frame whose payload is not JSON needs no
// Resync: its length was good and the reader is already past it.) When no
// header is found before the end, all remaining bytes are skipped and the
// next call to Next returns io.EOF; found reports whether a header was found.
func (r *Reader) Resync() (skipped int64, found bool) {
	if r.err == nil {
		return 0, false
	}
	r.err = nil
	start := r.Offset()
	r.in.Pos++
	for {
		avail := r.in.Fill(HeaderSize + 1)
		if avail == 0 {
			return r.Offset() - start, false
		}
		if k := bytes.IndexByte(r.in.Buf[r.in.Pos:r.in.End], Version); k < 0 {
			r.in.Pos = r.in.End
			continue
		} else if k > 0 {
			r.in.Pos += k
			continue
		}
		if r.plausible(r.in.Buf[r.in.Pos:r.in.End]) {
			r.index++
			return r.Offset() - start, true
		}
		if avail < HeaderSize {
			// Too short for a header: the rest is skipped.
			r.in.Pos = r.in.End
			continue
		}
		r.in.Pos++
	}
}

// SkipBadPayload moves on after a frame whose payload failed JSON (f must be
// the frame the last Next returned). When the frame's length leads to the
// end of the stream or to a version byte (a header, even a damaged one,
// which Next then reports), the length is trusted: the reader is already
// past the frame and skipped is 0. Otherwise the length itself is suspect, and the
// reader looks for the next plausible header after the frame's first byte,
// as Resync does; skipped counts from the frame's first byte.
func (r *Reader) SkipBadPayload(f *Frame) (skipped int64, found bool) {
	size := f.Size()
	r.in.Pos = int(f.Offset - r.in.Base) // Next's bytes are still buffered: nothing was read since
	avail := r.in.Fill(size + 1)
	if avail == size || r.in.Buf[r.in.Pos+size] == Version {
		r.in.Pos += size
		return 0, avail > size
	}
	r.index-- // the frame is counted again by Resync when it finds the next one
	r.err = &FrameError{Kind: BadPayload, Frame: f.Index, Offset: f.Offset}
	return r.Resync()
}

// plausible tells whether b starts with something that looks like a frame
// (Plausible with the reader's limit).
func (r *Reader) plausible(b []byte) bool { return Plausible(b, r.max) }

// Plausible tells whether b starts with something that looks like a frame:
// version 1, a known type, a payload length from 1 to maxSize, and (when b
// holds more than the header) a payload that can begin a JSON document or a
// compressed body. It is the test by which a Reader resynchronises after a
// bad frame; b must hold at least HeaderSize bytes.
func Plausible(b []byte, maxSize int) bool {
	if len(b) < HeaderSize || b[0] != Version || !MessageType(b[1]).Valid() {
		return false
	}
	h := ParseHeader(b)
	if h.PayloadLength == 0 || uint64(h.PayloadLength) > uint64(maxSize) {
		return false
	}
	if len(b) == HeaderSize {
		return true
	}
	switch b[HeaderSize] {
	case '{', '[', '"', '-', 't', 'f', 'n', ' ', '\t', '\r', '\n', CompressionMagic:
		return true
	}
	return b[HeaderSize] >= '0' && b[HeaderSize] <= '9'
}

// JSON returns the frame's payload as compact JSON: decompressed when it is
// compressed, without white space between tokens, strings in their minimal
// escaping, numbers as written. The result is valid until the next call.
// A payload that is not JSON gives a *FrameError.
func (r *Reader) JSON(f *Frame) ([]byte, error) {
	wire := f.Payload()
	src := wire
	payloadAt := f.Offset + HeaderSize
	r.decompressed = len(wire)
	if IsCompressed(wire) {
		var err error
		r.unrle, err = AppendUnRLE(r.unrle[:0], wire[1:], r.max)
		r.decompressed = len(r.unrle)
		if err != nil {
			r.decompressed = -1
			return nil, &FrameError{Kind: BadPayload, Frame: f.Index, Offset: f.Offset, ByteOffset: payloadAt, Field: "payload",
				Err: err, Header: append([]byte(nil), f.Raw[:HeaderSize]...)}
		}
		src = r.unrle
	}
	var out []byte
	var err error
	if IsCompressed(wire) {
		out, err = r.chk.CompactInPlace(r.unrle) // ours: no copy
	} else {
		// The wire bytes are the stream's: copied only when not compact already.
		out, err = r.chk.Compacted(r.jsonb, src)
	}
	if err != nil {
		fe := &FrameError{Kind: BadPayload, Frame: f.Index, Offset: f.Offset, ByteOffset: payloadAt, Field: "payload",
			Expected: "JSON", Found: describeStart(src), Header: append([]byte(nil), f.Raw[:HeaderSize]...)}
		rel := jsonv.ErrorOffset(err)
		if rel >= 0 && !IsCompressed(wire) {
			fe.ByteOffset = payloadAt + rel
		}
		fe.Err = &PayloadError{Offset: rel, Compressed: IsCompressed(wire), Msg: jsonv.Message(err), Pointer: jsonv.ErrorPointer(err), Hint: jsonv.HintAt(src, rel)}
		if !validStart(src) {
			fe.Err = nil
		} else {
			fe.Expected, fe.Found = "", ""
		}
		return nil, fe
	}
	if IsCompressed(wire) {
		r.unrle = out
	} else if len(src) > 0 && len(out) > 0 && &out[0] != &src[0] {
		r.jsonb = out
	}
	return out, nil
}

// DecompressedLen is the size of the payload that the last call to JSON
// looked at, after decompression; -1 when decompression failed.
func (r *Reader) DecompressedLen() int { return r.decompressed }

// PayloadError is a JSON syntax error inside a payload.
type PayloadError struct {
	Offset     int64 // within the (decompressed) payload; -1 when unknown
	Compressed bool
	Msg        string
	Pointer    string // JSON pointer of the value, when known
	Hint       string // the next step, when known (jsonv.HintAt: a NaN)
}

// JSONHint is the hint for the error (jsonv.Hint).
func (e *PayloadError) JSONHint() string { return e.Hint }

func (e *PayloadError) Error() string {
	where := "payload"
	if e.Compressed {
		where = "decompressed payload"
	}
	msg := "not valid JSON: " + e.Msg
	if e.Pointer != "" {
		msg = "not valid JSON at " + e.Pointer + ": " + e.Msg
	}
	if e.Offset < 0 {
		return msg
	}
	return fmt.Sprintf("%s (byte %d of the %s)", msg, e.Offset, where)
}

func validStart(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[', '"', '-', 't', 'f', 'n':
			return true
		}
		return c >= '0' && c <= '9'
	}
	return false
}

func describeStart(b []byte) string {
	if len(b) == 0 {
		return "an empty payload"
	}
	c := b[0]
	if c >= 0x20 && c < 0x7F {
		return fmt.Sprintf("byte 0x%02X (%q)", c, rune(c))
	}
	return fmt.Sprintf("byte 0x%02X", c)
}

// IsFrameError reports whether err is a *FrameError (a rule broken by the
// input, as opposed to an I/O error).
func IsFrameError(err error) bool {
	var fe *FrameError
	return errors.As(err, &fe)
}
