package bridge

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/toonkit/toonkit/pkg/validate"
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
}

// join takes a Chiffon message; a work_status that carries an output
// chunk is held until its step's output is whole, and then given back as
// one message (the first chunk's, with the whole output).
func (c *Converter) join(n *node, where func() string) (*node, bool, error) {
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
	return whole, true, nil
}

// split writes a Chiffon message; a work_status whose step output is
// larger than SplitAt goes as chunks of at most ChunkSize bytes, cut
// between UTF-8 characters, each a work_status of its own with its ids.
func (c *Converter) split(n *node, emit func([]byte) error) error {
	out, ok := n.str("payload.step.output")
	if t, _ := n.str("type"); t != "work_status" || !ok || len(out) <= c.opts.SplitAt || n.get("payload.step.output_chunk") != nil {
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
