package kado

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/readahead"
)

// EncodeStreamOptions configure EncodeStream.
type EncodeStreamOptions struct {
	// MaxValueSize bounds one JSON value of the input; 0 means
	// jsonv.DefaultMaxValueSize.
	MaxValueSize int
	// Workers frame the values; <= 1 does it all on the caller's
	// goroutine.
	Workers int
	// Compress says when a payload is RLE-compressed.
	Compress CompressMode
	// Seq is the sequence id of the first value; it goes up by one per
	// value, records that carry their own sequenceId included. A value
	// that would take a sequence id past 32 bits is an error (SeqOverflow).
	Seq uint64
	// Type is the message type of bare payloads; 0 infers it from the
	// payload's keys (InferType).
	Type MessageType
	// Timestamp is the timestamp of bare payloads; nil means Now at each
	// frame.
	Timestamp *uint64
	// Now is the clock of bare payloads without Timestamp; nil means
	// time.Now. It may be called from several goroutines.
	Now func() time.Time
	// ChunkBytes is the input after which a chunk is cut, at the next line
	// end; 0 means 256 KiB. A chunk with no line end in 4*ChunkBytes is
	// read by one worker.
	ChunkBytes int
	// LeaveRead: a run that stops early returns at once, even while a read
	// of in waits for more input (pipeline.Options.LeaveRead); in must then
	// be left alone.
	LeaveRead bool
	// SkipText leaves out the records of WebSocket text messages that
	// decode writes for a packet capture ({"capture":{...},"text":"..."}),
	// which are not frames; they take no sequence id, and
	// EncodeHandler.Skipped counts them. Without it such a record is an
	// error (TextMessage).
	SkipText bool
}

// EncodeHandler receives the output of EncodeStream, in input order, on the
// caller's goroutine. An error returned stops the run and is returned.
type EncodeHandler struct {
	// Write receives the frames, back to back, in pieces; p is valid
	// during the call.
	Write func(p []byte) error
	// Idle, when not nil, is called where the input had nothing more
	// buffered after a frame: a place to flush the output, so that a live
	// input (a pipe) is not held back.
	Idle func() error
	// Skipped, when not nil, receives the number of records left out
	// (EncodeStreamOptions.SkipText) since its last call, in input order
	// with Write.
	Skipped func(n int) error
}

// EncodeProblem is the kind of an EncodeError.
type EncodeProblem int

const (
	// NotJSON: the input is not a stream of JSON values.
	NotJSON EncodeProblem = iota + 1
	// ValueTooLarge: a value passes EncodeStreamOptions.MaxValueSize.
	ValueTooLarge
	// BadRecord: a {"header":...,"payload":...} record has a header field
	// that does not fit a frame.
	BadRecord
	// UnknownType: a bare payload's type cannot be inferred, and no Type
	// was given.
	UnknownType
	// SeqOverflow: the sequence id passes 32 bits.
	SeqOverflow
	// PayloadTooLarge: the payload does not fit the 32-bit payloadLength.
	PayloadTooLarge
	// TextMessage: the record of a WebSocket text message of a capture,
	// {"capture":{...},"text":"..."}: not a frame (see
	// EncodeStreamOptions.SkipText).
	TextMessage
)

// EncodeError is a value of the input that cannot be made a frame, or input
// that is not JSON. Err is a *jsonv.SyntaxError, with the position (line,
// column, byte offset), the JSON pointer of the field at fault and the line
// for an excerpt, except for ValueTooLarge (a *jsonv.TooLargeError) and
// PayloadTooLarge (a plain error; Pos is where the value starts).
type EncodeError struct {
	Kind EncodeProblem
	Pos  jsonv.Position
	Err  error
}

func (e *EncodeError) Error() string {
	if e.Kind == PayloadTooLarge {
		return fmt.Sprintf("%s: %v", e.Pos, e.Err)
	}
	return e.Err.Error()
}

func (e *EncodeError) Unwrap() error { return e.Err }

// EncodeStream reads a stream of JSON values from in (one document, NDJSON,
// or values back to back, in any formatting) and hands a Kado frame of each
// to h, in input order. A value shaped as decode writes a frame,
// {"header":{...},"payload":...}, is a record: its own version, type,
// timestamp and sequenceId are kept (payloadLength and compressed are
// recomputed). Any other value is a bare payload, which takes opts.Type (or
// the inferred type), opts.Timestamp (or now) and the running sequence id.
//
// The output is that of one worker whatever opts.Workers: the input is cut
// into chunks at line ends, and each worker frames the values of a chunk
// with a placeholder where the running sequence id goes, which is filled in
// as the chunks are written in order. A chunk whose values do not all frame
// (an error, or a value that goes on past the chunk's end, as indented JSON
// does) is not written: from its first byte on one worker reads the rest,
// and meets the same error at the same position. Memory is bounded by a
// fixed number of chunks in flight.
//
// It returns the sequence id the next value would take (opts.Seq plus the
// values framed), so that several inputs may be numbered as one, and the
// first error: an *EncodeError, an error of h, or a read error of in. No
// output of a value after a failing one is written.
func EncodeStream(ctx context.Context, in io.Reader, opts EncodeStreamOptions, h EncodeHandler) (uint64, error) {
	e := &streamEncoder{opts: opts, h: h, seq: opts.Seq}
	if e.opts.Now == nil {
		e.opts.Now = time.Now
	}
	if e.opts.ChunkBytes <= 0 {
		e.opts.ChunkBytes = 256 << 10
	}
	var err error
	if opts.Workers > 1 {
		err = e.parallel(ctx, in)
	} else {
		err = e.serial(ctx, jsonv.NewReader(in, jsonv.Options{MaxValueSize: int64(opts.MaxValueSize)}))
	}
	return e.seq, err
}

type streamEncoder struct {
	opts EncodeStreamOptions
	h    EncodeHandler
	seq  uint64 // of the next value
}

// serial writes a frame of each value jr reads.
func (e *streamEncoder) serial(ctx context.Context, jr *jsonv.Reader) error {
	var buf []byte // the compressed payload
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, pos, err := jr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var se *jsonv.SyntaxError
			var te *jsonv.TooLargeError
			switch {
			case errors.As(err, &se):
				return &EncodeError{Kind: NotJSON, Pos: se.Pos, Err: err}
			case errors.As(err, &te):
				return &EncodeError{Kind: ValueTooLarge, Pos: te.Pos, Err: err}
			case errors.Is(err, jsonv.ErrTooLarge):
				return &EncodeError{Kind: ValueTooLarge, Pos: pos, Err: err}
			}
			return err
		}
		h, p, err := FrameHeader(v, e.seq, &e.opts)
		if err == errSkipText {
			if e.h.Skipped != nil {
				if err := e.h.Skipped(1); err != nil {
					return err
				}
			}
			continue
		}
		if err != nil {
			return positioned(err, jr, pos)
		}
		// The reader has checked the value and counted its lines: it may
		// be compacted where it stands.
		payload := jsonv.CompactInPlace(p)
		wire := payload
		if body, ok := compressInto(buf[:0], payload, e.opts.Compress); ok {
			wire, buf = body, body
		}
		if uint64(len(wire)) > math.MaxUint32 {
			return &EncodeError{Kind: PayloadTooLarge, Pos: pos, Err: fmt.Errorf("payload of %d bytes does not fit the 32-bit payloadLength", len(wire))}
		}
		h.PayloadLength = uint32(len(wire))
		var hdr [HeaderSize]byte
		AppendHeader(hdr[:0], h)
		if err := e.h.Write(hdr[:]); err != nil {
			return err
		}
		if err := e.h.Write(wire); err != nil {
			return err
		}
		if cap(buf) > 4<<20 {
			buf = nil // do not keep a huge buffer after one huge frame
		}
		if jr.Buffered() == 0 && e.h.Idle != nil {
			if err := e.h.Idle(); err != nil {
				return err
			}
		}
		e.seq++
	}
}

// FrameHeader builds the header of the frame of value v as EncodeStream
// does with opts: a record keeps its own fields, a bare payload takes
// opts.Type (or the inferred type), opts.Timestamp (or now), and seq unless
// v is a record with its own sequenceId. It returns the payload as it
// stands in v, not compacted. A value that cannot be framed gives an
// *EncodeError (BadRecord, UnknownType, SeqOverflow) whose Err is a
// *RecordError with the offset within v of the bytes at fault.
func FrameHeader(v jsontext.Value, seq uint64, opts *EncodeStreamOptions) (Header, []byte, error) {
	h, p, own, err := frameHeader(v, opts)
	if err != nil || own {
		return h, p, err
	}
	if seq > math.MaxUint32 {
		return h, nil, &EncodeError{Kind: SeqOverflow, Err: &RecordError{Msg: fmt.Sprintf("sequence id %d does not fit the 32-bit sequenceId field", seq)}}
	}
	h.SequenceID = uint32(seq)
	return h, p, nil
}

// frameHeader is FrameHeader but for the sequence id, which it sets only
// when v is a record that has its own (own).
func frameHeader(v jsontext.Value, opts *EncodeStreamOptions) (h Header, payload []byte, own bool, err error) {
	if isTextRecord(v) {
		if opts.SkipText {
			return h, nil, false, errSkipText
		}
		return h, nil, false, &EncodeError{Kind: TextMessage, Err: &RecordError{Msg: "a WebSocket text message of a packet capture (decode's {\"capture\":...,\"text\":...} record) is not a frame"}}
	}
	rec, err := ParseRecord(v)
	if err != nil {
		return h, nil, false, &EncodeError{Kind: BadRecord, Err: err}
	}
	h.Version = Version
	if rec.Version != nil {
		h.Version = *rec.Version
	}
	switch {
	case rec.Type != nil:
		h.Type = *rec.Type
	case opts.Type != 0:
		h.Type = opts.Type
	default:
		t, err := InferType(rec.Payload)
		if err != nil {
			return h, nil, false, &EncodeError{Kind: UnknownType, Err: &RecordError{Offset: rec.PayloadStart, Msg: "cannot tell the message type: " + err.Error()}}
		}
		h.Type = t
	}
	if rec.SequenceID != nil {
		h.SequenceID, own = *rec.SequenceID, true
	}
	switch {
	case rec.Timestamp != nil:
		h.Timestamp = *rec.Timestamp
	case opts.Timestamp != nil:
		h.Timestamp = *opts.Timestamp
	case opts.Now != nil:
		h.Timestamp = uint64(opts.Now().UnixMilli())
	default:
		h.Timestamp = uint64(time.Now().UnixMilli())
	}
	return h, rec.Payload, own, nil
}

// positioned gives err, an *EncodeError of FrameHeader, the position of
// its bytes: jr's last value starts at pos.
func positioned(err error, jr *jsonv.Reader, pos jsonv.Position) error {
	ee, ok := err.(*EncodeError)
	if !ok {
		return err
	}
	re, ok := ee.Err.(*RecordError)
	if !ok {
		return err
	}
	se := jr.ErrorAt(pos.Offset+re.Offset, re.Pointer, re.Msg)
	return &EncodeError{Kind: ee.Kind, Pos: se.Pos, Err: se}
}

type encodeChunk struct {
	raw    []byte
	start  jsonv.Position // of raw[0]; zero for the stream's start
	end    jsonv.Position // of the byte after raw
	idle   bool           // the input had nothing more to give at once: flush after it
	whole  bool           // raw ends at a line end or at the end of the input
	framed bool           // a worker framed every value
	out    []byte
	seqAt  []int // offsets in out of the sequence ids to fill in
	seqOf  []int // the value index of each
	values int
	// records left out (SkipText)
	skipped int
}

var errSerial = errors.New("one worker takes over")

// errSkipText is a text message's record left out (SkipText).
var errSkipText = errors.New("a text message, left out")

// isTextRecord tells whether v is the record decode writes for a WebSocket
// text message of a packet capture: an object of exactly the members
// "capture" (an object) and "text" (a string), in either order.
func isTextRecord(v jsontext.Value) bool {
	if !bytes.Contains(v, []byte(`"capture"`)) {
		return false
	}
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return false
	}
	seen := 0
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return false
		}
		name := tok.String()
		kind := d.PeekKind()
		switch {
		case name == "capture" && kind == '{' && seen&1 == 0:
			seen |= 1
		case name == "text" && kind == '"' && seen&2 == 0:
			seen |= 2
		default:
			return false
		}
		if err := d.SkipValue(); err != nil {
			return false
		}
	}
	return seen == 3
}

// parallel frames the values of in on several workers (see EncodeStream).
func (e *streamEncoder) parallel(ctx context.Context, in io.Reader) error {
	chunkBytes := e.opts.ChunkBytes
	workers := e.opts.Workers
	free := make(chan *encodeChunk, 2*workers+4)
	// Chunks end at line ends, and where a read came back short (the input
	// may wait: what it gave is framed and written first).
	bt := &readahead.Batcher{In: in, BatchBytes: chunkBytes, MaxBatch: 4 * chunkBytes, Live: true,
		Cut: func(raw []byte, _ bool) int { return bytes.LastIndexByte(raw, '\n') + 1 }}
	next := jsonv.Position{} // the start of the next chunk
	read := func() (*encodeChunk, error) {
		var b *encodeChunk
		nb, ok := bt.Next(func() []byte {
			select {
			case b = <-free:
			default:
				b = &encodeChunk{}
			}
			return b.raw
		})
		if !ok {
			return nil, io.EOF
		}
		// A chunk with no line end by 4 chunkBytes, or that met a read
		// error, is one worker's from its start.
		b.raw, b.start, b.whole = nb.Raw, next, !nb.Rest
		b.idle = nb.Idle && len(jsonv.TrimSpace(bt.Carry)) == 0
		if next.Line == 0 {
			next = jsonv.Position{Line: 1, Column: 1}
		}
		next.Offset += int64(len(b.raw))
		next.Line += bytes.Count(b.raw, []byte{'\n'})
		b.end = next
		return b, nil
	}
	start := jsonv.Position{} // of the first chunk not written
	type workerState struct {
		buf []byte
		jr  *jsonv.Reader
		src bytes.Reader
	}
	states := make(chan *workerState, workers)
	for range workers {
		states <- &workerState{jr: jsonv.NewReader(nil, jsonv.Options{})}
	}
	work := func(b *encodeChunk) (*encodeChunk, error) {
		b.out, b.seqAt, b.seqOf, b.values, b.framed, b.skipped = b.out[:0], b.seqAt[:0], b.seqOf[:0], 0, false, 0
		if !b.whole {
			return b, nil
		}
		st := <-states
		defer func() { states <- st }()
		st.src.Reset(b.raw)
		jr := st.jr
		jr.Reset(&st.src, jsonv.Options{MaxValueSize: int64(e.opts.MaxValueSize), Start: b.start})
		for {
			v, _, err := jr.Next()
			if err == io.EOF {
				b.framed = true
				return b, nil
			}
			if err != nil {
				return b, nil
			}
			h, p, own, err := frameHeader(v, &e.opts)
			if err == errSkipText {
				b.skipped++
				continue
			}
			if err != nil {
				return b, nil
			}
			payload := jsonv.Compacted(st.buf, p) // not in place: the chunk may be read again
			if len(payload) > 0 && len(p) > 0 && &payload[0] != &p[0] {
				st.buf = payload
			}
			at := len(b.out)
			if b.out, _, err = AppendFrame(b.out, h, payload, e.opts.Compress); err != nil {
				return b, nil
			}
			if !own {
				b.seqAt, b.seqOf = append(b.seqAt, at+OffSequenceID), append(b.seqOf, b.values)
			}
			b.values++
		}
	}
	write := func(b *encodeChunk) error {
		if !b.framed || len(b.seqOf) > 0 && e.seq+uint64(b.seqOf[len(b.seqOf)-1]) > math.MaxUint32 {
			return errSerial
		}
		for i, at := range b.seqAt {
			s := uint32(e.seq + uint64(b.seqOf[i]))
			b.out[at], b.out[at+1], b.out[at+2], b.out[at+3] = byte(s), byte(s>>8), byte(s>>16), byte(s>>24)
		}
		bt.Written()
		start = b.end
		e.seq += uint64(b.values)
		if err := e.h.Write(b.out); err != nil {
			return err
		}
		if b.skipped > 0 && e.h.Skipped != nil {
			if err := e.h.Skipped(b.skipped); err != nil {
				return err
			}
		}
		if b.idle && e.h.Idle != nil {
			if err := e.h.Idle(); err != nil {
				return err
			}
		}
		select {
		case free <- b:
		default:
		}
		return nil
	}
	// LeaveRead: one worker may end with an error in the chunk before it
	// needs a read that waits for input (a pipe), as one worker would; the
	// rest, when it is needed, waits for that read.
	err := pipeline.Run(ctx, pipeline.Options{Workers: workers, LeaveRead: true}, read, work, write)
	if err != errSerial {
		bt.Stop(err != nil && !e.opts.LeaveRead)
		return err
	}
	// From the chunk that did not frame on, one worker reads what is left.
	jr := jsonv.NewReader(bt.Rest(), jsonv.Options{MaxValueSize: int64(e.opts.MaxValueSize), Start: start})
	err = e.serial(ctx, jr)
	bt.Stop(err != nil && !e.opts.LeaveRead)
	return err
}
