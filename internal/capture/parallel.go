package capture

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"

	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/kado"
)

// StreamOptions configure Stream.
type StreamOptions struct {
	Options
	// Workers check, decompress and format the frames' payloads; <= 1
	// does it all on the caller's goroutine. The capture itself (the file,
	// the IP and TCP reassembly, the frame headers) is always read in one
	// pass.
	Workers int
	// Append appends the output of a Frame or a Text record to dst; for a
	// frame, r.JSON is its payload as compact JSON. It runs on the
	// workers. Appending nothing leaves the record out.
	Append func(dst []byte, r *Record) []byte
	// BatchBytes is the record bytes after which a batch is cut; 0:
	// 256 KiB.
	BatchBytes int
	// Live says that in may wait for input (a pipe): a batch is then cut,
	// and Idle called, after a record where in's Buffered() int method
	// (a bufio.Reader has it) says nothing more is buffered, so that
	// records are passed on as they come.
	Live bool
	// Options.Reopen, when not nil, gives the capture again from its
	// start (a regular file, seeked back). The reading pass then leaves
	// to the workers also the payloads of frames at the end of the bytes
	// at hand (most frames of a capture: a segment mostly ends with a
	// frame), whose check would decide how reading goes on were they not
	// JSON; when one of them is not, nothing of its batch is handed on,
	// and the capture is read again with one worker, past the records
	// already handed on.
	// LeaveRead: a run that stops early returns at once, even while the
	// capture is still being read (the reading goroutine stops at its next
	// record, or when in gives it its next bytes); in must then be left
	// alone.
	LeaveRead bool
}

// StreamHandler receives the results of Stream in capture order, on the
// caller's goroutine. An error returned stops the run and is returned.
type StreamHandler struct {
	// Records receives the output of consecutive Frame and Text records;
	// ends holds the end of each record's output in out, frames counts
	// the Frame records among them. out is valid during the call.
	Records func(out []byte, ends []int, frames int) error
	// Other receives the Problem and Note records (a frame whose payload
	// is not JSON is a Problem, with Moved). The record is valid during
	// the call.
	Other func(r *Record) error
	// Idle, when not nil, is called where a live input (Live) had nothing
	// more buffered: a place to flush the output.
	Idle func() error
}

// Stream reads the capture in as Read does and hands each record's output
// (Append), or the record itself for problems and notes, to h, in the
// order Read gives them: the same records, errors and positions whatever
// the number of workers. With opts.Workers > 1 the reading pass leaves
// the check and formatting of a frame's payload to the workers (as
// binary.DecodeStream does, it checks a payload itself only where that
// decides how the reading goes on: a direction's first frame, and a frame
// not followed by a version byte), and memory is bounded by a fixed number
// of batches in flight (internal/pipeline). It returns what Read returns, after
// the output of every record before the error.
func Stream(ctx context.Context, in io.Reader, opts StreamOptions, h StreamHandler) error {
	idle := func(r *Record) bool { return opts.Live && r.Idle }
	if opts.Workers <= 1 {
		var out []byte
		_, err := Read(in, opts.Options, func(r *Record) error {
			var err error
			switch r.Kind {
			case Frame, Text:
				if out = opts.Append(out[:0], r); len(out) > 0 {
					frames := 0
					if r.Kind == Frame {
						frames = 1
					}
					err = h.Records(out, []int{len(out)}, frames)
				}
				if cap(out) > 4<<20 {
					out = nil // do not keep a large buffer
				}
			default:
				err = h.Other(r)
			}
			if err == nil && h.Idle != nil && idle(r) {
				err = h.Idle()
			}
			return err
		})
		return err
	}
	batchBytes := opts.BatchBytes
	if batchBytes <= 0 {
		batchBytes = 256 << 10
	}
	inFlight := 2*opts.Workers + 2
	batches := make(chan *batch, 1)
	free := make(chan *batch, inFlight+2)
	quit := make(chan struct{})
	readerDone := make(chan struct{})
	ropts := opts.Options
	ropts.LeaveJSON = true
	go func() {
		defer close(readerDone)
		defer close(batches)
		cur := &batch{}
		send := func(b *batch) bool {
			b.seal()
			select {
			case batches <- b:
			case <-quit:
				return false
			}
			select {
			case cur = <-free:
				cur.reset()
			default:
				cur = &batch{}
			}
			return true
		}
		_, err := Read(in, ropts, func(r *Record) error {
			cur.add(r)
			if cur.size >= batchBytes || idle(r) {
				cur.idle = idle(r)
				if !send(cur) {
					return errQuit
				}
			}
			return nil
		})
		if err == errQuit {
			return
		}
		if len(cur.recs) > 0 && !send(cur) {
			return
		}
		if err != nil {
			send(&batch{err: err})
		}
	}()
	read := func() (*batch, error) {
		b, ok := <-batches
		switch {
		case !ok:
			return nil, io.EOF
		case b.err != nil:
			return nil, b.err
		}
		return b, nil
	}
	decoders := make(chan *kado.Reader, opts.Workers)
	for range opts.Workers {
		decoders <- kado.NewReader(nil, kado.ReaderOptions{MaxFrameSize: opts.MaxFrameSize})
	}
	work := func(b *batch) (*batch, error) {
		dec := <-decoders
		defer func() { decoders <- dec }()
		b.work(dec, opts.Append)
		return b, nil
	}
	handed := 0 // records handed on to h
	var ends []int
	write := func(b *batch) error {
		defer func() {
			select {
			case free <- b:
			default:
			}
		}()
		start, endIdx := 0, 0
		run := func(to, toEnd int) error {
			if toEnd == endIdx {
				return nil
			}
			ends = ends[:0]
			frames := 0
			for i := endIdx; i < toEnd; i++ {
				ends = append(ends, b.ends[i]-start)
				if b.isFrame[i] {
					frames++
				}
			}
			err := h.Records(b.out[start:to], ends, frames)
			handed += toEnd - endIdx
			start, endIdx = to, toEnd
			return err
		}
		if b.diverged {
			return errDiverged
		}
		for _, m := range b.marks {
			if err := run(m.out, m.ends); err != nil {
				return err
			}
			handed++
			if err := h.Other(&b.recs[m.rec]); err != nil {
				return err
			}
		}
		if err := run(len(b.out), len(b.ends)); err != nil {
			return err
		}
		if b.idle && h.Idle != nil {
			return h.Idle()
		}
		return nil
	}
	err := pipeline.Run(ctx, pipeline.Options{Workers: opts.Workers, InFlight: inFlight, LeaveRead: opts.LeaveRead}, read, work, write)
	close(quit)
	if !opts.LeaveRead || err == errDiverged {
		for range batches { // let the reading goroutine end
		}
		<-readerDone
	}
	if err != errDiverged {
		return err
	}
	// A frame left to the workers is not JSON: where one worker goes on
	// after it depends on what follows it. Read again with one worker,
	// past what was handed on.
	in, err = opts.Reopen()
	if err != nil {
		return err
	}
	skip := handed
	one := opts
	one.Workers, one.Reopen = 1, nil
	return Stream(ctx, in, one, StreamHandler{
		Records: func(out []byte, ends []int, frames int) error {
			if skip > 0 {
				skip--
				return nil
			}
			return h.Records(out, ends, frames)
		},
		Other: func(r *Record) error {
			if skip > 0 {
				skip--
				return nil
			}
			return h.Other(r)
		},
		Idle: h.Idle,
	})
}

var (
	errQuit     = errors.New("quit")
	errDiverged = errors.New("a speculative frame is not JSON")
)

// batch is a run of records copied out of the reading pass, and their
// output.
type batch struct {
	recs   []Record
	frames []kado.Frame
	spans  []span
	arena  []byte
	size   int
	idle   bool
	err    error // a read error: the batch holds nothing else
	// diverged: a frame left to the workers where the reading pass did not
	// know what follows it is not JSON (see StreamOptions.Reopen)
	diverged bool
	// The output: out, the end of each record's output, whether it is a
	// frame, and where the problems and notes fall.
	out     []byte
	ends    []int
	isFrame []bool
	marks   []mark
}

// span locates a record's bytes in the arena (-1: none).
type span struct {
	frame                           int // index in frames, -1
	raw, rawEnd, js, jsEnd, tx, tx2 int
	deferred                        bool // a frame whose payload the workers check
}

type mark struct{ out, ends, rec int }

func (b *batch) reset() {
	clear(b.recs)
	b.recs, b.frames, b.spans, b.arena = b.recs[:0], b.frames[:0], b.spans[:0], b.arena[:0]
	b.size, b.idle, b.err, b.diverged = 0, false, nil, false
	b.out, b.ends, b.isFrame, b.marks = b.out[:0], b.ends[:0], b.isFrame[:0], b.marks[:0]
}

func (b *batch) add(r *Record) {
	s := span{frame: -1}
	start := len(b.arena)
	c := *r
	c.Frame, c.JSON, c.Text = nil, nil, nil
	if r.Moved != nil {
		m := *r.Moved
		c.Moved = &m
	}
	if r.Frame != nil {
		s.frame = len(b.frames)
		f := *r.Frame
		s.raw = len(b.arena)
		b.arena = append(b.arena, f.Raw...)
		s.rawEnd = len(b.arena)
		f.Raw = nil
		b.frames = append(b.frames, f)
	}
	s.deferred = r.Unchecked()
	s.js = len(b.arena)
	b.arena = append(b.arena, r.JSON...)
	s.jsEnd = len(b.arena)
	s.tx = len(b.arena)
	b.arena = append(b.arena, r.Text...)
	s.tx2 = len(b.arena)
	b.recs = append(b.recs, c)
	b.spans = append(b.spans, s)
	b.size += 64 + len(b.arena) - start
}

// seal points the records at their bytes, once the arena no longer grows.
func (b *batch) seal() {
	for i := range b.recs {
		r, s := &b.recs[i], &b.spans[i]
		if s.frame >= 0 {
			f := &b.frames[s.frame]
			f.Raw = b.arena[s.raw:s.rawEnd:s.rawEnd]
			r.Frame = f
		}
		if !s.deferred && r.Kind == Frame {
			r.JSON = b.arena[s.js:s.jsEnd:s.jsEnd]
		}
		if r.Kind == Text {
			r.Text = b.arena[s.tx:s.tx2:s.tx2]
		}
	}
}

// work formats the records of b; a frame whose payload the reading pass
// left unchecked and which is not JSON becomes the Problem the reading
// pass would have reported (a version byte follows it, so the reader
// trusted its length and skipped nothing).
func (b *batch) work(dec *kado.Reader, appendRec func([]byte, *Record) []byte) {
	b.out, b.ends, b.isFrame, b.marks = b.out[:0], b.ends[:0], b.isFrame[:0], b.marks[:0]
	for i := range b.recs {
		r := &b.recs[i]
		if !r.Check(dec) {
			b.diverged = true
			return
		}
		switch r.Kind {
		case Frame, Text:
			n := len(b.out)
			b.out = appendRec(b.out, r)
			if len(b.out) > n {
				b.ends = append(b.ends, len(b.out))
				b.isFrame = append(b.isFrame, r.Kind == Frame)
			}
			if b.spans[i].deferred {
				r.JSON = nil // the decoder's buffer
			}
		default:
			b.marks = append(b.marks, mark{out: len(b.out), ends: len(b.ends), rec: i})
		}
	}
}

// ReopenFile returns an Options.Reopen for f when it is a regular file (f
// seeked back to its start, read through a 64 KiB bufio.Reader), and nil
// otherwise: a pipe, a terminal, no file.
func ReopenFile(f *os.File) func() (io.Reader, error) {
	if f == nil {
		return nil
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return func() (io.Reader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return bufio.NewReaderSize(f, 64<<10), nil
	}
}
