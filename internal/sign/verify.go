package sign

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Problem codes.
const (
	CodeMismatch  = "SIG001" // the signature does not match
	CodeUnsigned  = "SIG002" // no signature
	CodeTopDiffer = "SIG003" // the top-level signature differs from meta.signature
	CodeOneCopy   = "SIG004" // the signature is in one of its two places only (see Log.RequireBoth)
	CodeKeyBack   = "SIG005" // a run signed with an older key after a newer one (see Log.KeyIDs)
	CodeRetired   = "SIG006" // an event signed with a key after its retirement (see Log.Retired)
	CodeGap       = "SIG010" // events missing in a run
	CodeRepeat    = "SIG011" // a seq again
	CodeOrder     = "SIG012" // a seq out of order
	CodeLateStart = "SIG013" // a run that starts after seq 1 (warning)
	CodeSeqRange  = "SIG014" // a seq beyond 64 bits: its order is not checked
	CodeEvent     = "SIG020" // not a trace event, or malformed JSON
	CodeSeal      = "SIG030" // the log differs from its seal (internal/seal)
)

// Where is an event's place: its file and position, its index in the log.
type Where struct {
	File   string
	Line   int
	Column int
	Offset int64
	Index  int // across all the files of the log
}

func (w Where) String() string { return fmt.Sprintf("%s:%d", w.File, w.Line) }

// Problem is one thing wrong with one event of a log.
type Problem struct {
	Where
	Run, Seq string // empty when the event could not be read
	Code     string
	Warning  bool
	Msg      string
	Pointer  string
	// Message is, for a signature that does not match, the exact message
	// signed to check it (for --explain).
	Message []byte
}

// Log checks the events of a log, in order: each signature, and across
// the log that the events of each run_id have seq numbers that go up by
// one, with none repeated and none missing. Problems are given to Emit in
// the order of the events (a gap is known for sure only some events after
// it, in case the missing events come late, out of order).
//
// The spec puts an event's signature in meta.signature (its event
// structure marks it required there) and has its generator store a copy
// in a top-level signature; many stored events carry meta.signature only.
// An event is checked against meta.signature when it has one, else
// against the top-level copy; when it has both, they must be equal
// (CodeTopDiffer). By default an event signed in meta.signature only
// verifies, counted in MetaOnly, and one signed at the top level only
// verifies with a warning (CodeOneCopy), counted in TopOnly. RequireBoth
// makes either an error (CodeOneCopy), for producers that promise both.
type Log struct {
	Signer      *Signer
	Emit        func(Problem)
	Explain     bool // keep the signed message of each mismatch
	RequireBoth bool // a signature in one of its two places only is an error
	// Signed, when not nil, receives every event checked, in order, with
	// its place, its run_id, seq, t and the HMAC-SHA256 of the message its
	// scheme signs (its right signature's 32 bytes), whatever signature it
	// holds: what a seal is checked against (internal/seal). The slices are
	// valid during the call.
	Signed func(w Where, runID, seq, t []byte, mac *[sha256.Size]byte)
	// KeyIDs name the Signer's keys (AddKey), newest first. With more
	// than one key the Log keeps which keys signed each run (RunKeys) and
	// reports a run whose events go back to an older key after a newer one
	// signed one of them (CodeKeyBack, once a run): a key rotated out
	// signs again. Without ids the keys are "key 1", "key 2"...
	KeyIDs []string
	// Retired are the times the Signer's keys were retired, in the order
	// of KeyIDs; a zero time (or none) is a key not retired. An event
	// signed with a retired key whose t is at or after the key's
	// retirement, or whose t is not an RFC 3339 time, is an error
	// (CodeRetired): a key rotated out signs no more. Where the scheme
	// does not sign t (payload, payload-compact), the holder of the old key
	// can write an earlier t: only a seal made with a newer key (internal/seal)
	// catches that.
	Retired []time.Time

	// Events is the number of events checked (Check), Unread the number
	// of records that could not be read as events (Bad): not counted as
	// events, since nothing of them was verified.
	Events, Unread, Errors, Warnings int
	// MetaOnly is the number of events signed in meta.signature only, with
	// no top-level copy; TopOnly the number signed at the top level only.
	MetaOnly, TopOnly int
	runs              map[string]*run
	keyRuns           map[string]*keyRun // with several keys
	keyOrder          []*keyRun          // in the order of each run's first event
	gaps              []*gap             // open gaps, oldest first
	queue             []Problem          // problems held back behind an open gap, in the order of the events
}

type run struct {
	id       string
	first    int64
	max      int64
	maxWhere Where
	gaps     []*gap
}

// gap is seq numbers missing from a run so far: lo..hi, in pieces once
// some of them came late.
type gap struct {
	run     *run
	missing [][2]int64
	at      Problem // where it was seen (the event after it)
}

// window is how many events later a gap is sure: a missing event that
// comes that late is reported as out of order, after the gap.
const window = 1024

// Runs is the number of run_ids seen.
func (l *Log) Runs() int { return len(l.runs) }

// OK reports whether every event verified.
func (l *Log) OK() bool { return l.Errors == 0 }

func (l *Log) emit(p Problem) {
	if p.Warning {
		l.Warnings++
	} else {
		l.Errors++
	}
	if len(l.queue) > 0 || len(l.gaps) > 0 && p.Index > l.gaps[0].at.Index {
		l.queue = append(l.queue, p)
		return
	}
	l.Emit(p)
}

// Bad records a record that could not be read as a trace event (not an
// event, or malformed JSON, which ends its file), counted in Unread.
func (l *Log) Bad(w Where, pointer, msg string) {
	l.Unread++
	l.emit(Problem{Where: w, Code: CodeEvent, Pointer: pointer, Msg: msg})
}

// Report records a problem of the log found outside its events (a seal's
// finding, internal/seal), counted as an error or a warning; call it after
// Finish.
func (l *Log) Report(p Problem) { l.emit(p) }

// Check checks one event.
func (l *Log) Check(ev *Event, w Where) {
	v := judge(l.Signer, ev, l.Explain, l.Signed != nil)
	l.apply(&v, w)
}

// KeyUse is how many events of a run a key signed.
type KeyUse struct {
	Key    int    // the key's index
	ID     string // its id (Log.KeyIDs)
	Events int
}

// RunKeys are the keys that signed the events of a run, in the order of
// their first event in it.
type RunKeys struct {
	Run  string
	Keys []KeyUse
}

// Uses is "2026-q1 (2 events), 2026-q2 (1 event)".
func (rk RunKeys) Uses() string {
	var b []byte
	for i, u := range rk.Keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = fmt.Appendf(b, "%s (%d event", u.ID, u.Events)
		if u.Events != 1 {
			b = append(b, 's')
		}
		b = append(b, ')')
	}
	return string(b)
}

// AppendJSON appends the runs' keys as a JSON array: for each run an
// object {"run_id", "keys": [{"id", "events"}]}.
func AppendJSON(b []byte, rks []RunKeys) []byte {
	b = append(b, '[')
	for i, rk := range rks {
		if i > 0 {
			b = append(b, ',')
		}
		b = quote(append(b, `{"run_id":`...), rk.Run)
		b = append(b, `,"keys":[`...)
		for j, u := range rk.Keys {
			if j > 0 {
				b = append(b, ',')
			}
			b = quote(append(b, `{"id":`...), u.ID)
			b = fmt.Appendf(b, `,"events":%d}`, u.Events)
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}

// quote appends s as a JSON string, invalid UTF-8 replaced.
func quote(b []byte, s string) []byte { return jsonv.AppendQuote(b, s) }

// keyRun is what the Log keeps of the keys of a run.
type keyRun struct {
	RunKeys
	newest   int    // the newest key that signed an event of the run so far
	newestAt Where  // its last event
	seq      string // the seq of newestAt's event, when it is beyond 64 bits
	seqN     int64  // else
	back     bool   // reported
}

// RunKeys are the keys that signed each run's events (that verified), runs
// in the order of their first event; nil with one key.
func (l *Log) RunKeys() []RunKeys {
	var rk []RunKeys
	for _, r := range l.keyOrder {
		rk = append(rk, r.RunKeys)
	}
	return rk
}

// keyID is the id of the key i.
func (l *Log) keyID(i int) string {
	if i < len(l.KeyIDs) {
		return l.KeyIDs[i]
	}
	return fmt.Sprintf("key %d", i+1)
}

// keys records the key of an event that verified with several keys, and
// reports a run that goes back to an older key.
func (l *Log) keys(v *verdict, w Where, problem func(code, msg string) Problem) {
	if l.keyRuns == nil {
		l.keyRuns = map[string]*keyRun{}
	}
	r := l.keyRuns[string(v.run)]
	if r == nil {
		r = &keyRun{RunKeys: RunKeys{Run: string(v.run)}, newest: v.key + 1}
		l.keyRuns[r.Run] = r
		l.keyOrder = append(l.keyOrder, r)
	}
	i := slices.IndexFunc(r.Keys, func(u KeyUse) bool { return u.Key == v.key })
	if i < 0 {
		i = len(r.Keys)
		r.Keys = append(r.Keys, KeyUse{Key: v.key, ID: l.keyID(v.key)})
	}
	r.Keys[i].Events++
	switch {
	case v.key <= r.newest:
		r.newest, r.newestAt = v.key, w
		if r.seq = ""; !v.seqOK { // else formatted when reported: no string an event
			r.seq = string(v.seq)
		}
		r.seqN = v.seqN
	case v.key > r.newest && !r.back:
		r.back = true
		seq := r.seq
		if seq == "" {
			seq = strconv.FormatInt(r.seqN, 10)
		}
		l.emit(problem(CodeKeyBack, fmt.Sprintf("signed with the key %s, older than the key %s that signed seq %s before it (%s): a key rotated out signs again (keys are given newest first)",
			l.keyID(v.key), l.keyID(r.newest), seq, r.newestAt)))
	}
}

// verdict is what checking one event on its own found: its signature
// checked, and what the rules of the log need of it. Its byte slices are
// the event's.
type verdict struct {
	run, seq             []byte
	seqN                 int64
	seqOK                bool
	hasSig, hasTop       bool
	unsigned, valid, hex bool
	differ               bool   // both signatures, not equal
	key                  int    // the key that verified it, or -1
	message              []byte // the message signed, for a mismatch with Explain
	t                    []byte
	digest               [sha256.Size]byte
}

// judge checks ev's signature with s: the expensive part of Check, which
// needs nothing of the log.
// With seal it also keeps t and the HMAC of the message signed.
func judge(s *Signer, ev *Event, explain, seal bool) (v verdict) {
	v = verdict{run: ev.RunID, seq: ev.Seq, t: ev.T, seqN: ev.SeqN, seqOK: ev.SeqOK, hasSig: ev.HasSig, hasTop: ev.HasTop, key: -1}
	if seal {
		defer func() { v.digest = s.sum }()
	}
	if !ev.HasSig && !ev.HasTop {
		v.unsigned = true
		if seal {
			s.Sign(ev)
		}
		return v
	}
	sig := ev.Signature
	if !ev.HasSig {
		sig = ev.TopSignature
	}
	v.key = s.Match(ev, sig)
	if v.valid = v.key >= 0; !v.valid {
		v.hex = isHexSignature(sig)
		if explain {
			v.message = slices.Clone(s.msg)
		}
	}
	v.differ = ev.HasSig && ev.HasTop && !bytes.Equal(ev.TopSignature, ev.Signature)
	return v
}

// apply applies the rules of the log to an event judged, at w.
func (l *Log) apply(v *verdict, w Where) {
	l.Events++
	problem := func(code, msg string) Problem {
		return Problem{Where: w, Run: string(v.run), Seq: string(v.seq), Code: code, Msg: msg}
	}
	switch {
	case v.unsigned:
		l.emit(problem(CodeUnsigned, "unsigned: no meta.signature and no top-level signature"))
	default:
		if !v.valid {
			p := problem(CodeMismatch, "signature mismatch")
			if !v.hex {
				p.Msg += " (the signature is not 64 lowercase hex digits)"
			}
			p.Message = v.message
			l.emit(p)
		} else {
			if v.key < len(l.Retired) && !l.Retired[v.key].IsZero() {
				l.retired(v, problem)
			}
			if l.Signer.Keys() > 1 {
				l.keys(v, w, problem)
			}
		}
		switch {
		case !v.hasTop:
			l.MetaOnly++
			if l.RequireBoth {
				l.emit(problem(CodeOneCopy, "no top-level signature: the spec stores the signature in both signature and meta.signature"))
			}
		case !v.hasSig:
			l.TopOnly++
			if l.RequireBoth {
				l.emit(problem(CodeOneCopy, "no meta.signature: the spec stores the signature in both signature and meta.signature"))
			} else {
				p := problem(CodeOneCopy, "no meta.signature: checked against the top-level signature (the spec requires meta.signature)")
				p.Warning = true
				l.emit(p)
			}
		case v.differ:
			l.emit(problem(CodeTopDiffer, "the top-level signature differs from meta.signature"))
		}
	}
	if l.Signed != nil {
		l.Signed(w, v.run, v.seq, v.t, &v.digest)
	}
	l.sequence(v, w, problem)
	l.settle(w.Index)
}

// retired reports an event signed with a retired key at or after its
// retirement, or at a t that cannot be placed before it.
func (l *Log) retired(v *verdict, problem func(code, msg string) Problem) {
	at := l.Retired[v.key]
	t, err := time.Parse(time.RFC3339Nano, string(v.t))
	switch {
	case err != nil:
		l.emit(problem(CodeRetired, fmt.Sprintf("signed with the key %s, retired at %s, and its t %q is not an RFC 3339 time: it cannot be placed before the retirement",
			l.keyID(v.key), at.UTC().Format(time.RFC3339), v.t)))
	case !t.Before(at):
		l.emit(problem(CodeRetired, fmt.Sprintf("signed with the key %s at %s, at or after its retirement at %s: a retired key signs no more",
			l.keyID(v.key), v.t, at.UTC().Format(time.RFC3339))))
	}
}

func isHexSignature(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// sequence checks an event's seq against its run.
func (l *Log) sequence(v *verdict, w Where, problem func(code, msg string) Problem) {
	if !v.seqOK {
		l.emit(problem(CodeSeqRange, "seq does not fit in 64 bits: its order is not checked"))
		return
	}
	if l.runs == nil {
		l.runs = map[string]*run{}
	}
	s := v.seqN
	r := l.runs[string(v.run)]
	if r == nil {
		r = &run{id: string(v.run), first: s, max: s, maxWhere: w}
		l.runs[r.id] = r
		if s > 1 {
			p := problem(CodeLateStart, fmt.Sprintf("the run starts at seq %d: the events before it may be missing", s))
			p.Warning = true
			l.emit(p)
		}
		return
	}
	switch {
	case s == r.max+1:
	case s > r.max+1:
		g := &gap{run: r, missing: [][2]int64{{r.max + 1, s - 1}}, at: problem(CodeGap, "")}
		r.gaps = append(r.gaps, g)
		l.gaps = append(l.gaps, g)
	case s == r.max:
		l.emit(problem(CodeRepeat, fmt.Sprintf("repeated: seq %d is at %s too", s, r.maxWhere)))
		return
	case l.fill(r, s):
		l.emit(problem(CodeOrder, fmt.Sprintf("out of order: it comes after seq %d at %s", r.max, r.maxWhere)))
		return
	case s < r.first:
		l.emit(problem(CodeOrder, fmt.Sprintf("out of order: it comes after seq %d at %s, and the run starts at seq %d", r.max, r.maxWhere, r.first)))
		r.first = s
		return
	default:
		l.emit(problem(CodeRepeat, fmt.Sprintf("repeated: the run has had seq %d already (it is at seq %d, %s)", s, r.max, r.maxWhere)))
		return
	}
	r.max, r.maxWhere = s, w
}

// fill takes s out of an open gap of r, if it is in one: a late event.
func (l *Log) fill(r *run, s int64) bool {
	for gi, g := range r.gaps {
		for k, m := range g.missing {
			if s < m[0] || s > m[1] {
				continue
			}
			var parts [][2]int64
			if s > m[0] {
				parts = append(parts, [2]int64{m[0], s - 1})
			}
			if s < m[1] {
				parts = append(parts, [2]int64{s + 1, m[1]})
			}
			g.missing = slices.Replace(g.missing, k, k+1, parts...)
			if len(g.missing) == 0 {
				r.gaps = slices.Delete(r.gaps, gi, gi+1)
				l.gaps = slices.DeleteFunc(l.gaps, func(x *gap) bool { return x == g })
			}
			return true
		}
	}
	return false
}

// settle reports the gaps that are sure by now (window events old), and
// the problems held back behind them.
func (l *Log) settle(index int) {
	for len(l.gaps) > 0 && index-l.gaps[0].at.Index >= window {
		l.close(l.gaps[0])
	}
	l.release()
}

// close reports a gap as missing events.
func (l *Log) close(g *gap) {
	l.gaps = slices.DeleteFunc(l.gaps, func(x *gap) bool { return x == g })
	r := g.run
	r.gaps = slices.DeleteFunc(r.gaps, func(x *gap) bool { return x == g })
	for _, m := range g.missing {
		p := g.at
		if m[0] == m[1] {
			p.Msg = fmt.Sprintf("an event is missing between seq %d and %d", m[0]-1, m[1]+1)
		} else {
			p.Msg = fmt.Sprintf("events missing between seq %d and %d (%d events)", m[0]-1, m[1]+1, m[1]-m[0]+1)
		}
		l.Errors++
		// The queue stays in the order of the events, and of arrival
		// among the problems of one event: after every problem of an
		// event up to this one.
		i := sort.Search(len(l.queue), func(i int) bool { return l.queue[i].Index > p.Index })
		l.queue = slices.Insert(l.queue, i, p)
	}
}

// release passes on the held-back problems that no open gap comes before.
func (l *Log) release() {
	if len(l.queue) == 0 {
		return
	}
	limit := int(^uint(0) >> 1)
	if len(l.gaps) > 0 {
		limit = l.gaps[0].at.Index
	}
	n := 0
	for n < len(l.queue) && l.queue[n].Index <= limit {
		l.Emit(l.queue[n])
		n++
	}
	l.queue = slices.Delete(l.queue, 0, n)
}

// Finish reports the gaps still open at the end of the log.
func (l *Log) Finish() {
	for len(l.gaps) > 0 {
		l.close(l.gaps[0])
	}
	l.release()
}
