// Package readahead is the reader a worker pipeline hands to a
// single-worker loop when the loop takes over part-way: the bytes the
// pipeline read ahead of that place, then the input itself.
package readahead

import "io"

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
