package host

import (
	"fmt"
	"strconv"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/validate"
)

// The JSON report is NDJSON: a line per event as it is read, a line per
// violation as it is found, and a last line that sums the invocation up.
// Each line's "kind" says which it is.

// AppendEventJSON appends the report line of an event, with its newline:
// {"kind":"event","line":N,"event":{…}} for a line that holds a JSON
// object (compact; otherwise as received), {"kind":"event","line":N,
// "text":"…"} for one that does not; "ignored":"…" says why the host did
// not apply it.
func AppendEventJSON(dst []byte, ev *Event) []byte {
	dst = fmt.Appendf(dst, `{"kind":"event","line":%d`, ev.Line)
	if ev.Event != nil {
		dst = append(dst, `,"event":`...)
		dst = append(dst, jsonv.Compacted(nil, ev.Event)...)
	} else {
		dst = append(dst, `,"text":`...)
		dst = jsonv.AppendQuote(dst, string(ev.Raw))
	}
	if ev.Ignored != "" {
		dst = append(dst, `,"ignored":`...)
		dst = jsonv.AppendQuote(dst, ev.Ignored)
	}
	return append(dst, "}\n"...)
}

// AppendViolationJSON appends the report line of a violation, with its
// newline: {"kind":"violation"} and the fields of validate's findings
// ("file","line","column","offset","record","pointer","code","severity",
// "message").
func AppendViolationJSON(dst []byte, f validate.Finding) []byte {
	dst = append(dst, `{"kind":"violation",`...)
	start := len(dst)
	dst = validate.AppendFinding(dst, f)
	dst = append(dst[:start], dst[start+1:]...) // the finding's own '{'
	return append(dst, '\n')
}

// AppendSummaryJSON appends the report's last line, with its newline:
// {"kind":"summary","ok","exitCode","reasons","tool","done","lines",
// "stopped","errors","warnings","state","assets","violations","omitted"}.
func AppendSummaryJSON(dst []byte, r Result) []byte {
	dst = fmt.Appendf(dst, `{"kind":"summary","ok":%t,"exitCode":%d,"reasons":[`, r.OK, r.ExitCode)
	for i, s := range r.Reasons {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendQuote(dst, s)
	}
	dst = append(dst, `],"tool":{`...)
	e := r.Exit
	if e.StartError != "" {
		dst = append(dst, `"startError":`...)
		dst = jsonv.AppendQuote(dst, e.StartError)
	} else {
		dst = append(dst, `"exitStatus":`...)
		if e.Signal == "" {
			dst = strconv.AppendInt(dst, int64(e.Status), 10)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"signal":`...)
		dst = quoteOrNull(dst, e.Signal)
		dst = fmt.Appendf(dst, `,"timedOut":%t,"interrupted":`, e.Timeout > 0)
		dst = quoteOrNull(dst, e.Interrupted)
	}
	dst = append(dst, `},"done":`...)
	if d := r.Done; d != nil {
		dst = fmt.Appendf(dst, `{"line":%d,"ok":%t,"valid":%t,"summary":`, d.Line, d.OK, d.Valid)
		dst = jsonv.AppendQuote(dst, d.Summary)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = fmt.Appendf(dst, `,"lines":%d,"stopped":`, r.Lines)
	dst = quoteOrNull(dst, r.Stopped)
	dst = fmt.Appendf(dst, `,"errors":%d,"warnings":%d,"state":`, r.Errors, r.Warnings)
	dst = r.State.AppendJSON(dst)
	dst = append(dst, `,"assets":[`...)
	for i, a := range r.Assets {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = fmt.Appendf(dst, `{"line":%d,"assetId":`, a.Line)
		dst = jsonv.AppendQuote(dst, a.ID)
		dst = append(dst, `,"kind":`...)
		dst = jsonv.AppendQuote(dst, a.Kind)
		dst = append(dst, `,"mediaType":`...)
		dst = jsonv.AppendQuote(dst, a.MediaType)
		dst = append(dst, `,"path":`...)
		dst = jsonv.AppendQuote(dst, a.Path)
		if a.Metadata != nil {
			dst = append(dst, `,"metadata":`...)
			dst = append(dst, a.Metadata...)
		}
		dst = fmt.Appendf(dst, `,"readable":%t,"problem":`, a.Readable)
		dst = quoteOrNull(dst, a.Problem)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"violations":[`...)
	for i, f := range r.Violations {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = validate.AppendFinding(dst, f)
	}
	return fmt.Appendf(dst, `],"omitted":%d}`+"\n", r.Omitted)
}

func quoteOrNull(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return jsonv.AppendQuote(dst, s)
}
