package inspect

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/kado"
)

// The JSON format on several workers (Options.Workers): one goroutine
// reads the frames, as the single-worker loop does, and cuts them into
// batches; the workers check, decompress and render the good frames'
// payloads; the batches are counted and written in input order. Whatever
// decides where reading goes on (a bad header and the Resync after it, a
// payload that is not JSON where the frame's length does not lead to a
// version byte) is done by the reading goroutine, as one worker does it.
// A frame over 1 MiB on the wire (or 4 MiB decompressed) is inspected
// between two runs of the workers, so that no copy of it waits in a batch.

const (
	jsonBatchBytes = 256 << 10
	bigFrame       = 1 << 20
	bigDecompress  = 4 << 20
)

type jsonItem struct {
	f          kado.Frame // a good frame for a worker: Raw is b.raw[start:end]
	start, end int
	rep        *report // the frame's report: the reader's, or the worker's
	pre        []byte  // the reader's rendering, when it made the report
	indices    int     // Summary.Indices after the frame
}

type jsonBatch struct {
	raw     []byte
	items   []jsonItem
	idle    bool  // the reader had nothing buffered after the batch: flush
	readErr error // after the items
	out     []byte
	reps    []report // the workers' reports, reused with the batch
}

var (
	errBigFrame  = errors.New("a large frame")
	errWriteStop = errors.New("the output failed")
)

func isBigFrame(f *kado.Frame) bool {
	p := f.Payload()
	return f.Size() > bigFrame || kado.IsCompressed(p) && len(p)*85 > bigDecompress && kado.UnRLELen(p[1:]) > bigDecompress
}

// inspectJSONParallel is the frame loop of inspect for the JSON format on
// Options.Workers workers, every frame shown (not OnlyFrame).
func (in *Inspector) inspectJSONParallel(rd *kado.Reader, win *window, fc *frameContext, s *Summary) error {
	workers := in.opts.Workers
	free := make(chan *jsonBatch, 2*workers+4)
	done := false
	var big *kado.Frame
	// own makes the report of a frame on the reading goroutine and renders
	// it, as the single-worker loop does.
	own := func(b *jsonBatch, rep *report, indices int) {
		var pre []byte
		pre = appendFrameJSON(pre, fc, rep)
		if rep.skip != nil {
			pre = appendSkipJSON(pre, fc, rep.skip)
		}
		rep.forget()
		b.items = append(b.items, jsonItem{rep: rep, pre: pre, indices: indices})
	}
	read := func() (*jsonBatch, error) {
		if big != nil {
			return nil, errBigFrame
		}
		if done {
			return nil, io.EOF
		}
		var b *jsonBatch
		select {
		case b = <-free:
			b.raw, b.items, b.idle, b.readErr = b.raw[:0], b.items[:0], false, nil
		default:
			// Sized once: grown by append from nothing, the batches in
			// flight allocated about twice their size, and the collector
			// ran in the first batches, on the workers' time.
			b = &jsonBatch{raw: make([]byte, 0, jsonBatchBytes+64<<10)}
		}
		for len(b.raw) < jsonBatchBytes && !b.idle {
			f, err := rd.Next()
			if err == io.EOF {
				done = true
				break
			}
			if err == nil {
				if isBigFrame(f) {
					big = f
					break
				}
				rest := rd.Buffered()
				if len(rest) > 0 && rest[0] == kado.Version {
					// The frame's length leads to a header: whether its
					// payload is JSON does not change where reading goes
					// on. A worker looks.
					start := len(b.raw)
					b.raw = append(b.raw, f.Raw...)
					b.items = append(b.items, jsonItem{f: *f, start: start, end: len(b.raw), indices: f.Index + 1})
					continue
				}
				rep := in.analyzeOwn(rd, f)
				own(b, rep, f.Index+1)
				b.idle = len(rd.Buffered()) == 0
				continue
			}
			var fe *kado.FrameError
			if !errors.As(err, &fe) {
				b.readErr, done = &ReadError{err}, true
				break
			}
			pending := append([]byte(nil), rd.Peek(maxDamagedDump+kado.HeaderSize)...)
			buffered := len(rd.Buffered())
			if (fe.Kind == kado.TruncatedHeader || fe.Kind == kado.TruncatedPayload) && win.cutShort() {
				own(b, in.analyzeCut(fe, pending, buffered), fe.Frame+1)
				b.idle, done = true, true
				break
			}
			n, found := rd.Resync()
			own(b, in.analyzeBad(fe, pending, buffered, n, found), fe.Frame+1)
		}
		if len(b.items) == 0 && b.readErr == nil {
			if big != nil {
				return nil, errBigFrame
			}
			return nil, io.EOF
		}
		return b, nil
	}
	decoders := make(chan *kado.Reader, workers)
	for range workers {
		decoders <- kado.NewReader(nil, kado.ReaderOptions{MaxFrameSize: in.max})
	}
	work := func(b *jsonBatch) (*jsonBatch, error) {
		dec := <-decoders
		defer func() { decoders <- dec }()
		if want := max(len(b.raw), jsonBatchBytes+64<<10) * 5 / 4; cap(b.out) < want {
			b.out = make([]byte, 0, want) // the reports are about a tenth over the frames
		}
		b.out = b.out[:0]
		if len(b.reps) < len(b.items) {
			b.reps = make([]report, len(b.items))
		}
		for i := range b.items {
			it := &b.items[i]
			if it.rep == nil {
				it.f.Raw = b.raw[it.start:it.end]
				// A version byte follows: SkipBadPayload would trust the
				// length and skip nothing. The report is the batch's: it is
				// counted (Inspector.count copies what it keeps) before
				// the batch is read into again.
				it.rep = &b.reps[i]
				in.analyzeInto(it.rep, dec, &it.f)
				b.out = appendFrameJSON(b.out, fc, it.rep)
				it.rep.forget()
				continue
			}
			b.out = append(b.out, it.pre...)
		}
		return b, nil
	}
	write := func(b *jsonBatch) error {
		for i := range b.items {
			it := &b.items[i]
			s.Indices = it.indices
			in.count(s, it.rep)
			if it.rep.cut {
				s.FrameFound = true // as the single-worker loop says it
			}
		}
		if err := in.writeBatch(b.out, b.idle); err != nil {
			return err
		}
		if b.readErr != nil {
			return b.readErr
		}
		for i := range b.items {
			b.items[i] = jsonItem{}
		}
		select {
		case free <- b:
		default:
		}
		return nil
	}
	for {
		err := pipeline.Run(context.Background(), pipeline.Options{Workers: workers, LeaveRead: true}, read, work, write)
		switch err {
		case errWriteStop:
			return nil // Inspect reports the write error; a read may still be in progress
		case errBigFrame:
		default:
			if err == nil && win.err != nil {
				return &ReadError{win.err}
			}
			return err
		}
		f := big
		big = nil
		s.Indices = f.Index + 1
		rep := in.analyzeOwn(rd, f)
		in.count(s, rep)
		in.render(fc, rep)
		in.flushIdle(rd)
		if in.w.Err != nil {
			return nil
		}
	}
}

// writeBatch writes a batch's output, and flushes it when the input was
// idle after the batch; errWriteStop when the output failed.
func (in *Inspector) writeBatch(out []byte, idle bool) error {
	in.w.Write(out)
	if in.w.Err != nil {
		return errWriteStop
	}
	if idle && in.opts.Flush != nil {
		if err := in.opts.Flush(); err != nil {
			in.w.Err = err
			return errWriteStop
		}
	}
	return nil
}

// analyzeOwn is analyze on the reading goroutine, followed by the move
// past a payload that is not JSON (SkipBadPayload), as the single-worker
// loop does it. The report's bytes are valid until the next call of rd
// unless the payload is not JSON.
func (in *Inspector) analyzeOwn(rd *kado.Reader, f *kado.Frame) *report {
	rep := in.analyze(rd, f)
	if rep.problem != nil {
		// The report's bytes live in the reader's buffer, which moving on
		// may reuse: keep copies.
		rep.header = bytes.Clone(rep.header)
		rep.payload = bytes.Clone(rep.payload)
		for i := range rep.fields {
			fl := &rep.fields[i]
			fl.raw = rep.header[fl.off : fl.off+len(fl.raw)]
		}
		if n, found := rd.SkipBadPayload(f); n > 0 {
			rep.skip = &skipInfo{from: f.Offset, bytes: n, found: found, resume: f.Offset + n}
		}
	}
	return rep
}

// forget drops the report's bytes once it is rendered: only its counts are
// needed after (Inspector.count), and the bytes may be reused.
func (rep *report) forget() {
	rep.header, rep.payload, rep.json, rep.fields = nil, nil, nil, nil
}
