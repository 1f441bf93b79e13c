package validate

import (
	"fmt"
	"io"
	"strconv"
)

// Trace validates AOP canonical trace events: each against the schema
// trace.json, and across the stream: seq strictly increasing within a run_id
// (a repeat or a step back is an error, a gap a warning), and a top-level
// signature, where present, equal to meta.signature.
func Trace(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	return envelopes(r, name, opts, &trace{last: map[string]int64{}}, emit)
}

type trace struct {
	last map[string]int64 // run_id -> the last seq seen
}

func (t *trace) schema() string     { return "trace" }
func (t *trace) codePrefix() string { return "AOP" }

func (t *trace) check(r *record, emit func(Finding) bool) bool {
	if top, ok := r.str("signature"); ok {
		if meta, ok := r.str("meta", "signature"); ok && top != meta {
			if !emit(r.at("/signature", "AOP052", Error, "must equal meta.signature")) {
				return false
			}
		}
	}
	run, ok := r.str("meta", "run_id")
	n, isNum := r.num("seq")
	if !ok || !isNum {
		return true
	}
	seq, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return true
	}
	prev, seen := t.last[run]
	t.last[run] = seq
	switch {
	case !seen:
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
