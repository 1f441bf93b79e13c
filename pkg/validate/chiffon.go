package validate

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// Chiffon validates Chiffon agent-protocol messages: each against the
// schema chiffon.json, and in Go: canonical UUIDs and unknown top-level
// fields (warnings), an unknown error code in range (warning), and across
// the stream: a repeated message_id (error), a request_id reused with
// another payload (warning), output chunks that do not tile their output
// (error), a second work_result for a task (error), a work_status after its
// task's work_result (warning).
func Chiffon(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	return envelopes(r, name, opts, &chiffon{
		messages: idSet[int32]{}, requests: idSet[uint64]{}, results: map[string]int{}, chunks: map[chunkKey]*chunkSet{}}, emit)
}

type chiffon struct {
	messages idSet[int32]   // message_id -> first record
	requests idSet[uint64]  // request_id -> payload hash
	results  map[string]int // task_id -> record of its work_result
	chunks   map[chunkKey]*chunkSet
	buf      []byte
}

type chunkKey struct {
	task string
	step string
}

type chunkSet struct {
	total  int64
	ranges [][2]int64
	last   mark
}

func (c *chiffon) schema() string     { return "chiffon" }
func (c *chiffon) codePrefix() string { return "CHF" }

var envelopeFields = map[string]bool{"protocol_version": true, "message_id": true, "from_agent": true, "to_agent": true,
	"timestamp": true, "trace_id": true, "request_id": true, "type": true, "payload": true, "x_custom_fields": true}

var uuidFields = [][]string{{"message_id"}, {"trace_id"}, {"request_id"}, {"payload", "task_id"}}

// isCanonicalUUID reports whether s is a UUID in lowercase 8-4-4-4-12 form.
func isCanonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

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

func (c *chiffon) check(r *record, emit func(Finding) bool) bool {
	var names []string
	for _, k := range r.topNames() {
		if !envelopeFields[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if !emit(r.at("/"+escapePointer(k), "CHF011", Warning, "is not an envelope field (custom fields go in x_custom_fields)")) {
			return false
		}
	}
	for _, p := range uuidFields {
		if s, ok := r.str(p...); ok && !isCanonicalUUID(s) && matchUUID([]byte(s)) {
			if !emit(r.at(pointer(p), "CHF012", Warning, fmt.Sprintf("must be a UUID in canonical form (lowercase 8-4-4-4-12), found %q", s))) {
				return false
			}
		}
	}
	typ, _ := r.str("type")
	if typ == "error" {
		if n, ok := r.num("payload", "error_code"); ok {
			if code, err := strconv.ParseInt(n, 10, 64); err == nil && code > 5006 && code <= 5999 {
				if !emit(r.at("/payload/error_code", "CHF064", Warning, fmt.Sprintf("%d is not an error code the spec defines (5001-5006)", code))) {
					return false
				}
			}
		}
	}
	// Across the stream.
	if id, ok := r.str("message_id"); ok {
		if first, seen := c.messages.get(id); seen {
			if !emit(r.at("/message_id", "CHF050", Error, fmt.Sprintf("repeats the message_id of record %d", first))) {
				return false
			}
		} else {
			c.messages.put(id, int32(r.index))
		}
	}
	if id, ok := r.str("request_id"); ok {
		// The payload as compact JSON: a retry resends the same payload.
		payload := r.get("payload")
		sum := sha256.Sum256(c.compacted(payload))
		h := binary.LittleEndian.Uint64(sum[:])
		if prev, seen := c.requests.get(id); seen && prev != h {
			if !emit(r.at("/request_id", "CHF051", Warning, "reuses a request_id with another payload (a retry must resend the same payload)")) {
				return false
			}
		} else if !seen {
			c.requests.put(id, h)
		}
	}
	task, _ := r.str("payload", "task_id")
	switch typ {
	case "work_result":
		if first, seen := c.results[task]; seen && task != "" {
			if !emit(r.at("/payload/task_id", "CHF053", Error, fmt.Sprintf("has a second work_result (the first is record %d)", first))) {
				return false
			}
		} else if task != "" {
			c.results[task] = r.index
		}
	case "work_status":
		if first, seen := c.results[task]; seen {
			if !emit(r.at("/payload/task_id", "CHF054", Warning, fmt.Sprintf("has a work_status after its work_result (record %d)", first))) {
				return false
			}
		}
		if ch, ok := r.str("payload", "step", "output_chunk"); ok {
			if a, b, n, ok := ChunkRange(ch); ok {
				key := chunkKey{task, string(c.compacted(r.get("payload", "step", "number")))}
				set := c.chunks[key]
				if set == nil {
					set = &chunkSet{total: n}
					c.chunks[key] = set
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
					delete(c.chunks, key) // complete: nothing more to check
				}
			}
		}
	}
	return true
}

// compacted is the compact form of the JSON value v: v itself when it is
// compact, else a copy in c.buf (which is never v: v lives in the reader's
// buffer, and writing there would change the messages after it).
func (c *chiffon) compacted(v []byte) []byte {
	out := jsonv.Compacted(c.buf, v)
	if len(out) > 0 && len(v) > 0 && &out[0] != &v[0] {
		c.buf = out[:0]
	}
	return out
}

// finish checks that each step's output chunks tile 0..N.
func (c *chiffon) finish(emit func(Finding) bool) bool {
	keys := make([]chunkKey, 0, len(c.chunks))
	for k := range c.chunks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return c.chunks[keys[i]].last.Offset < c.chunks[keys[j]].last.Offset })
	for _, k := range keys {
		set := c.chunks[k]
		sort.Slice(set.ranges, func(i, j int) bool { return set.ranges[i][0] < set.ranges[j][0] })
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
			f.Code, f.Severity, f.Message = "CHF052", Error, fmt.Sprintf("the chunks of step %s of task %s do not tile its output: %s", k.step, k.task, problem)
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
	sort.Slice(s.ranges, func(i, j int) bool { return s.ranges[i][0] < s.ranges[j][0] })
	next := int64(0)
	for _, r := range s.ranges {
		if r[0] != next {
			return false
		}
		next = r[1]
	}
	return next == s.total
}

// idSet maps ids to values in little memory: a canonical UUID is kept as
// its 16 bytes, any other id as a string.
type idSet[V any] struct {
	uuids map[[16]byte]V
	other map[string]V
}

func (s *idSet[V]) get(id string) (V, bool) {
	if k, ok := uuidKey(id); ok {
		v, seen := s.uuids[k]
		return v, seen
	}
	v, seen := s.other[id]
	return v, seen
}

func (s *idSet[V]) put(id string, v V) {
	if k, ok := uuidKey(id); ok {
		if s.uuids == nil {
			s.uuids = map[[16]byte]V{}
		}
		s.uuids[k] = v
		return
	}
	if s.other == nil {
		s.other = map[string]V{}
	}
	s.other[id] = v
}

// uuidKey is the 16 bytes of a canonical UUID.
func uuidKey(s string) ([16]byte, bool) {
	var k [16]byte
	if !isCanonicalUUID(s) {
		return k, false
	}
	j := 0
	for i := 0; i < 36; i += 2 {
		if s[i] == '-' {
			i--
			continue
		}
		k[j] = unhex(s[i])<<4 | unhex(s[i+1])
		j++
	}
	return k, true
}

func unhex(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}
