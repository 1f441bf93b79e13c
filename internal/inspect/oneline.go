package inspect

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

// previewBytes is how much of a payload's compact JSON a one-line view
// shows.
const previewBytes = 64

// renderOneLine writes the OneLine view of a frame: one line with its
// index, byte offset, type, sequence id, payload length, "rle" when
// compressed and the start of its payload as compact JSON; a bad frame gets
// a line marked "!" with the first rule it breaks, a frame cut off by
// --length one marked "cut", and a skip a line of its own marked "~".
func (in *Inspector) renderOneLine(rep *report) {
	p := in.printer()
	if p.style == nil && rep.ok && !rep.cut && len(rep.errors) == 0 && len(rep.warnings) == 0 && rep.skip == nil {
		p.buf = appendOneLine(p.buf, rep, &in.times)
		p.nl()
		in.done(p)
		return
	}
	p.plain(fmt.Sprintf("%6d %10d  ", rep.index, rep.offset))
	src := ""
	if rep.src != nil {
		src = string(capture.AppendTime(nil, rep.src.time)) + " " + rep.src.where() + "  "
		p.plain(src)
	}
	switch {
	case rep.cut:
		p.str(paint.Dim, "cut: "+rep.title)
	case !rep.ok || len(rep.errors) > 0:
		msg := strings.TrimPrefix(rep.title, "INVALID: ")
		if rep.ok && rep.problem != nil {
			msg = rep.problem.Msg // the payload: the title is the type's
		}
		p.str(paint.Broken, "! "+msg)
	default:
		h := kado.ParseHeader(rep.header)
		p.str(paint.Title, fmt.Sprintf("%-16s", h.Type.String()))
		p.plain(fmt.Sprintf(" seq %-6s %9s ", strconv.FormatUint(uint64(h.SequenceID), 10), strconv.FormatUint(uint64(h.PayloadLength), 10)+" B"))
		if rep.compressed {
			p.plain("rle  ")
		} else {
			p.plain("     ")
		}
		p.str(paint.Dim, preview(rep.json))
		if len(rep.warnings) > 0 {
			p.str(paint.Caution, "  (warning: "+rep.warnings[0].msg+")")
		}
	}
	p.nl()
	if s := rep.skip; s != nil {
		p.plain(fmt.Sprintf("%6s %10d  ", "-", s.from))
		p.plain(src)
		msg := fmt.Sprintf("~ skipped %d %s", s.bytes, plural(int(s.bytes), "byte", "bytes"))
		if s.found {
			msg += fmt.Sprintf(" to the next plausible header at byte %d", s.resume)
		} else {
			msg += ": no further frame found"
		}
		p.str(paint.Caution, msg)
		p.nl()
	}
	in.done(p)
}

// appendOneLine appends the plain line of a good frame without warnings,
// as renderOneLine writes it, without its newline.
func appendOneLine(b []byte, rep *report, times *capture.TimeCache) []byte {
	return appendFrameLine(b, rep.index, rep.offset, rep.src, kado.ParseHeader(rep.header), rep.compressed, rep.json, times)
}

// appendFrameLine appends the plain line of a good frame without warnings
// from its parts: index, byte offset, source in a capture (or nil), header,
// whether it is compressed, and its payload as compact JSON.
func appendFrameLine(b []byte, index int, offset int64, src *source, h kado.Header, compressed bool, js []byte, times *capture.TimeCache) []byte {
	b = appendPadded(b, uint64(index), index < 0, 6, "")
	b = append(b, ' ')
	b = appendPadded(b, uint64(offset), offset < 0, 10, "")
	b = append(b, "  "...)
	if src != nil {
		b = times.Append(b, src.time)
		b = append(b, ' ')
		b = append(b, src.conn...)
		b = append(b, ' ')
		b = append(b, src.dir.String()...)
		b = append(b, "  "...)
	}
	typ := h.Type.String()
	b = append(b, typ...)
	b = append(b, "                "[min(len(typ), 16):]...)
	b = append(b, " seq "...)
	n := len(b)
	b = strconv.AppendUint(b, uint64(h.SequenceID), 10)
	if w := len(b) - n; w < 6 {
		b = append(b, "      "[w:]...)
	}
	b = append(b, ' ')
	b = appendPadded(b, uint64(h.PayloadLength), false, 9, " B")
	if compressed {
		b = append(b, " rle  "...)
	} else {
		b = append(b, "      "...)
	}
	if len(js) <= previewBytes {
		return append(b, js...)
	}
	n = previewBytes
	for n > 0 && !utf8.RuneStart(js[n]) {
		n--
	}
	return append(append(b, js[:n]...), "..."...)
}

// appendPadded appends v (negated when neg) and then unit, right-aligned
// in width bytes (wider when they do not fit), as %*s of their text does.
func appendPadded(b []byte, v uint64, neg bool, width int, unit string) []byte {
	var d [24]byte
	i := len(d)
	if neg {
		v = -v
	}
	for v >= 10 {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
	}
	i--
	d[i] = byte('0' + v)
	if neg {
		i--
		d[i] = '-'
	}
	if pad := width - (len(d) - i) - len(unit); pad > 0 {
		b = append(b, "                        "[:pad]...)
	}
	return append(append(b, d[i:]...), unit...)
}

// preview is the start of a compact JSON payload, cut at a character
// boundary with "..." when it is longer than previewBytes.
func preview(js []byte) string {
	if len(js) <= previewBytes {
		return string(js)
	}
	n := previewBytes
	for n > 0 && !utf8.RuneStart(js[n]) {
		n--
	}
	return string(js[:n]) + "..."
}
