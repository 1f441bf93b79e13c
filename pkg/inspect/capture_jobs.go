package inspect

import (
	"bytes"
	"context"
	"io"
	"iter"

	"github.com/toonkit/toonkit/pkg/capture"
	kado "github.com/toonkit/toonkit/pkg/codec/binary"
	"github.com/toonkit/toonkit/pkg/pipeline"
)

// A capture on several workers (Options.Workers, every format but the
// summary alone): the reading goroutine takes the records of the capture
// as pkg/capture gives them, in capture order, and copies them into
// batches; the workers analyse the good frames and render every entry of
// a batch into the batch's text; the batches are counted and written in
// input order, so that the output is that of one worker, byte for byte.
// A batch ends after capBatchBytes of frames, and where the input has
// nothing more buffered (a live capture is shown as it comes).

const capBatchBytes = 64 << 10

// capItem is a record of a capture kept in a batch: a good frame (its
// bytes and compact JSON in the batch's arena), or a report or event made
// by the reading goroutine.
type capItem struct {
	src                source
	f                  kado.Frame
	start, jstart, end int // the frame's bytes and JSON in the arena
	rep                *report
	ev                 *event
	repv               report // rep's, for a good frame: the batch's items are reused
}

type capBatch struct {
	arena []byte
	items []capItem
	idle  bool  // the input had nothing buffered after the batch: flush
	err   error // the capture's final error, after the items
	out   bytes.Buffer
}

// inspectCaptureParallel is inspectCapture's reading and rendering on
// Options.Workers workers.
func (in *Inspector) inspectCaptureParallel(fc *frameContext, r io.Reader, copts capture.Options, s *Summary) (met bool, err error) {
	bufd, _ := r.(buffered)
	next, stop := iter.Pull2(capture.Records(r, copts))
	defer stop()
	done := false
	free := make(chan *capBatch, 2*in.opts.Workers+4)
	read := func() (*capBatch, error) {
		if done {
			return nil, io.EOF
		}
		var b *capBatch
		select {
		case b = <-free:
		default:
			b = &capBatch{}
		}
		for len(b.arena) < capBatchBytes {
			rec, err, ok := next()
			if !ok {
				done = true
				break
			}
			if err != nil {
				b.err, done = err, true
				break
			}
			in.keep(b, rec)
			if bufd != nil && bufd.Buffered() == 0 {
				b.idle = true
				break
			}
		}
		if len(b.items) == 0 && b.err == nil {
			return nil, io.EOF
		}
		return b, nil
	}
	clones := make(chan *Inspector, in.opts.Workers)
	for range in.opts.Workers {
		clones <- &Inspector{opts: in.opts, max: in.max}
	}
	work := func(b *capBatch) (*capBatch, error) {
		wi := <-clones
		defer func() { clones <- wi }()
		b.out.Reset()
		wi.w = &errWriter{w: &b.out}
		for i := range b.items {
			it := &b.items[i]
			switch {
			case it.rep == nil && it.ev == nil:
				it.f.Raw = b.arena[it.start:it.jstart]
				it.rep = wi.frameReport(&it.repv, &it.f, b.arena[it.jstart:it.end], it.src)
				wi.render(fc, it.rep)
			case it.rep != nil:
				wi.render(fc, it.rep)
			default:
				wi.renderEvent(fc, it.ev)
			}
		}
		return b, nil
	}
	write := func(b *capBatch) error {
		for i := range b.items {
			met = true
			if it := &b.items[i]; it.rep != nil {
				in.count(s, it.rep)
			} else {
				in.countEvent(it.ev, s)
			}
		}
		if err := in.writeBatch(b.out.Bytes(), b.idle); err != nil {
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
	err = pipeline.Run(context.Background(), pipeline.Options{Workers: in.opts.Workers}, read, work, write)
	if err == errWriteStop {
		err = errOutput
	}
	return met, err
}

// keep puts a record of the capture into a batch: a good frame as its
// bytes, for a worker to analyse; anything else as its report or event,
// with its bytes copied.
func (in *Inspector) keep(b *capBatch, rec *capture.Record) {
	if rec.Kind == capture.Frame {
		it := capItem{src: source{conn: rec.Conn, dir: rec.Dir, time: rec.Time}, f: *rec.Frame, start: len(b.arena)}
		it.f.Raw = nil
		b.arena = append(b.arena, rec.Frame.Raw...)
		it.jstart = len(b.arena)
		b.arena = append(b.arena, rec.JSON...)
		it.end = len(b.arena)
		b.items = append(b.items, it)
		return
	}
	rep, ev := in.classify(rec)
	if ev != nil && ev.text != nil {
		ev.text = bytes.Clone(ev.text)
	}
	b.items = append(b.items, capItem{rep: rep, ev: ev})
}
