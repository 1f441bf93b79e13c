// Package readahead is the reader a worker pipeline hands to a
// single-worker loop when the loop takes over part-way: the bytes the
// pipeline read ahead of that place, then the input itself.
package readahead

import (
	"io"
	"slices"
	"sync"
)

// Reader reads the bytes of Bufs, then, once Open has given them, the
// bytes read ahead after them and the input itself (Then). A read fills p
// from the bytes held as far as they go (and, but for a Live input, reads
// the input for the rest of p), as reading the input itself would have
// filled it: a decoder's view of the bytes after an error, for its
// excerpt, is then the one it would have had.
type Reader struct {
	Bufs [][]byte
	// Open gives the bytes read ahead after Bufs and the input; it is
	// called at the first read that needs them, so that a read of the
	// pipeline still in progress may add to them first.
	Open func() ([][]byte, io.Reader)
	// Held, when not nil, gives without waiting the bytes of the batches
	// read ahead since the last call (or since Bufs), before Open: live,
	// the batches a pipeline read before it stopped are given while a
	// read of it still waits for the input.
	Held func() [][]byte
	Live bool

	opened bool
	in     io.Reader
}

func (r *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.Bufs) == 0 {
			// Live, the bytes held are given first: Open waits for a read
			// of the pipeline in progress, which may wait for the input.
			if r.opened || n > 0 && r.Live {
				break
			}
			if r.Held != nil {
				if r.Bufs = r.Held(); len(r.Bufs) > 0 {
					continue
				}
			}
			r.opened = true
			r.Bufs, r.in = r.Open()
			continue
		}
		k := copy(p[n:], r.Bufs[0])
		n += k
		if r.Bufs[0] = r.Bufs[0][k:]; len(r.Bufs[0]) == 0 {
			r.Bufs = r.Bufs[1:]
		}
	}
	if n == len(p) || n > 0 && r.Live {
		return n, nil
	}
	m, err := r.in.Read(p[n:])
	if n+m > 0 {
		err = nil // met again at the next read, as the input itself gives it
	}
	return n + m, err
}

// Then is what comes after the bytes read ahead of in: in itself, or,
// when the pipeline met the end of in or a read error, that again.
func Then(in io.Reader, eof bool, err error) io.Reader {
	switch {
	case err != nil:
		return errorReader{err}
	case eof:
		return errorReader{io.EOF}
	}
	return in
}

type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }

// Journal keeps the bytes of the batches a pipeline has read and not yet
// written, in input order, so that a single-worker loop can take over at
// the first of them (Rest).
type Journal struct {
	mu      sync.Mutex
	raws    [][]byte
	reading bool // a read is in progress
	closed  bool // Rest's reader has taken the bytes: no read may start
	done    *sync.Cond
}

// Reading marks a call of the pipeline's read in progress, until
// DoneReading. False says that the run is over and the bytes handed on:
// the read must return at once, touching nothing. (A pipeline that leaves
// a read behind, pipeline.Options.LeaveRead, may start it after Run has
// returned.)
func (j *Journal) Reading() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.reading = !j.closed
	return j.reading
}

// DoneReading ends what Reading began.
func (j *Journal) DoneReading() {
	j.mu.Lock()
	j.reading = false
	if j.done != nil {
		j.done.Broadcast()
	}
	j.mu.Unlock()
}

// Add notes the bytes of a batch just read; they must stay as they are
// until Written.
func (j *Journal) Add(raw []byte) {
	j.mu.Lock()
	j.raws = append(j.raws, raw)
	j.mu.Unlock()
}

// Stop keeps any read from starting (Reading is false), as when Rest's
// reader has taken the bytes; wait waits for a read in progress.
func (j *Journal) Stop(wait bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if !wait {
		return
	}
	if j.done == nil {
		j.done = sync.NewCond(&j.mu)
	}
	for j.reading {
		j.done.Wait()
	}
}

// Written drops the first batch, written.
func (j *Journal) Written() {
	j.mu.Lock()
	j.raws = j.raws[1:]
	j.mu.Unlock()
}

// Rest is the Reader of the input from the first batch not written on:
// the batches' bytes, then what after returns, once no read is in progress
// (and none may start): the bytes read after the last batch, and the
// input (Then). Live, the batches read meanwhile are given first without
// waiting (Reader.Held): the read in progress may wait for input that
// comes only once they are handled.
func (j *Journal) Rest(live bool, after func() ([]byte, io.Reader)) *Reader {
	j.mu.Lock()
	first := j.raws[0]
	j.mu.Unlock()
	given := 1 // the batches given
	r := &Reader{Live: live, Bufs: [][]byte{first}}
	if live {
		r.Held = func() [][]byte {
			j.mu.Lock()
			defer j.mu.Unlock()
			held := append([][]byte{}, j.raws[given:]...)
			given = len(j.raws)
			return held
		}
	}
	r.Open = func() ([][]byte, io.Reader) {
		j.mu.Lock()
		defer j.mu.Unlock()
		j.closed = true
		if j.done == nil {
			j.done = sync.NewCond(&j.mu)
		}
		for j.reading {
			j.done.Wait()
		}
		bufs := append([][]byte{}, j.raws[given:]...)
		carry, in := after()
		return append(bufs, carry), in
	}
	return r
}

// Batcher is the read step of a worker pipeline that cuts its input into
// batches of bytes (Next): it reads a batch of about BatchBytes, cuts it
// where Cut says, carries the bytes after the cut to the next batch, and
// keeps the batches in a Journal until they are written (Written), so that
// a single-worker loop can take over at the first batch not written
// (Rest). A batch that the workers must leave to that loop (no place to
// cut by MaxBatch bytes, a read error, Serial) is the last one read.
type Batcher struct {
	In io.Reader
	// BatchBytes is the size after which a batch is cut; 0: 256 KiB.
	// Each read asks for the bytes that the batch lacks (32 KiB at least).
	BatchBytes int
	// MaxBatch: a batch with no place to cut by this size is the
	// single-worker loop's, as is the rest of the input, so that memory
	// stays bounded by the batches in flight; 0: 4 BatchBytes, 1 MiB at
	// least.
	MaxBatch int
	// Live says that the input may wait (a pipe, a terminal): a batch is
	// then also cut where a read comes back short, and marked Idle.
	Live bool
	// Short says that the read before the first batch (a header's, say)
	// came back short: the first batch may be cut before Next reads.
	Short bool
	// Carry holds the bytes read from In after the last batch (at first,
	// the bytes read before Next, the first batch's start); EOF says that
	// In has reached its end.
	Carry []byte
	EOF   bool
	// Serial, when not nil, is called with the batch's bytes before each
	// cut and read; true: this batch and the rest of the input are the
	// single-worker loop's.
	Serial func(raw []byte) bool
	// Cut returns where to end a batch of raw, 0 for nowhere. It is
	// called once raw holds BatchBytes, or, live (a live input's read
	// came back short), holds any bytes.
	Cut func(raw []byte, live bool) int

	journal Journal
	err     error // the read error of In
	over    bool  // no batch after the last one read
}

// A Batch is what Next read: the bytes of a batch, and how they end.
type Batch struct {
	Raw   []byte
	Final bool // Raw ends at the end of the input
	Rest  bool // the single-worker loop reads the input from Raw on
	Idle  bool // a live input had no more to give at once after Raw
}

// Next reads the next batch into the buffer that buf gives (buf is called
// once, when there is a batch to read), for the read step of a pipeline
// (pipeline.Run): false says that there is none, the read must return
// io.EOF. The batch's bytes must stay as they are until Written.
func (bt *Batcher) Next(buf func() []byte) (Batch, bool) {
	if !bt.journal.Reading() {
		return Batch{}, false // the run is over
	}
	defer bt.journal.DoneReading()
	if bt.over {
		return Batch{}, false
	}
	batchBytes := bt.BatchBytes
	if batchBytes <= 0 {
		batchBytes = 256 << 10
	}
	maxBatch := bt.MaxBatch
	if maxBatch <= 0 {
		maxBatch = max(4*batchBytes, 1<<20)
	}
	b := Batch{Raw: append(buf()[:0], bt.Carry...)}
	bt.Carry = bt.Carry[:0]
	short := bt.Short
	bt.Short = false
	for {
		if bt.EOF && bt.err == nil {
			b.Final, bt.over = true, true
			break
		}
		if bt.err != nil {
			b.Rest, bt.over = true, true // the caller's loop meets the error where one worker would
			break
		}
		if bt.Serial != nil && bt.Serial(b.Raw) {
			b.Rest, bt.over = true, true
			break
		}
		live := short && bt.Live
		if len(b.Raw) >= batchBytes || live && len(b.Raw) > 0 {
			if cut := bt.Cut(b.Raw, live); cut > 0 {
				bt.Carry = append(bt.Carry, b.Raw[cut:]...)
				b.Raw = b.Raw[:cut]
				b.Idle = live
				break
			}
		}
		if len(b.Raw) >= maxBatch {
			b.Rest, bt.over = true, true // a long record: one worker's
			break
		}
		// Read up to the batch's size (32 KiB at least): the bytes after
		// the cut are copied to the next batch.
		want := max(batchBytes-len(b.Raw), min(32<<10, batchBytes))
		if cap(b.Raw)-len(b.Raw) < want {
			b.Raw = slices.Grow(b.Raw, max(want, len(b.Raw)))
		}
		n, err := bt.In.Read(b.Raw[len(b.Raw) : len(b.Raw)+want])
		b.Raw = b.Raw[:len(b.Raw)+n]
		if err == io.EOF {
			bt.EOF = true
		} else if err != nil {
			bt.err = err
		}
		short = n < want
	}
	bt.journal.Add(b.Raw)
	return b, true
}

// Stop ends the reads: every Next after it returns false at once. One in
// progress, which the pipeline may have left behind, finishes its batch
// for nobody; wait waits for it, so that the caller may use In again.
func (bt *Batcher) Stop(wait bool) { bt.journal.Stop(wait) }

// Written drops the first batch read, written.
func (bt *Batcher) Written() { bt.journal.Written() }

// Rest is the Reader of the input from the first batch not written on
// (Journal.Rest): a read in progress may still add to the batches; the
// bytes after the first are gathered when they are needed.
func (bt *Batcher) Rest() *Reader {
	return bt.journal.Rest(bt.Live, func() ([]byte, io.Reader) { return bt.Carry, Then(bt.In, bt.EOF, bt.err) })
}
