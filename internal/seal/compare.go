package seal

import (
	"fmt"
	"math/big"
	"slices"
)

// Finding is one way a log differs from its seal, in the words of one run:
// Msg says what differs ("the log ends at seq 3, the seal at seq 5 (2
// events removed from the end)"). Departs, for a Builder that watched the
// seal (Watch), on the first finding of a run, says where the log first
// departs from the seal, naming the event by its seq and place in the log
// ("the log first departs from the seal at event 2 of the run (seq 3,
// audit.ndjson:2, byte 270): ...").
type Finding struct {
	RunID   string
	Msg     string
	Departs string
}

// Compare checks the events added to b (a log, in order) against the seal
// s: every run of the seal is in the log, every run of the log in the
// seal, and each run's first and last seq, count, first and last time and
// chain are the seal's. The findings come in the seal's order of runs, then
// the runs of the log that the seal does not name, in the log's order; a
// run gives one finding per thing that differs, its chain only when all
// else agrees; with For, its checkpoints too (their last link agreeing, a
// seal whose checkpoints differ was not made from the log's events). A
// Builder that watched s (Watch) says, on the first finding
// of each run, where the log first departs from the seal (Departs).
func (b *Builder) Compare(s *Seal) []Finding {
	var fs []Finding
	sealed := make(map[string]bool, len(s.Runs))
	for _, sr := range s.Runs {
		sealed[sr.RunID] = true
		k, ok := b.index[sr.RunID]
		if !ok || sr.Count < 1 {
			fs = append(fs, Finding{RunID: sr.RunID, Msg: fmt.Sprintf("missing from the log (the seal has %s, seq %s to %s)", events(sr.Count), sr.FirstSeq, sr.LastSeq)})
			continue
		}
		fs = append(fs, b.compareRun(b.runs[k], &sr)...)
	}
	for _, r := range b.runs {
		if lr := r.run(); !sealed[lr.RunID] {
			fs = append(fs, Finding{RunID: lr.RunID, Msg: fmt.Sprintf("not in the seal (the log has %s, seq %s to %s)", events(lr.Count), lr.FirstSeq, lr.LastSeq)})
		}
	}
	if len(fs) == 0 {
		fs = append(fs, b.order(s)...)
	}
	return fs
}

// order is what a log whose runs each agree with the seal says of the
// order of their events among each other: the runs in another order of
// their first events than the seal's (any format), or, for a
// toonkit-seal/3 seal, the log's chain over all its events not the
// seal's: runs interleaved or split otherwise.
func (b *Builder) order(s *Seal) []Finding {
	for i, r := range b.runs {
		if r.id != s.Runs[i].RunID {
			return []Finding{{RunID: r.id, Msg: fmt.Sprintf("the runs are in another order than the seal's: the log's run %d (by its first event) is this one, the seal's is %s", i+1, s.Runs[i].RunID)}}
		}
	}
	if s.Format == Format && b.logChain() != s.LogChain {
		return []Finding{{Msg: "the log's events are in another order than the seal's, across runs, though each run's own events agree: runs interleaved or split (log_chain differs)"}}
	}
	return nil
}

func events(n int64) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

// howMany is " (N events removed…)" for lo < hi, " (N events added…)" for
// lo > hi, as seq numbers, when the log has fewer events of the run than
// the seal (more < 0), or more (more > 0) respectively; "" when they
// cannot be compared, or the counts do not say so (a swap moves a seq to
// the end without removing anything).
func howMany(lo, hi fmt.Stringer, more int64, less, added string) string {
	a, ok1 := new(big.Int).SetString(lo.String(), 10)
	b, ok2 := new(big.Int).SetString(hi.String(), 10)
	if !ok1 || !ok2 {
		return ""
	}
	d := new(big.Int).Sub(b, a)
	what := less
	if d.Sign() < 0 {
		d.Neg(d)
		what = added
	}
	if !d.IsInt64() || what == less && more >= 0 || what == added && more <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%s %s)", events(d.Int64()), what)
}

// compareRun is what differs between the run r of the log and sr, the
// seal's.
func (b *Builder) compareRun(r *runState, sr *Run) []Finding {
	var fs []Finding
	lr := r.run()
	add := func(format string, a ...any) {
		fs = append(fs, Finding{RunID: sr.RunID, Msg: fmt.Sprintf(format, a...)})
	}
	if lr.FirstSeq != sr.FirstSeq {
		add("the log starts at seq %s, the seal at seq %s%s", lr.FirstSeq, sr.FirstSeq, howMany(sr.FirstSeq, lr.FirstSeq, lr.Count-sr.Count, "removed from the start", "added at the start"))
	}
	if lr.LastSeq != sr.LastSeq {
		add("the log ends at seq %s, the seal at seq %s%s", lr.LastSeq, sr.LastSeq, howMany(lr.LastSeq, sr.LastSeq, lr.Count-sr.Count, "removed from the end", "added at the end"))
	}
	if lr.Count != sr.Count {
		add("the log has %s of the run, the seal %d", events(lr.Count), sr.Count)
	}
	if len(fs) == 0 {
		switch {
		case lr.FirstT != sr.FirstT || lr.LastT != sr.LastT:
			add("the times of its first and last events differ from the seal's (%s to %s in the log, %s to %s in the seal)", lr.FirstT, lr.LastT, sr.FirstT, sr.LastT)
		case lr.Chain != sr.Chain:
			add("the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count")
		case b.checkCps && !slices.Equal(lr.Checkpoints, sr.Checkpoints):
			add("the seal's checkpoints are not the links of the log's chain, though its last link is: the seal was not made from this log's events")
		}
	}
	if r.w != nil && len(fs) > 0 {
		if d := r.w.finish(); d != nil {
			fs[0].Departs = d.String()
		}
	}
	return fs
}
