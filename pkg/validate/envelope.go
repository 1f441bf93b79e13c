package validate

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// record is one message of an envelope protocol, decoded.
type record struct {
	index int
	v     map[string]any // nil when the message is not an object
	raw   []byte
	rd    *jsonv.Reader
	start int64 // offset of raw in the file
	name  string
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

func (r *record) mark(ptr string) mark { return mark{r.at(ptr, "", Error, "")} }

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
		r := &record{index: n, raw: v, rd: rd, start: pos.Offset, name: name}
		n++
		val, err := decodeAny(v)
		if err != nil {
			return n, fmt.Errorf("decoding record %d: %v", r.index, err)
		}
		r.v, _ = val.(map[string]any)
		issues, err := checkSchema(p.schema(), val)
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
		if r.v != nil && !p.check(r, emit) {
			return n, nil
		}
	}
}

// str is the string at a path of keys in a decoded message, "" when absent.
func str(v map[string]any, keys ...string) (string, bool) {
	var cur any = v
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		cur = m[k]
	}
	s, ok := cur.(string)
	return s, ok
}

// field is the value at a path of keys, nil when absent.
func field(v map[string]any, keys ...string) any {
	var cur any = v
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}
