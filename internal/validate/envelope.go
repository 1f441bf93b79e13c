package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// record is one message of an envelope protocol, decoded.
type record struct {
	index   int
	v       map[string]any // the decoded message, when it was decoded
	decoded bool
	split   *splitCache // the message's objects, split once (reused from message to message)
	buf     *[]byte     // scratch memory of the one goroutine that reads the message
	raw     []byte
	pos     jsonv.Position // where raw starts in the file
	name    string
}

// at is a finding at the field ptr of the record.
func (r *record) at(ptr, code string, sev Severity, msg string) Finding {
	p := advance(r.pos, r.raw[:jsonv.PointerOffset(r.raw, ptr)])
	return Finding{File: r.name, Line: p.Line, Column: p.Column, Frame: -1, Offset: p.Offset, Record: r.index,
		Pointer: ptr, Code: code, Severity: sev, Message: msg}
}

// advance is the position just past b, which starts at p and is valid
// UTF-8 (columns count characters), as jsonv.Reader counts it.
func advance(p jsonv.Position, b []byte) jsonv.Position {
	p.Offset += int64(len(b))
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		p.Line += bytes.Count(b, []byte{'\n'})
		p.Column = 1 + utf8.RuneCount(b[nl+1:])
	} else {
		p.Column += utf8.RuneCount(b)
	}
	return p
}

// mark is a place kept for a finding made later, at the end of the stream.
type mark struct {
	Finding
}

// mark keeps the place of the record (its start) with a pointer: cheap,
// for every record that a rule at the end of the stream may name.
func (r *record) mark(ptr string) mark {
	return mark{Finding{File: r.name, Frame: -1, Record: r.index, Pointer: ptr, Line: r.pos.Line, Column: r.pos.Column, Offset: r.pos.Offset}}
}

// protocol is the Go side of an envelope protocol: the rules a schema
// cannot say, per message and across the stream. A message goes through
// local, which reads that message alone and may run on any worker, then
// through stream, in input order on one goroutine, then finish at the end.
type protocol interface {
	schema() string
	codePrefix() string
	// local appends to found the findings of the rules of the message
	// alone, in the order one worker emits them, and keeps in f what
	// stream needs (slices of r.raw, or copies: not r's scratch memory).
	local(r *record, f *facts, found []Finding) []Finding
	// stream applies the rules across the stream to the message; false
	// when emit asks to stop (or the protocol stops the check).
	stream(r *record, f *facts, emit func(Finding) bool) bool
	finish(emit func(Finding) bool) bool
}

// facts is what the rules across the stream need of one message, taken
// from it by protocol.local.
type facts struct {
	object bool // the message is an object: the stream rules apply

	// Chiffon.
	msgID, reqID, task, step []byte
	msgOK, reqOK             bool
	msgKey, reqKey, taskKey  idKey  // of msgID, reqID and task, found on the workers (keyOf)
	payloadHash              uint64 // of the payload as compact JSON
	kind                     uint8  // chfOther, chfResult, chfStatus
	chunk                    bool   // a work_status with an output_chunk A-B of N
	a, b, n                  int64

	// Trace.
	run    []byte
	seq    int64
	runSeq bool // run and seq are set

	// Narratoria.
	narr narrFacts
}

// check runs the rules of one message alone: the schema (the fast path,
// else the schema library, whose findings come in the order of their
// offsets) and protocol.local. It appends the findings to found.
func (r *record) check(p protocol, f *facts, found []Finding) ([]Finding, error) {
	*f = facts{}
	// The fast path: a message it is sure of is not decoded at all.
	if !r.fast(p.schema()) {
		issues, err := r.slow(p.schema())
		if err != nil {
			return found, err
		}
		start := len(found)
		for _, it := range issues {
			found = append(found, r.at(it.Pointer, it.Code, it.Severity, it.Message))
		}
		s := found[start:]
		sort.SliceStable(s, func(i, j int) bool { return s[i].Offset < s[j].Offset })
	}
	if f.object = r.isObject(); f.object {
		found = p.local(r, f, found)
	}
	return found, nil
}

// envelopes validates a stream of JSON messages (one document, a JSON array
// of messages, or NDJSON) with a protocol, on opts.Workers workers.
func envelopes(rdr io.Reader, name string, opts Options, p protocol, emit Emit) (int, error) {
	if opts.Workers > 1 {
		return envelopesJobs(rdr, name, opts, p, emit)
	}
	rd := jsonv.NewReader(rdr, jsonv.Options{MaxValueSize: int64(opts.MaxFrameSize), Elements: true})
	return envelopesFrom(rd, 0, name, p, emit)
}

// envelopesFrom validates the messages rd reads, the first of them record
// n, on the calling goroutine, and returns the count of records.
func envelopesFrom(rd *jsonv.Reader, n int, name string, p protocol, emit Emit) (int, error) {
	var buf []byte
	r := &record{split: &splitCache{}, buf: &buf} // one for all the messages: nothing keeps it
	var f facts
	var found []Finding
	for {
		v, pos, err := rd.Next()
		if err == io.EOF {
			p.finish(emit)
			return n, nil
		}
		if err != nil {
			return n, streamError(name, err, n, p, emit)
		}
		*r = record{index: n, raw: v, pos: pos, name: name, split: r.split, buf: r.buf}
		n++
		if found, err = r.check(p, &f, found[:0]); err != nil {
			return n, err
		}
		for _, fi := range found {
			if !emit(fi) {
				return n, nil
			}
		}
		if f.object && !p.stream(r, &f, emit) {
			return n, nil
		}
	}
}

// streamError is what ends a stream of messages early: a syntax error or
// a value past the limit is a finding (and no error), anything else (a
// read error) is returned.
func streamError(name string, err error, n int, p protocol, emit Emit) error {
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		emit(textFinding(name, se, n, p.codePrefix()+"000"))
		return nil
	}
	if errors.Is(err, jsonv.ErrTooLarge) {
		emit(Finding{File: name, Frame: -1, Record: n, Code: p.codePrefix() + "000", Message: err.Error()})
		return nil
	}
	return err
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
