// Package bridge converts messages between the protocols toonkit knows:
// Kado binary frames (as the JSON records `toonkit decode` writes),
// Chiffon envelopes, AOP trace events and Narratoria tool events.
//
// A conversion maps fields by the tables in rules.go (docs/mapping.md says
// the same in prose). Nothing is dropped: the fields of a message that have
// no place in the target protocol, and the values that would not convert
// back exactly, go into the target's extension slot (x_source), and
// converting back restores them, so that A → B → A gives A back.
//
// SourceProtocol tells the protocol of an input (records.Source): named,
// binary frames, or by the fields of its first message. Inputs converts
// the messages of several inputs in a row, one run per protocol, on
// several workers where it can (Stream).
package bridge

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Protocol names a message protocol.
type Protocol string

// The protocols.
const (
	Kado       Protocol = "kado"
	Chiffon    Protocol = "chiffon"
	Trace      Protocol = "trace"
	Narratoria Protocol = "narratoria"
)

// Options configure a Converter.
type Options struct {
	From, To Protocol

	// RunID is the trace run_id (and Chiffon trace_id) to use instead of
	// the source's; empty: the source's, or one new id for the stream.
	RunID string
	// AgentID is meta.agent_id of trace events (default 0).
	AgentID int64
	// Agent is the Chiffon agent type that stands for the agent side of
	// Kado frames and trace events (default "code").
	Agent string
	// Deterministic derives every generated id from the message it is for
	// (UUID v5) and generated times from the stream, instead of random
	// ids and the clock, so that a conversion gives the same bytes twice.
	Deterministic bool
	// Now is the clock (default time.Now).
	Now func() time.Time

	// NoReassemble keeps Chiffon output chunks as they come instead of
	// joining them into one message.
	NoReassemble bool
	// MaxOutput bounds a reassembled Chiffon output (default 64 MiB).
	MaxOutput int
	// SplitAt is the size of a Chiffon step output above which it is
	// written in chunks, and ChunkSize the largest chunk (defaults 1 MiB
	// and 256 KiB, as the spec says).
	SplitAt, ChunkSize int

	// Checked says the messages given to Convert are valid JSON already
	// (as jsonv.Reader gives them), so that they are not checked again.
	Checked bool

	// Warn receives what could not be converted (a message of a type the
	// target has no counterpart for); with Strict, that is an error.
	Warn   func(where, msg string)
	Strict bool
}

// Error is a message that cannot be converted, at a position the caller
// gave (file:line, or a frame).
type Error struct {
	Where string
	Msg   string
}

func (e *Error) Error() string {
	if e.Where == "" {
		return e.Msg
	}
	return e.Where + ": " + e.Msg
}

// Pairs lists the conversions a Converter makes, both ways.
func Pairs() [][2]Protocol {
	var ps [][2]Protocol
	for _, p := range pairs {
		ps = append(ps, [2]Protocol{p.side[0], p.side[1]})
	}
	return ps
}

// Supported reports whether messages of one protocol convert to another.
func Supported(from, to Protocol) bool {
	_, _, ok := findPair(from, to)
	return ok
}

func findPair(from, to Protocol) (*pair, int, bool) {
	for _, p := range pairs {
		switch {
		case p.side[0] == from && p.side[1] == to:
			return p, 0, true
		case p.side[1] == from && p.side[0] == to:
			return p, 1, true
		}
	}
	return nil, 0, false
}

// Converter converts a stream of messages; it holds what the stream's
// messages share (the run, the sequence numbers, the open task, output
// chunks being joined).
type Converter struct {
	opts Options
	p    *pair
	fs   int // the side of the pair converted from

	run     string            // the stream's run id, once made
	seqs    runs              // trace: last seq per run_id
	n       int64             // messages written
	index   int               // messages read
	task    string            // Chiffon: the open task
	steps   map[string]int64  // Chiffon: work_status messages per task
	lastT   []byte            // the last time seen, for events without one
	x       ctx               // the message being converted
	chunks  map[string]*joint // Chiffon output chunks being joined
	joined  *node             // the chunks the message was joined from (an array), for x_source
	rechunk *node             // the chunks to give the message as, from its x_source
	pending []string          // their keys in order of arrival
	plans   map[planKey]*plan
	buf     []byte
	in      []byte // the message compacted, when it was not compact (valid during Convert)

	shared *atomic.Pointer[string] // the stream's run once made, for the workers of Stream
	spec   *spec                   // a worker's: what the message read of the stream (stream.go)
	arena  []byte                  // the bytes of the last note
	mapped int64                   // messages Stream took from its workers as they were
	bad    map[string]bool         // a worker's: steps whose chunks it leaves to the ordered pass
	guess  guess                   // a worker's: which of task and lastT it knows
}

// New returns a Converter for opts.From to opts.To.
func New(opts Options) (*Converter, error) {
	p, fs, ok := findPair(opts.From, opts.To)
	if !ok {
		return nil, fmt.Errorf("no mapping from %s to %s (mappings: %s)", opts.From, opts.To, pairList())
	}
	if opts.Agent == "" {
		opts.Agent = "code"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = 64 << 20
	}
	if opts.SplitAt <= 0 {
		opts.SplitAt = 1 << 20
	}
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = 256 << 10
	}
	return &Converter{opts: opts, p: p, fs: fs, seqs: runs{uuids: map[[16]byte]int64{}, other: map[string]int64{}}, steps: map[string]int64{}, chunks: map[string]*joint{},
		plans: map[planKey]*plan{}, shared: new(atomic.Pointer[string])}, nil
}

func pairList() string {
	var s []string
	for _, p := range pairs {
		s = append(s, string(p.side[0])+"<->"+string(p.side[1]))
	}
	return strings.Join(s, ", ")
}

// Convert converts one message, JSON in any formatting (compact, as
// decode's record of a Kado frame, or as json.dumps writes it), and passes
// what it gives, none, one or several messages, to emit: compact JSON,
// the same for the message however it was written. msg is not kept past
// the call. where names the message's position for errors and warnings.
func (c *Converter) Convert(msg []byte, where func() string, emit func([]byte) error) error {
	c.index++
	var n *node
	var err error
	if c.opts.Checked {
		n = rawNode(c.compacted(msg)).obj()
	} else if err = jsonv.Check(msg); err == nil {
		n = rawNode(c.compacted(msg)).obj()
	}
	if err != nil || !n.isObject() {
		return &Error{Where: where(), Msg: fmt.Sprintf("a %s message must be a JSON object", c.opts.From)}
	}
	if c.opts.From == Chiffon && !c.opts.NoReassemble {
		var done bool
		if n, done, err = c.join(n, where); err != nil || !done {
			if c.spec != nil {
				c.spec.held = err == nil
			}
			return err
		}
	}
	out, err := c.convert(n, where)
	if err != nil || out == nil {
		return err
	}
	if c.opts.To == Chiffon {
		return c.split(out, where, emit)
	}
	c.buf = out.append(c.buf[:0])
	return emit(c.buf)
}

// compacted is the valid JSON msg compact: msg itself when it is (as
// JSON.stringify writes it), otherwise its compact form in c.in, which
// the next message reuses (the nodes of a message do not outlive Convert:
// what is held longer, a chunk being joined, is copied). So a message
// written as json.dumps writes it (", " and ": ", indented, CRLF) costs no
// allocation that the same message compact does not.
func (c *Converter) compacted(msg []byte) []byte {
	msg = jsonv.TrimSpace(msg)
	m := jsonv.Compacted(c.in[:0], msg)
	if len(m) > 0 && &m[0] != &msg[0] {
		c.in = m
	}
	return m
}

// End reports output chunks that never completed.
func (c *Converter) End() error {
	for _, k := range c.pending {
		if j := c.chunks[k]; j != nil {
			return &Error{Where: j.where, Msg: fmt.Sprintf("step %s of task %s: the output chunks end at byte %d of %d (bytes %d-%d are missing)",
				j.step, j.task, j.have, j.total, j.have, j.total)}
		}
	}
	return nil
}

// warn reports what cannot be converted as it is: an error with Strict, a
// warning otherwise.
func (c *Converter) warn(where func() string, what string) error {
	if c.spec != nil {
		return errMiss // the ordered pass warns, or fails
	}
	if c.opts.Strict {
		return &Error{Where: where(), Msg: what}
	}
	if c.opts.Warn != nil {
		c.opts.Warn(where(), what)
	}
	return nil
}

// ctx is what a derivation or a conversion of a value may look at.
type ctx struct {
	c   *Converter
	msg [2]*node // the message on each side (one of them being built)
}

func (x *ctx) side(p Protocol) *node {
	if x.c.p.side[0] == p {
		return x.msg[0]
	}
	return x.msg[1]
}

// convert maps one message.
func (c *Converter) convert(src *node, where func() string) (*node, error) {
	fs, ts := c.fs, 1-c.fs
	from, to := c.opts.From, c.opts.To
	ext := src.get(extSlot[from])
	origin := false
	var restore, generated, absent *node
	c.rechunk = nil
	if ext.isObject() {
		if p, _ := ext.str("protocol"); Protocol(p) == to {
			origin = true
			restore, generated, absent = ext.member("fields"), ext.member("generated"), ext.member("absent")
			c.rechunk = ext.member("chunks")
		}
	}
	srcType := typeOf(from, src)
	tm := c.resolve(fs, srcType, src, restore)
	if tm == nil {
		return nil, c.warn(where, fmt.Sprintf("%s %s has no %s counterpart: not converted", from, describeType(from, srcType), to))
	}
	dst := newObject()
	x := &c.x
	*x = ctx{c: c}
	x.msg[fs], x.msg[ts] = src, dst
	setType(to, dst, tm.typ[ts])
	fields := newObject() // what goes into the target's x_source
	var made []string     // fields of dst that were made up
	var lacks []string    // fields src lacks that the way back would make
	pl := c.planFor(tm, origin)
	restored := map[string]bool{}
	if origin && restore.isObject() {
		// The fields the message had before it came here, first, so that
		// what is derived from them comes out as it did then.
		for _, m := range restore.obj().m {
			if names := unpointer(m.k); len(names) > 0 {
				dst.setp(names, m.v)
				restored[m.k] = true
			}
		}
	}
	for i := range pl.rules {
		r := &pl.rules[i]
		sp, tp := r.path[fs], r.path[ts]
		var sv *node
		if sp != "" {
			sv = src.getp(r.names[fs])
		}
		if sv == nil && sp != "" && r.derive[fs] != nil && !origin {
			lacks = append(lacks, r.ptr[fs]) // the way back would make it
		}
		switch {
		case sv != nil && tp == "":
			// The field has no place in the target: kept, unless it was
			// made when this message came from there, or the reverse
			// conversion would make it just so.
			if origin || r.same[fs] && r.derive[fs] != nil && c.same(r.derive[fs](x), sv) {
				continue
			}
			fields.set1(r.ptr[fs], sv)
		case tp != "" && restored[r.ptr[ts]]:
			continue
		case origin && tp != "" && listed(absent, r.ptr[ts]):
			continue // the target did not have it
		case sv != nil:
			if origin && listed(generated, r.ptr[fs]) {
				continue // the target did not have it
			}
			tv := convertValue(r.conv[ts], x, sv)
			if tv == nil {
				fields.set1(r.ptr[fs], sv)
				if r.derive[ts] != nil {
					dst.setp(r.names[ts], r.derive[ts](x))
				}
				continue
			}
			dst.setp(r.names[ts], tv)
			if !origin {
				if back := convertValue(r.conv[fs], x, tv); !equal(back, sv) {
					fields.set1(r.ptr[fs], sv)
				}
			}
		case tp != "" && r.derive[ts] != nil:
			v := r.derive[ts](x)
			if v == nil {
				continue // nothing to make it from
			}
			dst.setp(r.names[ts], v)
			if sp != "" {
				made = append(made, r.ptr[ts])
			}
		}
	}
	if !origin {
		// The target's type would come back as another type.
		if back := c.resolve(ts, tm.typ[ts], dst, nil); back == nil || back.typ[fs] != srcType {
			if v := src.get(typePath[from]); v != nil { // (a frame may give its type by name alone)
				fields.set1(pointer(typePath[from]), v)
			}
		}
	}
	leftovers(src, pl.consumed, "", fields)
	// Every message made here says where it came from, and keeps what it
	// could not hold otherwise.
	if !origin || len(fields.m) > 0 || len(made) > 0 || len(lacks) > 0 || c.joined != nil {
		if origin && dst.get(extSlot[to]) != nil {
			held := fields.memberNames()
			if c.joined != nil {
				held = append(held, "the chunks it was joined from")
			}
			if err := c.warn(where, fmt.Sprintf("has fields that %s cannot hold beside the %s message's own x_source: %s", to, to, strings.Join(held, ", "))); err != nil {
				return nil, err
			}
		} else {
			e := newObject()
			e.set1("protocol", strNode(string(from)))
			if len(fields.m) > 0 {
				e.set1("fields", fields)
			}
			if len(made) > 0 {
				e.set1("generated", strList(made))
			}
			if len(lacks) > 0 {
				e.set1("absent", strList(lacks))
			}
			if c.joined != nil {
				e.set1("chunks", c.joined)
			}
			dst.set(extSlot[to], e)
		}
	}
	order(to, dst)
	c.after(x)
	return dst, nil
}

// resolve finds the type mapping for a message of type typ on side s: the
// one a restored type field names, else the first that fits.
func (c *Converter) resolve(s int, typ string, msg, restore *node) *typeMap {
	other := c.p.side[1-s]
	want := ""
	if restore.isObject() {
		if v := restore.member(pointer(typePath[other])); v != nil {
			tmp := newObject()
			tmp.set(typePath[other], v)
			want = typeOf(other, tmp)
		}
	}
	for i := range c.p.types {
		tm := &c.p.types[i]
		if tm.typ[s] != typ {
			continue
		}
		if want != "" {
			if tm.typ[1-s] == want {
				return tm
			}
			continue
		}
		if tm.match[s] == nil || tm.match[s](msg) {
			return tm
		}
	}
	return nil
}

// after updates what the stream's messages share.
func (c *Converter) after(x *ctx) {
	c.arena = c.arena[:0]
	n := noteOf(x, &c.arena)
	if c.spec != nil {
		c.spec.note = n // the ordered pass applies it
		return
	}
	c.apply(&n, c.arena)
}

// note is what a converted message changes of what the stream's messages
// share; its bytes are spans of an arena.
type note struct {
	trace   bool
	run     span
	chiffon int // 1 work_request, 2 work_status, 3 work_result, 0 another or none
	task    span
	lastT   span
	setT    bool
}

// span is a stretch of an arena; nil a nil stretch.
type span struct {
	start, end int
	set        bool
}

func mark(arena *[]byte, b []byte) span {
	s := span{start: len(*arena), set: b != nil}
	*arena = append(*arena, b...)
	s.end = len(*arena)
	return s
}

func (s span) of(arena []byte) []byte {
	if !s.set {
		return nil
	}
	return arena[s.start:s.end]
}

// noteOf says what the message x changes of the stream's state.
func noteOf(x *ctx, arena *[]byte) note {
	var n note
	if t := x.side(Trace); t != nil {
		run, _ := t.get("meta.run_id").text()
		if v := t.get("meta.run_id"); v != nil && run == nil {
			run = v.raw
		}
		n.trace, n.run = true, mark(arena, run)
		if s, ok := t.get("t").text(); ok {
			n.lastT, n.setT = mark(arena, s), true
		}
	}
	if m := x.side(Chiffon); m != nil {
		typ, _ := m.get("type").text()
		task, _ := m.get("payload.task_id").text()
		switch string(typ) {
		case "work_request":
			n.chiffon = 1
		case "work_status":
			n.chiffon = 2
		case "work_result":
			n.chiffon = 3
		}
		n.task = mark(arena, task)
		if s, ok := m.get("timestamp").text(); ok {
			n.lastT, n.setT = mark(arena, s), true
		}
	}
	if m := x.side(Narratoria); m != nil {
		if s, ok := m.get("timestamp").text(); ok {
			n.lastT, n.setT = mark(arena, s), true
		}
	}
	return n
}

// apply makes the changes a note says.
func (c *Converter) apply(n *note, arena []byte) {
	c.n++
	if n.trace {
		c.seqs.add(n.run.of(arena))
	}
	task := n.task.of(arena)
	switch n.chiffon {
	case 1, 2:
		if string(task) != c.task { // a task's messages mostly come together
			c.task = string(task)
		}
		if n.chiffon == 2 {
			c.steps[c.task]++
		}
	case 3:
		delete(c.steps, string(task)) // closed: its steps are counted no more
		c.task = ""
	}
	if n.setT {
		c.lastT = append(c.lastT[:0], n.lastT.of(arena)...)
	}
}

// runs counts the events of each run; a canonical UUID is kept as its 16
// bytes, for a stream may hold very many runs.
type runs struct {
	uuids map[[16]byte]int64
	other map[string]int64
}

func (r *runs) get(run []byte) int64 {
	if k, ok := uuidKey(run); ok {
		return r.uuids[k]
	}
	return r.other[string(run)]
}

func (r *runs) add(run []byte) {
	if k, ok := uuidKey(run); ok {
		r.uuids[k]++
		return
	}
	r.other[string(run)]++
}

// uuidKey is the 16 bytes of a canonical (lowercase) UUID.
func uuidKey(run []byte) ([16]byte, bool) {
	var k [16]byte
	if len(run) != 36 {
		return k, false
	}
	j := 0
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if run[i] != '-' {
				return k, false
			}
			continue
		}
		c := run[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			return k, false
		}
		k[j/2] |= v << (4 * (1 - j%2))
		j++
	}
	return k, true
}

// leftovers puts the members of n that no rule took into fields, by JSON
// pointer, in their order.
func leftovers(n *node, taken *trie, ptr string, fields *node) {
	for _, m := range n.obj().m {
		k, v := m.k, m.v
		t := taken.kids[k]
		if t != nil && t.all {
			continue
		}
		kp := string(appendToken([]byte(ptr), k))
		if t != nil && v.isObject() && len(v.obj().m) > 0 {
			leftovers(v, t, kp, fields)
			continue
		}
		fields.set1(kp, v)
	}
}

// trie is a set of dotted paths: all says the path itself is in it.
type trie struct {
	all  bool
	kids map[string]*trie
}

func (t *trie) add(path string) {
	for _, k := range strings.Split(path, ".") {
		if t.kids == nil {
			t.kids = map[string]*trie{}
		}
		next := t.kids[k]
		if next == nil {
			next = &trie{}
			t.kids[k] = next
		}
		t = next
	}
	t.all = true
}

// plan is what the conversion of one type mapping needs, made once.
type plan struct {
	rules    []rule
	consumed *trie // the source's fields the rules take (or that follow from the rest)
}

func (c *Converter) planFor(tm *typeMap, origin bool) *plan {
	key := planKey{tm, origin}
	if pl := c.plans[key]; pl != nil {
		return pl
	}
	from := c.opts.From
	pl := &plan{rules: append(slices.Clip(c.p.common), tm.rules...), consumed: &trie{}}
	pl.consumed.add(typePath[from])
	for _, p := range ignored[from] {
		pl.consumed.add(p)
	}
	if origin {
		pl.consumed.add(extSlot[from])
	}
	for _, r := range pl.rules {
		if sp := r.path[c.fs]; sp != "" {
			pl.consumed.add(sp)
		}
	}
	c.plans[key] = pl
	return pl
}

type planKey struct {
	tm     *typeMap
	origin bool
}

// strList is a JSON array of strings.
func strList(list []string) *node {
	b := []byte{'['}
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = strNode(s).append(b)
	}
	return rawNode(append(b, ']'))
}

func listed(list *node, s string) bool {
	if list == nil || len(list.raw) == 0 {
		return false
	}
	q := strNode(s).raw
	return strings.Contains(string(list.raw), string(q))
}

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// pointer turns a dotted path of the rules (whose names hold no dot) into
// a JSON pointer.
func pointer(path string) string {
	var b []byte
	for _, k := range strings.Split(path, ".") {
		b = appendToken(b, k)
	}
	return string(b)
}

// unpointer splits a JSON pointer into its names; nil for "" or one that
// does not start with '/'.
func unpointer(ptr string) []string {
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		parts[i] = unescaper.Replace(p)
	}
	return parts
}
