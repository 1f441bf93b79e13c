package kado

import (
	"context"
	"errors"
	"io"

	"github.com/toonkit/toonkit/internal/pipeline"
)

// Moved says how a Reader went on after a bad frame (see Reader.MoveOn).
type Moved struct {
	// Skipped is the number of bytes passed over, Found whether a
	// plausible header was found before the end.
	Skipped int64
	Found   bool
	// Untrusted: the frame's payload is not JSON and its length does not
	// lead to a header, so the reader looked for one from the byte after
	// the frame's first.
	Untrusted bool
}

// MoveOn moves the reader past the bad frame that err (from Next or JSON)
// reports: a header or length failure is resynchronised (Resync); a payload
// that is not JSON (f is its frame) is passed over by its length when that
// leads to a header or the end, otherwise resynchronised (SkipBadPayload).
// Skipped is 0 when the reader was already past the frame.
func (r *Reader) MoveOn(f *Frame, err error) Moved {
	var fe *FrameError
	if !errors.As(err, &fe) {
		return Moved{}
	}
	if fe.Kind == BadPayload {
		skipped, found := r.SkipBadPayload(f)
		return Moved{Skipped: skipped, Found: found, Untrusted: skipped != 0}
	}
	skipped, found := r.Resync()
	return Moved{Skipped: skipped, Found: found}
}

// StreamOptions configure DecodeStream.
type StreamOptions struct {
	MaxFrameSize int // 0: DefaultMaxFrameSize
	// Workers check, decompress and format the payloads; <= 1 does it all
	// on the caller's goroutine.
	Workers int
	// KeepGoing moves past bad frames (MoveOn) instead of stopping.
	KeepGoing bool
	// Append appends the output of a good frame to dst; js is its payload
	// as compact JSON (see Reader.JSON). It runs on the workers.
	Append func(dst []byte, f *Frame, js []byte) []byte
	// BatchBytes is the frame bytes after which a batch is cut; 0: 256 KiB.
	BatchBytes int
	// Live says that in may wait for input (a pipe, a terminal): a batch
	// is then cut, and Idle called, where the next frame is not buffered
	// whole, so that frames are passed on as they come and a bad one ends
	// the run at once. A regular file needs none of it.
	Live bool
	// LeaveRead: a run that stops early returns at once, even while the
	// reader waits for more of in (pipeline.Options.LeaveRead); in must
	// then be left alone.
	LeaveRead bool
}

// StreamHandler receives the results of DecodeStream in input order, on the
// caller's goroutine. An error returned stops the run and is returned.
type StreamHandler struct {
	// Records receives the output of consecutive good frames; ends holds
	// the end of each frame's output in out. out is valid during the call.
	Records func(out []byte, ends []int) error
	// Bad receives a bad frame's error (a *FrameError) and, with KeepGoing,
	// how the reader moved on. Without KeepGoing the run ends after it.
	Bad func(err error, moved Moved) error
	// Large, when not nil, receives a good frame larger than 1 MiB on the
	// wire or 4 MiB decompressed, and its payload as compact JSON, in place of
	// Records, so that it can be written without a copy; js is valid
	// during the call.
	Large func(f *Frame, js []byte) error
	// Idle, when not nil, is called where a live input (StreamOptions.Live)
	// had not buffered the next frame whole: a place to flush the output.
	Idle func() error
}

// DecodeStream reads the frames of in and hands each good frame's output and
// each bad frame, in input order, to h, exactly as one Reader would
// (Next, JSON, and MoveOn after a bad frame): same frames, same errors and
// offsets, same resynchronisation, whatever the number of workers. A
// reader's own bytes are split off by one goroutine; the payloads are
// checked and formatted on opts.Workers (internal/pipeline), in memory bounded
// by a fixed number of batches. A read error is returned after the output
// of every frame before it. With opts.Live, what is buffered counts the
// bytes of in's Buffered() int method when it has one (a bufio.Reader).
func DecodeStream(ctx context.Context, in io.Reader, opts StreamOptions, h StreamHandler) error {
	rd := NewReader(in, ReaderOptions{MaxFrameSize: opts.MaxFrameSize})
	buffered, _ := in.(interface{ Buffered() int })
	batchBytes := opts.BatchBytes
	if batchBytes <= 0 {
		batchBytes = 256 << 10
	}
	workers := max(opts.Workers, 1)
	// The frames of a batch are the reader's own bytes, not a copy: the
	// reader never writes a buffer again once it has read into it (Fresh),
	// and a buffer it has left is used again only once the batches that
	// may hold its frames are written (streamBatch.left).
	bufs := make(chan []byte, 2*workers+4)
	var cur *streamBatch        // the batch being read
	rd.in.Steady = streamBuffer // the first buffer is the small one of NewReader
	rd.in.Fresh = func(old []byte, size int) []byte {
		if len(old) == streamBuffer && cur != nil {
			cur.left = append(cur.left, old)
		}
		if size <= streamBuffer {
			select {
			case b := <-bufs:
				return b
			default:
			}
			size = streamBuffer
		}
		return make([]byte, size)
	}
	done := false
	var big *Frame // a large frame Next returned, for the caller's goroutine
	read := func(b *streamBatch) error {
		if big != nil {
			return pipeline.ErrTakeOver
		}
		if done {
			return io.EOF
		}
		b.size, b.items, b.idle, b.readErr, b.left = 0, b.items[:0], false, nil, b.left[:0]
		cur = b
		defer func() { cur = nil }()
		for b.size < batchBytes {
			if opts.Live && len(b.items) > 0 && mayWait(rd, buffered) {
				// The next frame may have to wait for the input (a
				// pipe): hand over what is here first.
				b.idle = true
				break
			}
			f, err := rd.Next()
			if err == io.EOF {
				done = true
				break
			}
			if err == nil && isBig(f) {
				// A large frame is decoded where it stands, between two
				// runs of the workers: no copy of it waits in a batch.
				big = f
				break
			}
			if err == nil {
				rest := rd.Buffered()
				if len(rest) == 0 || rest[0] != Version {
					// Whether the payload is JSON decides where
					// reading goes on (MoveOn): it is checked here.
					_, err = rd.JSON(f)
				}
				if err == nil {
					b.size += f.Size()
					b.items = append(b.items, streamItem{f: *f})
					continue
				}
			}
			if !IsFrameError(err) {
				b.readErr, done = err, true
				break
			}
			it := streamItem{bad: err}
			if opts.KeepGoing {
				it.moved = rd.MoveOn(f, err)
			} else {
				done = true
			}
			b.items = append(b.items, it)
			if !opts.KeepGoing {
				break
			}
		}
		if len(b.items) == 0 && b.readErr == nil {
			if big != nil {
				return pipeline.ErrTakeOver
			}
			return io.EOF
		}
		return nil
	}
	decoders := make(chan *Reader, workers)
	for range workers {
		decoders <- NewReader(nil, ReaderOptions{MaxFrameSize: opts.MaxFrameSize})
	}
	work := func(b *streamBatch) error {
		dec := <-decoders
		defer func() { decoders <- dec }()
		b.out, b.ends, b.segs = b.out[:0], b.ends[:0], b.segs[:0]
		for i := range b.items {
			it := &b.items[i]
			if it.bad == nil {
				js, err := dec.JSON(&it.f)
				if err == nil {
					b.out = opts.Append(b.out, &it.f, js)
					b.ends = append(b.ends, len(b.out))
					continue
				}
				// A version byte follows (else the reader checked it):
				// MoveOn trusts the length and skips nothing.
				it.bad, it.moved = err, Moved{Found: true}
			}
			b.segs = append(b.segs, streamSeg{out: len(b.out), ends: len(b.ends), item: i})
			if !opts.KeepGoing {
				break
			}
		}
		return nil
	}
	write := func(b *streamBatch) error {
		defer func() {
			// The batches before b are written: the buffers the reader
			// left while it read b hold no frame that is still to be.
			for _, buf := range b.left {
				select {
				case bufs <- buf:
				default:
				}
			}
			clear(b.left)
			for i := range b.items {
				b.items[i].f.Raw = nil
			}
		}()
		out, ends := 0, 0
		records := func(o, e int) error {
			if e == ends {
				return nil
			}
			err := h.Records(b.out[out:o], rebase(b.ends[ends:e], out))
			out, ends = o, e
			return err
		}
		for _, s := range b.segs {
			if err := records(s.out, s.ends); err != nil {
				return err
			}
			it := &b.items[s.item]
			if !opts.KeepGoing {
				it.moved = Moved{}
			}
			if err := h.Bad(it.bad, it.moved); err != nil {
				return err
			}
			if !opts.KeepGoing {
				return pipeline.ErrDone
			}
		}
		if err := records(len(b.out), len(b.ends)); err != nil {
			return err
		}
		if b.idle && h.Idle != nil {
			if err := h.Idle(); err != nil {
				return err
			}
		}
		if b.readErr != nil {
			return b.readErr
		}
		return nil
	}
	var out []byte
	var pool pipeline.Pool[streamBatch] // the batches, from one run of the workers to the next
	for {
		// A large frame is the caller's goroutine's (ErrTakeOver), then
		// the workers go on after it.
		err := pipeline.Stream(ctx, pipeline.Options{Workers: workers, LeaveRead: opts.LeaveRead},
			pipeline.Stages[streamBatch]{Read: read, Work: work, Write: write, Pool: &pool})
		if err != pipeline.ErrTakeOver {
			return err
		}
		f := big
		big = nil
		js, err := rd.JSON(f)
		if err == nil && h.Large != nil {
			if err := h.Large(f, js); err != nil {
				return err
			}
			continue
		}
		if err == nil {
			out = opts.Append(out[:0], f, js)
			err = h.Records(out, []int{len(out)})
			if cap(out) > 4<<20 {
				out = nil // do not keep a large buffer
			}
			if err != nil {
				return err
			}
			continue
		}
		var m Moved
		if opts.KeepGoing {
			m = rd.MoveOn(f, err)
		}
		if err := h.Bad(err, m); err != nil || !opts.KeepGoing {
			return err
		}
	}
}

// streamBuffer is the size of the reader's buffers in DecodeStream (a
// variable for the tests).
var streamBuffer = 1 << 20

// bigFrame is the size (on the wire or decompressed) above which a frame is
// decoded on the caller's goroutine, as one worker decodes it, rather than
// copied into a batch.
const bigFrame = 1 << 20

// bigDecompressed is the decompressed size above which a compressed frame
// is decoded as a large one: a worker holds up to about twice as much.
const bigDecompressed = 4 << 20

// isBig tells whether a frame is larger than bigFrame on the wire, or than
// bigDecompressed decompressed (an RLE body grows 85 times at most: only a
// long one is measured, so that the reader scans few).
func isBig(f *Frame) bool {
	p := f.Payload()
	if f.Size() > bigFrame {
		return true
	}
	return IsCompressed(p) && len(p)*85 > bigDecompressed && UnRLELen(p[1:]) > bigDecompressed
}

// mayWait tells whether reading the next frame may have to wait for the
// input: fewer bytes are buffered (by rd, and by buffered when it is not
// nil) than the frame needs.
func mayWait(rd *Reader, buffered interface{ Buffered() int }) bool {
	rest := rd.Buffered()
	need := HeaderSize
	if len(rest) >= HeaderSize {
		if h := ParseHeader(rest); h.Check(rd.max) == nil {
			need += int(h.PayloadLength)
		}
	}
	have := len(rest)
	if buffered != nil {
		have += buffered.Buffered()
	}
	return have < need
}

func rebase(ends []int, base int) []int {
	if base != 0 {
		for i := range ends {
			ends[i] -= base
		}
	}
	return ends
}

type streamItem struct {
	f     Frame // its Raw is the reader's bytes
	bad   error // a bad frame in place of a good one
	moved Moved
}

type streamSeg struct{ out, ends, item int }

// streamBatch is a batch of frames and, once a worker has been over it,
// its output.
type streamBatch struct {
	size    int // the bytes of its frames
	items   []streamItem
	left    [][]byte // the reader's buffers it left while it read the batch
	idle    bool     // the input had nothing more buffered after it
	readErr error    // the read error after the items

	out  []byte
	ends []int
	segs []streamSeg
}
