package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/sign"
	"github.com/toonkit/toonkit/internal/validate"
)

// VerifyFormats are the report formats of verify.
var VerifyFormats = []string{Text, JSON, GitHub, JUnit}

// VerifySummary is what a verification found, as every report's summary
// gives it. A field added here (say, the key each run matched) is given by
// the reports that show it.
type VerifySummary struct {
	OK                bool
	Events, Unread    int
	Runs              int
	Errors, Warnings  int
	MetaOnly, TopOnly int
	RequireBoth       bool
	// Keys are the keys that signed each run, when more than one key was
	// given (nil otherwise): the text report names them per run, the json
	// report as "keys", the github report as notices.
	Keys []sign.RunKeys
}

// SummaryOf is the summary of a log checked to its end.
func SummaryOf(l *sign.Log) VerifySummary {
	return VerifySummary{OK: l.OK(), Events: l.Events, Unread: l.Unread, Runs: l.Runs(), Errors: l.Errors,
		Warnings: l.Warnings, MetaOnly: l.MetaOnly, TopOnly: l.TopOnly, RequireBoth: l.RequireBoth, Keys: l.RunKeys()}
}

// Verify writes the report of toonkit verify: the problems of a log of
// trace events, which may come after the end of their file (a gap is sure
// only later).
type Verify struct {
	w        *writer
	o        Options
	scheme   sign.Scheme
	findings []validate.Finding
	messages [][]byte
	prefixes map[string]string // the first run_id of each 8-character prefix
	junit    *junit
}

// NewVerify starts the report of a verification in o.Format (one of
// VerifyFormats) on w; scheme is the signature scheme, named with the
// message signed of a mismatch (Problem.Message).
func NewVerify(w io.Writer, o Options, scheme sign.Scheme) *Verify {
	r := &Verify{w: newWriter(w), o: o, scheme: scheme}
	if o.Format == JUnit {
		r.junit = newJUnit(r.w, o, "toonkit verify", "event", "events", true)
	}
	return r
}

// Begin starts a file of the log.
func (r *Verify) Begin(file string) {
	if r.junit != nil {
		r.junit.begin(file)
	}
}

// End ends a file of the log, of which records were read; err, when not
// nil, is why it could not be read.
func (r *Verify) End(file string, records int, err error) {
	if r.junit != nil {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		r.junit.end(file, records, msg)
	}
}

// runLabel is a run_id cut to its first 8 characters, unless another
// run_id of the report starts with the same 8.
func (r *Verify) runLabel(id string) string {
	rs := []rune(id)
	if len(rs) <= 9 {
		return id
	}
	short := string(rs[:8])
	if r.prefixes == nil {
		r.prefixes = map[string]string{}
	}
	if first, ok := r.prefixes[short]; !ok {
		r.prefixes[short] = id
	} else if first != id {
		return id
	}
	return short + "…"
}

// subject is "seq 16 (run 550e8400-e29b-41d4-a716-446655440000)", or the
// pointer of an event that could not be read.
func subject(p sign.Problem, run string) string {
	if p.Seq == "" && p.Run != "" {
		return "run " + run // a seal's finding
	}
	if p.Seq == "" {
		return p.Pointer
	}
	return fmt.Sprintf("seq %s (run %s)", p.Seq, run)
}

// Finding is a problem as a finding of validate's reports: its message
// names the event's seq and run.
func Finding(p sign.Problem) validate.Finding {
	f := validate.Finding{File: p.File, Line: p.Line, Column: p.Column, Frame: -1, Offset: p.Offset, Record: p.Index,
		Pointer: p.Pointer, Code: p.Code, Message: p.Msg}
	if p.Warning {
		f.Severity = validate.Warning
	}
	if p.Seq != "" || p.Run != "" {
		f.Message = subject(p, p.Run) + ": " + p.Msg
	}
	return f
}

// Problem reports a problem of the log.
func (r *Verify) Problem(p sign.Problem) {
	switch r.o.Format {
	case Text:
		r.text(p)
	case GitHub:
		validate.WriteGitHub(r.w, Finding(p))
	case JUnit:
		r.junit.count(p.File, p.Warning)
		name := "line " + strconv.Itoa(p.Line)
		switch {
		case p.Seq != "":
			name = "seq " + p.Seq + " run " + r.runLabel(p.Run)
		case p.Run != "":
			name = "run " + r.runLabel(p.Run)
		}
		line := r.line(p, false)
		if p.Message != nil {
			line += "\n" + r.signed(p.Message)
		}
		r.junit.add(entry{suite: p.File, record: p.Index, name: name, code: p.Code,
			fail: !p.Warning || r.o.Strict, msg: msgOf(p.Pointer, p.Msg), text: line})
	default:
		r.findings = append(r.findings, Finding(p))
		r.messages = append(r.messages, p.Message)
	}
}

// line is a problem as a line of the text report.
func (r *Verify) line(p sign.Problem, color bool) string {
	where := fmt.Sprintf("%s:%d", p.File, p.Line)
	if p.Seq == "" && p.Run == "" {
		where += ":" + strconv.Itoa(p.Column)
	}
	label, msg := "", p.Msg
	if color {
		where = r.o.Paint.Paint(paint.Where, where)
		if p.Warning {
			label = r.o.Paint.Paint(paint.Warning, "warning") + ": "
		} else {
			msg = r.o.Paint.Paint(paint.Failure, msg)
		}
	} else if p.Warning {
		label = "warning: "
	}
	if s := subject(p, r.runLabel(p.Run)); s != "" {
		msg = s + ": " + msg
	}
	return fmt.Sprintf("%s: %s%s", where, label, msg)
}

func (r *Verify) text(p sign.Problem) {
	r.w.str(r.line(p, r.o.Paint != nil) + "\n")
	if p.Message != nil {
		r.w.str(r.signed(p.Message) + "\n")
	}
}

// signed shows the message signed to check a signature that did not
// match.
func (r *Verify) signed(m []byte) string {
	return fmt.Sprintf("    the message signed (%s: %s), %d bytes:\n    %s", r.scheme, schemeParts[r.scheme], len(m), printable(m))
}

var schemeParts = map[sign.Scheme]string{
	sign.SchemeSpec:           "run_id seq t actor type json.dumps(payload, sort_keys=True)",
	sign.SchemePayload:        "run_id seq json.dumps(payload)",
	sign.SchemePayloadCompact: "run_id seq json.dumps(payload, sort_keys=True, separators=(',', ':'))",
	sign.SchemeEventCompact:   "run_id seq json.dumps(event without meta and signature, sort_keys=True, separators=(',', ':'))",
}

// printable is the message as it is, or Go-quoted when it holds a control
// character (possible in run_id, t, actor or type), which a terminal
// would act on.
func printable(m []byte) string {
	s := string(m)
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// Close ends the report with the summary of the log.
func (r *Verify) Close(l VerifySummary) error {
	switch r.o.Format {
	case JSON:
		b := fmt.Appendf(nil, `{"ok":%t,"events":%d,"unread":%d,"runs":%d,"failures":%d,"warnings":%d,"meta_signature_only":%d,"top_signature_only":%d,`,
			l.OK, l.Events, l.Unread, l.Runs, l.Errors, l.Warnings, l.MetaOnly, l.TopOnly)
		if l.Keys != nil {
			b = append(sign.AppendJSON(append(b, `"keys":`...), l.Keys), ',')
		}
		b = append(b, `"findings":[`...)
		for i, f := range r.findings {
			if i > 0 {
				b = append(b, ',')
			}
			b = validate.AppendFinding(b, f)
			if m := r.messages[i]; m != nil {
				b = append(b[:len(b)-1], `,"signed_message":`...)
				b = append(jsonv.AppendQuote(b, string(m)), '}')
			}
		}
		r.w.Write(append(b, "]}\n"...))
		return r.w.Err
	case JUnit:
		return r.junit.close()
	}
	for _, rk := range l.Keys {
		if r.o.Format == GitHub {
			r.w.printf("::notice title=keys::%s\n", validate.GitHubData("run "+rk.Run+": "+rk.Uses()))
		} else {
			r.w.printf("keys: run %s: %s\n", r.runLabel(rk.Run), rk.Uses())
		}
	}
	if n := l.MetaOnly; n > 0 && !l.RequireBoth {
		note := fmt.Sprintf("%d %s signed in meta.signature only, with no top-level copy (--require-both makes that an error)",
			n, plural(n, "event is", "events are"))
		if r.o.Format == GitHub {
			r.w.printf("::notice title=%s::%s\n", sign.CodeOneCopy, note)
		} else {
			r.w.printf("note: %s\n", note)
		}
	}
	line := fmt.Sprintf("verified %d %s in %d %s", l.Events, plural(l.Events, "event", "events"), l.Runs, plural(l.Runs, "run", "runs"))
	if l.Unread > 0 {
		line += fmt.Sprintf(" (%d %s could not be read as %s)", l.Unread, plural(l.Unread, "record", "records"), plural(l.Unread, "an event", "events"))
	}
	line += ": "
	result := "all signatures valid"
	if !l.OK {
		result = fmt.Sprintf("%d %s", l.Errors, plural(l.Errors, "failure", "failures"))
	}
	if l.Warnings > 0 {
		result += fmt.Sprintf(", %d %s", l.Warnings, plural(l.Warnings, "warning", "warnings"))
	}
	if r.o.Format == Text && r.o.Paint != nil {
		role := paint.OK
		if !l.OK {
			role = paint.Error
		}
		result = r.o.Paint.Paint(role, result)
	}
	r.w.str(line + result + "\n")
	return r.w.Err
}
