package bridge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
)

// StreamOptions configure (*Converter).Stream.
type StreamOptions struct {
	// Workers map the messages (records.Options.Workers).
	Workers int
	// Elements: a top-level array gives its elements, the messages.
	Elements bool
	// MaxValueSize bounds a message (jsonv.Options); 0: jsonv's default.
	MaxValueSize int64
	// BatchBytes is the size after which a batch is cut; 0: records'.
	BatchBytes int
	// Live and LeaveRead are records.Options'.
	Live, LeaveRead bool
	// Where names a message's place for errors and warnings, from the
	// position of its first byte (as a jsonv.Reader of the whole input
	// gives it); nil: its line:column.
	Where func(pos jsonv.Position) string
}

// StreamHandler receives what Stream gives.
type StreamHandler struct {
	// Emit receives each message made, compact, in input order (as
	// Convert's emit); it is not kept past the call.
	Emit func([]byte) error
	// Idle, when not nil, is called where a live input had nothing more to
	// give at once (a place to flush the output).
	Idle func() error
}

// Stream converts the messages of in, a JSON array of them or a stream of
// JSON values (NDJSON), as Convert would one at a time, on opts.Workers
// workers (internal/records), and gives what it makes to h.Emit in input order:
// the same bytes, warnings (Options.Warn) and errors, in the same order, as
// the same messages given to Convert one by one.
//
// Each worker maps its batch's messages on a Converter of its own that
// knows nothing of the stream before the batch. What a message's mapping
// reads of the stream is settled in one ordered pass over the workers'
// results, on the goroutine that called Stream: a trace event's seq is put
// in there (seq per run), the state that the messages share (the runs' seq
// counts, the open Chiffon task and its steps, the last time) is brought up
// to date message by message, and the assumptions a worker made are
// checked: that a trace event's seq, or a frame's sequenceId, is the next
// one (then it is not kept in x_source); that the open task and the last
// time are what the messages before it in the batch made them; that none
// of a step's output chunks, joined on the worker, was pending before. A
// message whose mapping needs more of the stream than that (chunks that
// span batches, a time or a task from before the batch, a step number, a
// deterministic id, which holds the message's place in the stream, the
// stream's run before it is made), or that gives a warning or an error, or
// whose assumption does not hold, is converted again in the ordered pass,
// by c itself, at its place. So a failure at message k stops the run there: nothing after it
// is emitted.
//
// Stream returns a nil Reader when every message was converted; otherwise
// the Reader from which the caller's single-worker loop reads the rest of
// in and gives it to Convert (records.Run: a message that is not valid
// JSON, and everything after it, is read there, so that its error is the
// Reader's). The caller calls End at the end, as after Convert.
func (c *Converter) Stream(ctx context.Context, in io.Reader, opts StreamOptions, h StreamHandler) (*jsonv.Reader, error) {
	workers := max(opts.Workers, 1)
	forks := make(chan *Converter, workers)
	for range workers {
		forks <- c.fork()
	}
	where := opts.Where
	if where == nil {
		where = func(pos jsonv.Position) string { return pos.String() }
	}
	var spliced []byte
	failed := map[string]bool{} // steps whose chunks the ordered pass joins, in a batch
	rh := records.Handler[mapped]{
		Work: func(b *records.Batch[mapped]) bool {
			w := <-forks
			w.mapBatch(b)
			forks <- w
			return true
		},
		Write: func(b *records.Batch[mapped]) error {
			o := &b.Out
			out := 0
			clear(failed)
			for i := range o.msgs {
				m := &o.msgs[i]
				if m.chunk.set && !m.miss {
					// The step's chunks join here as they did on the worker
					// only if none of its chunks was pending before.
					key := m.chunk.of(o.arena)
					if m.first && c.chunks[string(key)] != nil {
						failed[string(key)] = true
					}
					m.miss = failed[string(key)]
				}
				if !m.miss && m.held {
					c.index++
					continue
				}
				if !m.miss && c.holds(o, m) {
					c.index++
					for ; out < m.outs; out++ {
						p := o.output(out)
						if m.seq {
							// The run's next seq, in place of the hole.
							seq := c.seqs.get(m.seqRun.of(o.arena)) + 1
							spliced = append(append(spliced[:0], `{"seq":`...), strconv.AppendInt(nil, seq, 10)...)
							p = append(spliced, p[len(seqHead):]...)
						}
						if err := h.Emit(p); err != nil {
							return err
						}
					}
					c.apply(&m.note, o.arena)
					c.mapped++
					continue
				}
				out = m.outs
				pos := b.Pos(i)
				if err := c.Convert(b.Record(i), func() string { return where(pos) }, h.Emit); err != nil {
					return err
				}
			}
			return nil
		},
		Idle: h.Idle,
	}
	return records.Run(ctx, in, records.Options{Workers: workers, Elements: opts.Elements, MaxValueSize: opts.MaxValueSize,
		BatchBytes: opts.BatchBytes, Live: opts.Live, LeaveRead: opts.LeaveRead}, rh)
}

// seqHead is how a trace event made with a seq hole starts.
const seqHead = `{"seq":0`

// errMiss stops a worker's mapping of a message that the ordered pass is
// to convert.
var errMiss = errors.New("bridge: converted in the ordered pass")

// The values a worker's Converter gives where a message reads the next seq
// of its run or its number in the stream: the ordered pass knows them.
var (
	seqHole   = &node{raw: []byte("0")}
	countHole = &node{raw: []byte("0")}
)

// spec is what a worker's mapping of one message read of the stream.
type spec struct {
	miss   bool   // it read what the ordered pass alone knows
	seqs   int    // next seqs asked and put in the message
	counts int    // numbers in the stream asked and put in the message
	seqRun []byte // the run of the last next seq asked
	checks []check
	note   note

	chunk      bool   // an output chunk, of the step chunkKey names
	chunkFirst bool   // its first in the batch
	chunkKey   []byte //
	held       bool   // held until the step's output is whole
}

// check is an assumption a worker made: that a value of the message is
// the next seq of a run or the message's number in the stream, or that the
// open Chiffon task or the last time is what the messages before it in the
// batch made it.
type check struct {
	kind       int    // checkSeq, checkCount, checkTask, checkTime
	run, value []byte // a worker's
}

const (
	checkSeq = iota
	checkCount
	checkTask
	checkTime
)

// checked is a check in a batch: its bytes in the batch's arena.
type checked struct {
	kind       int
	run, value span
}

// same is equal(v, sv) for the check whether a field the target cannot
// hold would come back as it is; a worker assumes that a next seq or a
// message number does, and the ordered pass checks it.
func (c *Converter) same(v, sv *node) bool {
	if sp := c.spec; sp != nil && (v == seqHole || v == countHole) {
		ck := check{kind: checkCount, value: sv.bytes()}
		if v == seqHole {
			ck.kind = checkSeq
			sp.seqs--
			ck.run = sp.seqRun
		} else {
			sp.counts--
		}
		sp.checks = append(sp.checks, ck)
		return true
	}
	return equal(v, sv)
}

// fork is a Converter for a worker of Stream: c's options and mappings,
// none of the stream's state.
func (c *Converter) fork() *Converter {
	opts := c.opts
	opts.Warn = nil
	w, _ := New(opts)
	w.shared, w.spec = c.shared, &spec{}
	return w
}

// mapped is a batch's messages as a worker mapped them.
type mapped struct {
	buf   []byte // the messages made, back to back
	ends  []int
	arena []byte // the notes' bytes
	msgs  []mappedMsg
	check []checked
}

type mappedMsg struct {
	miss   bool
	held   bool // a chunk held: it makes no message yet
	chunk  span // the step of an output chunk (its key in chunks)
	first  bool // the step's first chunk in the batch
	outs   int  // the end of its messages in ends
	seq    bool
	seqRun span
	checks [2]int // its checks in check
	note   note
}

func (o *mapped) output(i int) []byte {
	start := 0
	if i > 0 {
		start = o.ends[i-1]
	}
	return o.buf[start:o.ends[i]]
}

// mapBatch maps the messages of b on the worker w.
func (w *Converter) mapBatch(b *records.Batch[mapped]) {
	o := &b.Out
	o.buf, o.ends, o.arena, o.msgs, o.check = o.buf[:0], o.ends[:0], o.arena[:0], o.msgs[:0], o.check[:0]
	nowhere := func() string { return "" }
	emit := func(p []byte) error {
		o.buf = append(o.buf, p...)
		o.ends = append(o.ends, len(o.buf))
		return nil
	}
	clear(w.chunks) // the chunks of the batch alone
	w.pending = w.pending[:0]
	w.guess = guess{} // what the stream's state is, as the batch's messages tell
	chunks := false
	for i := range b.Len() {
		sp := w.spec
		*sp = spec{seqRun: sp.seqRun[:0], checks: sp.checks[:0], chunkKey: sp.chunkKey[:0]}
		buf, ends := len(o.buf), len(o.ends)
		err := w.Convert(b.Record(i), nowhere, emit)
		m := mappedMsg{miss: err != nil || sp.miss || sp.counts != 0 || sp.seqs > 1, held: sp.held}
		if sp.chunk {
			chunks = true
			m.chunk, m.first = mark(&o.arena, sp.chunkKey), sp.chunkFirst
		}
		if !m.miss && sp.seqs == 1 {
			// The seq goes first in a trace event: its hole is replaced.
			m.seq = len(o.ends) == ends+1 && bytes.HasPrefix(o.buf[buf:], []byte(seqHead)) &&
				len(o.buf) > buf+len(seqHead) && (o.buf[buf+len(seqHead)] == ',' || o.buf[buf+len(seqHead)] == '}')
			m.miss = !m.seq
			m.seqRun = mark(&o.arena, sp.seqRun)
		}
		if m.miss {
			o.buf, o.ends = o.buf[:buf], o.ends[:ends]
		} else {
			m.checks[0] = len(o.check)
			for _, ck := range sp.checks {
				o.check = append(o.check, checked{kind: ck.kind, run: mark(&o.arena, ck.run), value: mark(&o.arena, ck.value)})
			}
			m.checks[1] = len(o.check)
			// The note's bytes, from the worker's arena to the batch's.
			n := sp.note
			for _, s := range []*span{&n.run, &n.task, &n.lastT} {
				set := s.set
				*s = mark(&o.arena, s.of(w.arena))
				s.set = set
			}
			m.note = n
		}
		m.outs = len(o.ends)
		o.msgs = append(o.msgs, m)
		w.track(&m, o.arena)
	}
	if chunks {
		// A step whose chunks do not all join here (one is left pending at
		// the end of the batch, or one of them is the ordered pass's) is
		// the ordered pass's, all of it.
		if w.bad == nil {
			w.bad = map[string]bool{}
		}
		clear(w.bad)
		for k := range w.chunks {
			w.bad[k] = true
		}
		for i := range o.msgs {
			if m := &o.msgs[i]; m.chunk.set && m.miss {
				w.bad[string(m.chunk.of(o.arena))] = true
			}
		}
		for i := range o.msgs {
			if m := &o.msgs[i]; m.chunk.set && w.bad[string(m.chunk.of(o.arena))] {
				m.miss = true
			}
		}
	}
}

// guess is what a worker takes the stream's state to be after the
// messages of its batch so far: the open task and the last time, once a
// message has set them (the ordered pass checks them where they are used).
type guess struct {
	task, time bool // known
}

// track follows the open task and the last time over the worker's batch:
// a message the worker mapped sets them as its note says; after one it
// did not, they are not known.
func (w *Converter) track(m *mappedMsg, arena []byte) {
	switch {
	case m.miss:
		w.guess = guess{}
	case m.held:
	default:
		n := &m.note
		switch n.chiffon {
		case 1, 2:
			w.task, w.guess.task = string(n.task.of(arena)), true
		case 3:
			w.task, w.guess.task = "", true
		}
		if n.setT {
			w.lastT, w.guess.time = append(w.lastT[:0], n.lastT.of(arena)...), true
		}
	}
}

// holds reports whether what a worker assumed of message m holds at its
// place in the stream (c being the stream's state before it).
func (c *Converter) holds(o *mapped, m *mappedMsg) bool {
	for _, ck := range o.check[m.checks[0]:m.checks[1]] {
		value := ck.value.of(o.arena)
		switch ck.kind {
		case checkSeq:
			if !equal(num(c.seqs.get(ck.run.of(o.arena))+1), rawNode(value)) {
				return false
			}
		case checkCount:
			if !equal(num(int64(c.index)+1), rawNode(value)) {
				return false
			}
		case checkTask:
			if string(value) != c.task {
				return false
			}
		case checkTime:
			if !bytes.Equal(value, c.lastT) {
				return false
			}
		}
	}
	return true
}
