package bridge

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/validate"
)

// joint is a Chiffon step output whose chunks are being joined.
type joint struct {
	where      string // the first chunk
	task, step string
	first      *node
	total      int64
	have       int64
	last       [2]int64
	buf        []byte
	records    []byte // a JSON array, unclosed: each chunk's range, and how it differs from the first
}

// join takes a Chiffon message; a work_status that carries an output
// chunk is held until its step's output is whole, and then given back as
// one message (the first chunk's, with the whole output). What each chunk
// was is kept in c.joined, for the target's x_source ("chunks"): its
// output_chunk, and the fields by which it differs from the first chunk,
// so that converting back gives the same chunks.
func (c *Converter) join(n *node, where func() string) (*node, bool, error) {
	c.joined = nil
	if t, _ := n.member("type").text(); string(t) != "work_status" {
		return n, true, nil
	}
	step := n.get("payload.step")
	spec, ok := step.member("output_chunk").text()
	if !ok {
		return n, true, nil
	}
	a, b, total, ok := validate.ChunkRange(string(spec))
	if !ok {
		return nil, false, &Error{Where: where(), Msg: fmt.Sprintf(`/payload/step/output_chunk: %q is not "bytes A-B of N"`, spec)}
	}
	out, ok := step.member("output").text()
	if !ok {
		return nil, false, &Error{Where: where(), Msg: "/payload/step/output: a chunk needs its output, a string"}
	}
	task, _ := n.str("payload.task_id")
	number := "?"
	if v := step.member("number"); v != nil {
		number = string(v.bytes())
	}
	key := task + "\x00" + number
	j := c.chunks[key]
	if sp := c.spec; sp != nil {
		// A worker joins the chunks of its batch; the ordered pass checks
		// that the stream had none of the step's pending at the first.
		sp.chunk, sp.chunkFirst = true, j == nil
		sp.chunkKey = append(sp.chunkKey[:0], key...)
	}
	fail := func(format string, args ...any) (*node, bool, error) {
		return nil, false, &Error{Where: where(), Msg: fmt.Sprintf("step %s of task %s: ", number, task) + fmt.Sprintf(format, args...)}
	}
	switch {
	case a > b || b > total:
		return fail("the chunk bytes %d-%d of %d is not a range of the output", a, b, total)
	case int64(len(out)) != b-a:
		return fail("the chunk says bytes %d-%d (%d bytes) but its output holds %d bytes", a, b, b-a, len(out))
	case total > int64(c.opts.MaxOutput):
		return fail("the output of %d bytes is larger than the limit of %d bytes", total, c.opts.MaxOutput)
	case j == nil && a != 0:
		return fail("bytes 0-%d of the output are missing (the first chunk holds bytes %d-%d)", a, a, b)
	case j != nil && total != j.total:
		return fail("the chunk says the output has %d bytes, the first chunk (%s) said %d", total, j.where, j.total)
	case j != nil && a == j.last[0] && b == j.last[1]:
		return fail("the chunk bytes %d-%d comes twice", a, b)
	case j != nil && a < j.have:
		return fail("the chunk bytes %d-%d overlaps bytes %d-%d of the chunks before it", a, b, a, min(b, j.have))
	case j != nil && a > j.have:
		return fail("bytes %d-%d of the output are missing before the chunk bytes %d-%d", j.have, a, a, b)
	}
	if j == nil {
		// Held past this call: its own copy of the message's bytes (valid
		// JSON already).
		first := rawNode(n.bytes()).obj()
		j = &joint{where: where(), task: task, step: number, first: first, total: total}
		c.chunks[key] = j
		c.pending = append(c.pending, key)
	}
	rec := newObject()
	rec.set1("output_chunk", step.member("output_chunk"))
	if len(j.records) > 0 {
		fields, absent := newObject(), []string(nil)
		differ(j.first, n, make([]byte, 0, 64), &fields.m, &absent)
		if len(fields.m) > 0 {
			rec.set1("fields", fields)
		}
		if len(absent) > 0 {
			rec.set1("absent", strList(absent))
		}
	}
	// Kept as bytes: n's may be the reader's, which change.
	if len(j.records) == 0 {
		j.records = append(j.records, '[')
	} else {
		j.records = append(j.records, ',')
	}
	j.records = rec.append(j.records)
	j.buf = append(j.buf, out...)
	j.have, j.last = b, [2]int64{a, b}
	if j.have < j.total {
		return nil, false, nil
	}
	delete(c.chunks, key)
	for i, k := range c.pending {
		if k == key {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	whole := j.first // no longer held
	whole.set("payload.step.output", strNode(j.buf))
	whole.del("payload.step.output_chunk")
	c.joined = rawNode(append(j.records, ']'))
	return whole, true, nil
}

// differ puts the members of b that a lacks or holds another value for
// into fields, and the members a has and b lacks into absent, by JSON
// pointer (ptr is the objects' own); objects on both sides are compared
// member by member. A chunk's own output and range are left out.
func differ(a, b *node, ptr []byte, fields *[]member, absent *[]string) {
	own := func(p []byte) bool {
		return string(p) == "/payload/step/output" || string(p) == "/payload/step/output_chunk"
	}
	for _, m := range b.obj().m {
		p := appendToken(ptr, m.k)
		if own(p) {
			continue
		}
		av := a.member(m.k)
		switch {
		case av.isObject() && m.v.isObject():
			differ(av, m.v, p, fields, absent)
		case !equal(av, m.v):
			*fields = append(*fields, member{string(p), m.v})
		}
	}
	for _, m := range a.obj().m {
		if p := appendToken(ptr, m.k); !own(p) && b.member(m.k) == nil {
			*absent = append(*absent, string(p))
		}
	}
}

// appendToken appends a member name to a JSON pointer (in place: what it
// gives is good until the next call on ptr).
func appendToken(ptr []byte, name string) []byte {
	ptr = append(ptr, '/')
	if strings.ContainsAny(name, "~/") {
		return append(ptr, escaper.Replace(name)...)
	}
	return append(ptr, name...)
}

// split writes a Chiffon message. One that came from Chiffon chunks goes
// as those chunks again (c.rechunk, from x_source); otherwise a
// work_status whose step output is larger than SplitAt goes as chunks of
// at most ChunkSize bytes, cut between UTF-8 characters, each a
// work_status of its own with its ids.
func (c *Converter) split(n *node, where func() string, emit func([]byte) error) error {
	typ, _ := n.member("type").text()
	out, ok := n.get("payload.step.output").text()
	// A work_status with a whole step output: the one kind of message
	// that is ever written as chunks.
	whole := string(typ) == "work_status" && ok && n.get("payload.step.output_chunk") == nil
	if c.rechunk != nil {
		if whole {
			if parts, why := c.chunksOf(n, out); why == "" {
				for _, m := range parts {
					if err := emit(m.bytes()); err != nil {
						return err
					}
				}
				return nil
			} else if err := c.warn(where, "x_source.chunks: "+why+"; the output is written as one message"); err != nil {
				return err
			}
		} else if err := c.warn(where, "x_source.chunks: the message is no work_status with a step output; it is written as one message"); err != nil {
			return err
		}
	}
	if !whole || len(out) <= c.opts.SplitAt {
		return emit(n.bytes())
	}
	id, _ := n.str("message_id")
	req, _ := n.str("request_id")
	for i, part := 0, 0; i < len(out); part++ {
		end := min(i+c.opts.ChunkSize, len(out))
		for end < len(out) && end > i && !utf8.RuneStart(out[end]) {
			end--
		}
		if end == i { // no character boundary in reach: cannot happen with a chunk of 4 bytes or more
			end = min(i+c.opts.ChunkSize, len(out))
		}
		m := n.clone()
		m.set("payload.step.output", strNode(out[i:end]))
		m.set("payload.step.output_chunk", strNode(fmt.Sprintf("bytes %d-%d of %d", i, end, len(out))))
		if part > 0 {
			m.set("message_id", strNode(c.chunkID(id, "message", part)))
			if req != "" {
				m.set("request_id", strNode(c.chunkID(req, "request", part)))
			}
		}
		order(Chiffon, m)
		if err := emit(m.bytes()); err != nil {
			return err
		}
		i = end
	}
	return nil
}

// chunkID is the id of a chunk after the first: with Deterministic, a
// UUID v5 of the message's id and the chunk's number.
func (c *Converter) chunkID(id, purpose string, part int) string {
	if c.opts.Deterministic {
		return c.nameID(purpose+"-chunk/"+strconv.Itoa(part), id)
	}
	return c.id(purpose, nil)
}

// chunksOf gives the Chiffon chunks that a message was joined from, as
// c.rechunk records them; why says what does not fit when they cannot be
// made again.
func (c *Converter) chunksOf(n *node, out []byte) (parts []*node, why string) {
	next := 0
	ok := elements(c.rechunk, func(rec *node) bool {
		spec := rec.member("output_chunk")
		text, _ := spec.text()
		a, b, total, fits := validate.ChunkRange(string(text))
		switch {
		case !rec.isObject() || spec == nil:
			why = "an entry is not an object with an output_chunk"
		case !fits:
			why = fmt.Sprintf("%q is not \"bytes A-B of N\"", text)
		case total != int64(len(out)) || a != int64(next) || b < a || b > total:
			why = fmt.Sprintf("%q does not follow byte %d of the %d-byte output", text, next, len(out))
		case b < total && !utf8.RuneStart(out[b]):
			why = fmt.Sprintf("%q ends within a character", text)
		}
		if why != "" {
			return false
		}
		m := n.clone()
		m.set("payload.step.output", strNode(out[a:b]))
		m.set("payload.step.output_chunk", spec)
		if fields := rec.member("fields"); fields.isObject() {
			for _, f := range fields.obj().m {
				if names := unpointer(f.k); len(names) > 0 {
					m.setp(names, f.v)
				}
			}
		}
		if !elements(rec.member("absent"), func(p *node) bool {
			ptr, _ := p.text()
			if names := unpointer(string(ptr)); len(names) > 0 {
				m.delp(names)
			}
			return true
		}) {
			why = "an absent list is not an array"
			return false
		}
		order(Chiffon, m)
		parts = append(parts, m)
		next = int(b)
		return true
	})
	switch {
	case why != "":
		return nil, why
	case !ok:
		return nil, "not an array"
	case next != len(out):
		return nil, fmt.Sprintf("the chunks end at byte %d of the %d-byte output", next, len(out))
	}
	return parts, ""
}
