package inspect

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/kado"
)

// A capture on several workers (Options.Workers, every format but the
// summary alone): the reading goroutine takes the records of the capture
// as internal/capture gives them, in capture order, and copies them into
// batches; the workers analyse the good frames and render every entry of
// a batch into the batch's text; the batches are counted and written in
// input order, so that the output is that of one worker, byte for byte.
// A batch ends after capBatchBytes of frames, and where the input has
// nothing more buffered (a live capture is shown as it comes).

const capBatchBytes = 64 << 10

var errQuitRead = errors.New("quit")

// capItem is a record of a capture kept in a batch: a frame (its bytes,
// and its compact JSON when the reading pass checked it, in the batch's
// arena), or a report or event made by the reading goroutine.
type capItem struct {
	rec                capture.Record // a frame's record, without its bytes
	f                  kado.Frame
	start, jstart, end int // the frame's bytes and JSON in the arena
	rep                *report
	ev                 *event
	// A good frame, once a worker has rendered it: the RLE oddities
	// its report found (what countGood needs besides the frame).
	good     bool
	warnings int
}

func (it *capItem) src() source { return source{conn: it.rec.Conn, dir: it.rec.Dir, time: it.rec.Time} }

type capBatch struct {
	arena []byte
	items []capItem
	idle  bool  // the input had nothing buffered after the batch: flush
	err   error // the capture's final error, after the items
	out   sliceWriter
	// diverged: a frame whose payload the reading pass left unchecked,
	// not knowing what followed it, is not JSON (capture.Record.Check):
	// the capture is read again, with one worker, past the batches
	// written.
	diverged bool
}

// newCapBatch is a batch with room for the frames of capBatchBytes (small
// frames: a few hundred), so that it does not grow frame by frame.
func newCapBatch() *capBatch {
	return &capBatch{arena: make([]byte, 0, capBatchBytes+16<<10), items: make([]capItem, 0, 512)}
}

// errDiverged stops a run whose reading pass guessed wrong about a frame
// (capBatch.diverged).
var errDiverged = errors.New("a frame left unchecked is not JSON")

// inspectCaptureParallel is inspectCapture's reading and rendering on
// Options.Workers workers. The capture is read on a goroutine of its own,
// which hands on whole batches (not records one by one), and leaves the
// check of the frames' payloads to the workers (capture.Options.LeaveJSON).
// When the reading pass guessed wrong about a frame it returns
// errDiverged, with the number of records written. The first skip records
// are passed over (written by a run that diverged).
func (in *Inspector) inspectCaptureParallel(fc *frameContext, r io.Reader, copts capture.Options, s *Summary, skip int) (met bool, handed int, err error) {
	copts.LeaveJSON = true
	free := make(chan *capBatch, 2*in.opts.Workers+4)
	batches := make(chan *capBatch, 1)
	quit := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(batches)
		b := newCapBatch()
		send := func() bool {
			select {
			case batches <- b:
			case <-quit:
				return false
			}
			select {
			case b = <-free:
			default:
				b = newCapBatch()
			}
			return true
		}
		_, err := capture.Read(r, copts, func(rec *capture.Record) error {
			if skip > 0 {
				skip--
				return nil
			}
			in.keep(b, rec)
			idle := rec.Idle
			if len(b.arena) >= capBatchBytes || idle {
				b.idle = idle
				if !send() {
					return errQuitRead
				}
			}
			return nil
		})
		if err == errQuitRead {
			return
		}
		if len(b.items) > 0 || err != nil {
			b.err = err
			send()
		}
	}()
	defer func() {
		close(quit)
		for range batches { // let the reading goroutine end
		}
		<-readDone
	}()
	read := func() (*capBatch, error) {
		b, ok := <-batches
		if !ok {
			return nil, io.EOF
		}
		return b, nil
	}
	type worker struct {
		in  *Inspector
		dec *kado.Reader // checks the payloads left unchecked
	}
	// --oneline's lines cost less than the reading pass (capture.Read,
	// on the goroutine above): it keeps a CPU of its own, and the lines
	// are rendered on one worker fewer (with one, on the writer's
	// goroutine), so that fewer goroutines compete with it.
	workers := in.opts.Workers
	if in.opts.Format == OneLine {
		workers = max(1, workers-1)
	}
	clones := make(chan worker, workers)
	for range workers {
		clones <- worker{&Inspector{opts: in.opts, max: in.max}, kado.NewReader(nil, kado.ReaderOptions{MaxFrameSize: copts.MaxFrameSize})}
	}
	work := func(b *capBatch) (*capBatch, error) {
		w := <-clones
		defer func() { clones <- w }()
		wi := w.in
		b.out.b = b.out.b[:0]
		wi.w = &errWriter{W: &b.out}
		// --oneline's plain line of a good frame, without a report: an
		// uncompressed payload has no RLE oddities to warn of
		fast := wi.opts.Format == OneLine && wi.opts.Style == nil
		for i := range b.items {
			it := &b.items[i]
			switch {
			case it.rep == nil && it.ev == nil:
				it.f.Raw = b.arena[it.start:it.jstart]
				js := b.arena[it.jstart:it.end]
				if it.rec.Unchecked() {
					it.rec.Frame = &it.f
					if !it.rec.Check(w.dec) {
						b.diverged = true
						return b, nil
					}
					if it.rec.Kind != capture.Frame {
						// Not JSON: the problem the reading pass would
						// have reported.
						it.rep, _ = wi.classify(&it.rec)
						wi.render(fc, it.rep)
						continue
					}
					js = it.rec.JSON
				}
				it.good = true
				if fast && !it.f.Compressed() {
					src := it.src()
					b.out.b = append(appendFrameLine(b.out.b, it.f.Index, it.f.Offset, &src, it.f.Header, false, js, &wi.times), '\n')
					continue
				}
				// One report per worker serves: the writer counts the
				// frame from the item (countGood).
				rep := wi.frameReport(&wi.capRep, &it.f, js, it.src())
				wi.render(fc, rep)
				it.warnings = len(rep.warnings)
			case it.rep != nil:
				wi.render(fc, it.rep)
			default:
				wi.renderEvent(fc, it.ev)
			}
		}
		return b, nil
	}
	write := func(b *capBatch) error {
		if b.diverged {
			return errDiverged
		}
		handed += len(b.items)
		for i := range b.items {
			met = true
			if it := &b.items[i]; it.good {
				src := it.src()
				in.countGood(s, &it.f, it.warnings, &src)
			} else if it.rep != nil {
				in.count(s, it.rep)
			} else {
				in.countEvent(it.ev, s)
			}
		}
		if err := in.writeBatch(b.out.b, b.idle); err != nil {
			return err
		}
		if b.err != nil {
			return b.err
		}
		b.arena, b.items, b.idle = b.arena[:0], b.items[:0], false
		select {
		case free <- b:
		default:
		}
		return nil
	}
	err = pipeline.Run(context.Background(), pipeline.Options{Workers: workers}, read, work, write)
	if err == errWriteStop {
		err = errOutput
	}
	return met, handed, err
}

// keep puts a record of the capture into a batch: a good frame (or one
// whose payload is left to the workers to check) as its bytes, for a
// worker to analyse; anything else as its report or event, with its bytes
// copied.
func (in *Inspector) keep(b *capBatch, rec *capture.Record) {
	if rec.Kind == capture.Frame {
		b.items = append(b.items, capItem{rec: *rec, f: *rec.Frame, start: len(b.arena)})
		it := &b.items[len(b.items)-1]
		it.rec.Frame, it.rec.JSON, it.f.Raw = nil, nil, nil
		b.arena = append(b.arena, rec.Frame.Raw...)
		it.jstart = len(b.arena)
		b.arena = append(b.arena, rec.JSON...)
		it.end = len(b.arena)
		return
	}
	rep, ev := in.classify(rec)
	if ev != nil && ev.text != nil {
		ev.text = bytes.Clone(ev.text)
	}
	b.items = append(b.items, capItem{rep: rep, ev: ev})
}

// sliceWriter appends what is written to b.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
