package stats

import (
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/paint"
)

// AppendText appends the report as text: the table of counts, the
// cheapest format of each tokenizer marked with *, notes on the formats,
// and a bar chart per tokenizer (each format's tokens as a share of
// compact JSON, drawn with Bar, 40 cells for the largest).
//
// pt colors it (nil: plain): the heads as paint.Title, the cheapest cell
// and bar of a tokenizer as paint.Success, a bar at or under compact JSON
// as paint.OK and one over it as paint.Caution, a format without counts
// and the notes as paint.Dim.
func (rep *Report) AppendText(b []byte, pt paint.Func) []byte {
	role := func(r paint.Role) func(string) string { return func(s string) string { return pt.Paint(r, s) } }
	bold, best, cheaper, dearer, faint := role(paint.Title), role(paint.Success), role(paint.OK), role(paint.Caution), role(paint.Dim)
	cheapest := make([]int, len(rep.Tokenizers))
	for t := range rep.Tokenizers {
		cheapest[t] = rep.Cheapest(t)
	}
	// The table.
	const nameW, numW = 12, 11
	pad := func(s string, w int) string { return strings.Repeat(" ", max(w-len(s), 0)) }
	head := "format" + pad("format", nameW) + pad("bytes", numW) + "bytes" + pad("chars", numW) + "chars"
	for _, t := range rep.Tokenizers {
		head += pad(t, numW+2) + t
	}
	b = append(b, bold(head)...)
	b = append(b, '\n')
	for i, row := range rep.Rows {
		b = append(b, row.Format+pad(row.Format, nameW)...)
		if row.Unavailable != "" {
			b = append(b, faint(fmt.Sprintf("%*s  %s", numW, "-", row.Unavailable))...)
			b = append(b, '\n')
			continue
		}
		line := fmt.Appendf(nil, "%*d%*d", numW, row.Bytes, numW, row.Chars)
		for t, name := range rep.Tokenizers {
			n := fmt.Sprint(row.Tokens[t])
			line = append(line, pad(n, max(numW, len(name)+1)+1)...)
			if i == cheapest[t] {
				line = append(line, best(n+" *")...)
			} else {
				line = append(line, n+"  "...)
			}
		}
		b = append(b, strings.TrimRight(string(line), " ")...)
		b = append(b, '\n')
	}
	for _, row := range rep.Rows {
		if row.Note != "" {
			b = append(b, faint(row.Format+": "+row.Note)...)
			b = append(b, '\n')
		}
	}
	// The charts: tokens as a share of compact JSON.
	for t, name := range rep.Tokenizers {
		top := 1.0
		for i := range rep.Rows {
			if s, ok := rep.Share(i, t); ok {
				top = max(top, s)
			}
		}
		b = fmt.Appendf(b, "\n%s\n", bold("tokens by "+name+", as a share of compact JSON"))
		for i, row := range rep.Rows {
			b = append(b, row.Format+pad(row.Format, nameW)...)
			s, ok := rep.Share(i, t)
			if !ok {
				b = append(b, faint("-")...)
				b = append(b, '\n')
				continue
			}
			bar := Bar(s/top, 40)
			paintBar := dearer
			switch {
			case i == cheapest[t]:
				paintBar = best
			case s <= 1:
				paintBar = cheaper
			}
			label := fmt.Sprintf("%.1f%%", 100*s)
			if i == cheapest[t] {
				label += " cheapest"
			}
			b = append(b, paintBar(bar)...)
			b = fmt.Appendf(b, " %s\n", label)
		}
	}
	return b
}
