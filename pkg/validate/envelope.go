package validate

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// record is one message of an envelope protocol, decoded.
type record struct {
	index   int
	v       map[string]any // the decoded message, when it was decoded
	decoded bool
	split   *splitCache // the message's objects, split once (reused from message to message)
	raw     []byte
	rd      *jsonv.Reader
	start   int64 // offset of raw in the file
	name    string
}

// at is a finding at the field ptr of the record.
func (r *record) at(ptr, code string, sev Severity, msg string) Finding {
	p := r.rd.Position(r.start + jsonv.PointerOffset(r.raw, ptr))
	return Finding{File: r.name, Line: p.Line, Column: p.Column, Frame: -1, Offset: p.Offset, Record: r.index,
		Pointer: ptr, Code: code, Severity: sev, Message: msg}
}

// mark is a place kept for a finding made later, at the end of the stream.
type mark struct {
	Finding
}

// mark keeps the place of the record (its start) with a pointer: cheap,
// for every record that a rule at the end of the stream may name.
func (r *record) mark(ptr string) mark {
	f := Finding{File: r.name, Frame: -1, Record: r.index, Pointer: ptr}
	if r.rd != nil {
		p := r.rd.Position(r.start)
		f.Line, f.Column, f.Offset = p.Line, p.Column, p.Offset
	}
	return mark{f}
}

// protocol is the Go side of an envelope protocol: the rules a schema
// cannot say, per message and across the stream.
type protocol interface {
	schema() string
	codePrefix() string
	check(r *record, emit func(Finding) bool) bool
	finish(emit func(Finding) bool) bool
}

// envelopes validates a stream of JSON messages (one document, a JSON array
// of messages, or NDJSON) with a protocol.
func envelopes(rdr io.Reader, name string, opts Options, p protocol, emit Emit) (int, error) {
	rd := jsonv.NewReader(rdr, jsonv.Options{MaxValueSize: int64(opts.MaxFrameSize), Elements: true})
	split := &splitCache{}
	r := &record{} // one for all the messages: nothing keeps it
	n := 0
	for {
		v, pos, err := rd.Next()
		if err == io.EOF {
			p.finish(emit)
			return n, nil
		}
		if err != nil {
			var se *jsonv.SyntaxError
			if errors.As(err, &se) {
				emit(textFinding(name, se, n, p.codePrefix()+"000"))
				return n, nil
			}
			if errors.Is(err, jsonv.ErrTooLarge) {
				emit(Finding{File: name, Frame: -1, Record: n, Code: p.codePrefix() + "000", Message: err.Error()})
				return n, nil
			}
			return n, err
		}
		*r = record{index: n, raw: v, rd: rd, start: pos.Offset, name: name, split: split}
		n++
		// The fast path: a message it is sure of is not decoded at all.
		if !r.fast(p.schema()) {
			issues, err := r.slow(p.schema())
			if err != nil {
				return n, err
			}
			found := make([]Finding, len(issues))
			for i, it := range issues {
				found[i] = r.at(it.Pointer, it.Code, it.Severity, it.Message)
			}
			sort.SliceStable(found, func(i, j int) bool { return found[i].Offset < found[j].Offset })
			for _, f := range found {
				if !emit(f) {
					return n, nil
				}
			}
		}
		if r.isObject() && !p.check(r, emit) {
			return n, nil
		}
	}
}

// fast reports whether the schema's fast checker is sure the message is
// valid; the message is then read from its bytes (see get), not decoded.
func (r *record) fast(schema string) bool {
	r.split.scan(r.raw)
	return fastValid(r.split, schema, r.raw)
}

// slowPaths counts the messages decoded into Go values (by slow or
// getDecoded): the tests read it to see which messages the fast path took.
var slowPaths atomic.Int64

// slow decodes the message and checks it with the schema library.
func (r *record) slow(schema string) ([]issue, error) {
	slowPaths.Add(1)
	val, err := decodeAny(r.raw)
	if err != nil {
		return nil, fmt.Errorf("decoding record %d: %v", r.index, err)
	}
	r.v, _ = val.(map[string]any)
	r.decoded = true
	return checkSchema(schema, val)
}

func (r *record) isObject() bool { return r.v != nil || len(r.raw) > 0 && r.raw[0] == '{' }

// get is the raw JSON value at a path of member names, nil when absent.
func (r *record) get(keys ...string) []byte {
	v := r.raw
	for _, k := range keys {
		members, ok := r.split.split(v)
		if !ok {
			return r.getDecoded(keys...)
		}
		var found []byte
		for i := range members {
			// The first is the one: the readers refuse duplicate names.
			if m := &members[i]; !m.escaped && string(m.name) == k {
				found = m.value
				break
			}
		}
		if found == nil {
			return nil
		}
		v = found
	}
	return v
}

// getDecoded is get for a message the fast path cannot split: it is decoded.
func (r *record) getDecoded(keys ...string) []byte {
	if !r.decoded {
		slowPaths.Add(1)
		val, _ := decodeAny(r.raw)
		r.v, _ = val.(map[string]any)
		r.decoded = true
	}
	var cur any = r.v
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[k]; !ok {
			return nil
		}
	}
	b, _ := jsonMarshalCompact(cur)
	return b
}

// str is the string at a path of member names.
func (r *record) str(keys ...string) (string, bool) {
	s, ok := r.text(keys...)
	return string(s), ok
}

// text is the string at a path of member names, unescaped: a slice of the
// message itself (no copy) when the string holds no escape.
func (r *record) text(keys ...string) ([]byte, bool) { return textOf(r.get(keys...)) }

// textOf is the JSON string v unescaped (v itself without its quotes when it
// holds no escape); false when v is not a string.
func textOf(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	if s, plain := plainString(v); plain {
		return s, true
	}
	s, err := jsontext.AppendUnquote(nil, v)
	return s, err == nil
}

// int is the integer at a path of member names (see intOf).
func (r *record) int(keys ...string) (int64, bool) { return intOf(r.get(keys...)) }

// intOf is the JSON number v as strconv.ParseInt reads it as written (so
// 1.0 and 1e3 are not integers); false for any other value.
func intOf(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// fields sets vals[i] to the value of the member names[i] of the object obj
// (nil when it has none, or obj is not an object), in one pass over its
// members.
func (r *record) fields(obj []byte, names []string, vals [][]byte) {
	clear(vals)
	members, ok := r.split.split(obj)
	if !ok {
		return
	}
	for i := range members {
		m := &members[i]
		if m.escaped {
			continue
		}
		for j, n := range names {
			if vals[j] == nil && string(m.name) == n {
				vals[j] = m.value
				break
			}
		}
	}
}

// topNames lists the message's member names.
func (r *record) topNames() []string {
	var names []string
	members, ok := r.split.split(r.raw)
	if !ok {
		r.getDecoded()
		for k := range r.v {
			names = append(names, k)
		}
		return names
	}
	for _, m := range members {
		n := string(m.name)
		if m.escaped {
			u, _ := jsontext.AppendUnquote(nil, append(append([]byte{'"'}, m.name...), '"'))
			n = string(u)
		}
		names = append(names, n)
	}
	return names
}

// member is a member of a JSON object, as splitCache.members gives it.
type member struct {
	name, value []byte
	escaped     bool
}
