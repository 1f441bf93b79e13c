package lsp

import (
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/toonkit/toonkit/internal/toonfmt"
)

// hover is what textDocument/hover shows at offset off: on a key, its
// JSON path and type; on an array header, its declared and actual
// lengths and its fields; on a cell, its field and row; on a list item or
// an inline value, its index. Nil where there is nothing to say.
func (o *outline) hover(off int, enc encoding) *protocol.Hover {
	nd := o.at(off)
	if nd == nil {
		return nil
	}
	src := o.src
	var b strings.Builder
	var where span
	path := func(p []any) {
		fmt.Fprintf(&b, "`%s` (JSON pointer `%s`)", jqPath(p), pointer(p))
	}
	switch h := nd.hdr; {
	case h != nil && (nd.key.has(off) || h.bracket.has(off) || h.fieldsAt.has(off) || nd.kind == kArray && !inCells(h.inline, off)):
		where = nd.content
		what := "array"
		if h.keyed {
			what = "object (keyed table)"
		}
		if nd.name != "" || nd.kind == kField {
			fmt.Fprintf(&b, "**%s**: %s\n\n", nd.name, what)
		} else {
			fmt.Fprintf(&b, "%s\n\n", what)
		}
		path(nd.path)
		actual := h.actual(nd)
		unit := "elements"
		switch {
		case h.keyed:
			unit = "entries"
		case len(h.leaves) > 0:
			unit = "rows"
		case len(h.inline) > 0:
			unit = "values"
		case len(nd.children) > 0:
			unit = "items"
		}
		declared := "?"
		if h.declared >= 0 {
			declared = strconv.Itoa(h.declared)
		}
		fmt.Fprintf(&b, "\n\ndeclared [%s], found %d %s", declared, actual, unit)
		if h.declared >= 0 && h.declared != actual {
			b.WriteString(" (they differ)")
		}
		if len(h.fields) > 0 {
			fmt.Fprintf(&b, "\n\nfields: %s", strings.Join(quoteAll(h.fields), ", "))
		}
	case h != nil && inCells(h.inline, off):
		i := cellAt(h.inline, off)
		where = h.inline[i]
		fmt.Fprintf(&b, "value %d of ", i)
		path(nd.path)
		fmt.Fprintf(&b, ": %s", kindOf(h.inline[i].text(src)))
	case nd.kind == kRow && inCells(nd.cells, off):
		i := cellAt(nd.cells, off)
		where = nd.cells[i]
		h := nd.parent.hdr
		field := "?"
		var p []any
		if i < len(h.leaves) {
			field = h.fields[i]
			p = nd.path
			for _, l := range h.leaves[i] {
				p = appendPath(p, l)
			}
		}
		if h.keyed {
			fmt.Fprintf(&b, "field **%s** of entry %q (row %d): %s", field, nd.name, nd.index, kindOf(nd.cells[i].text(src)))
		} else {
			fmt.Fprintf(&b, "field **%s**, row %d: %s", field, nd.index, kindOf(nd.cells[i].text(src)))
		}
		if p != nil {
			b.WriteString("\n\n")
			path(p)
		}
		if i >= len(h.leaves) {
			fmt.Fprintf(&b, "\n\ncell %d of a row whose header has %d fields", i+1, len(h.leaves))
		}
	case nd.kind == kRow:
		where = nd.content
		fmt.Fprintf(&b, "row %d of %d cells\n\n", nd.index, len(nd.cells))
		path(nd.path)
	case nd.kind == kField && nd.key.has(off) || nd.kind == kField && nd.value.has(off):
		where = nd.key
		if nd.value.has(off) && nd.value.ok() {
			where = nd.value
		}
		fmt.Fprintf(&b, "**%s**: %s\n\n", nd.name, nd.typeOf(src))
		path(nd.path)
	case nd.kind == kItem:
		where = nd.content
		fmt.Fprintf(&b, "item %d: %s\n\n", nd.index, nd.itemType(src))
		path(nd.path)
	case nd.kind == kValue:
		where = nd.content
		fmt.Fprintf(&b, "the document's value: %s", kindOf(nd.value.text(src)))
	default:
		return nil
	}
	r := o.t.span(where.start, where.end, enc)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: b.String()}, Range: &r}
}

func (nd *node) itemType(src []byte) string {
	switch {
	case nd.hdr != nil:
		return "array"
	case nd.value.ok():
		return valueKind(nd.value.text(src))
	}
	return "object"
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = "`" + x + "`"
	}
	return out
}

func inCells(cells []span, off int) bool { return cellAt(cells, off) >= 0 }

// cellAt is the index of the cell holding off, or -1.
func cellAt(cells []span, off int) int {
	for i, c := range cells {
		if off >= c.start && off <= c.end {
			return i
		}
	}
	return -1
}

// symbols is the document's key outline (textDocument/documentSymbol):
// each key, list item and entry, nested; the rows of a table are not.
func (o *outline) symbols(enc encoding) []protocol.DocumentSymbol {
	var rec func(ns []*node) []protocol.DocumentSymbol
	rec = func(ns []*node) []protocol.DocumentSymbol {
		var out []protocol.DocumentSymbol
		for _, nd := range ns {
			if nd.kind == kRow && !nd.parent.hdr.keyed {
				continue
			}
			name, detail := nd.name, nd.typeOf(o.src)
			kind := symbolKind(detail)
			switch nd.kind {
			case kItem:
				name, detail = "["+strconv.Itoa(nd.index)+"]", nd.itemType(o.src)
				kind = symbolKind(detail)
			case kArray:
				name = "[]"
			case kValue:
				name = "(value)"
			}
			if nd.hdr != nil && !nd.hdr.keyed {
				detail = fmt.Sprintf("array [%d]", nd.hdr.actual(nd))
				if len(nd.hdr.fields) > 0 {
					detail += "{" + strings.Join(nd.hdr.fields, ",") + "}"
				}
			}
			if name == "" {
				name = `""`
			}
			sel := nd.key
			if !sel.ok() || sel.start == sel.end {
				sel = nd.content
			}
			block := span{nd.content.start, o.blockEnd(nd)}
			out = append(out, protocol.DocumentSymbol{
				Name: name, Detail: detail, Kind: kind,
				Range:          o.t.span(block.start, block.end, enc),
				SelectionRange: o.t.span(sel.start, sel.end, enc),
				Children:       rec(nd.children),
			})
		}
		return out
	}
	return rec(o.roots)
}

// blockEnd is the offset of the end of the node's last line's content.
func (o *outline) blockEnd(nd *node) int {
	if nd.last == nd.line {
		return nd.content.end
	}
	line := o.t.line(nd.last)
	return o.t.lineStart(nd.last) + len(strings.TrimRight(string(line), " \t"))
}

func symbolKind(t string) protocol.SymbolKind {
	switch t {
	case "array":
		return protocol.SymbolKindArray
	case "string":
		return protocol.SymbolKindString
	case "number":
		return protocol.SymbolKindNumber
	case "boolean":
		return protocol.SymbolKindBoolean
	case "null":
		return protocol.SymbolKindNull
	}
	return protocol.SymbolKindObject
}

// folds are the blocks a node opens (its line to its last child's) and
// the runs of two or more comment lines.
func (o *outline) folds() []protocol.FoldingRange {
	var out []protocol.FoldingRange
	o.walk(func(nd *node) {
		if nd.last > nd.line && !nd.virtual {
			out = append(out, protocol.FoldingRange{StartLine: uint32(nd.line), EndLine: uint32(nd.last)})
		}
		if nd.virtual && nd.last > nd.line && nd.parent.last > nd.last {
			out = append(out, protocol.FoldingRange{StartLine: uint32(nd.line), EndLine: uint32(nd.last)})
		}
	})
	run := -1
	for n := 0; n <= o.t.lines(); n++ {
		comment := false
		if n < o.t.lines() {
			_, _, comment = toonfmt.Line(o.t.line(n))
		}
		switch {
		case comment && run < 0:
			run = n
		case !comment && run >= 0:
			if n-1 > run {
				out = append(out, protocol.FoldingRange{StartLine: uint32(run), EndLine: uint32(n - 1), Kind: protocol.CommentFoldingRange})
			}
			run = -1
		}
	}
	return out
}

// selection is the chain of ranges around offset off, innermost first:
// the token (key, value or cell), the line's content, the node's block,
// each enclosing block, and the whole document.
func (o *outline) selection(off int, enc encoding) protocol.SelectionRange {
	var spans []span
	add := func(s span) {
		if !s.ok() {
			return
		}
		if n := len(spans); n > 0 && spans[n-1] == s {
			return
		}
		spans = append(spans, s)
	}
	nd := o.at(off)
	if nd != nil {
		switch {
		case nd.key.has(off):
			add(nd.key)
		case nd.value.has(off):
			add(nd.value)
		case nd.kind == kRow && inCells(nd.cells, off):
			add(nd.cells[cellAt(nd.cells, off)])
		case nd.hdr != nil && inCells(nd.hdr.inline, off):
			add(nd.hdr.inline[cellAt(nd.hdr.inline, off)])
		}
		add(nd.content)
		for p := nd; p != nil; p = p.parent {
			add(span{p.content.start, o.blockEnd(p)})
		}
	}
	add(span{0, len(o.src)})
	var sr *protocol.SelectionRange
	for i := len(spans) - 1; i >= 0; i-- {
		sr = &protocol.SelectionRange{Range: o.t.span(spans[i].start, spans[i].end, enc), Parent: sr}
	}
	return *sr
}
