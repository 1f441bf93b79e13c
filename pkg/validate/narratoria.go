package validate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"

	"github.com/toonkit/toonkit/internal/inbuf"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// Narratoria validates the NDJSON a Narratoria tool writes on stdout: every
// line one UTF-8 JSON object ending in LF (NAR001 a CR, NAR002 not one JSON
// object, NAR003 no LF at the end), each event against narratoria.json, a
// valid MIME type (NAR043), and across the stream: assetId unique (NAR046),
// exactly one done (NAR080 none, NAR081 another), events after done
// (NAR082, a warning), an error event not followed by done with ok false
// (NAR083, a warning). An unknown type is a protocol error that ends the
// checking of the stream (spec section 5.2).
//
// A JSON array of events (a log kept as JSON, say) is read too: its events
// are checked as such, without the line rules.
func Narratoria(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if startsWith(br, '[') {
		n := &narr{assets: map[string]int{}, done: -1, errorAt: -1}
		return envelopes(br, name, opts, &narrArray{n: n, file: name}, emit)
	}
	n, _, err := NarratoriaLines(br, name, opts, emit, nil)
	return n, err
}

// Line is what the Narratoria rules made of one line of a tool's stdout.
type Line struct {
	Number int    // 1-based line number
	Offset int64  // byte offset of the line in the stream
	Raw    []byte // the line as read, without its LF; valid during the call
	Event  []byte // the JSON object the line holds, without a CR; nil when it holds none
	Type   string // the event's type; "" when it has none
	Errors int    // how many errors the line's findings hold (warnings not counted)
	// AfterDone says the line came after the done event: a host ignores it.
	AfterDone bool
	// Stop says the stream ends with this line: an unknown type is a
	// protocol error that ends the invocation (spec 5.2).
	Stop bool
}

// NarratoriaLines reads the NDJSON a Narratoria tool writes on stdout one
// line at a time, as it arrives (a line is checked as soon as its LF is
// read, without waiting for more), checks it with the rules of Narratoria,
// emits its findings and then calls line, when not nil, with what the
// rules made of it. It is Narratoria for a live stream: toonkit exec reads
// a running tool with it.
//
// It returns the number of lines read and end, true when the stream was
// read to its end (and the rules of its end applied: NAR080), false when
// it stopped before: a line longer than opts.MaxFrameSize (NAR002), an
// unknown type (NAR084), or emit asking to stop.
func NarratoriaLines(r io.Reader, name string, opts Options, emit Emit, line func(Line)) (events int, end bool, err error) {
	max := opts.MaxFrameSize
	if max <= 0 {
		max = jsonv.DefaultMaxValueSize
	}
	in := inbuf.Buffer{R: r, First: 32 << 10, Steady: 256 << 10, Max: max + 32<<10}
	n := &narr{assets: map[string]int{}, done: -1, errorAt: -1}
	split := &splitCache{}
	lineNo := 0
	for {
		lineStart := in.Base + int64(in.Pos)
		raw, lf, err := in.Line(max)
		switch {
		case err == inbuf.ErrLineTooLong:
			emit(Finding{File: name, Line: lineNo + 1, Column: 1, Frame: -1, Offset: lineStart, Record: events, Code: "NAR002", Message: fmt.Sprintf("the line passes the limit of %d bytes", max)})
			return events, false, nil
		case err == io.EOF:
			n.finish(name, emit)
			return events, true, nil
		case err != nil:
			return events, false, err
		}
		lineNo++
		got := Line{Number: lineNo, Offset: lineStart, Raw: raw, AfterDone: n.done >= 0}
		count := func(f Finding) bool {
			if f.Severity == Error {
				got.Errors++
			}
			return emit(f)
		}
		more, stop, err := n.line(raw, lf, &got, split, name, events, count)
		if err != nil {
			return events, false, err
		}
		events++
		got.Stop = stop
		if line != nil {
			line(got)
		}
		if !more || stop {
			return events, false, nil
		}
	}
}

// line checks one line of the stream (the events-th), fills in got, and
// says whether to go on (emit did not ask to stop) and whether the line
// ends the stream.
func (n *narr) line(line []byte, lf bool, got *Line, split *splitCache, name string, events int, emit Emit) (more, stop bool, err error) {
	at := func(col int, ptr, code string, sev Severity, msg string) Finding {
		return Finding{File: name, Line: got.Number, Column: col, Frame: -1, Offset: got.Offset + int64(col-1), Record: events, Pointer: ptr, Code: code, Severity: sev, Message: msg}
	}
	more = true
	if !lf {
		more = emit(at(len([]rune(string(line)))+1, "", "NAR003", Error, "the last line does not end in LF"))
	}
	if more && len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
		more = emit(at(len([]rune(string(line)))+1, "", "NAR001", Error, "the line ends in CR LF: events end in LF alone"))
	}
	if !more {
		return false, false, nil
	}
	if err := jsonv.Check(line); err != nil {
		off := jsonv.ErrorOffset(err)
		col := 1
		if off >= 0 {
			col = len([]rune(string(line[:min(int(off), len(line))]))) + 1
		}
		msg := "not one JSON object: " + jsonv.Message(err)
		if len(bytes.TrimSpace(line)) == 0 {
			msg = "an empty line: every line is one JSON object"
		}
		return emit(at(col, "", "NAR002", Error, msg)), false, nil
	}
	rec := &record{index: events, raw: line, name: name, split: split}
	var issues []issue
	if !rec.fast("narratoria") {
		if issues, err = rec.slow("narratoria"); err != nil {
			return false, false, err
		}
	}
	typ, isString := rec.str("type")
	if rec.isObject() {
		got.Event, got.Type = line, typ
	}
	pos := func(ptr string) int {
		return len([]rune(string(line[:jsonv.PointerOffset(line, ptr)]))) + 1
	}
	for _, it := range issues {
		if it.Code == "NAR011" && isString && !narratoriaTypes[typ] {
			continue // an unknown type: NAR084 says it, and more
		}
		if more = emit(at(pos(it.Pointer), it.Pointer, it.Code, it.Severity, it.Message)); !more {
			return false, false, nil
		}
	}
	if rec.isObject() {
		more, stop = n.check(rec, func(ptr, code string, sev Severity, msg string) bool {
			return emit(at(pos(ptr), ptr, code, sev, msg))
		})
	}
	return more, stop, nil
}

type narr struct {
	assets  map[string]int
	done    int // record of the done event, -1 before
	errorAt int // record of the last error event, -1 when none is pending
}

var narratoriaTypes = map[string]bool{"log": true, "state_patch": true, "asset": true, "ui_event": true, "error": true, "done": true}

// check applies the rules across the stream to one event; stop is true
// after an unknown type.
func (n *narr) check(r *record, emit func(ptr, code string, sev Severity, msg string) bool) (more, stop bool) {
	typ, _ := r.str("type")
	if !narratoriaTypes[typ] {
		return emit("/type", "NAR084", Error, "an unknown event type is a protocol error: the rest of the stream is not checked (spec 5.2)"), true
	}
	if n.done >= 0 {
		if typ == "done" {
			return emit("/type", "NAR081", Error, fmt.Sprintf("a second done event (the first is record %d)", n.done)), false
		}
		return emit("/type", "NAR082", Warning, fmt.Sprintf("an event after done (record %d) is ignored", n.done)), false
	}
	switch typ {
	case "asset":
		if mt, ok := r.str("mediaType"); ok {
			if _, _, err := mime.ParseMediaType(mt); err != nil {
				if !emit("/mediaType", "NAR043", Error, fmt.Sprintf("must be a valid MIME type, found %q", mt)) {
					return false, false
				}
			}
		}
		if id, ok := r.str("assetId"); ok {
			if first, seen := n.assets[id]; seen {
				if !emit("/assetId", "NAR046", Error, fmt.Sprintf("repeats the assetId of record %d", first)) {
					return false, false
				}
			} else {
				n.assets[id] = r.index
			}
		}
	case "error":
		n.errorAt = r.index
	case "done":
		n.done = r.index
		if ok := string(r.get("ok")) == "true"; n.errorAt >= 0 && ok {
			if !emit("/ok", "NAR083", Warning, fmt.Sprintf("done has ok true after the error event of record %d (it should be false)", n.errorAt)) {
				return false, false
			}
		}
		n.errorAt = -1
	}
	return true, false
}

func (n *narr) finish(name string, emit Emit) {
	if n.done < 0 {
		emit(Finding{File: name, Frame: -1, Record: -1, Code: "NAR080", Severity: Error, Message: "no done event: each invocation ends with exactly one"})
	}
}

// startsWith reports whether the first byte other than white space is c.
func startsWith(br *bufio.Reader, c byte) bool {
	for n := 1; n <= 4096; n *= 2 {
		p, err := br.Peek(n)
		if t := jsonv.TrimSpace(p); len(t) > 0 {
			return t[0] == c
		}
		if err != nil {
			return false
		}
	}
	return false
}

// narrArray is the Narratoria protocol for a JSON array of events.
type narrArray struct {
	n    *narr
	file string
	stop bool
}

func (a *narrArray) schema() string     { return "narratoria" }
func (a *narrArray) codePrefix() string { return "NAR" }

func (a *narrArray) check(r *record, emit func(Finding) bool) bool {
	if a.stop {
		return false
	}
	more, stop := a.n.check(r, func(ptr, code string, sev Severity, msg string) bool {
		return emit(r.at(ptr, code, sev, msg))
	})
	a.stop = stop
	return more && !stop
}

func (a *narrArray) finish(emit func(Finding) bool) bool {
	if !a.stop {
		a.n.finish(a.file, emit)
	}
	return true
}
