package inspect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

// checkOrder is the order in which the summary lists the checks.
var checkOrder = []string{"version", "type", "payloadLength", "header", "payload", "rle", "gap", "websocket", "connections", "frames", "capture", "file"}

// checkNames lists the checks of s.Checks in checkOrder, then any other
// sorted.
func checkNames(checks map[string]int) []string {
	var out []string
	for _, k := range checkOrder {
		if checks[k] > 0 {
			out = append(out, k)
		}
	}
	var rest []string
	for k, n := range checks {
		if n > 0 && !slices.Contains(checkOrder, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// span is the time span of a capture: "FIRST .. LAST (DURATION)".
func span(s Summary) string {
	if s.First.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%s .. %s (%s)", capture.TimeString(s.First), capture.TimeString(s.Last), s.Last.Sub(s.First).Round(time.Microsecond))
}

// captureRows adds the rows of a capture to the Text summary.
func (in *Inspector) captureRows(row func(string, paint.Role, string), s Summary) {
	row("connections", 0, strconv.Itoa(len(s.Conns)))
	if s.Texts > 0 {
		row("text messages", 0, strconv.Itoa(s.Texts))
	}
	if s.Faults > 0 {
		row("other problems", paint.Broken, strconv.Itoa(s.Faults))
	}
	if s.Notes > 0 {
		row("notes", 0, strconv.Itoa(s.Notes))
	}
	row("time", 0, span(s))
}

// breakdowns writes the counts per type, per connection and per check of
// the summary (SummaryOnly).
func (in *Inspector) breakdowns(p *printer, s Summary) {
	p.str(paint.Label, "types")
	p.nl()
	any := false
	w := 15 // the column of the counts: the summary's, or past the longest name
	for t, n := range s.Types {
		if n > 0 {
			w = max(w, len(kado.MessageType(t).String())+2)
		}
	}
	for t, n := range s.Types {
		if n == 0 {
			continue
		}
		any = true
		name := kado.MessageType(t).String()
		p.plain(indent + name + strings.Repeat(" ", w-len(name)))
		p.plain(strconv.Itoa(n))
		p.nl()
	}
	if !any {
		p.plain(indent)
		p.str(paint.Dim, "none")
		p.nl()
	}
	if len(s.Conns) > 0 {
		p.str(paint.Label, "connections")
		p.nl()
		w := 0
		for _, c := range s.Conns {
			w = max(w, len(c.Conn))
		}
		for _, c := range s.Conns {
			p.plain(indent + c.Conn + strings.Repeat(" ", w-len(c.Conn)))
			line := fmt.Sprintf("  %d %s, %d invalid", c.Frames, plural(c.Frames, "frame", "frames"), c.Invalid)
			if c.Texts > 0 {
				line += fmt.Sprintf(", %d text %s", c.Texts, plural(c.Texts, "message", "messages"))
			}
			if c.Faults > 0 {
				line += fmt.Sprintf(", %d other %s", c.Faults, plural(c.Faults, "problem", "problems"))
			}
			role := paint.Role(0)
			if c.Invalid > 0 || c.Faults > 0 {
				role = paint.Broken
			}
			p.str(role, line)
			p.nl()
		}
	}
	p.str(paint.Label, "checks")
	p.nl()
	names := checkNames(s.Checks)
	if len(names) == 0 {
		p.plain(indent)
		p.str(paint.OK, "all passed")
		p.nl()
	}
	for _, k := range names {
		role := paint.Broken
		if s.Warned == nil && k == "rle" || s.Warned[k] {
			role = paint.Caution
		}
		p.plain(indent + k + strings.Repeat(" ", max(1, 15-len(k))))
		p.str(role, strconv.Itoa(s.Checks[k]))
		p.nl()
	}
}

// appendBreakdownsJSON appends the members of the summary object that
// SummaryOnly adds: "types", "checks", and for captures "byConnection".
func appendBreakdownsJSON(dst []byte, s Summary) []byte {
	dst = append(appendKey(dst, false, "types"), '{')
	first := true
	for t, n := range s.Types {
		if n > 0 {
			dst = appendInt(dst, first, kado.MessageType(t).String(), int64(n))
			first = false
		}
	}
	dst = append(append(dst, '}'), `,"checks":{`...)
	for i, k := range checkNames(s.Checks) {
		dst = appendInt(dst, i == 0, k, int64(s.Checks[k]))
	}
	dst = append(dst, '}')
	if len(s.Conns) > 0 {
		dst = append(appendKey(dst, false, "byConnection"), '[')
		for i, c := range s.Conns {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(append(dst, `{"conn":`...), c.Conn)
			dst = appendInt(dst, false, "frames", int64(c.Frames))
			dst = appendInt(dst, false, "invalid", int64(c.Invalid))
			dst = appendInt(dst, false, "texts", int64(c.Texts))
			dst = appendInt(dst, false, "problems", int64(c.Faults))
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return dst
}

// appendCaptureJSON appends the summary members of captures: the counts
// of connections, text messages, other problems and notes, and the time
// span ("first", "last": RFC 3339 with nanoseconds, or null).
func appendCaptureJSON(dst []byte, s Summary) []byte {
	dst = appendInt(dst, false, "connections", int64(len(s.Conns)))
	dst = appendInt(dst, false, "texts", int64(s.Texts))
	dst = appendInt(dst, false, "otherProblems", int64(s.Faults))
	dst = appendInt(dst, false, "notes", int64(s.Notes))
	for _, t := range []struct {
		k string
		v time.Time
	}{{"first", s.First}, {"last", s.Last}} {
		dst = appendKey(dst, false, t.k)
		if t.v.IsZero() {
			dst = append(dst, "null"...)
		} else {
			dst = append(capture.AppendTime(append(dst, '"'), t.v), '"')
		}
	}
	return dst
}
