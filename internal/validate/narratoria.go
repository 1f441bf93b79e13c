package validate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
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
		n := &narr{done: -1, errorAt: -1}
		return envelopes(br, name, opts, &narrArray{n: n, file: name}, emit)
	}
	if opts.Workers > 1 {
		return narratoriaJobs(br, name, opts, emit)
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
	n := &narr{done: -1, errorAt: -1}
	return narrLinesFrom(&in, 0, n, name, emit, line)
}

// narrLinesFrom is NarratoriaLines from the line after lineNo, with the
// rules' state n; in is read as the rest of the stream.
func narrLinesFrom(in *inbuf.Buffer, lineNo int, n *narr, name string, emit Emit, line func(Line)) (events int, end bool, err error) {
	max := in.Max - 32<<10
	split := &splitCache{}
	events = lineNo
	var found []Finding
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
		c := lineCheck{num: lineNo, off: lineStart, index: events, raw: raw}
		found, err = c.local(lf, split, name, found[:0])
		more, stop := true, false
		for i, f := range found {
			if !count(f) {
				more = false
				if i < c.pre {
					c.event = nil // the line rules stopped the check before the event was read
				}
				break
			}
		}
		if err != nil && more {
			return events, false, err
		}
		if c.event != nil {
			got.Event, got.Type = c.event, c.nf.typ
		}
		if more && c.object {
			more, stop = c.stream(n, name, count)
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

// lineCheck is one line of a Narratoria stream and what its rules found.
type lineCheck struct {
	num    int    // 1-based line number
	off    int64  // offset of the line in the stream
	index  int    // the line's record number: the lines before it
	raw    []byte // the line without its LF
	json   []byte // the line without its LF and CR
	event  []byte // the JSON object the line holds; nil when none
	object bool   // the rules across the stream apply (event is an object)
	pre    int    // how many findings are of the line rules (NAR001, NAR003)
	found  int    // on a worker: the line's findings end at chunk.found[found]
	nf     narrFacts
}

// at is a finding at column col of the line.
func (c *lineCheck) at(name string, col int, ptr, code string, sev Severity, msg string) Finding {
	return Finding{File: name, Line: c.num, Column: col, Frame: -1, Offset: c.off + int64(col-1), Record: c.index, Pointer: ptr, Code: code, Severity: sev, Message: msg}
}

// col is the column of the field ptr of the event.
func (c *lineCheck) col(ptr string) int {
	return utf8.RuneCount(c.json[:jsonv.PointerOffset(c.json, ptr)]) + 1
}

// local checks the line alone (lf: it ends in LF): the line rules, the
// JSON, the schema. It appends the findings to found, in the order they
// are emitted, and fills in what the rules across the stream need.
func (c *lineCheck) local(lf bool, split *splitCache, name string, found []Finding) ([]Finding, error) {
	line := c.raw
	if !lf {
		found = append(found, c.at(name, len([]rune(string(line)))+1, "", "NAR003", Error, "the last line does not end in LF"))
	}
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
		found = append(found, c.at(name, len([]rune(string(line)))+1, "", "NAR001", Error, "the line ends in CR LF: events end in LF alone"))
	}
	c.pre, c.json = len(found), line
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
		return append(found, c.at(name, col, "", "NAR002", Error, msg)), nil
	}
	rec := &record{index: c.index, raw: line, name: name, split: split}
	var issues []issue
	if !rec.fast("narratoria") {
		var err error
		if issues, err = rec.slow("narratoria"); err != nil {
			return found, err
		}
	}
	typ, isString := rec.str("type")
	if c.object = rec.isObject(); c.object {
		c.event = line
		c.nf.local(rec, typ)
	}
	for _, it := range issues {
		if it.Code == "NAR011" && isString && !narratoriaTypes[typ] {
			continue // an unknown type: NAR084 says it, and more
		}
		found = append(found, c.at(name, c.col(it.Pointer), it.Pointer, it.Code, it.Severity, it.Message))
	}
	return found, nil
}

// stream applies the rules across the stream to the line's event.
func (c *lineCheck) stream(n *narr, name string, emit Emit) (more, stop bool) {
	return n.check(&c.nf, c.index, func(ptr, code string, sev Severity, msg string) bool {
		return emit(c.at(name, c.col(ptr), ptr, code, sev, msg))
	})
}

type narr struct {
	assets  idSet[int32] // assetId -> record of its first asset event
	done    int          // record of the done event, -1 before
	errorAt int          // record of the last error event, -1 when none is pending
}

var narratoriaTypes = map[string]bool{"log": true, "state_patch": true, "asset": true, "ui_event": true, "error": true, "done": true}

// narrFacts is what the rules across the stream need of one event.
type narrFacts struct {
	typ      string
	mediaErr bool   // an asset's mediaType is not a MIME type
	media    string // that mediaType
	assetID  string
	hasAsset bool
	okTrue   bool // a done event's ok is true
}

// local reads what the rules across the stream need of the event r, of
// type typ.
func (nf *narrFacts) local(r *record, typ string) {
	*nf = narrFacts{typ: typ}
	switch typ {
	case "asset":
		if mt, ok := r.str("mediaType"); ok {
			if _, _, err := mime.ParseMediaType(mt); err != nil {
				nf.mediaErr, nf.media = true, mt
			}
		}
		nf.assetID, nf.hasAsset = r.str("assetId")
	case "done":
		nf.okTrue = string(r.get("ok")) == "true"
	}
}

// check applies the rules across the stream to one event, the record
// index; stop is true after an unknown type.
func (n *narr) check(nf *narrFacts, index int, emit func(ptr, code string, sev Severity, msg string) bool) (more, stop bool) {
	typ := nf.typ
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
		if nf.mediaErr {
			if !emit("/mediaType", "NAR043", Error, fmt.Sprintf("must be a valid MIME type, found %q", nf.media)) {
				return false, false
			}
		}
		if nf.hasAsset {
			if first, seen := n.assets.add([]byte(nf.assetID), int32(index)); seen {
				if !emit("/assetId", "NAR046", Error, fmt.Sprintf("repeats the assetId of record %d", first)) {
					return false, false
				}
			}
		}
	case "error":
		n.errorAt = index
	case "done":
		n.done = index
		if n.errorAt >= 0 && nf.okTrue {
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

func (a *narrArray) local(r *record, f *facts, found []Finding) []Finding {
	typ, _ := r.str("type")
	f.narr.local(r, typ)
	return found
}

func (a *narrArray) stream(r *record, f *facts, emit func(Finding) bool) bool {
	if a.stop {
		return false
	}
	more, stop := a.n.check(&f.narr, r.index, func(ptr, code string, sev Severity, msg string) bool {
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
