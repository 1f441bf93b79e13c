// Package readahead is the reader a worker pipeline hands to a
// single-worker loop when the loop takes over part-way: the bytes the
// pipeline read ahead of that place, then the input itself.
package readahead

import (
	"io"
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
	Live bool

	opened bool
	in     io.Reader
}

func (r *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.Bufs) == 0 {
			if r.opened {
				break
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

// Written drops the first batch, written.
func (j *Journal) Written() {
	j.mu.Lock()
	j.raws = j.raws[1:]
	j.mu.Unlock()
}

// Rest is the Reader of the input from the first batch not written on:
// the batches' bytes, then what after returns, once no read is in progress
// (and none may start): the bytes read after the last batch, and the
// input (Then).
func (j *Journal) Rest(live bool, after func() ([]byte, io.Reader)) *Reader {
	j.mu.Lock()
	first := j.raws[0]
	j.mu.Unlock()
	return &Reader{Live: live, Bufs: [][]byte{first}, Open: func() ([][]byte, io.Reader) {
		j.mu.Lock()
		defer j.mu.Unlock()
		j.closed = true
		if j.done == nil {
			j.done = sync.NewCond(&j.mu)
		}
		for j.reading {
			j.done.Wait()
		}
		bufs := append([][]byte{}, j.raws[1:]...)
		carry, in := after()
		return append(bufs, carry), in
	}}
}
