package validate

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Chiffon validates Chiffon agent-protocol messages: each against the
// schema chiffon.json, and in Go: canonical UUIDs and unknown top-level
// fields (warnings), an unknown error code in range (warning), and across
// the stream: a repeated message_id (error), a request_id reused with
// another payload (warning), output chunks that do not tile their output
// (error), a second work_result for a task (error), a work_status after its
// task's work_result (warning).
func Chiffon(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	return envelopes(r, name, opts, newChiffon(), emit)
}

func newChiffon() *chiffon {
	return &chiffon{chunks: map[chunkKey]*chunkSet{}, seed: maphash.MakeSeed()}
}

type chiffon struct {
	messages idSet[int32]           // message_id -> first record
	requests idSet[uint64]          // request_id -> hash of the payload
	results  idSet[int32]           // task_id -> record of its work_result
	chunks   map[chunkKey]*chunkSet // the steps whose chunks do not tile their output yet
	spare    []*chunkSet            // sets let go, to be reused
	digests  digester               // of the keys of chunks that are not a UUID and an integer
	seed     maphash.Seed           // read by local on every worker
}

// chunkKey names the step of a task that output chunks belong to: the
// task's UUID and the step's number, or a digest of both (see digester)
// when they are not a canonical UUID and an integer.
type chunkKey struct {
	id     [16]byte
	number int64
	digest bool
}

// chunkSet is the output chunks of one step of a task.
type chunkSet struct {
	task, step []byte // the task id, the step's number as compact JSON
	total      int64
	ranges     [][2]int64
	last       mark
}

func (c *chiffon) schema() string     { return "chiffon" }
func (c *chiffon) codePrefix() string { return "CHF" }

// ChunkRange reads a Chiffon step.output_chunk, "bytes A-B of N" (B
// exclusive), as its three numbers; ok is false for any other text, and
// for a number past 2^63-1.
func ChunkRange(s string) (a, b, n int64, ok bool) {
	num := func(prefix string) (int64, bool) {
		if len(s) < len(prefix) || s[:len(prefix)] != prefix {
			return 0, false
		}
		s = s[len(prefix):]
		i, v := 0, int64(0)
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			d := int64(s[i] - '0')
			if v > (math.MaxInt64-d)/10 {
				return 0, false
			}
			v = v*10 + d
		}
		s = s[i:]
		return v, i > 0
	}
	var okA, okB, okN bool
	a, okA = num("bytes ")
	b, okB = num("-")
	n, okN = num(" of ")
	return a, b, n, okA && okB && okN && s == ""
}

// The fields the rules read, found in one pass over an object's members.
var (
	topFields     = []string{"message_id", "trace_id", "request_id", "type", "payload"}
	payloadFields = []string{"task_id", "error_code", "step"}
	stepFields    = []string{"output_chunk", "number"}
)

// The kinds of Chiffon messages the stream rules tell apart.
const (
	chfOther uint8 = iota
	chfResult
	chfStatus
)

func (c *chiffon) local(r *record, f *facts, found []Finding) []Finding {
	found = c.checkFields(r, found)
	var top [5][]byte
	r.fields(r.raw, topFields, top[:])
	var payload [3][]byte
	r.fields(top[4], payloadFields, payload[:])
	f.msgID, f.msgOK = textOf(top[0])
	f.reqID, f.reqOK = textOf(top[2])
	typ, _ := textOf(top[3])
	f.task, _ = textOf(payload[0])
	// The ids' keys, for the rules across the stream, which run on one
	// goroutine: found here, they are found on the workers.
	f.msgKey, f.reqKey, f.taskKey = idKey{}, idKey{}, idKey{}
	if f.msgOK {
		f.msgKey = keyOf(f.msgID)
	}
	if f.reqOK {
		f.reqKey = keyOf(f.reqID)
	}
	if len(f.task) > 0 {
		f.taskKey = keyOf(f.task)
	}
	for i, v := range [4][]byte{top[0], top[1], top[2], payload[0]} {
		if s, ok := textOf(v); ok && !isCanonicalUUID(s) && matchUUID(s) {
			ptr := [4]string{"/message_id", "/trace_id", "/request_id", "/payload/task_id"}[i]
			found = append(found, r.at(ptr, "CHF012", Warning, fmt.Sprintf("must be a UUID in canonical form (lowercase 8-4-4-4-12), found %q", s)))
		}
	}
	if string(typ) == "error" {
		if code, ok := intOf(payload[1]); ok {
			if code > 5006 && code <= 5999 {
				found = append(found, r.at("/payload/error_code", "CHF064", Warning, fmt.Sprintf("%d is not an error code the spec defines (5001-5006)", code)))
			}
		}
	}
	if f.reqOK {
		// The payload as compact JSON: a retry resends the same payload.
		f.payloadHash = maphash.Bytes(c.seed, compacted(r.buf, top[4]))
	}
	switch string(typ) {
	case "work_result":
		f.kind = chfResult
	case "work_status":
		f.kind = chfStatus
		var step [2][]byte
		r.fields(payload[2], stepFields, step[:])
		if ch, ok := textOf(step[0]); ok {
			if f.a, f.b, f.n, f.chunk = ChunkRange(string(ch)); f.chunk {
				// The step's number as compact JSON, kept past the
				// scratch memory.
				f.step = compacted(r.buf, step[1])
				if len(f.step) > 0 && len(step[1]) > 0 && &f.step[0] != &step[1][0] {
					f.step = bytes.Clone(f.step)
				}
			}
		}
	}
	return found
}

func (c *chiffon) stream(r *record, f *facts, emit func(Finding) bool) bool {
	if f.msgOK {
		if first, seen := c.messages.addKeyed(f.msgID, f.msgKey, int32(r.index)); seen {
			if !emit(r.at("/message_id", "CHF050", Error, fmt.Sprintf("repeats the message_id of record %d", first))) {
				return false
			}
		}
	}
	if f.reqOK {
		h := f.payloadHash
		if prev, seen := c.requests.addKeyed(f.reqID, f.reqKey, h); seen && prev != h {
			if !emit(r.at("/request_id", "CHF051", Warning, "reuses a request_id with another payload (a retry must resend the same payload)")) {
				return false
			}
		}
	}
	switch f.kind {
	case chfResult:
		if len(f.task) == 0 {
			break
		}
		if first, seen := c.results.addKeyed(f.task, f.taskKey, int32(r.index)); seen {
			if !emit(r.at("/payload/task_id", "CHF053", Error, fmt.Sprintf("has a second work_result (the first is record %d)", first))) {
				return false
			}
		}
	case chfStatus:
		if first, seen := c.results.getKeyed(f.task, f.taskKey); seen {
			if !emit(r.at("/payload/task_id", "CHF054", Warning, fmt.Sprintf("has a work_status after its work_result (record %d)", first))) {
				return false
			}
		}
		if f.chunk {
			return c.chunk(r, f.task, f.taskKey, f.step, f.a, f.b, f.n, emit)
		}
	}
	return true
}

// checkFields warns of the top-level members that are not envelope fields.
func (c *chiffon) checkFields(r *record, found []Finding) []Finding {
	if members, ok := r.split.split(r.raw); ok && !slices.ContainsFunc(members, func(m member) bool { return m.escaped || !isEnvelopeField(m.name) }) {
		return found // the common case, at no cost
	}
	var names []string
	for _, k := range r.topNames() {
		if !isEnvelopeField([]byte(k)) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		found = append(found, r.at("/"+escapePointer(k), "CHF011", Warning, "is not an envelope field (custom fields go in x_custom_fields)"))
	}
	return found
}

// isEnvelopeField tells whether name is one of Chiffon's envelope fields
// (codec.Members).
func isEnvelopeField(name []byte) bool {
	_, ok := envelopeFields[string(name)]
	return ok
}

var envelopeFields = func() map[string]struct{} {
	set := map[string]struct{}{}
	for _, k := range codec.Members[codec.Chiffon][""] {
		set[k] = struct{}{}
	}
	return set
}()

// chunk adds the output chunk "bytes a-b of n" of a work_status to the
// chunks of its step. A step's set is let go once its chunks tile the
// output (as before), and its memory is then reused for another step's:
// steps that complete leave nothing behind, not even garbage.
func (c *chiffon) chunk(r *record, task []byte, key idKey, step []byte, a, b, n int64, emit func(Finding) bool) bool {
	k := c.chunkKey(task, key, step)
	set := c.chunks[k]
	if set == nil {
		if i := len(c.spare) - 1; i >= 0 {
			set, c.spare = c.spare[i], c.spare[:i]
		} else {
			set = &chunkSet{}
		}
		set.task, set.step = append(set.task[:0], task...), append(set.step[:0], step...)
		set.total, set.ranges = n, set.ranges[:0]
		c.chunks[k] = set
	}
	if n != set.total || a > b || b > n {
		if !emit(r.at("/payload/step/output_chunk", "CHF052", Error, fmt.Sprintf("bytes %d-%d of %d does not fit the step's output of %d bytes", a, b, n, set.total))) {
			return false
		}
	} else {
		set.ranges = append(set.ranges, [2]int64{a, b})
	}
	set.last = r.mark("/payload/step/output_chunk")
	if set.tiled() {
		delete(c.chunks, k) // complete: nothing more to check
		if len(c.spare) < 64 && cap(set.task)+cap(set.step) <= 256 && cap(set.ranges) <= 64 {
			set.last = mark{}
			c.spare = append(c.spare, set)
		}
	}
	return true
}

// chunkKey is the key of the chunks of a step: exact for a canonical UUID
// and an integer (not -0, which is not 0 written otherwise), else a digest
// of the task's length, the task and the step. key is the task's
// (keyOf), found on a worker.
func (c *chiffon) chunkKey(task []byte, key idKey, step []byte) chunkKey {
	if key.form == keyLower {
		if n, ok := intOf(step); ok && (n != 0 || step[0] != '-') {
			return chunkKey{id: key.k, number: n}
		}
	}
	var length [4]byte
	binary.LittleEndian.PutUint32(length[:], uint32(len(task)))
	return chunkKey{id: c.digests.digest(length[:], task, step), digest: true}
}

// compacted is the compact form of the JSON value v: v itself when it is
// compact, else a copy in *buf (which is never v: v lives in the input's
// buffer, and writing there would change the messages after it).
func compacted(buf *[]byte, v []byte) []byte {
	out := jsonv.Compacted(*buf, v)
	if len(out) > 0 && len(v) > 0 && &out[0] != &v[0] {
		*buf = out[:0]
	}
	return out
}

// finish checks that each step's output chunks tile 0..N.
func (c *chiffon) finish(emit func(Finding) bool) bool {
	sets := slices.Collect(maps.Values(c.chunks))
	sort.Slice(sets, func(i, j int) bool { return sets[i].last.Offset < sets[j].last.Offset })
	for _, set := range sets {
		task, step := set.task, set.step
		slices.SortFunc(set.ranges, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		next := int64(0)
		problem := ""
		for _, rg := range set.ranges {
			switch {
			case rg[0] > next:
				problem = fmt.Sprintf("bytes %d-%d of the output are in no chunk", next, rg[0])
			case rg[0] < next:
				problem = fmt.Sprintf("bytes %d-%d of the output are in two chunks", rg[0], min(next, rg[1]))
			}
			if problem != "" {
				break
			}
			next = rg[1]
		}
		if problem == "" && next != set.total {
			problem = fmt.Sprintf("bytes %d-%d of the output are in no chunk", next, set.total)
		}
		if problem != "" {
			f := set.last.Finding
			f.Code, f.Severity, f.Message = "CHF052", Error, fmt.Sprintf("the chunks of step %s of task %s do not tile its output: %s", step, task, problem)
			if !emit(f) {
				return false
			}
		}
	}
	return true
}

// tiled reports whether the ranges cover 0..total once, no more, no less.
func (s *chunkSet) tiled() bool {
	var sum int64
	for _, r := range s.ranges {
		sum += r[1] - r[0]
	}
	if sum != s.total {
		return false
	}
	slices.SortFunc(s.ranges, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	next := int64(0)
	for _, r := range s.ranges {
		if r[0] != next {
			return false
		}
		next = r[1]
	}
	return next == s.total
}
