// Package records reads the records of an input in any of toonkit's
// encodings, writes them in another, and spreads JSON records over several
// workers.
//
// Source reads one io.Reader, its format named or detected (Sniff), as
// compact JSON records: a JSON array's elements or a stream of values,
// NDJSON lines, a TOON document's records, a Genesis table's rows, Kado
// frames (as decode's records, flat, or their payloads) and the frames of a
// packet capture, each with its place for messages (Where) and, for a live
// input, whether more is buffered (Idle). Its errors are *Error, typed by
// Kind, with the reader's error (and its position) inside. The Sinks write
// records as one JSON array (JSONSink), NDJSON (NDJSONSink), Kado frames
// (BinarySink), as one Genesis table written in one pass, its rows held
// until the table is known to read back as written (TableSink, Check),
// both a table and compact JSON until one is chosen (AutoSink), or hold
// them for one Document (DocumentSink), which EncodeTOON writes as TOON;
// MapDocument maps a large file instead of reading it. Copy writes a
// Source's records to a Sink, on several workers where it can (Run), the
// same as one worker would.
//
// Run spreads the JSON records of a stream (a JSON array's elements,
// NDJSON lines, values back to back) over several workers and hands the
// results on in input order (internal/pipeline), for commands that work a
// record at a time and must write what one worker would.
//
// Run's one reader does not parse: it cuts the input into batches where a
// record seems to start (after a line end in a stream of values; in an
// array, before the comma in front of what looks like the start of an
// element, as the first element starts: `, {"id":`), and each worker reads
// its batch with a jsonv.Reader of its own, as a Reader of the whole input
// would read it from a record's end. Write receives the batches in input
// order and checks that each starts where the one before it really ended
// (a cut inside a record shows as a batch that does not end cleanly). What
// the workers cannot settle (a record that is not valid JSON, one Work
// refuses, a cut that was not at a record's end, the end of the array
// before the end of the input) is left to the caller's own single-worker
// loop: Run stops before that batch and returns a jsonv.Reader that reads
// the input from the batch's first byte on, with the positions, array
// state and excerpts of a Reader of the whole input, so that the loop gives
// the same records, errors and messages as it would have from the start.
package records

import (
	"bytes"
	"context"
	"io"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/readahead"
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
	// Members: the workers note the members of each object as they read
	// it (jsonv.Options.Members), for Batch.Members.
	Members bool
}

// Batch is a run of consecutive records of the input, and the result a
// worker made of them. Out is the caller's, kept from one use of the batch
// to the next (to reuse its buffers).
type Batch[R any] struct {
	raw    []byte
	starts []int // of each record in raw
	ends   []int
	Out    R
	// The members of record i are mems[memFrom[i]:memTo[i]]; memFrom[i]
	// is -1 when they are not known.
	mems           []jsonv.Member
	memFrom, memTo []int

	first  int64          // the index of the first record in the input
	at     jsonv.Position // where raw starts in the input (known in Write)
	pos    jsonv.Position // Pos's last answer, at raw[posOff]
	posOff int
	index  int  // of the batch
	final  bool // raw ends at the end of the input
	rest   bool // raw is where the workers stop: the caller's loop reads it
	idle   bool
	done   bool // every record was read, checked and worked
	span   jsonv.Span
	endIn  bool // a top-level array is open at the end of raw
}

// Len is the number of records in the batch.
func (b *Batch[R]) Len() int { return len(b.ends) }

// Record returns record i of the batch as written in the input (white
// space and all). It must not be changed: the batch may be read again.
func (b *Batch[R]) Record(i int) []byte { return b.raw[b.starts[i]:b.ends[i]] }

// Members returns the members of record i, an object, as offsets in
// Record(i), when Options.Members asks for them and the worker's Reader
// noted them (jsonv.Reader.Members); ok is false otherwise. Their names
// hold no escape.
func (b *Batch[R]) Members(i int) (members []jsonv.Member, ok bool) {
	if i >= len(b.memFrom) || b.memFrom[i] < 0 {
		return nil, false
	}
	return b.mems[b.memFrom[i]:b.memTo[i]], true
}

// First is the index in the input of the batch's first record; it is
// known in Write only.
func (b *Batch[R]) First() int64 { return b.first }

// Pos is the position in the input of record i's first byte, as a
// jsonv.Reader of the whole input gives it (for messages about the
// record); it is known in Write only.
func (b *Batch[R]) Pos(i int) jsonv.Position {
	start := b.starts[i]
	if start < b.posOff {
		b.pos, b.posOff = b.at, 0
	}
	m := jsonv.Mark{Pos: b.pos}
	m.Advance(jsonv.SpanOf(b.raw[b.posOff:start]))
	b.pos, b.posOff = m.Pos, start
	return m.Pos
}

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

// Run reads the records of in and passes them through h. It returns a nil
// Reader when every record was worked and written; otherwise the Reader
// from which the caller's single-worker loop reads the rest of the input
// (the records after the last batch written), as a Reader of the whole
// input with the same Options would have read them. An error from Write,
// Idle or ctx is returned as it is, with a nil Reader.
func Run[R any](ctx context.Context, in io.Reader, opts Options, h Handler[R]) (*jsonv.Reader, error) {
	workers := max(opts.Workers, 1)
	var (
		cuts    cutter
		batches int
	)
	cuts.elements = opts.Elements
	bt := &readahead.Batcher{In: in, BatchBytes: opts.BatchBytes, Live: opts.Live,
		Serial: func(raw []byte) bool {
			if cuts.known {
				return false
			}
			cuts.learn(raw, false) // (at the end of the input, Next cuts nothing)
			return cuts.serial
		},
		Cut: func(raw []byte, live bool) int {
			switch {
			case !cuts.known:
				return 0
			case live:
				return cuts.liveCut(raw)
			}
			return cuts.cut(raw)
		}}
	read := func(b *Batch[R]) error {
		nb, ok := bt.Next(func() []byte {
			b.starts, b.ends, b.index, b.done = b.starts[:0], b.ends[:0], batches, false
			b.mems, b.memFrom, b.memTo = b.mems[:0], b.memFrom[:0], b.memTo[:0]
			batches++
			return b.raw
		})
		if !ok {
			return io.EOF
		}
		b.raw, b.final, b.rest, b.idle = nb.Raw, nb.Final, nb.Rest, nb.Idle
		return nil
	}
	// A Reader for each worker, its buffer reused from batch to batch.
	readers := make(chan *batchReader[R], workers)
	for range workers {
		readers <- &batchReader[R]{}
	}
	work := func(b *Batch[R]) error {
		if b.rest {
			return nil
		}
		rd := <-readers
		b.done = rd.read(b, opts, cuts.array) && h.Work(b)
		readers <- rd
		return nil
	}
	var (
		mark    jsonv.Mark // at the start of the next batch to write
		inArray bool       // at the start of the next batch
		elem    int        // elements of the array before it
		records int64
	)
	write := func(b *Batch[R]) error {
		// A batch after the first was read as if it started after an
		// element of the array (or a value of the stream): the batch
		// before must have ended so.
		if b.rest || !b.done || b.index > 0 && (inArray != cuts.array || inArray && elem == 0) {
			return pipeline.ErrTakeOver // the caller's loop reads from this batch on
		}
		bt.Written()
		b.first = records
		b.at = mark.Pos
		if b.at.Line == 0 {
			b.at = jsonv.Position{Line: 1, Column: 1}
		}
		b.pos, b.posOff = b.at, 0
		err := h.Write(b)
		records += int64(len(b.ends))
		mark.Advance(b.span)
		inArray, elem = b.endIn, elem+len(b.ends)
		if err == nil && b.idle && h.Idle != nil {
			err = h.Idle()
		}
		return err
	}
	err := pipeline.Stream(ctx, pipeline.Options{Workers: workers, LeaveRead: opts.LeaveRead},
		pipeline.Stages[Batch[R]]{Read: read, Work: work, Write: write})
	if err != pipeline.ErrTakeOver {
		return nil, err
	}
	// From the batch the workers did not settle on, one Reader reads what
	// is left. A read in progress may still add to the journal: the bytes
	// after the first batch are gathered when they are needed.
	rest := bt.Rest()
	jo := jsonv.Options{MaxValueSize: opts.MaxValueSize, Elements: opts.Elements}
	if mark.Pos.Line > 0 {
		jo.Start, jo.StartLine, jo.InArray, jo.Element = mark.Pos, mark.Line, inArray, elem
	}
	return jsonv.NewReader(rest, jo), nil
}

// batchReader is a worker's Reader of batches.
type batchReader[R any] struct {
	jr *jsonv.Reader
}

// read reads the records of b with a jsonv.Reader, as a Reader of
// the whole input reads them when b starts where the reader cut it (after
// a record), and reports whether b holds whole records only, and ends as
// the batch after it expects.
func (rd *batchReader[R]) read(b *Batch[R], opts Options, array bool) bool {
	// Only the offsets of the records count: an error is the caller's
	// loop's, whose Reader counts the lines.
	jo := jsonv.Options{MaxValueSize: opts.MaxValueSize, Elements: opts.Elements, Members: opts.Members, Offsets: true}
	if b.index > 0 {
		jo.Start, jo.InArray, jo.Element = jsonv.Position{Line: 1, Column: 1}, array, 1
	}
	if rd.jr == nil {
		rd.jr = &jsonv.Reader{}
	}
	// The batch is read in place, not copied into the Reader's buffer.
	rd.jr.ResetBytes(b.raw, jo)
	last := -1 // the start of the last record
	for {
		v, pos, err := rd.jr.Next()
		if err == nil {
			start := int(pos.Offset)
			b.starts, b.ends = append(b.starts, start), append(b.ends, start+len(v))
			last = start
			if opts.Members {
				from := -1
				if mems, ok := rd.jr.Members(); ok {
					from = len(b.mems)
					b.mems = append(b.mems, mems...)
				}
				b.memFrom, b.memTo = append(b.memFrom, from), append(b.memTo, len(b.mems))
			}
			continue
		}
		inArray, elems := rd.jr.ArrayState()
		b.endIn = inArray
		end := 0
		if last >= 0 {
			end = b.ends[len(b.ends)-1]
		}
		switch {
		case b.final:
			if err != io.EOF {
				return false // the caller's loop gives the error
			}
		case last < 0 || len(jsonv.TrimSpace(b.raw[end:])) > 0:
			return false // an error, or a record cut short
		case end == len(b.raw) && b.raw[last] != '{' && b.raw[last] != '[' && b.raw[last] != '"':
			return false // a number or literal that may go on
		case array && (!inArray || elems != len(b.ends)+min(b.index, 1)):
			return false // the array ended (or another began) within the batch
		case !array && (inArray || err != io.EOF):
			return false
		}
		break
	}
	b.span = jsonv.SpanOf(b.raw)
	return true
}

// cutter finds where to cut the input into batches: where a record seems
// to start.
type cutter struct {
	elements bool
	known    bool   // the input's shape has been learnt
	serial   bool   // no place to cut is known: the caller's loop reads it all
	array    bool   // the input is a top-level array, Elements
	prefix   []byte // how the first record starts, up to its first name's colon
}

// learn looks at the start of the input for its shape: a top-level array
// (Elements) or a stream of values, and how the first record starts.
func (c *cutter) learn(b []byte, eof bool) {
	i := jsonv.SkipSpace(b, 0)
	if i == len(b) {
		if eof {
			c.known = true
		}
		return
	}
	if i == 0 && b[0] == 0xEF {
		c.serial = true // a byte order mark, perhaps: rare, one worker's
		return
	}
	if c.elements && b[i] == '[' {
		c.array = true
		if i = jsonv.SkipSpace(b, i+1); i == len(b) {
			c.known = eof
			return
		}
	}
	// The first record's start, up to its first name's colon: `{"id":`.
	rec := i
	if b[i] == '{' {
		j := jsonv.SkipSpace(b, i+1)
		if j < len(b) && b[j] == '"' {
			if e := stringEnd(b, j); e > 0 {
				if e = jsonv.SkipSpace(b, e); e < len(b) && b[e] == ':' {
					c.prefix = append(c.prefix[:0], b[rec:e+1]...)
					c.known = true
					return
				}
			}
		}
		if len(b)-i < 4<<10 && !eof {
			return // wait for more
		}
	}
	// No object with a name first: a stream is cut at line ends, an
	// array is the caller's loop's.
	c.known, c.serial = true, c.array
}

// stringEnd returns the end of the JSON string at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// liveCut returns where to end a batch of b, what a live input had to
// give: at its end, as it seems to end after a record (but for the comma
// after it, in an array, and white space); 0 for nowhere.
func (c *cutter) liveCut(b []byte) int {
	j := len(b)
	for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r' || b[j-1] == '\n') {
		j--
	}
	if c.array && j > 0 && b[j-1] == ',' {
		j--
	}
	return j
}

// cut returns where to end a batch of b, 0 for nowhere: in an array,
// before the comma in front of the last place where the first record's
// start is seen again after white space; in a stream, after the last line
// end in front of it (or after the last line end at all).
func (c *cutter) cut(b []byte) int {
	for end := len(b); ; {
		k := -1
		if len(c.prefix) > 0 {
			k = bytes.LastIndex(b[1:end], c.prefix) + 1
		} else if !c.array {
			k = bytes.LastIndexByte(b[:end], '\n') + 1
			if k > 0 {
				return k
			}
		}
		if k <= 0 {
			return 0
		}
		// Back over the white space before it to the comma (array) or
		// the line end (stream).
		j := k
		for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r' || b[j-1] == '\n') {
			if !c.array && b[j-1] == '\n' {
				return j
			}
			j--
		}
		if c.array && j > 0 && b[j-1] == ',' {
			return j - 1
		}
		end = k // look further back
	}
}
