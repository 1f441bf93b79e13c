package lsp

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/toonfmt"
	"github.com/toonkit/toonkit/toon"
)

// The outline is the structure of a TOON document as an editor needs it:
// each content line a node, with the byte ranges of its key, its value
// and its cells, nested by indentation, and the JSON path of what it
// makes. It is read line by line and never fails: a malformed line is a
// node with what could be read of it, so that hover, symbols and code
// actions work on a document the decoder rejects. The decoder stays the
// judge of what is valid (diagnostics); TestOutlineAgreesWithDecoder
// checks the paths, types and counts against it on the spec's fixtures.

type nodeKind uint8

const (
	kField nodeKind = iota + 1 // key: value, key:, or key[N]...: (hdr set)
	kItem                      // "- ..." in a list
	kRow                       // a row of a table, or an entry row of a keyed object
	kValue                     // the root's lone primitive
	kArray                     // a root (or list item's) keyless header [N]...:
)

// span is a byte range [start, end) of the text; start < 0 when absent.
type span struct{ start, end int }

func (s span) ok() bool               { return s.start >= 0 }
func (s span) has(off int) bool       { return s.ok() && off >= s.start && off <= s.end }
func (s span) text(src []byte) []byte { return src[s.start:s.end] }

var none = span{-1, -1}

var bom = []byte("\ufeff")

// header is an array header's parts: [N], [N:] (a keyed object),
// the delimiter marker, and the field list.
type header struct {
	declared int  // -1 when the count is not a number
	count    span // the digits of N
	keyed    bool
	delim    byte
	fields   []string // leaf fields, nested groups joined with "." (user.name)
	leaves   [][]string
	fieldsAt span // "{...}" (absent without a field list)
	bracket  span // "[...]"
	inline   []span
	colon    int // offset of the header's colon; -1 when it has none
}

// node is one content line.
type node struct {
	kind     nodeKind
	line     int // 0-based
	indent   int // spaces before the content (a list item's: before "-")
	content  span
	key      span // the key's text, quotes included
	name     string
	value    span // a primitive value on the line
	hdr      *header
	cells    []span // a row's cells
	parent   *node
	children []*node
	last     int // the last line of the node's block
	path     []any
	index    int // an item's or row's index in its array
	items    int // the list items among the children
	virtual  bool
}

// outline is a document's nodes.
type outline struct {
	src    []byte
	t      *text
	indent int
	delim  byte // the document delimiter
	roots  []*node
	byLine [][]*node // the nodes of each line: an item and its first field share one
}

// newOutline reads the structure of t.
func newOutline(t *text, indentSize int) *outline {
	layout := toonfmt.Detect(t.src)
	if indentSize <= 0 {
		indentSize = layout.Indent
	}
	o := &outline{src: t.src, t: t, indent: indentSize, delim: layout.Delimiter, byLine: make([][]*node, t.lines())}
	var stack []*node // open nodes, by indentation
	first := true
	for n := 0; n < t.lines(); n++ {
		line := t.line(n)
		start := t.lineStart(n)
		if n == 0 && bytes.HasPrefix(line, bom) {
			line, start = line[len(bom):], start+len(bom) // the decoder drops it
		}
		ind, blank, comment := toonfmt.Line(line)
		if blank || comment {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= ind {
			stack = stack[:len(stack)-1]
		}
		var parent *node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		end := start + len(bytes.TrimRight(line, " \t"))
		c := span{start + ind, end}
		nd := o.lineNode(n, ind, c, parent, first)
		first = false
		for p := nd.parent; p != nil; p = p.parent {
			p.last = max(p.last, n)
		}
		if nd.parent == nil {
			o.roots = append(o.roots, nd)
		} else {
			nd.parent.children = append(nd.parent.children, nd)
		}
		o.byLine[n] = append(o.byLine[n], nd)
		stack = append(stack, nd)
		// A list item's first field is its child, as deep as the fields
		// after it, so that a table it opens takes the rows below.
		for _, ch := range nd.children {
			if ch.virtual {
				o.byLine[n] = append(o.byLine[n], ch)
				stack = append(stack, ch)
			}
		}
	}
	return o
}

// lineNode makes the node of line n: content c at indentation ind.
func (o *outline) lineNode(n, ind int, c span, parent *node, first bool) *node {
	nd := &node{line: n, indent: ind, content: c, key: none, value: none, parent: parent, last: n}
	src := o.src
	b := c.text(src)
	switch {
	case parent != nil && parent.hdr != nil && len(parent.hdr.leaves) > 0 && parent.hdr.colon >= 0 && !isItem(b):
		nd.kind = kRow
		nd.index = len(parent.children)
		rest := c
		if parent.hdr.keyed {
			k, r := o.entryKey(c)
			nd.key, rest = k, r
			nd.name = unquoteKey(k.text(src))
		}
		nd.cells = splitCells(src, rest, parent.hdr.delim)
		if parent.hdr.keyed {
			nd.path = appendPath(parent.path, nd.name)
		} else {
			nd.path = appendPath(parent.path, nd.index)
		}
	case isItem(b):
		nd.kind = kItem
		if parent != nil {
			nd.index = parent.items
			parent.items++
			nd.path = appendPath(parent.path, nd.index)
		}
		rest := c.start + 1
		for rest < c.end && src[rest] == ' ' {
			rest++
		}
		if rest < c.end {
			o.itemContent(nd, span{rest, c.end})
		}
	default:
		if first && parent == nil && bytes.HasPrefix(b, []byte("[")) {
			nd.kind = kArray
			nd.hdr = o.parseHeader(c.start, c.end)
			return nd
		}
		if first && parent == nil && !o.hasKey(c) {
			nd.kind = kValue
			nd.value = c
			return nd
		}
		o.field(nd, c)
		var base []any
		if parent != nil {
			base = parent.path
		}
		nd.path = appendPath(base, nd.name)
	}
	return nd
}

func isItem(b []byte) bool { return len(b) > 0 && b[0] == '-' && (len(b) == 1 || b[1] == ' ') }

// itemContent reads what follows a list item's "- ": a keyless header
// (the item is that array), a field (the item is an object, the field its
// first, a virtual child), or a primitive.
func (o *outline) itemContent(nd *node, c span) {
	b := c.text(o.src)
	switch {
	case b[0] == '[':
		nd.hdr = o.parseHeader(c.start, c.end)
	case o.hasKey(c):
		f := &node{kind: kField, line: nd.line, indent: nd.indent + o.indent, content: c, key: none, value: none, parent: nd, last: nd.line, virtual: true}
		o.field(f, c)
		f.path = appendPath(nd.path, f.name)
		nd.children = append(nd.children, f)
	default:
		nd.value = c
	}
}

// field reads a key line: key: value, key:, or a header with a key.
func (o *outline) field(nd *node, c span) {
	nd.kind = kField
	src := o.src
	i := c.start
	if src[i] == '"' {
		i = quotedEnd(src, i, c.end)
	} else {
		for i < c.end && src[i] != ':' && src[i] != '[' {
			i++
		}
	}
	nd.key = span{c.start, i}
	nd.name = unquoteKey(nd.key.text(src))
	if i < c.end && src[i] == '[' {
		nd.hdr = o.parseHeader(i, c.end)
		return
	}
	if i < c.end && src[i] == ':' {
		i++
		for i < c.end && src[i] == ' ' {
			i++
		}
		if i < c.end {
			nd.value = span{i, c.end}
		}
	}
}

// entryKey splits a keyed object's entry row into its key and its cells.
func (o *outline) entryKey(c span) (key, rest span) {
	src := o.src
	i := c.start
	if i < c.end && src[i] == '"' {
		i = quotedEnd(src, i, c.end)
	} else {
		for i < c.end && src[i] != ':' {
			i++
		}
	}
	key = span{c.start, i}
	if i < c.end && src[i] == ':' {
		i++
	}
	for i < c.end && src[i] == ' ' {
		i++
	}
	return key, span{i, c.end}
}

// hasKey reports whether content c is a key line: an unquoted colon, or
// a header bracket, after its key.
func (o *outline) hasKey(c span) bool {
	src := o.src
	i := c.start
	if i < c.end && src[i] == '"' {
		i = quotedEnd(src, i, c.end)
		return i < c.end && (src[i] == ':' || src[i] == '[')
	}
	for ; i < c.end; i++ {
		if src[i] == ':' || src[i] == '[' {
			return true
		}
		if src[i] == '"' {
			return false
		}
	}
	return false
}

// parseHeader reads a header from its "[" at offset i to the line's end.
func (o *outline) parseHeader(i, end int) *header {
	src := o.src
	h := &header{declared: -1, delim: ',', colon: -1, count: none, fieldsAt: none}
	open := i
	i++
	ds := i
	for i < end && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	h.count = span{ds, i}
	if n, err := strconv.Atoi(string(src[ds:i])); err == nil {
		h.declared = n
	}
	if i < end && src[i] == ':' {
		h.keyed = true
		i++
	}
	if i < end && (src[i] == '\t' || src[i] == '|') {
		h.delim = src[i]
		i++
	}
	for i < end && src[i] != ']' && src[i] != ':' {
		i++
	}
	if i < end && src[i] == ']' {
		i++
	}
	h.bracket = span{open, i}
	if i < end && src[i] == '{' {
		fs := i
		var leaves [][]string
		i = o.fieldList(i, end, h.delim, nil, &leaves)
		h.fieldsAt = span{fs, i}
		h.leaves = leaves
		for _, l := range leaves {
			h.fields = append(h.fields, strings.Join(l, "."))
		}
	}
	if i < end && src[i] == ':' {
		h.colon = i
		i++
		for i < end && src[i] == ' ' {
			i++
		}
		if i < end {
			h.inline = splitCells(src, span{i, end}, h.delim)
		}
	}
	return h
}

// fieldList reads "{a,b{c,d}}" from its "{" at i, adding each leaf's
// path under prefix to leaves, and returns the offset after its "}".
func (o *outline) fieldList(i, end int, delim byte, prefix []string, leaves *[][]string) int {
	src := o.src
	i++ // "{"
	for i < end {
		for i < end && src[i] == ' ' {
			i++
		}
		if i < end && src[i] == '}' {
			return i + 1
		}
		ns := i
		if i < end && src[i] == '"' {
			i = quotedEnd(src, i, end)
		} else {
			for i < end && src[i] != delim && src[i] != '{' && src[i] != '}' && src[i] != ':' {
				i++
			}
		}
		name := unquoteKey(bytes.TrimSpace(src[ns:i]))
		path := append(append([]string(nil), prefix...), name)
		for i < end && src[i] == ' ' {
			i++
		}
		if i < end && src[i] == '{' {
			i = o.fieldList(i, end, delim, path, leaves)
		} else {
			*leaves = append(*leaves, path)
		}
		switch {
		case i < end && src[i] == delim:
			i++
		case i < end && src[i] == '}':
			return i + 1
		default:
			return i // malformed: stop here
		}
	}
	return i
}

// splitCells cuts c at the delimiter outside quoted strings, each cell
// without the spaces around it.
func splitCells(src []byte, c span, delim byte) []span {
	var cells []span
	s := c.start
	for i := c.start; i <= c.end; i++ {
		if i < c.end && src[i] == '"' {
			i = quotedEnd(src, i, c.end) - 1
			continue
		}
		if i == c.end || src[i] == delim {
			a, b := s, i
			for a < b && src[a] == ' ' {
				a++
			}
			for b > a && src[b-1] == ' ' {
				b--
			}
			cells = append(cells, span{a, b})
			s = i + 1
		}
	}
	return cells
}

// quotedEnd is the offset after the quoted string starting at i (end
// when it is not closed).
func quotedEnd(src []byte, i, end int) int {
	for i++; i < end; i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return end
}

// unquoteKey is a key's text without its quotes and escapes.
func unquoteKey(b []byte) string {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		if s, err := strconv.Unquote(string(b)); err == nil {
			return s
		}
		return string(b[1 : len(b)-1])
	}
	return string(bytes.TrimSpace(b))
}

func appendPath(p []any, e any) []any {
	return append(append(make([]any, 0, len(p)+1), p...), e)
}

// actual is the number of elements a header's array has in the document:
// inline values, list items, rows or entries.
func (h *header) actual(nd *node) int {
	if h.colon >= 0 && len(h.inline) > 0 {
		return len(h.inline)
	}
	n := 0
	for _, c := range nd.children {
		if !c.virtual {
			n++
		}
	}
	return n
}

// at is the deepest node whose line holds offset off.
func (o *outline) at(off int) *node {
	n := o.t.lineOf(off)
	nodes := o.byLine[n]
	if len(nodes) == 0 {
		return nil
	}
	best := nodes[0]
	for _, nd := range nodes[1:] {
		if nd.content.has(off) {
			best = nd
		}
	}
	return best
}

// walk calls f on every node, parents before children.
func (o *outline) walk(f func(*node)) {
	var rec func([]*node)
	rec = func(ns []*node) {
		for _, nd := range ns {
			f(nd)
			rec(nd.children)
		}
	}
	rec(o.roots)
}

// jqPath is the path as jq writes it: .users[1].name, ."a b".
func jqPath(p []any) string {
	if len(p) == 0 {
		return "."
	}
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(e) + "]")
		case string:
			if isIdent(e) {
				b.WriteString("." + e)
			} else {
				b.WriteString("." + strconv.Quote(e))
			}
		}
	}
	return b.String()
}

// pointer is the path as a JSON pointer (RFC 6901).
func pointer(p []any) string {
	var b strings.Builder
	for _, e := range p {
		b.WriteByte('/')
		switch e := e.(type) {
		case int:
			b.WriteString(strconv.Itoa(e))
		case string:
			b.WriteString(jsonv.EscapePointerToken(e))
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// kindOf is the JSON type of a primitive's TOON text: string, number,
// boolean or null (§4: quoted is a string; true, false and null; a number
// in decimal form without leading zeros; anything else a string).
func kindOf(b []byte) string {
	switch string(b) {
	case "true", "false":
		return "boolean"
	case "null":
		return "null"
	}
	if len(b) > 0 && b[0] == '"' {
		return "string"
	}
	if toon.IsNumber(b) {
		return "number"
	}
	return "string"
}

// typeOf is the JSON type of what the node makes: object, array (with
// its length when known), or a primitive's type.
func (nd *node) typeOf(src []byte) string {
	switch {
	case nd.hdr != nil && nd.hdr.keyed:
		return "object"
	case nd.hdr != nil:
		return "array"
	case nd.kind == kRow:
		return "object"
	case nd.value.ok():
		return valueKind(nd.value.text(src))
	}
	return "object"
}

// valueKind is the type of a field's or list item's value: "[]" is the
// empty array there, any other text a primitive.
func valueKind(b []byte) string {
	if string(b) == "[]" {
		return "array"
	}
	return kindOf(b)
}
