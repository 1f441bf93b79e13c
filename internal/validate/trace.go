package validate

import (
	"bytes"
	"fmt"
	"io"
)

// Trace validates AOP canonical trace events: each against the schema
// trace.json, and across the stream: seq strictly increasing within a run_id
// (a repeat or a step back is an error, a gap a warning), and a top-level
// signature, where present, equal to meta.signature.
func Trace(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	return envelopes(r, name, opts, &trace{}, emit)
}

type trace struct {
	runs idSet[int32] // run_id -> its place in last
	last []int64      // the last seq seen of each run
}

func (t *trace) schema() string     { return "trace" }
func (t *trace) codePrefix() string { return "AOP" }

func (t *trace) local(r *record, f *facts, found []Finding) []Finding {
	if top, ok := r.text("signature"); ok {
		if meta, ok := r.text("meta", "signature"); ok && !bytes.Equal(top, meta) {
			found = append(found, r.at("/signature", "AOP052", Error, "must equal meta.signature"))
		}
	}
	run, ok := r.text("meta", "run_id")
	seq, isInt := r.int("seq")
	f.run, f.seq, f.runSeq = run, seq, ok && isInt
	return found
}

func (t *trace) stream(r *record, f *facts, emit func(Finding) bool) bool {
	if !f.runSeq {
		return true
	}
	run, seq := f.run, f.seq
	i, seen := t.runs.add(run, int32(len(t.last)))
	if !seen {
		t.last = append(t.last, seq)
		return true
	}
	prev := t.last[i]
	t.last[i] = seq
	switch {
	case seq == prev:
		return emit(r.at("/seq", "AOP050", Error, fmt.Sprintf("repeats seq %d of run %s", seq, run)))
	case seq < prev:
		return emit(r.at("/seq", "AOP050", Error, fmt.Sprintf("steps back: %d after %d in run %s", seq, prev, run)))
	case seq > prev+1:
		return emit(r.at("/seq", "AOP051", Warning, fmt.Sprintf("skips %d after %d in run %s: events %d-%d are missing", seq, prev, run, prev+1, seq-1)))
	}
	return true
}

func (t *trace) finish(func(Finding) bool) bool { return true }
