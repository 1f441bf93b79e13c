// Package records spreads the JSON records of a stream (a JSON array's
// elements, NDJSON lines, values back to back) over several workers and
// hands the results on in input order (pkg/pipeline), for commands that
// work a record at a time and must write what one worker would.
//
// A reader cuts the input into batches of whole records by a structural
// scan (strings and brackets; no checks); the workers check every record
// as jsonv.Reader does and run the caller's Work on the batch; Write
// receives the batches in input order. Whatever the workers cannot settle
// (a record that is not valid JSON, one Work refuses, the end of the
// array, anything the scan does not expect) is left to the caller's own
// single-worker loop: Run stops before that batch and returns a
// jsonv.Reader that reads the input from the batch's first byte on, with
// the positions, array state and excerpts of a Reader of the whole input,
// so that the loop gives the same records, errors and messages as it
// would have given from the start.
package records

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/toonkit/toonkit/pkg/codec/jsonv"
	"github.com/toonkit/toonkit/pkg/pipeline"
)

// Options configure Run.
type Options struct {
	// Workers run Work; Run needs at least 2 to be worth it, but works
	// with 1.
	Workers int
	// Elements: a top-level array gives its elements (jsonv.Options).
	Elements bool
	// MaxValueSize bounds a record (jsonv.Options); 0: jsonv's default.
	MaxValueSize int64
	// BatchBytes is the size after which a batch is cut; 0: 256 KiB.
	BatchBytes int
	// Live says that the input may wait (a pipe, a terminal): a batch is
	// then also cut where a read comes back short, and Idle called after
	// it is written, so that records are passed on as they come.
	Live bool
	// LeaveRead: a run that stops early returns at once, even while a
	// read waits for input (pipeline.Options.LeaveRead). The Reader that
	// Run returns reads on from there when it is needed.
	LeaveRead bool
}

// Batch is a run of consecutive records of the input, and the result a
// worker made of them. Out is the caller's, kept from one use of the batch
// to the next (to reuse its buffers).
type Batch[R any] struct {
	raw    []byte
	starts []int // of each record in raw
	ends   []int
	Out    R

	first int64 // the index of the first record in the input
	mark  jsonv.Mark
	span  jsonv.Span
	state arrayState // at raw[0]
	rest  bool       // raw is where the workers stop: the caller's loop reads it
	idle  bool
	done  bool // every record was checked and worked
}

// Len is the number of records in the batch.
func (b *Batch[R]) Len() int { return len(b.ends) }

// Record returns record i of the batch as written in the input (white
// space and all). It must not be changed: the batch may be read again.
func (b *Batch[R]) Record(i int) []byte { return b.raw[b.starts[i]:b.ends[i]] }

// First is the index in the input of the batch's first record.
func (b *Batch[R]) First() int64 { return b.first }

// Handler receives the batches.
type Handler[R any] struct {
	// Work makes the batch's result, in b.Out, on a worker; every record
	// is valid JSON within the size limit. It reports false when it
	// cannot (a record it does not take): the caller's loop then reads
	// the input from the batch's first byte on. Work must not depend on
	// the batches before b.
	Work func(b *Batch[R]) bool
	// Write receives the batches that were worked, in input order, on
	// the goroutine that called Run. An error stops the run.
	Write func(b *Batch[R]) error
	// Idle, when not nil, is called after a batch of a live input that
	// ends where the input had nothing more to give at once (a place to
	// flush the output).
	Idle func() error
}

// arrayState is where a batch starts: within a top-level array (after
// elem elements), or at the top level of the stream.
type arrayState struct {
	inArray bool
	elem    int
}

// errRest stops the pipeline at the batch the caller's loop takes over.
var errRest = errors.New("records: the single-worker loop takes over")

// Run reads the records of in and passes them through h. It returns a nil
// Reader when every record was worked and written; otherwise the Reader
// from which the caller's single-worker loop reads the rest of the input
// (the records after the last batch written), as a Reader of the whole
// input with the same Options would have read them. An error from Write,
// Idle or ctx is returned as it is, with a nil Reader.
func Run[R any](ctx context.Context, in io.Reader, opts Options, h Handler[R]) (*jsonv.Reader, error) {
	batchBytes := opts.BatchBytes
	if batchBytes <= 0 {
		batchBytes = 256 << 10
	}
	limit := opts.MaxValueSize
	if limit <= 0 {
		limit = jsonv.DefaultMaxValueSize
	}
	// A record that has not ended after maxBatch bytes is the caller's
	// loop's, as is the rest of the input: memory stays bounded by the
	// batches in flight.
	maxBatch := max(4*batchBytes, 1<<20)
	workers := max(opts.Workers, 1)
	var (
		mu       sync.Mutex
		journal  []*Batch[R] // read and not yet written, in input order
		carry    []byte      // bytes read after the last batch
		sc       = scanner{elements: opts.Elements}
		records  int64
		eof      bool
		readErr  error
		restNext bool // the next batch is the rest of the input
		over     bool // no batch after the last one read
		active   sync.WaitGroup
	)
	free := make(chan *Batch[R], 2*workers+4)
	read := func() (*Batch[R], error) {
		active.Add(1)
		defer active.Done()
		if over {
			return nil, io.EOF
		}
		var b *Batch[R]
		select {
		case b = <-free:
		default:
			b = &Batch[R]{}
		}
		b.raw, b.starts, b.ends = append(b.raw[:0], carry...), b.starts[:0], b.ends[:0]
		b.state, b.first, b.rest, b.idle, b.done = sc.st, records, false, false, false
		carry = carry[:0]
		if restNext {
			b.rest, over = true, true
		}
		cut, i := 0, 0 // the end of the last whole record; where the scan stands
		short := false
		status := scanMore
		for !b.rest {
			var start, end int
			var st arrayState
			start, end, st, status = sc.next(b.raw, i, eof)
			if status == scanFound && int64(end-start) > limit {
				status = scanStop
			}
			if status == scanFound {
				sc.st, sc.started = st, true
				b.starts, b.ends = append(b.starts, start), append(b.ends, end)
				i, cut = end, end
				if len(b.raw) < batchBytes {
					continue
				}
				break
			}
			if status != scanMore {
				break
			}
			if readErr != nil {
				status = scanStop // the caller's loop meets the error where one worker would
				break
			}
			if len(b.ends) > 0 && (len(b.raw) >= batchBytes || short && opts.Live) {
				b.idle = short && opts.Live
				break
			}
			if len(b.raw)-cut >= maxBatch {
				status = scanStop
				break
			}
			if cap(b.raw)-len(b.raw) < 32<<10 {
				b.raw = slices.Grow(b.raw, max(64<<10, len(b.raw)))
			}
			room := cap(b.raw) - len(b.raw)
			n, err := in.Read(b.raw[len(b.raw):cap(b.raw)])
			b.raw = b.raw[:len(b.raw)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				readErr = err
			}
			short = n < room
		}
		switch {
		case b.rest:
		case status == scanStop && len(b.ends) == 0:
			b.rest, over = true, true // from here on, all of it
		case status == scanStop:
			restNext = true
			fallthrough
		default:
			carry = append(carry, b.raw[cut:]...)
			b.raw = b.raw[:cut]
			records += int64(len(b.ends))
			if status == scanEnd {
				over = true // white space is left, or nothing
				if len(b.ends) == 0 {
					select {
					case free <- b:
					default:
					}
					return nil, io.EOF
				}
			}
		}
		mu.Lock()
		journal = append(journal, b)
		mu.Unlock()
		return b, nil
	}
	work := func(b *Batch[R]) (*Batch[R], error) {
		if b.rest {
			return b, nil
		}
		b.span = jsonv.SpanOf(b.raw)
		for i := range b.ends {
			if jsonv.Check(b.Record(i)) != nil {
				return b, nil
			}
		}
		b.done = h.Work(b)
		return b, nil
	}
	var mark jsonv.Mark // at the start of the next batch to write
	write := func(b *Batch[R]) error {
		if b.rest || !b.done {
			return errRest
		}
		mu.Lock()
		journal = journal[1:]
		mu.Unlock()
		err := h.Write(b)
		mark.Advance(b.span)
		if err == nil && b.idle && h.Idle != nil {
			err = h.Idle()
		}
		select {
		case free <- b:
		default:
		}
		return err
	}
	err := pipeline.Run(ctx, pipeline.Options{Workers: workers, LeaveRead: opts.LeaveRead}, read, work, write)
	if err != errRest {
		return nil, err
	}
	// From the batch the workers did not settle on, one Reader reads what
	// is left. A read in progress may still add to the journal: the bytes
	// after the first batch are gathered when they are needed.
	mu.Lock()
	first := journal[0]
	mu.Unlock()
	rest := &restReader{live: opts.Live, open: func() ([][]byte, io.Reader) {
		active.Wait()
		mu.Lock()
		defer mu.Unlock()
		bufs := make([][]byte, 0, len(journal)+1)
		for _, b := range journal[1:] {
			bufs = append(bufs, b.raw)
		}
		bufs = append(bufs, carry)
		switch {
		case readErr != nil:
			return bufs, errorReader{readErr}
		case !eof:
			return bufs, in
		}
		return bufs, eofReader{}
	}}
	rest.bufs = [][]byte{first.raw}
	jo := jsonv.Options{MaxValueSize: opts.MaxValueSize, Elements: opts.Elements}
	if mark.Pos.Line > 0 {
		jo.Start, jo.StartLine, jo.InArray, jo.Element = mark.Pos, mark.Line, first.state.inArray, first.state.elem
	}
	return jsonv.NewReader(rest, jo), nil
}

// restReader reads the bytes of bufs, then, once open has given them, the
// bytes kept after the first buffer and the input itself. A read fills p
// from the bytes held as far as they go (and, but for a live input, reads
// the input for the rest of p), as reading the input itself would have
// filled it: a Reader's view of the bytes after an error, for its
// excerpt, is then the one it would have had.
type restReader struct {
	bufs   [][]byte
	open   func() ([][]byte, io.Reader)
	opened bool
	in     io.Reader
	live   bool
}

func (r *restReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.bufs) == 0 {
			if r.opened {
				break
			}
			r.opened = true
			r.bufs, r.in = r.open()
			continue
		}
		k := copy(p[n:], r.bufs[0])
		n += k
		if r.bufs[0] = r.bufs[0][k:]; len(r.bufs[0]) == 0 {
			r.bufs = r.bufs[1:]
		}
	}
	if n == len(p) || n > 0 && r.live {
		return n, nil
	}
	m, err := r.in.Read(p[n:])
	if n+m > 0 {
		err = nil // met again at the next read, as one Reader would meet it
	}
	return n + m, err
}

type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// What the scan of the next record found.
const (
	scanFound = iota // a record
	scanMore         // more bytes are needed to tell
	scanStop         // something the scan does not settle: the caller's loop takes over
	scanEnd          // the end of the input, after white space
)

// scanner finds the records of a stream by its structure alone (strings,
// brackets, the commas of a top-level array), as jsonv.Reader would cut
// them when they are valid.
type scanner struct {
	elements bool
	st       arrayState
	started  bool // a record or the array's '[' has been seen
}

// next finds the next record in b from i on: its bounds and the array
// state after it. eof says that b holds the rest of the input.
func (s *scanner) next(b []byte, i int, eof bool) (start, end int, st arrayState, status int) {
	st = s.st
	if !s.started && i == 0 && len(b) > 0 && b[0] == 0xEF {
		return 0, 0, st, scanStop // a byte order mark, perhaps
	}
	started := s.started
	j := jsonv.SkipSpace(b, i)
	for {
		if j == len(b) {
			switch {
			case !eof:
				return 0, 0, st, scanMore
			case st.inArray:
				return 0, 0, st, scanStop // not closed: an error
			}
			return 0, 0, st, scanEnd
		}
		if !st.inArray {
			if b[j] == '[' && s.elements {
				if started {
					return 0, 0, st, scanStop // a second array: rare, one worker's
				}
				st.inArray, started = true, true
				j = jsonv.SkipSpace(b, j+1)
				continue
			}
			break
		}
		if st.elem == 0 {
			if b[j] == ']' {
				return 0, 0, st, scanStop
			}
			break
		}
		if b[j] != ',' {
			return 0, 0, st, scanStop // ']' or an error
		}
		if j = jsonv.SkipSpace(b, j+1); j == len(b) && !eof {
			return 0, 0, st, scanMore
		}
		if j < len(b) && (b[j] == ']' || b[j] == ',') {
			return 0, 0, st, scanStop
		}
		if j == len(b) {
			return 0, 0, st, scanStop
		}
		break
	}
	e := jsonv.SkipValue(b, j)
	switch {
	case e < 0 && !eof:
		return 0, 0, st, scanMore
	case e < 0 || e == j:
		return 0, 0, st, scanStop
	case e == len(b) && !eof && b[j] != '"' && b[j] != '{' && b[j] != '[':
		return 0, 0, st, scanMore // a number or literal may go on
	}
	if st.inArray {
		st.elem++
	}
	return j, e, st, scanFound
}
