package host

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/validate"
)

// The text report shows JSON values (patches, payloads, fields) up to
// this many bytes, and strings (messages) up to clipString: the JSON report
// holds them whole.
const (
	clipJSON   = 200
	clipString = 1000
)

// typeWidth is the width of the type column.
const typeWidth = len("state_patch")

// WriteEventText writes an event as one line of the text report, such as
// `   2  state_patch  {"flags":{"torchLit":true}}`: the line number
// (right-aligned), the type, and what the event says, by type; a line
// that breaks the rules is shown as it was read, and a note says why an
// event was not applied. Strings from the tool are shown with their
// control characters escaped: they cannot move the cursor.
func WriteEventText(w io.Writer, ev *Event, pt paint.Func) error {
	typ := ev.Type
	if typ == "" {
		typ = "?"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  ", pt.Paint(paint.Dim, fmt.Sprintf("%4d", ev.Line)), pt.Paint(paint.Title, pad(safe(typ, clipJSON), typeWidth)))
	decoded := ev.Errors == 0 && ev.Event != nil && ev.Ignored != IgnoredUnknownType && ev.Ignored != IgnoredInvalid
	switch {
	case !decoded && ev.Event != nil:
		b.WriteString(jsonText(ev.Event))
	case !decoded:
		b.WriteString(safe(string(jsonv.AppendQuote(nil, string(ev.Raw))), clipJSON))
	case ev.Type == "log":
		b.WriteString(pt.Paint(levelRole[ev.Level], pad(ev.Level, 5)) + "  " + safe(ev.Message, clipString))
		if ev.Fields != nil {
			b.WriteString("  " + pt.Paint(paint.Dim, jsonText(ev.Fields)))
		}
	case ev.Type == "state_patch":
		b.WriteString(jsonText(ev.Patch))
	case ev.Type == "asset":
		b.WriteString(assetText(ev.Asset, ev.Ignored == "", pt))
	case ev.Type == "ui_event":
		b.WriteString(safe(ev.UIEvent, clipString))
		if ev.Payload != nil {
			b.WriteString("  " + pt.Paint(paint.Dim, jsonText(ev.Payload)))
		}
	case ev.Type == "error":
		b.WriteString(pt.Paint(paint.Error, safe(ev.ErrorCode, clipString)) + "  " + safe(ev.ErrorMessage, clipString))
		if ev.Details != nil {
			b.WriteString("  " + pt.Paint(paint.Dim, jsonText(ev.Details)))
		}
	case ev.Type == "done":
		b.WriteString(doneText(ev.OK, ev.Summary, pt))
	}
	switch {
	case ev.Ignored != "":
		b.WriteString("  " + pt.Paint(paint.Dim, "(ignored: "+ev.Ignored+")"))
	case ev.Type == "done" && !decoded:
		b.WriteString("  " + pt.Paint(paint.Dim, "(taken as not ok)"))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

var levelRole = map[string]paint.Role{"debug": paint.Dim, "info": paint.Info, "warn": paint.Warning, "error": paint.Error}

// WriteSummaryText writes the end of the text report: the done event, how
// the tool ended, the session state, the assets, the violations, and the
// result.
func WriteSummaryText(w io.Writer, r Result, pt paint.Func) error {
	const indent = "            "
	var b strings.Builder
	label := func(s string) { b.WriteString(pt.Paint(paint.Title, pad(s, len(indent)-1)) + " ") }
	b.WriteByte('\n')

	label("done")
	switch d := r.Done; {
	case d == nil:
		b.WriteString(pt.Paint(paint.Error, "none"))
	case !d.Valid:
		fmt.Fprintf(&b, "%s (%s:%d breaks the rules)", pt.Paint(paint.Error, "not ok"), r.Name, d.Line)
	default:
		b.WriteString(doneText(d.OK, d.Summary, pt))
	}
	b.WriteByte('\n')

	label("tool")
	b.WriteString(exitText(r) + "\n")

	label("state")
	b.WriteString(safeJSON(string(r.State.AppendIndented(nil, indent))) + "\n")

	label("assets")
	if len(r.Assets) == 0 {
		b.WriteString("none\n")
	} else {
		fmt.Fprintf(&b, "%d\n", len(r.Assets))
		for i := range r.Assets {
			b.WriteString(indent + assetText(&r.Assets[i], true, pt) + "\n")
		}
	}

	label("violations")
	if r.Errors+r.Warnings == 0 {
		b.WriteString("none\n")
	} else {
		fmt.Fprintf(&b, "%s, %s\n", count(r.Errors, "error"), count(r.Warnings, "warning"))
		for _, f := range r.Violations {
			b.WriteString(indent)
			validate.WriteText(&b, f, pt)
		}
		if r.Omitted > 0 {
			fmt.Fprintf(&b, "%s… and %d more\n", indent, r.Omitted)
		}
	}

	label("result")
	if r.OK {
		b.WriteString(pt.Paint(paint.Success, "ok") + "\n")
	} else {
		b.WriteString(pt.Paint(paint.Error, "failed") + ": " + strings.Join(r.Reasons, "; ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func doneText(ok bool, summary string, pt paint.Func) string {
	s := pt.Paint(paint.Success, "ok")
	if !ok {
		s = pt.Paint(paint.Error, "not ok")
	}
	if summary != "" {
		s += ": " + safe(summary, clipString)
	}
	return s
}

// assetText is an asset as "id  kind  mediaType  path", and, when its file
// was checked, "(readable)" or what is wrong with it.
func assetText(a *Asset, checked bool, pt paint.Func) string {
	s := strings.Join([]string{safe(a.ID, clipString), safe(a.Kind, clipString), safe(a.MediaType, clipString), safe(a.Path, clipString)}, "  ")
	switch {
	case !checked:
	case a.Readable:
		s += "  " + pt.Paint(paint.Success, "(readable)")
	default:
		s += "  " + pt.Paint(paint.Error, "("+a.Problem+")")
	}
	return s
}

// exitText says how the tool ended, and why when the host ended it.
func exitText(r Result) string {
	e := r.Exit
	if e.StartError != "" {
		return "not started: " + e.StartError
	}
	var s string
	switch {
	case e.Timeout > 0:
		s = "timed out after " + e.Timeout.String() + ", "
	case e.Interrupted != "":
		s = "interrupted by " + e.Interrupted + ", "
	case r.Stopped != "":
		s = "reading stopped, "
	}
	if e.Signal != "" {
		return s + "ended by " + e.Signal
	}
	return s + fmt.Sprintf("exited with status %d", e.Status)
}

// jsonText is a JSON value for the text report: compact, cut at clipJSON
// bytes.
func jsonText(v []byte) string {
	return safeJSON(clip(string(jsonv.Compacted(nil, v)), clipJSON))
}

// clip cuts s to at most n bytes, at a character boundary, and says so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

// safe is a string of the tool's for a terminal, cut at n bytes: control
// characters (C0, DEL, C1) and the bidirectional controls, which could
// move the cursor or reorder what is shown, are escaped.
func safe(s string, n int) string { return escape(clip(s, n), false) }

// safeJSON is JSON text for a terminal: as safe, but its newlines kept.
func safeJSON(s string) string { return escape(s, true) }

func escape(s string, keepNewline bool) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) && !(keepNewline && r == '\n') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' && keepNewline:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// pad pads s with spaces to n characters.
func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}
