package kado

import (
	"fmt"
	"io"
	"math"
)

// AppendFrame appends a whole frame to dst: the header of h with its
// PayloadLength set to the wire payload's length, then the wire payload
// (the compact JSON payload, RLE-compressed according to mode). It returns
// the header as written.
func AppendFrame(dst []byte, h Header, payload []byte, mode CompressMode) ([]byte, Header, error) {
	start := len(dst)
	dst = append(dst, make([]byte, HeaderSize)...)
	dst, _ = AppendPayload(dst, payload, mode)
	n := len(dst) - start - HeaderSize
	if uint64(n) > math.MaxUint32 {
		return dst[:start], h, fmt.Errorf("payload of %d bytes does not fit the 32-bit payloadLength", n)
	}
	h.PayloadLength = uint32(n)
	AppendHeader(dst[start:start], h)
	return dst, h, nil
}

// Writer writes frames back to back to a stream.
type Writer struct {
	w    io.Writer
	mode CompressMode
	buf  []byte
}

// NewWriter returns a Writer that compresses payloads according to mode.
func NewWriter(w io.Writer, mode CompressMode) *Writer {
	return &Writer{w: w, mode: mode}
}

// WriteRaw writes a whole frame (header and wire payload) as it is, such
// as one a Reader read.
func (w *Writer) WriteRaw(frame []byte) error {
	_, err := w.w.Write(frame)
	return err
}

// WriteFrame writes one frame whose payload is the given compact JSON.
// It returns the header as written (with PayloadLength set). A payload that
// goes out uncompressed is written as it is, not copied.
func (w *Writer) WriteFrame(h Header, payload []byte) (Header, error) {
	wire := payload
	if body, ok := compressInto(w.buf[:0], payload, w.mode); ok {
		wire, w.buf = body, body
	}
	if uint64(len(wire)) > math.MaxUint32 {
		return h, fmt.Errorf("payload of %d bytes does not fit the 32-bit payloadLength", len(wire))
	}
	h.PayloadLength = uint32(len(wire))
	var hdr [HeaderSize]byte
	AppendHeader(hdr[:0], h)
	if _, err := w.w.Write(hdr[:]); err != nil {
		return h, err
	}
	_, err := w.w.Write(wire)
	if cap(w.buf) > 4<<20 {
		w.buf = nil // do not keep a huge buffer after one huge frame
	}
	return h, err
}
