package inspect

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

const indent = "  "

// frameContext is the input a frame belongs to.
type frameContext struct {
	name string
}

func (in *Inspector) printer() *printer {
	return &printer{w: in.w, style: in.opts.Style, buf: in.line[:0]}
}

func (in *Inspector) done(p *printer) {
	p.flush()
	in.line = p.buf[:0]
}

func (in *Inspector) writeFileTitle(name string) {
	p := in.printer()
	if in.files > 1 {
		p.nl()
	}
	p.str(paint.Title, "==> "+displayName(name)+" <==")
	p.nl()
	in.done(p)
}

// note writes a line about an input as a whole (Text and OneLine).
func (in *Inspector) note(fc *frameContext, text string) {
	if in.opts.Format == JSON || in.opts.SummaryOnly {
		return
	}
	p := in.printer()
	if in.opts.Format == Text {
		p.nl()
	}
	p.str(paint.Dim, text)
	p.nl()
	in.done(p)
}

// displayName quotes a name that holds characters that are not printable.
func displayName(name string) string {
	for _, r := range name {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			return strconv.Quote(name)
		}
	}
	return name
}

func (in *Inspector) render(fc *frameContext, rep *report) {
	if in.opts.SummaryOnly {
		return
	}
	if in.opts.Format == JSON {
		in.line = appendFrameJSON(in.line[:0], fc, rep)
		in.w.Write(in.line)
		if rep.skip != nil {
			in.line = appendSkipJSON(in.line[:0], fc, rep.skip)
			in.w.Write(in.line)
		}
		return
	}
	if in.opts.Format == OneLine {
		in.renderOneLine(rep)
		return
	}
	p := in.printer()
	in.renderText(p, rep)
	in.done(p)
}

func (in *Inspector) renderText(p *printer, rep *report) {
	end := "to the end"
	if in.opts.Length > 0 {
		end = "to the end of --length"
	}
	p.nl()
	title := append(in.title[:0], "frame "...)
	title = strconv.AppendInt(title, int64(rep.index), 10)
	title = append(title, " at byte "...)
	title = strconv.AppendInt(title, rep.offset, 10)
	title = append(title, " (0x"...)
	title = strconv.AppendInt(title, rep.offset, 16)
	title = append(title, ')')
	if rep.src != nil {
		title = rep.src.appendTitle(title)
	}
	title = append(title, ": "...)
	in.title = title
	if p.style == nil {
		p.buf = append(p.buf, title...)
	} else {
		p.str(paint.Title, string(title))
	}
	switch {
	case rep.cut:
		p.str(paint.Dim, rep.title)
	case !rep.ok:
		p.str(paint.Broken, rep.title)
	default:
		p.str(paint.Title, rep.title)
	}
	p.nl()

	var marks []mark
	for _, e := range rep.errors {
		if e.size > 0 && e.field == "payload" {
			marks = append(marks, mark{from: e.offset, to: e.offset + int64(e.size), role: paint.Invalid, label: "INVALID: not JSON"})
		}
	}
	for _, w := range rep.warnings {
		marks = append(marks, mark{from: w.offset, to: w.offset + int64(w.size), role: paint.Caution, label: "warning: RLE"})
	}

	p.headerLine(rep.offset, rep.header, rep.fields, rep.cut)
	p.fieldTable(rep.offset, rep.fields)

	// The payload, or what there is of it.
	switch {
	case rep.ok:
		p.nl()
		p.plain(indent)
		at := strconv.Itoa(len(rep.payload)) + " " + plural(len(rep.payload), "byte", "bytes") + " at byte " +
			strconv.FormatInt(rep.payloadAt, 10) + " (0x" + strconv.FormatInt(rep.payloadAt, 16) + ")"
		if rep.compressed {
			p.str(paint.Label, "payload:")
			p.plain(" " + at + ", RLE-compressed (starts with 0x5A)")
			if rep.decompressed >= 0 {
				p.plain(", " + strconv.Itoa(rep.decompressed) + " " + plural(rep.decompressed, "byte", "bytes") + " decompressed")
			}
		} else {
			p.str(paint.Label, "payload:")
			p.plain(" " + at + ", not compressed")
		}
		p.nl()
		p.hexdump(indent, rep.payload, rep.payloadAt, marks)
		for _, w := range rep.warnings {
			p.plain(indent)
			p.str(paint.Caution, fmt.Sprintf("warning: payload at byte %d (0x%x): %s", w.offset, w.offset, w.msg))
			p.nl()
		}
		p.nl()
		if rep.jsonErr != nil {
			p.plain(indent)
			p.str(paint.Broken, "INVALID: payload: "+rep.jsonErr.msg)
			p.nl()
			break // on to the skip note, if the length was not trusted
		}
		p.plain(indent)
		p.str(paint.Label, "JSON:")
		p.nl()
		if err := p.prettyJSON(indent, rep.json); err != nil {
			// The payload was checked; this is a bug, not the input's fault.
			p.plain(indent)
			p.str(paint.Broken, "cannot show the JSON: "+err.Error())
			p.nl()
		}
	case len(rep.payload) > 0:
		p.nl()
		p.plain(indent)
		avail := len(rep.payload) + int(rep.more)
		at := fmt.Sprintf("at byte %d (0x%x)", rep.payloadAt, rep.payloadAt)
		until := "to the end of the input"
		if in.opts.Length > 0 {
			until = "to the end of --length"
		}
		if rep.skip != nil && rep.skip.found {
			until = "up to the next plausible header"
		}
		switch {
		case rep.cut:
			p.str(paint.Label, "payload:")
			p.plain(fmt.Sprintf(" %d of %d bytes %s, cut off by --length", rep.avail-kado.HeaderSize, rep.payloadLength, at))
		case rep.kind == kado.TruncatedPayload:
			p.str(paint.Label, "payload:")
			p.plain(fmt.Sprintf(" %d of %d bytes %s, ", rep.avail-kado.HeaderSize, rep.payloadLength, at))
			if rep.skip != nil && rep.skip.found {
				p.plain(fmt.Sprintf("shown up to the next plausible header at byte %d", rep.skip.resume))
			} else {
				p.plain(until)
			}
		default:
			p.str(paint.Label, "after the header:")
			p.plain(fmt.Sprintf(" %d %s %s, %s", avail, plural(avail, "byte", "bytes"), at, until))
		}
		p.nl()
		p.hexdump(indent, rep.payload, rep.payloadAt, marks)
		if rep.more > 0 {
			from := rep.payloadAt + int64(len(rep.payload))
			p.plain(indent)
			p.str(paint.Dim, fmt.Sprintf("... %d more %s not shown (xxd -s %d -l %d)", rep.more, plural(int(rep.more), "byte", "bytes"), from, rep.more))
			p.nl()
		}
	}
	if s := rep.skip; s != nil {
		p.nl()
		p.plain(indent)
		span := fmt.Sprintf("skipped %d %s (%d-%d)", s.bytes, plural(int(s.bytes), "byte", "bytes"), s.from, s.from+s.bytes-1)
		if s.found {
			p.str(paint.Caution, fmt.Sprintf("%s: next plausible header at byte %d (0x%x)", span, s.resume, s.resume))
		} else {
			p.str(paint.Caution, span+" "+end+": no further frame found")
		}
		p.nl()
	}
}

// headerLine writes the header bytes at absolute offset at, each field in
// its own color and separated from the next by two spaces; bytes that are
// missing show as "--". A line of carets under it marks the fields that
// broke a rule, and the place where the input ended in the header.
func (p *printer) headerLine(at int64, hdr []byte, fields []field, cut bool) {
	if p.style == nil && wholeAndOK(fields) {
		// Without a Style or carets: the same text, straight into the buffer.
		b := append(p.buf, indent...)
		b = appendHexOffset(b, at)
		for _, f := range fields {
			b = append(b, ' ')
			for _, c := range f.raw {
				b = append(b, ' ')
				b = append(b, hexCell[c]...)
			}
		}
		p.buf = b
		p.nl()
		return
	}
	r := &run{p: p}
	p.plain(indent)
	off := hexOffset(at)
	p.str(paint.Dim, off)
	r.col = len(indent) + len(off)
	type span struct {
		from, to int
		label    string
	}
	var carets []span
	var labels []string
	missingMarked := false
	for i, f := range fields {
		r.add(0, "  ")
		role := f.role
		broken := f.status == statusInvalid && len(f.raw) == f.size
		if broken {
			role = paint.Invalid
		}
		start := r.col
		for k := 0; k < f.size; k++ {
			if k > 0 {
				if k < len(f.raw) {
					r.add(role, " ")
				} else {
					r.add(0, " ")
				}
			}
			if k < len(f.raw) {
				r.add(role, hexCell[f.raw[k]])
				continue
			}
			if !missingMarked && !cut {
				missingMarked = true
				carets = append(carets, span{r.col, r.col + 2, ""})
				labels = append(labels, "the input ends here")
				r.add(paint.Invalid, "--")
				continue
			}
			r.add(paint.Dim, "--")
		}
		if broken {
			carets = append(carets, span{start, start + 3*len(f.raw) - 1, ""})
			labels = append(labels, fields[i].name)
		}
	}
	r.end()
	p.nl()
	if len(carets) == 0 {
		return
	}
	width := 0
	for _, c := range carets {
		width = max(width, c.to)
	}
	line := []byte(strings.Repeat(" ", width))
	for _, c := range carets {
		for k := c.from; k < c.to; k++ {
			line[k] = '^'
		}
	}
	r = &run{p: p}
	for i := 0; i < len(line); i++ {
		if line[i] == ' ' {
			r.add(0, " ")
		} else {
			r.add(paint.Broken, "^")
		}
	}
	r.add(0, "  ")
	r.add(paint.Broken, "INVALID: "+strings.Join(labels, ", "))
	r.end()
	p.nl()
}

// wholeAndOK reports whether every field has all its bytes and broke no
// rule: the header line then has no carets.
func wholeAndOK(fields []field) bool {
	for _, f := range fields {
		if len(f.raw) != f.size || f.status == statusInvalid {
			return false
		}
	}
	return true
}

// fieldTable writes one line per header field: name, absolute offset, raw
// bytes, decoded value and check.
func (p *printer) fieldTable(at int64, fields []field) {
	if p.style == nil {
		p.fieldTablePlain(at, fields)
		return
	}
	rows := [][5]string{{"field", "at", "bytes", "value", "check"}}
	for _, f := range fields {
		b := spacedHex(f.raw)
		for k := len(f.raw); k < f.size; k++ {
			if b != "" {
				b += " "
			}
			b += "--"
		}
		rows = append(rows, [5]string{f.name, strconv.FormatInt(at+int64(f.off), 10), b, f.value, f.check})
	}
	var w [5]int
	for _, row := range rows {
		for i, c := range row {
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	for i, row := range rows {
		p.plain(indent)
		var f *field
		if i > 0 {
			f = &fields[i-1]
		}
		for j, c := range row {
			pad := w[j] - utf8.RuneCountInString(c)
			role := paint.Role(0)
			switch {
			case f == nil:
				role = paint.Label
			case j == 0 || j == 2:
				role = f.role
				if j == 2 && f.status == statusInvalid && len(f.raw) == f.size {
					role = paint.Invalid
				}
			case j == 4:
				role = checkRole(f.status)
			}
			if j == 1 {
				p.pad(pad)
				p.str(role, c)
			} else if j == len(row)-1 {
				p.str(role, c)
			} else {
				p.str(role, c)
				p.pad(pad)
			}
			if j < len(row)-1 {
				p.plain("  ")
			}
		}
		p.nl()
	}
}

// fieldTablePlain is fieldTable without a Style: the same text, written
// straight into the buffer.
func (p *printer) fieldTablePlain(at int64, fields []field) {
	var num [24]byte
	w := [4]int{len("field"), len("at"), len("bytes"), len("value")}
	for _, f := range fields {
		w[0] = max(w[0], utf8.RuneCountInString(f.name))
		w[1] = max(w[1], len(strconv.AppendInt(num[:0], at+int64(f.off), 10)))
		w[2] = max(w[2], 3*f.size-1)
		w[3] = max(w[3], utf8.RuneCountInString(f.value))
	}
	b := p.buf
	spaces := func(n int) {
		for ; n > len(blanks); n -= len(blanks) {
			b = append(b, blanks...)
		}
		b = append(b, blanks[:max(n, 0)]...)
	}
	b = append(b, indent...)
	b = append(b, "field"...)
	spaces(w[0] - len("field") + 2 + w[1] - len("at"))
	b = append(b, "at  bytes"...)
	spaces(w[2] - len("bytes") + 2)
	b = append(b, "value"...)
	spaces(w[3] - len("value") + 2)
	b = append(b, "check\n"...)
	for _, f := range fields {
		b = append(b, indent...)
		b = append(b, f.name...)
		n := strconv.AppendInt(num[:0], at+int64(f.off), 10)
		spaces(w[0] - utf8.RuneCountInString(f.name) + 2 + w[1] - len(n))
		b = append(b, n...)
		b = append(b, "  "...)
		for k := range f.size {
			if k > 0 {
				b = append(b, ' ')
			}
			if k < len(f.raw) {
				b = append(b, hexCell[f.raw[k]]...)
			} else {
				b = append(b, "--"...)
			}
		}
		spaces(w[2] - max(3*f.size-1, 0) + 2)
		b = append(b, f.value...)
		spaces(w[3] - utf8.RuneCountInString(f.value) + 2)
		b = append(b, f.check...)
		b = append(b, '\n')
	}
	p.buf = b
	if len(b) >= flushAt {
		p.flush()
	}
}

func checkRole(s status) paint.Role {
	switch s {
	case statusOK:
		return paint.OK
	case statusInvalid, statusMissing:
		return paint.Broken
	}
	return paint.Dim
}

func spacedHex(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	out := make([]byte, 0, 3*len(b)-1)
	for i, c := range b {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, hexCell[c]...)
	}
	return string(out)
}

// blanks holds the spaces that pad a column.
const blanks = "                                                                "

// pad writes n spaces.
func (p *printer) pad(n int) {
	for n > len(blanks) {
		p.plain(blanks)
		n -= len(blanks)
	}
	if n > 0 {
		p.plain(blanks[:n])
	}
}

func (in *Inspector) writeSummaryText(s Summary) {
	p := in.printer()
	defer in.done(p)
	if !in.opts.SummaryOnly {
		p.nl() // after the view
	}
	head := "summary"
	if in.opts.OnlyFrame {
		head = fmt.Sprintf("summary of frame %d", in.opts.Frame)
	}
	p.str(paint.Label, head)
	p.nl()
	row := func(name string, role paint.Role, value string) {
		p.plain(indent + name + strings.Repeat(" ", 15-len(name)))
		p.str(role, value)
		p.nl()
	}
	if s.Files > 1 {
		row("files", 0, strconv.Itoa(s.Files))
	}
	frames := fmt.Sprintf("%d (%d valid, %d invalid", s.Frames, s.Valid, s.Invalid)
	if s.Cut > 0 {
		frames += fmt.Sprintf(", %d cut off by --length", s.Cut)
	}
	row("frames", 0, frames+")")
	row("compressed", 0, strconv.Itoa(s.Compressed))
	row("bytes", 0, strconv.FormatInt(s.Bytes, 10))
	row("bytes skipped", 0, strconv.FormatInt(s.Skipped, 10))
	errRole := paint.OK
	if s.Errors > 0 {
		errRole = paint.Broken
	}
	row("errors", errRole, strconv.Itoa(s.Errors))
	warnRole := paint.Role(0)
	if s.Warnings > 0 {
		warnRole = paint.Caution
	}
	row("warnings", warnRole, strconv.Itoa(s.Warnings))
	if len(s.Conns) > 0 || s.Faults > 0 {
		in.captureRows(row, s)
	}
	if in.opts.SummaryOnly {
		in.breakdowns(p, s)
	}
}
