package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/toonkit/toonkit/pkg/codec/binary"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
	"github.com/toonkit/toonkit/pkg/pipeline"
)

// Encoding frames on several workers (-j N). The input is cut into chunks
// at line ends; each worker reads its chunk as a JSON stream of its own and
// frames every value, with a placeholder where the running sequence id
// goes. The writer fills those in and writes the chunks in input order.
// A chunk whose values do not all frame (a syntax error, a value that goes
// on past the chunk's end as indented JSON does, a record that breaks a
// rule, a sequence id past 32 bits) is not written: from its first byte on,
// the input is read by the single-worker loop (encodeValues), which
// writes the same frames and the same errors, at the same positions.

const (
	encodeChunk    = 256 << 10 // a chunk is cut at the first line end after this many bytes
	encodeChunkMax = 1 << 20   // no line end by then: the single-worker loop takes over
)

type encodeChunkBatch struct {
	raw    []byte
	start  jsonv.Position // of raw[0]; zero for the stream's start
	idle   bool           // the input had nothing more to give at once: flush after it
	whole  bool           // raw ends at a line end or at the end of the input
	framed bool           // a worker framed every value
	out    []byte
	seqAt  []int // offsets in out of the sequence ids to fill in
	seqOf  []int // the value index of each
	values int
}

var errSequential = errors.New("the single-worker loop takes over")

func encodeJobs(opts *EncodeOptions, in *input, out *output, w *binary.Writer, seq *uint64) error {
	var (
		mu      sync.Mutex
		journal []*encodeChunkBatch // read and not yet written, in input order
		carry   []byte              // bytes after the last line end
		next    = jsonv.Position{}  // the start of the next chunk
		eof     bool
		readErr error
		scanned int // bytes of the chunk being read already looked at for a line end
		lastNL  int // the last line end in them, or -1
	)
	workers := opts.Jobs
	free := make(chan *encodeChunkBatch, 2*workers+4)
	var active sync.WaitGroup // a call of read in progress
	read := func() (*encodeChunkBatch, error) {
		active.Add(1)
		defer active.Done()
		if (eof || readErr != nil) && len(carry) == 0 {
			return nil, io.EOF
		}
		var b *encodeChunkBatch
		select {
		case b = <-free:
		default:
			b = &encodeChunkBatch{}
		}
		b.raw, b.start, b.idle, b.whole = append(b.raw[:0], carry...), next, false, false
		carry, scanned, lastNL = carry[:0], 0, -1
		for {
			if eof {
				b.whole = true
				break
			}
			if readErr != nil {
				break // the single-worker loop meets the error where one worker would
			}
			if len(b.raw) >= encodeChunkMax {
				break
			}
			if cap(b.raw)-len(b.raw) < 32<<10 {
				b.raw = slices.Grow(b.raw, 64<<10)
			}
			room := cap(b.raw) - len(b.raw)
			n, err := in.R.Read(b.raw[len(b.raw):cap(b.raw)])
			b.raw = b.raw[:len(b.raw)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				readErr = err
			}
			short := n < room
			if i := bytes.LastIndexByte(b.raw[scanned:], '\n'); i >= 0 {
				lastNL = scanned + i
			}
			scanned = len(b.raw)
			if lastNL >= 0 && !eof && (short || len(b.raw) >= encodeChunk) {
				cut := lastNL + 1
				carry = append(carry, b.raw[cut:]...)
				b.raw = b.raw[:cut]
				b.whole = true
				b.idle = short && len(jsonv.TrimSpace(carry)) == 0
				break
			}
		}
		if next.Line == 0 {
			next = jsonv.Position{Line: 1, Column: 1}
		}
		next.Offset += int64(len(b.raw))
		next.Line += bytes.Count(b.raw, []byte{'\n'})
		mu.Lock()
		journal = append(journal, b)
		mu.Unlock()
		return b, nil
	}
	noErr := func(_ int64, _, msg string) *jsonv.SyntaxError { return &jsonv.SyntaxError{Msg: msg} }
	type workerState struct {
		buf []byte
		jr  *jsonv.Reader
		src bytes.Reader
	}
	states := make(chan *workerState, workers)
	for range workers {
		states <- &workerState{jr: jsonv.NewReader(nil, jsonv.Options{})}
	}
	work := func(b *encodeChunkBatch) (*encodeChunkBatch, error) {
		b.out, b.seqAt, b.seqOf, b.values, b.framed = b.out[:0], b.seqAt[:0], b.seqOf[:0], 0, false
		if !b.whole {
			return b, nil
		}
		st := <-states
		defer func() { states <- st }()
		st.src.Reset(b.raw)
		jr := st.jr
		jr.Reset(&st.src, jsonv.Options{MaxValueSize: int64(opts.MaxFrameSize), Start: b.start})
		for {
			v, _, err := jr.Next()
			if err == io.EOF {
				b.framed = true
				return b, nil
			}
			if err != nil {
				return b, nil
			}
			h, p, own, err := recordFrame(opts, noErr, v)
			if err != nil {
				return b, nil
			}
			payload := jsonv.Compacted(st.buf, p) // not in place: the chunk may be read again
			if len(payload) > 0 && len(p) > 0 && &payload[0] != &p[0] {
				st.buf = payload
			}
			at := len(b.out)
			if b.out, _, err = binary.AppendFrame(b.out, h, payload, opts.Compress); err != nil {
				return b, nil
			}
			if !own {
				b.seqAt, b.seqOf = append(b.seqAt, at+binary.OffSequenceID), append(b.seqOf, b.values)
			}
			b.values++
		}
	}
	write := func(b *encodeChunkBatch) error {
		if !b.framed || len(b.seqOf) > 0 && *seq+uint64(b.seqOf[len(b.seqOf)-1]) > math.MaxUint32 {
			return errSequential
		}
		for i, at := range b.seqAt {
			s := uint32(*seq + uint64(b.seqOf[i]))
			b.out[at], b.out[at+1], b.out[at+2], b.out[at+3] = byte(s), byte(s>>8), byte(s>>16), byte(s>>24)
		}
		mu.Lock()
		journal = journal[1:]
		mu.Unlock()
		*seq += uint64(b.values)
		if _, err := out.Write(b.out); err != nil {
			var ee *ExitError
			if errors.As(err, &ee) {
				return err
			}
			return invalidError(fmt.Errorf("%s: %w", in.Name, err), "")
		}
		if b.idle {
			if err := out.Flush(); err != nil {
				return err
			}
		}
		select {
		case free <- b:
		default:
		}
		return nil
	}
	// LeaveRead: the single-worker loop may end with an error in the
	// chunk before it needs a read that waits for input (a pipe), as one
	// worker would; the rest, when it is needed, waits for that read.
	err := pipeline.Run(context.Background(), pipeline.Options{Workers: workers, LeaveRead: true}, read, work, write)
	if err != errSequential {
		return err
	}
	// From the chunk that did not frame on, one worker reads what is left.
	rest := &lazyReader{open: func() io.Reader {
		active.Wait()
		mu.Lock()
		defer mu.Unlock()
		rs := make([]io.Reader, 0, len(journal)+2)
		for _, b := range journal[1:] {
			rs = append(rs, bytes.NewReader(b.raw))
		}
		rs = append(rs, bytes.NewReader(carry))
		switch {
		case readErr != nil:
			rs = append(rs, errorReader{readErr})
		case !eof:
			rs = append(rs, in.R)
		}
		return io.MultiReader(rs...)
	}}
	mu.Lock()
	first := journal[0] // a read in progress may still add to the journal
	mu.Unlock()
	jr := jsonv.NewReader(io.MultiReader(bytes.NewReader(first.raw), rest), jsonv.Options{MaxValueSize: int64(opts.MaxFrameSize), Start: first.start})
	return encodeValues(opts, in, jr, out, w, seq)
}

// lazyReader reads from the reader open returns, called at the first Read.
type lazyReader struct {
	open func() io.Reader
	r    io.Reader
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.r == nil {
		l.r = l.open()
	}
	return l.r.Read(p)
}

type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }
