package validate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/readahead"
	"github.com/toonkit/toonkit/kado"
)

// Validating on several workers (Options.Workers). A reader cuts the input
// into chunks of whole lines; each worker reads its chunk as a JSON stream
// (or as lines, for Narratoria) of its own and runs the rules of each
// message alone: the schema, fast path or schema library, and the
// protocol's local rules. It keeps the findings and what the rules across
// the stream need (facts). One ordered pass over the chunks, in input
// order, emits those findings and applies the rules across the stream (id
// sets, chunk tiling, seq per run, Narratoria's order), so that findings
// come in the order, at the positions and with the early stops of one
// worker. A chunk a worker cannot read through cleanly (a syntax error, a
// message that goes on past the chunk's end as indented JSON does, a line
// longer than the chunk, a read error) is not used: from its first byte
// on, the rest of the input is checked on one goroutine by the
// single-worker loop, with the rules' state as the chunks before left it.

// A chunk is cut at a line end after jobChunk bytes; with no line end to
// cut at by 4 jobChunk, one worker takes over.
const jobChunk = 256 << 10

// takeovers counts the streams that one worker took over from a chunk
// (errSequential): the tests read it.
var takeovers atomic.Int64

var (
	errSequential = errors.New("validate: one worker takes over")
	errStopped    = errors.New("validate: emit asked to stop")
)

// chunk is a run of whole lines of the input, and what a worker found in
// it.
type chunk struct {
	raw   []byte
	start jsonv.Position // of raw[0]; zero for the stream's start
	whole bool           // raw ends at a line end or at the end of the input
	done  bool           // a worker checked every message of it

	recs  []chunkRec // the messages (envelopes)
	facts []facts
	lines []lineCheck // the lines (Narratoria)
	found []Finding   // the findings of the rules of each message alone
}

// chunkRec is a message of a chunk.
type chunkRec struct {
	off, end int // raw[off:end]
	pos      jsonv.Position
	found    int // its findings end at found[found]
}

// chunker cuts an input into chunks for the pipeline (a
// readahead.Batcher, which keeps those not yet written, so that one worker
// can take over from any of them) and tracks where each starts.
type chunker struct {
	bt readahead.Batcher
	// any: every line end may end a chunk; else only one before a line
	// that starts with { or [ (or is not read yet): indented JSON is not
	// cut within a message.
	any bool

	free    chan *chunk
	next    jsonv.Position // owned by read: where the next chunk starts
	unwrote jsonv.Position // owned by write: where the first chunk not written starts
}

// newChunker cuts r into chunks of about size bytes (0: jobChunk; with no
// line end to cut at by 4 times that, one worker takes over). A read that
// comes back short also ends a chunk, so that what a pipe has given is
// checked before the next read waits.
func newChunker(r io.Reader, any bool, size int) *chunker {
	if size <= 0 {
		size = jobChunk
	}
	c := &chunker{any: any, free: make(chan *chunk, 8)}
	c.bt = readahead.Batcher{In: r, BatchBytes: size, MaxBatch: 4 * size, Live: true,
		Cut: func(raw []byte, _ bool) int { return max(c.lastCut(raw), 0) }}
	c.next = jsonv.Position{Line: 1, Column: 1}
	c.unwrote = c.next
	return c
}

// read is the pipeline's read: the next chunk, or io.EOF.
func (c *chunker) read() (*chunk, error) {
	var b *chunk
	nb, ok := c.bt.Next(func() []byte {
		select {
		case b = <-c.free:
		default:
			b = &chunk{}
		}
		return b.raw
	})
	if !ok {
		return nil, io.EOF
	}
	// A chunk that the batcher leaves to one worker (no line end to cut
	// at, a read error) is not whole; the input's last one is.
	b.raw, b.start, b.whole = nb.Raw, c.next, !nb.Rest
	if c.next.Offset == 0 {
		b.start = jsonv.Position{} // the stream's start
	}
	c.next.Offset += int64(len(b.raw))
	c.next.Line += bytes.Count(b.raw, []byte{'\n'})
	return b, nil
}

// lastCut is the last place in b where a chunk may end (just after a line
// end), or -1. Where the next line is not read yet, the line before must
// look like the end of a message.
func (c *chunker) lastCut(b []byte) int {
	for end := len(b); end > 0; {
		i := bytes.LastIndexByte(b[:end], '\n')
		if i < 0 {
			return -1
		}
		if c.any || i+1 < len(b) && (b[i+1] == '{' || b[i+1] == '[') || i+1 == len(b) && endsValue(b[:i]) {
			return i + 1
		}
		end = i
	}
	return -1
}

// endsValue tells whether the last line of b looks like the end of a
// top-level value: a line that starts with } or ], or a message on a line
// of its own ({ or [ to } or ]). The first line of an indented message,
// and the lines within it, do not.
func endsValue(b []byte) bool {
	line := bytes.TrimRight(b[bytes.LastIndexByte(b, '\n')+1:], " \t\r")
	if len(line) == 0 {
		return false
	}
	first, last := line[0], line[len(line)-1]
	return first == '}' || first == ']' || (first == '{' || first == '[') && (last == '}' || last == ']')
}

// written drops the chunk written first from the journal, for reuse.
func (c *chunker) written(b *chunk) {
	c.bt.Written()
	c.unwrote.Offset += int64(len(b.raw))
	c.unwrote.Line += bytes.Count(b.raw, []byte{'\n'})
	select {
	case c.free <- b:
	default:
	}
}

// rest stops the reads and returns where the first chunk not written
// starts and a reader of the input from there.
func (c *chunker) rest() (jsonv.Position, io.Reader) {
	if c.unwrote.Offset == 0 {
		return jsonv.Position{}, c.bt.Rest() // the stream's start (a BOM may come first)
	}
	return c.unwrote, c.bt.Rest()
}

// stop keeps read from being called again (the pipeline may leave one in
// progress: it returns to nobody).
func (c *chunker) stop() { c.bt.Stop(false) }

// worker is the memory of one worker, reused from chunk to chunk.
type worker struct {
	split splitCache
	buf   []byte
	jr    *jsonv.Reader
	src   bytes.Reader
}

// workers hands out the memory of n workers.
func workers(n int) chan *worker {
	ws := make(chan *worker, n)
	for range n {
		ws <- &worker{jr: jsonv.NewReader(nil, jsonv.Options{})}
	}
	return ws
}

// envelopesJobs is envelopes on opts.Workers workers.
func envelopesJobs(rdr io.Reader, name string, opts Options, p protocol, emit Emit) (int, error) {
	c := newChunker(rdr, false, opts.chunk)
	ws := workers(opts.Workers)
	jopts := jsonv.Options{MaxValueSize: int64(opts.MaxFrameSize), Elements: true}
	work := func(b *chunk) (*chunk, error) {
		b.done, b.recs, b.facts, b.found = false, b.recs[:0], b.facts[:0], b.found[:0]
		if !b.whole {
			return b, nil
		}
		w := <-ws
		defer func() { ws <- w }()
		w.src.Reset(b.raw)
		o := jopts
		o.Start = b.start
		w.jr.Reset(&w.src, o)
		r := &record{}
		for i := 0; ; i++ {
			v, pos, err := w.jr.Next()
			if err == io.EOF {
				b.done = true
				return b, nil
			}
			if err != nil {
				return b, nil
			}
			// The message in the chunk, which outlives the reader's buffer.
			off := int(pos.Offset - b.start.Offset)
			*r = record{index: i, raw: b.raw[off : off+len(v)], pos: pos, name: name, split: &w.split, buf: &w.buf}
			b.facts = append(b.facts, facts{})
			if b.found, err = r.check(p, &b.facts[i], b.found); err != nil {
				return b, nil
			}
			b.recs = append(b.recs, chunkRec{off: off, end: off + len(v), pos: pos, found: len(b.found)})
		}
	}
	n := 0
	write := func(b *chunk) error {
		if !b.done {
			return errSequential
		}
		lo := 0
		r := &record{name: name}
		for i, rc := range b.recs {
			index := n + i
			for _, f := range b.found[lo:rc.found] {
				f.Record = index
				if !emit(f) {
					n = index + 1
					return errStopped
				}
			}
			lo = rc.found
			if f := &b.facts[i]; f.object {
				r.index, r.raw, r.pos = index, b.raw[rc.off:rc.end], rc.pos
				if !p.stream(r, f, emit) {
					n = index + 1
					return errStopped
				}
			}
		}
		n += len(b.recs)
		c.written(b)
		return nil
	}
	err := pipeline.Run(context.Background(), pipeline.Options{Workers: opts.Workers, LeaveRead: true}, c.read, work, write)
	switch err {
	case nil:
		p.finish(emit)
		return n, nil
	case errStopped:
		c.stop()
		return n, nil
	case errSequential:
		takeovers.Add(1)
		start, rest := c.rest()
		jopts.Start = start
		rd := jsonv.NewReader(rest, jopts)
		return envelopesFrom(rd, n, name, p, emit)
	}
	c.stop()
	return n, err
}

// narratoriaJobs is Narratoria's NDJSON on opts.Workers workers.
func narratoriaJobs(rdr io.Reader, name string, opts Options, emit Emit) (int, error) {
	max := opts.MaxFrameSize
	if max <= 0 {
		max = jsonv.DefaultMaxValueSize
	}
	n := &narr{done: -1, errorAt: -1}
	c := newChunker(rdr, true, opts.chunk)
	ws := workers(opts.Workers)
	work := func(b *chunk) (*chunk, error) {
		b.done, b.lines, b.found = false, b.lines[:0], b.found[:0]
		if !b.whole {
			return b, nil
		}
		w := <-ws
		defer func() { ws <- w }()
		start := b.start
		if start.Line == 0 {
			start.Line = 1
		}
		for off := 0; off < len(b.raw); {
			raw, lf := b.raw[off:], false
			if i := bytes.IndexByte(raw, '\n'); i >= 0 {
				raw, lf = raw[:i], true
			}
			if len(raw) > max {
				return b, nil // NAR002: one worker says it
			}
			num := start.Line + len(b.lines)
			b.lines = append(b.lines, lineCheck{num: num, off: start.Offset + int64(off), index: num - 1, raw: raw})
			var err error
			if b.found, err = b.lines[len(b.lines)-1].local(lf, &w.split, name, b.found); err != nil {
				return b, nil
			}
			b.lines[len(b.lines)-1].found = len(b.found)
			off += len(raw) + 1
		}
		b.done = true
		return b, nil
	}
	events := 0
	write := func(b *chunk) error {
		if !b.done {
			return errSequential
		}
		lo := 0
		for i := range b.lines {
			l := &b.lines[i]
			for _, f := range b.found[lo:l.found] {
				if !emit(f) {
					events = l.index + 1
					return errStopped
				}
			}
			lo = l.found
			if l.object {
				if more, stop := l.stream(n, name, emit); !more || stop {
					events = l.index + 1
					return errStopped
				}
			}
		}
		events += len(b.lines)
		c.written(b)
		return nil
	}
	err := pipeline.Run(context.Background(), pipeline.Options{Workers: opts.Workers, LeaveRead: true}, c.read, work, write)
	switch err {
	case nil:
		n.finish(name, emit)
		return events, nil
	case errStopped:
		c.stop()
		return events, nil
	case errSequential:
		takeovers.Add(1)
		start, rest := c.rest()
		in := inbuf.Buffer{R: rest, First: 32 << 10, Steady: 256 << 10, Max: max + 32<<10, Base: start.Offset}
		events, _, err = narrLinesFrom(&in, events, n, name, emit, nil)
		return events, err
	}
	c.stop()
	return events, err
}

// Frames on several workers. One goroutine reads the frames (kado.Reader:
// headers, lengths, resynchronisation) and copies the good ones into
// batches; the workers check each frame alone (RLE, JSON, the payload's
// schema); the ordered pass applies the rules across frames and emits the
// findings in input order. What the reader cannot hand over (a bad header,
// a payload that is not JSON where the bytes after it do not start a
// frame, a frame over 1 MiB on the wire or decompressed, the end) is
// checked on the caller's goroutine by the single-worker step, between two
// runs of the workers.

const bigFrame = 1 << 20

type frameBatch struct {
	raw    []byte
	frames []frameItem
	found  []Finding
}

type frameItem struct {
	f          kado.Frame // Raw unset: raw[start:end]
	start, end int
	found      int // its findings end at found[found]
}

// jobs is Binary on n workers.
func (s *frameRun) jobs(n, chunk int) (int, error) {
	if chunk <= 0 {
		chunk = jobChunk
	}
	decoders := make(chan *kado.Reader, n)
	for range n {
		decoders <- kado.NewReader(nil, kado.ReaderOptions{MaxFrameSize: s.rd.MaxFrameSize()})
	}
	var pending struct {
		set bool
		f   *kado.Frame
		err error
	}
	// A frame the workers cannot take (a large one, the end, an error
	// where reading goes on depends on it) is the step's: ErrTakeOver.
	read := func(b *frameBatch) error {
		if pending.set {
			return pipeline.ErrTakeOver
		}
		b.raw, b.frames = b.raw[:0], b.frames[:0]
		for len(b.raw) < chunk {
			if len(b.frames) > 0 && len(s.rd.Buffered()) < kado.HeaderSize {
				break // the next frame may wait for the input: hand over these first
			}
			f, err := s.rd.Next()
			if err == nil && !isBigFrame(f) {
				rest := s.rd.Buffered()
				if len(rest) > 0 && rest[0] == kado.Version {
					err = nil // a bad payload's length is trusted (SkipBadPayload): the workers read it
				} else if _, jerr := s.rd.JSON(f); jerr != nil {
					err = errSequential // where reading goes on depends on it: the step does it
				}
				if err == nil {
					start := len(b.raw)
					b.raw = append(b.raw, f.Raw...)
					it := frameItem{f: *f, start: start, end: len(b.raw)}
					it.f.Raw = nil
					b.frames = append(b.frames, it)
					continue
				}
				err = nil
			}
			pending.set, pending.f, pending.err = true, f, err
			break
		}
		if len(b.frames) == 0 {
			return pipeline.ErrTakeOver
		}
		return nil
	}
	work := func(b *frameBatch) error {
		dec := <-decoders
		defer func() { decoders <- dec }()
		b.found = b.found[:0]
		for i := range b.frames {
			it := &b.frames[i]
			f := it.f
			f.Raw = b.raw[it.start:it.end]
			var err error
			b.found, _, err = frameLocal(dec, &f, s.name, b.found)
			it.found = len(b.found)
			if err != nil {
				b.frames = b.frames[:i+1]
				return err
			}
		}
		return nil
	}
	write := func(b *frameBatch) error {
		lo := 0
		for i := range b.frames {
			it := &b.frames[i]
			s.frames++
			if !s.order(&it.f) {
				return pipeline.ErrDone
			}
			for _, x := range b.found[lo:it.found] {
				if !s.emit(x) {
					return pipeline.ErrDone
				}
			}
			lo = it.found
		}
		return nil
	}
	var pool pipeline.Pool[frameBatch] // from one run of the workers to the next
	for {
		pending.set, pending.f, pending.err = false, nil, nil
		err := pipeline.Stream(context.Background(), pipeline.Options{Workers: n, LeaveRead: true},
			pipeline.Stages[frameBatch]{Read: read, Work: work, Write: write, Pool: &pool})
		if err == nil { // stopped (ErrDone)
			return s.frames, nil
		}
		if err != pipeline.ErrTakeOver {
			return s.frames, err
		}
		more, err := s.step(pending.f, pending.err)
		if err != nil || !more {
			return s.frames, err
		}
	}
}

// isBigFrame tells whether a frame is over bigFrame on the wire or decompressed.
func isBigFrame(f *kado.Frame) bool {
	p := f.Payload()
	return f.Size() > bigFrame || kado.IsCompressed(p) && len(p)*85 > bigFrame && kado.UnRLELen(p[1:]) > bigFrame
}
