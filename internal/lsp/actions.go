package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/toonkit/toonkit/internal/toonx"
)

// codeActions are the edits offered at p.Range's start:
//   - an array header whose [N] is not the count of what follows: set N;
//   - a value that reads as other than its text (a string that needs
//     quotes, or a broken quoted string): quote it;
//   - a list of objects that reads back exactly as a table, or a table
//     as a list: rewrite it. Both are checked by decoding the old and new
//     block: an action that would change the value is not offered.
func (s *Server) codeActions(d *document, p protocol.CodeActionParams, enc encoding) []protocol.CodeAction {
	o := s.outlineOf(d)
	off := o.t.offset(p.Range.Start, enc)
	line := o.t.lineOf(off)
	var out []protocol.CodeAction
	// related are the client's diagnostics of a code, on lines lo to hi.
	related := func(lo, hi int, codes ...string) []protocol.Diagnostic {
		var ds []protocol.Diagnostic
		for _, dg := range p.Context.Diagnostics {
			c, _ := dg.Code.(string)
			for _, want := range codes {
				if l := int(dg.Range.Start.Line); c == want && l >= lo && l <= hi {
					ds = append(ds, dg)
				}
			}
		}
		return ds
	}
	edit := func(title string, kind protocol.CodeActionKind, diags []protocol.Diagnostic, start, end int, newText string) {
		out = append(out, protocol.CodeAction{
			Title: title, Kind: kind, Diagnostics: diags,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{
				d.uri: {{Range: o.t.span(start, end, enc), NewText: newText}},
			}},
		})
	}
	for _, nd := range o.byLine[line] {
		h := nd.hdr
		if h == nil {
			continue
		}
		if actual := h.actual(nd); h.declared != actual && h.colon >= 0 {
			edit(fmt.Sprintf("Set the count to %d, as many as there are", actual), protocol.QuickFix, related(nd.line, nd.last+1, "TOON002"), h.count.start, h.count.end, strconv.Itoa(actual))
		}
		if a, ok := o.rewriteArray(nd); ok {
			edit(a.title, protocol.RefactorRewrite, nil, a.start, a.end, a.text)
		}
	}
	if nd := o.at(off); nd != nil {
		if tok, delim, ok := o.tokenAt(nd, off); ok {
			if q, ok := o.quoted(tok, delim); ok {
				edit("Quote "+string(tok.text(o.src))+" as a string: "+q, protocol.QuickFix, related(line, line, "TOON003", "TOON006", "TOON005"), tok.start, tok.end, q)
			}
		}
	}
	return out
}

// tokenAt is the primitive at off on nd's line (a value, a cell or an
// inline array's value), and the delimiter that is active there.
func (o *outline) tokenAt(nd *node, off int) (span, byte, bool) {
	listDelim := func() byte {
		if nd.parent != nil && nd.parent.hdr != nil {
			return nd.parent.hdr.delim
		}
		return o.delim
	}
	switch {
	case nd.kind == kRow && inCells(nd.cells, off):
		return nd.cells[cellAt(nd.cells, off)], nd.parent.hdr.delim, true
	case nd.hdr != nil && inCells(nd.hdr.inline, off):
		return nd.hdr.inline[cellAt(nd.hdr.inline, off)], nd.hdr.delim, true
	case nd.kind == kItem && nd.value.has(off):
		return nd.value, listDelim(), true
	case nd.value.has(off):
		return nd.value, o.delim, true
	}
	return none, 0, false
}

// quoted is the quoted form of the primitive tok when it needs one: a
// string whose canonical form is quoted (it holds the delimiter, looks
// like a number or a keyword, starts with "- "...), or a broken quoted
// string (then its whole text, quotes and all, becomes the string).
func (o *outline) quoted(tok span, delim byte) (string, bool) {
	b := tok.text(o.src)
	if len(b) == 0 {
		return "", false
	}
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return "", false // a good quoted string
		}
		q, err := encodeString(string(b), delim)
		return q, err == nil
	}
	if kindOf(b) != "string" {
		return "", false // a number, a boolean or null, as meant
	}
	q, err := encodeString(string(b), delim)
	if err != nil || q == string(b) {
		return "", false
	}
	return q, true
}

// encodeString is the TOON form of the string s where delim is active.
func encodeString(s string, delim byte) (string, error) {
	j, _ := json.Marshal(s)
	var out bytes.Buffer
	err := toonx.FromJSON(&out, j, toonx.EncodeOptions{Delimiter: delim})
	return out.String(), err
}

type rewrite struct {
	title      string
	start, end int
	text       string
}

// rewriteArray is the rewrite of nd's array from list form to a table, or
// from a table to list form, when it reads back to the same value; the
// block must hold no comment, and nd be a key's array or the root's.
func (o *outline) rewriteArray(nd *node) (rewrite, bool) {
	h := nd.hdr
	if h == nil || h.keyed || nd.virtual || nd.kind == kItem || h.colon < 0 || len(h.inline) > 0 || len(nd.children) == 0 {
		return rewrite{}, false
	}
	start, end := o.t.lineStart(nd.line), o.t.lineStart(nd.last+1)
	block, ok := dedent(o.src[start:end], nd.indent)
	if !ok {
		return rewrite{}, false
	}
	want, err := toJSON(block, o.indent, 0)
	if err != nil {
		return rewrite{}, false
	}
	var title string
	var next []byte
	if len(h.leaves) == 0 {
		title = "Write the array as a table"
		var b bytes.Buffer
		if toonx.FromJSON(&b, want, toonx.EncodeOptions{IndentSize: o.indent, Delimiter: h.delim}) != nil {
			return rewrite{}, false
		}
		b.WriteByte('\n')
		next = b.Bytes()
		if r := newOutline(newText(next), o.indent).roots; len(r) != 1 || r[0].hdr == nil || len(r[0].hdr.leaves) == 0 {
			return rewrite{}, false // not a table
		}
	} else {
		title = "Write the table as a list"
		if next, ok = o.listForm(nd, want); !ok {
			return rewrite{}, false
		}
	}
	got, err := toJSON(next, o.indent, 0)
	if err != nil || !bytes.Equal(got, want) {
		return rewrite{}, false
	}
	text := string(indentBlock(next, nd.indent))
	if !bytes.HasSuffix(o.src[start:end], []byte("\n")) {
		text = strings.TrimSuffix(text, "\n")
	}
	return rewrite{title, start, end, text}, true
}

// listForm writes the table nd, whose value (as a one-key document or a
// root array) is value, as a list of objects, at indentation 0.
func (o *outline) listForm(nd *node, value []byte) ([]byte, bool) {
	var elems []json.RawMessage
	if nd.kind == kArray {
		if json.Unmarshal(value, &elems) != nil {
			return nil, false
		}
	} else {
		var obj map[string]json.RawMessage
		if json.Unmarshal(value, &obj) != nil || len(obj) != 1 {
			return nil, false
		}
		for _, v := range obj {
			if json.Unmarshal(v, &elems) != nil {
				return nil, false
			}
		}
	}
	h := nd.hdr
	var b bytes.Buffer
	b.Write(o.src[nd.content.start:h.fieldsAt.start])
	b.Write(o.src[h.fieldsAt.end : h.colon+1])
	b.WriteByte('\n')
	pad := strings.Repeat(" ", o.indent)
	for _, e := range elems {
		var item bytes.Buffer
		if toonx.FromJSON(&item, e, toonx.EncodeOptions{IndentSize: o.indent, Delimiter: o.delim}) != nil {
			return nil, false
		}
		for i, l := range strings.Split(item.String(), "\n") {
			switch {
			case i == 0 && l == "":
				b.WriteString(pad + "-\n")
			case i == 0:
				b.WriteString(pad + "- " + l + "\n")
			default:
				b.WriteString(pad + pad + l + "\n")
			}
		}
	}
	return b.Bytes(), true
}

// dedent is block with n spaces taken from each line; false when a line
// is a comment or has fewer (a blank line keeps its place).
func dedent(block []byte, n int) ([]byte, bool) {
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(block, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		c := bytes.TrimLeft(l, " ")
		if len(c) > 0 && c[0] == '#' {
			return nil, false
		}
		if len(bytes.TrimSpace(l)) == 0 {
			out.WriteString("\n")
			continue
		}
		if len(l)-len(c) < n {
			return nil, false
		}
		out.Write(l[n:])
	}
	return out.Bytes(), true
}

// indentBlock is block with n spaces before each line.
func indentBlock(block []byte, n int) []byte {
	pad := strings.Repeat(" ", n)
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(block, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if len(bytes.TrimSpace(l)) > 0 {
			out.WriteString(pad)
		}
		out.Write(l)
	}
	return out.Bytes()
}

// execute runs a workspace/executeCommand command.
func (s *Server) execute(p protocol.ExecuteCommandParams) (any, error) {
	if p.Command != CommandShowJSON {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q (the server has %s)", p.Command, CommandShowJSON))
	}
	var u string
	switch len(p.Arguments) {
	case 0: // Helix before 25.07 sends none: the one open document
		s.mu.Lock()
		for k := range s.docs {
			if len(s.docs) == 1 {
				u = string(k)
			}
		}
		s.mu.Unlock()
		if u == "" {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, CommandShowJSON+" takes the document's URI when more than one is open")
		}
	case 1:
		var ok bool
		if u, ok = p.Arguments[0].(string); !ok {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, CommandShowJSON+": the argument is the document's URI, a string")
		}
	default:
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, CommandShowJSON+" takes one argument: the document's URI")
	}
	d, err := s.doc(protocol.DocumentURI(u))
	if err != nil {
		return nil, err
	}
	t, _ := d.snapshot()
	var out bytes.Buffer
	if err := toonx.ToJSON(&out, bytes.NewReader(t.src), toonx.DecodeOptions{IndentSize: s.indentFor(t), JSONIndent: "  ", MaxLineSize: s.opts.MaxSize}); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the document does not decode: "+errorText(err))
	}
	if out.Len() > 0 && out.Bytes()[out.Len()-1] != '\n' {
		out.WriteByte('\n')
	}
	return out.String(), nil
}
