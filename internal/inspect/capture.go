package inspect

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

// source is where in a packet capture a frame or an event was: the
// connection, the direction and the capture time of the segment that
// completed it.
type source struct {
	conn string
	dir  capture.Dir
	time time.Time
}

// where is "CONN DIR".
func (s *source) where() string { return s.conn + " " + s.dir.String() }

// appendTitle appends ", CONN DIR, TIME" to a title.
func (s *source) appendTitle(dst []byte) []byte {
	dst = append(dst, ", "...)
	dst = append(dst, s.conn...)
	dst = append(dst, ' ')
	dst = append(dst, s.dir.String()...)
	dst = append(dst, ", "...)
	return capture.AppendTime(dst, s.time)
}

// eventKind is what a capture's entry that is not a frame says.
type eventKind int

const (
	eventGap     eventKind = iota + 1 // bytes missing from the capture
	eventProblem                      // another problem: a WebSocket error, a connection not followed
	eventNote                         // a note: a connection already open, a direction that is not frames
	eventText                         // a WebSocket text message
)

var eventNames = [...]string{eventGap: "gap", eventProblem: "problem", eventNote: "note", eventText: "text"}

// event is an entry of a capture that is not a frame.
type event struct {
	kind  eventKind
	src   source
	msg   string // the problem or note, without the connection
	gap   *capture.GapError
	text  []byte
	check string // the check a problem counts under (Summary.Checks)
}

// InspectCapture reads a packet capture (pcap or pcapng, as internal/capture
// reads it) and shows every frame of every TCP connection in capture-time
// order, each titled with its connection, direction and capture time;
// offsets and frame numbers are those of the direction's stream, as
// decode's messages give them. The holes in the capture, WebSocket errors
// and connections not followed are entries of their own, marked as bad
// frames are; notes (a connection already open when the capture began, a
// direction that is not frames) and WebSocket text messages are shown too.
// Options.Skip, Length and OnlyFrame do not apply (they count bytes of a
// frame file). copts.MaxFrameSize defaults to Options.MaxFrameSize.
//
// A capture file that cannot be read gives a *capture.FormatError after
// what came before it is shown (and an entry for it); an I/O error a
// *ReadError, an output error a *WriteError.
func (in *Inspector) InspectCapture(name string, r io.Reader, copts capture.Options) (Summary, error) {
	in.files++
	s := Summary{Files: 1}
	err := in.inspectCapture(name, r, copts, &s)
	in.total.add(s)
	if err == nil && in.w.Err != nil {
		err = &WriteError{in.w.Err}
	}
	return s, err
}

// Record shows one record of a capture, as capture.Read or a live capture
// gives it, in the Inspector's format (as InspectCapture shows each one,
// without the file's title), and counts it in the totals that Close writes
// and returns. The record's bytes are not kept after the call. JSON
// objects name the input Options.Name ("-" when empty). A *WriteError
// reports that the output failed.
func (in *Inspector) Record(rec *capture.Record) error {
	if in.files == 0 {
		in.files, in.total.Files = 1, 1
	}
	name := in.opts.Name
	if name == "" {
		name = "-"
	}
	in.captured(&frameContext{name: name}, rec, &in.total)
	if in.w.Err != nil {
		return &WriteError{in.w.Err}
	}
	return nil
}

var errOutput = errors.New("the output failed")

func (in *Inspector) inspectCapture(name string, r io.Reader, copts capture.Options, s *Summary) error {
	o := &in.opts
	if o.Format != JSON && !o.SummaryOnly {
		in.writeFileTitle(name)
	}
	if copts.MaxFrameSize <= 0 {
		copts.MaxFrameSize = in.max
	}
	fc := &frameContext{name: name}
	var met bool
	var err error
	if o.Workers > 1 && !o.SummaryOnly {
		var handed int
		met, handed, err = in.inspectCaptureParallel(fc, r, copts, s, 0)
		if err == errDiverged {
			// A frame at the end of the bytes at hand, left to the
			// workers, is not JSON: where reading went on after it
			// depends on that. Read again, past what was written,
			// checking those frames in the reading pass.
			if r, err = copts.Reopen(); err == nil {
				copts.Reopen = nil
				var again bool
				again, _, err = in.inspectCaptureParallel(fc, r, copts, s, handed)
				met = met || again
			}
		}
	} else {
		met, err = in.readCapture(fc, r, copts, s)
	}
	var fe *capture.FormatError
	switch {
	case err == nil:
	case err == errOutput:
		return nil // Inspect reports the write error
	case errors.As(err, &fe):
		in.event(fc, &event{kind: eventProblem, msg: fe.Error(), check: "file"}, s)
		return err
	default:
		return &ReadError{err}
	}
	if !met && o.Format != JSON && !o.SummaryOnly {
		in.note(fc, "no frames: the capture holds no TCP connection that carries frames")
	}
	return nil
}

// readCapture shows and counts the records of a capture on one worker;
// met reports that it showed some.
func (in *Inspector) readCapture(fc *frameContext, r io.Reader, copts capture.Options, s *Summary) (met bool, err error) {
	o := &in.opts
	_, err = capture.Read(r, copts, func(rec *capture.Record) error {
		met = true
		in.captured(fc, rec, s)
		if in.w.Err != nil {
			return errOutput
		}
		if o.Flush != nil && rec.Idle {
			if err := o.Flush(); err != nil {
				in.w.Err = err
				return errOutput
			}
		}
		return nil
	})
	return met, err
}

// captured shows one record of a capture and counts it.
func (in *Inspector) captured(fc *frameContext, rec *capture.Record, s *Summary) {
	rep, ev := in.classify(rec)
	if rep != nil {
		in.count(s, rep)
		in.render(fc, rep)
		return
	}
	in.countEvent(ev, s)
	in.renderEvent(fc, ev)
}

// frameReport is the report of a good frame of a capture, whose payload as
// compact JSON is js.
// It overwrites rep, which the caller may reuse from frame to frame.
func (in *Inspector) frameReport(rep *report, f *kado.Frame, js []byte, src source) *report {
	in.analyzeFrameInto(rep, f)
	rep.srcBuf = src
	rep.src = &rep.srcBuf
	rep.json = js
	rep.decompressed = len(rep.payload)
	if rep.compressed {
		rep.decompressed = kado.UnRLELen(rep.payload[1:])
	}
	return rep
}

// classify makes the report of a frame (good or bad) of a capture, or the
// event of another record. Their bytes are the record's.
func (in *Inspector) classify(rec *capture.Record) (*report, *event) {
	src := &source{conn: rec.Conn, dir: rec.Dir, time: rec.Time}
	switch rec.Kind {
	case capture.Frame:
		// Shown and counted before the next record: one report serves.
		return in.frameReport(&in.capRep, rec.Frame, rec.JSON, *src), nil
	case capture.Text:
		return nil, &event{kind: eventText, src: *src, text: rec.Text}
	}
	var ce *capture.Error
	cause := rec.Err
	if errors.As(rec.Err, &ce) {
		cause = ce.Err
	}
	if rec.Kind == capture.Note {
		return nil, &event{kind: eventNote, src: *src, msg: cause.Error()}
	}
	var fe *kado.FrameError
	if errors.As(cause, &fe) {
		rep := in.analyzeCaptured(fe, rec)
		rep.src = src
		rep.problem.Where = src.where()
		return rep, nil
	}
	ev := &event{kind: eventProblem, src: *src, msg: cause.Error(), check: "capture"}
	var ge *capture.GapError
	var we *capture.WebSocketError
	switch {
	case errors.As(cause, &ge):
		ev.kind, ev.gap, ev.check = eventGap, ge, "gap"
	case errors.As(cause, &we):
		ev.check = "websocket"
	case errors.Is(cause, capture.ErrTooManyConns):
		ev.check = "connections"
	case errors.Is(cause, capture.ErrNotFrames):
		ev.check = "frames"
	case errors.As(cause, new(*capture.ConflictError)):
		ev.check = "overlap"
	case errors.As(cause, new(*capture.SkipError)), errors.As(cause, new(*capture.RecordSizeError)):
		ev.check = "packets" // packets of the capture not read
	}
	return nil, ev
}

// analyzeCaptured describes a bad frame of a capture: one whose payload is
// not JSON (the record holds the frame), or one whose header or length
// broke a rule (the error holds the header bytes).
func (in *Inspector) analyzeCaptured(fe *kado.FrameError, rec *capture.Record) *report {
	var m kado.Moved
	if rec.Moved != nil {
		m = *rec.Moved
	}
	if rec.Frame != nil { // the payload is not JSON
		rep := in.analyzeFrame(rec.Frame)
		rep.decompressed = len(rep.payload)
		if rep.compressed {
			rep.decompressed = kado.UnRLELen(rep.payload[1:])
			if errors.Is(fe, kado.ErrTooLarge) {
				rep.decompressed = -1
			}
		}
		rep.payloadError(fe)
		if m.Skipped > 0 {
			rep.skip = &skipInfo{from: rec.Frame.Offset, bytes: m.Skipped, found: m.Found, resume: rec.Frame.Offset + m.Skipped}
		}
		return rep
	}
	// The bytes after the header are not kept: the header is shown.
	avail := len(fe.Header)
	if fe.Kind == kado.TruncatedPayload && !m.Found {
		avail = max(avail, int(m.Skipped))
	}
	return in.analyzeBad(fe, fe.Header, avail, m.Skipped, m.Found)
}

// event shows an entry of a capture that is not a frame, and counts it.
func (in *Inspector) event(fc *frameContext, ev *event, s *Summary) {
	in.countEvent(ev, s)
	in.renderEvent(fc, ev)
}

// countEvent counts an entry of a capture that is not a frame.
func (in *Inspector) countEvent(ev *event, s *Summary) {
	var c *ConnSummary
	if ev.src.conn != "" {
		c = s.conn(ev.src.conn)
		s.seen(ev.src.time)
	}
	switch ev.kind {
	case eventText:
		s.Texts++
		if c != nil {
			c.Texts++
		}
	case eventNote:
		s.Notes++
	default:
		s.Faults++
		s.Errors++
		s.check(ev.check, 1)
		if c != nil {
			c.Faults++
		}
		if len(s.Problems) < MaxProblems {
			p := Problem{Frame: -1, Msg: ev.msg}
			if ev.src.conn != "" {
				p.Where = ev.src.where()
			}
			if ev.gap != nil {
				p.Offset = ev.gap.Start
			}
			s.Problems = append(s.Problems, p)
		}
	}
}

// renderEvent shows an entry of a capture that is not a frame.
func (in *Inspector) renderEvent(fc *frameContext, ev *event) {
	if in.opts.SummaryOnly {
		return
	}
	switch in.opts.Format {
	case JSON:
		in.line = appendEventJSON(in.line[:0], fc, ev)
		in.w.Write(in.line)
	case OneLine:
		in.renderEventLine(ev)
	default:
		in.renderEventText(ev)
	}
}

// eventTitle is "CONN DIR, TIME" of an event, or "" for the file.
func eventWhere(ev *event) string {
	if ev.src.conn == "" {
		return ""
	}
	return string(ev.src.appendTitle(nil)[2:])
}

// maxTextShown bounds the bytes of a text message shown in the Text view.
const maxTextShown = 4096

func (in *Inspector) renderEventText(ev *event) {
	p := in.printer()
	defer in.done(p)
	p.nl()
	where := eventWhere(ev)
	if where != "" {
		where += ": "
	}
	switch ev.kind {
	case eventText:
		p.str(paint.Title, fmt.Sprintf("text message, %s%d %s", where, len(ev.text), plural(len(ev.text), "byte", "bytes")))
		p.nl()
		t := ev.text
		more := 0
		if len(t) > maxTextShown {
			n := maxTextShown
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			t, more = t[:n], len(t)-n
		}
		p.plain(indent)
		p.str(paint.JSONString, strconv.Quote(string(t)))
		p.nl()
		if more > 0 {
			p.plain(indent)
			p.str(paint.Dim, fmt.Sprintf("... %d more %s not shown", more, plural(more, "byte", "bytes")))
			p.nl()
		}
	case eventNote:
		p.str(paint.Dim, "note, "+where+ev.msg)
		p.nl()
	default:
		p.str(paint.Broken, "INVALID: "+where+ev.msg)
		p.nl()
	}
}

func (in *Inspector) renderEventLine(ev *event) {
	p := in.printer()
	defer in.done(p)
	at := "-"
	if ev.gap != nil {
		at = strconv.FormatInt(ev.gap.Start, 10)
	}
	p.plain(fmt.Sprintf("%6s %10s  ", "-", at))
	if ev.src.conn != "" {
		p.plain(string(capture.AppendTime(nil, ev.src.time)) + " " + ev.src.where() + "  ")
	}
	switch ev.kind {
	case eventText:
		p.str(paint.Title, fmt.Sprintf("%-16s", "TEXT"))
		p.plain(fmt.Sprintf(" %-10s %9s      ", "", strconv.Itoa(len(ev.text))+" B"))
		q := strconv.Quote(string(ev.text))
		p.str(paint.Dim, preview([]byte(q)))
	case eventNote:
		p.str(paint.Dim, "~ "+ev.msg)
	default:
		p.str(paint.Broken, "! "+ev.msg)
	}
	p.nl()
}

// appendSource appends the "capture" member of a frame or event.
func appendSource(dst []byte, s *source) []byte {
	dst = append(appendKey(dst, false, "capture"), `{"conn":`...)
	dst = appendString(dst, s.conn)
	dst = append(dst, `,"dir":"`...)
	dst = append(dst, s.dir.String()...)
	dst = append(dst, `","time":"`...)
	dst = capture.AppendTime(dst, s.time)
	return append(dst, `"}`...)
}

// appendEventJSON writes an event as
//
//	{"kind":"gap","file":"cap.pcapng","capture":{...},"offset":33,"bytes":10,"lost":5,"message":"..."}
//	{"kind":"problem"|"note","file":...,"capture":{...},"message":"..."}
//	{"kind":"text","file":...,"capture":{...},"text":"..."}
//
// A problem of the file itself has no "capture".
func appendEventJSON(dst []byte, fc *frameContext, ev *event) []byte {
	dst = append(dst, `{"kind":"`...)
	dst = append(dst, eventNames[ev.kind]...)
	dst = append(dst, '"')
	dst = appendString(appendKey(dst, false, "file"), fc.name)
	if ev.src.conn != "" {
		dst = appendSource(dst, &ev.src)
	}
	if g := ev.gap; g != nil {
		dst = appendInt(dst, false, "offset", g.Start)
		dst = appendInt(dst, false, "bytes", g.End-g.Start)
		dst = appendInt(dst, false, "lost", g.Lost)
	}
	if ev.kind == eventText {
		dst = appendKey(dst, false, "text")
		dst = appendString(dst, string(ev.text))
	} else {
		dst = appendString(appendKey(dst, false, "message"), ev.msg)
	}
	return append(dst, "}\n"...)
}
