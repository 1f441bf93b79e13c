package toon

import "fmt"

// scopeKind is the kind of an open scope.
type scopeKind uint8

const (
	scopeRoot   scopeKind = iota // the document, below every scope
	scopeObject                  // an object's fields
	scopeList                    // an expanded list's items (§9.4)
	scopeTable                   // a tabular array's rows (§9.3)
	scopeKeyed                   // a keyed tabular object's entry rows (§9.5)
)

// scope is an open block of the document: a JSON container being written,
// whose content lines stand at depth fd.
type scope struct {
	kind    scopeKind
	fd      int  // depth of the scope's content lines
	lvl     int  // JSON nesting level of the container (root value: 0)
	n       int  // members, items, rows or entries written
	want    int  // declared count [N] of an array or keyed object
	adopted bool // non-strict: fd was taken from the first content line
	elems   bool // the root array written as NDJSON lines (Elements)
	delim   byte // active delimiter of a table or keyed object

	hdr    lineCtx // the header line, for count errors
	hdrBuf []byte
	hdrCol int

	tmpl rowTemplate // row layout of a table or keyed object
	keys keySet      // keys of an object, for duplicates

	// Non-strict mode: the object's output is held from start (just after
	// its "{") so that duplicate keys can be resolved last-write-wins.
	start int
	mems  []heldMember
	first []int // per distinct key: its first member
	last  []int // per distinct key: its last member
	dup   bool
}

// heldMember is the place of one member in the output held (non-strict).
type heldMember struct {
	start int // where its "key": begins
	val   int // where its value begins
	end   int // where it ends
}

// push opens a scope on top of the stack, reusing the buffers of a scope
// that was there before.
func (d *decoder) push(kind scopeKind, fd, lvl int) (*scope, error) {
	n := len(d.stack)
	if n > maxDecodeNesting {
		return nil, d.errAt(d.col0, fmt.Sprintf("nesting deeper than %d levels", maxDecodeNesting))
	}
	if n < cap(d.stack) {
		d.stack = d.stack[:n+1]
	} else {
		d.stack = append(d.stack, scope{})
	}
	f := &d.stack[n]
	f.kind, f.fd, f.lvl, f.n, f.want = kind, fd, lvl, 0, -1
	f.adopted, f.elems, f.delim, f.dup = false, false, ',', false
	f.keys.reset()
	f.mems, f.first, f.last = f.mems[:0], f.first[:0], f.last[:0]
	return f, nil
}

// openObject writes "{" and opens an object scope.
func (d *decoder) openObject(kind scopeKind, fd, lvl int) (*scope, error) {
	d.out = append(d.out, '{')
	f, err := d.push(kind, fd, lvl)
	if err != nil {
		return nil, err
	}
	if !d.strict {
		f.start = len(d.out)
		d.openObjs++
	}
	return f, nil
}

// keepHeader records the current line as f's header, for count errors.
func (d *decoder) keepHeader(f *scope, col int) {
	t := d.ln.text
	f.hdrBuf = append(f.hdrBuf[:0], t[:min(len(t), col+128)]...)
	f.hdr = lineCtx{num: d.ln.num, off: d.ln.off, text: f.hdrBuf}
	f.hdrCol = col
}

// handle processes a content line: it closes the scopes the line is out
// of and hands it to the innermost scope left.
func (d *decoder) handle() error {
	for {
		for len(d.stack) > 1 && d.depth < d.stack[len(d.stack)-1].fd {
			if err := d.closeTop(); err != nil {
				return err
			}
		}
		if d.blankNum != 0 {
			if d.strict && d.openSpans > 0 {
				return syntaxErrorIn(lineCtx{num: d.blankNum, off: d.blankOff}, 0,
					"blank line inside an array: blank lines may come only before its first item or after its last line")
			}
			d.blankNum = 0
		}
		fi := len(d.stack) - 1
		f := &d.stack[fi]
		if f.kind == scopeRoot {
			return d.rootContent()
		}
		if d.depth > f.fd {
			switch {
			case !d.strict && f.n == 0 && !f.adopted:
				f.fd, f.adopted = d.depth, true
			case f.n == 0 && d.strict:
				return d.errAt(d.col0, fmt.Sprintf("indentation jumps from depth %d to depth %d: a block's first line is one level deeper than the line that opens it", f.fd-1, d.depth))
			default:
				return d.errAt(d.col0, fmt.Sprintf("unexpected indentation: a line at depth %d where this block's lines are at depth %d (the line before opens no block)", d.depth, f.fd))
			}
		}
		var again bool
		var err error
		switch f.kind {
		case scopeObject:
			err = d.objectLine(fi)
		case scopeList:
			err = d.listLine(fi)
		case scopeTable:
			again, err = d.tableLine(fi)
		case scopeKeyed:
			err = d.keyedLine(fi)
		}
		if err != nil || !again {
			return err
		}
	}
}

// rootContent handles a content line that no scope takes: the first one,
// which decides the root form (§5), or one after the root value.
func (d *decoder) rootContent() error {
	switch d.rootState {
	case rootPending:
		return d.lonePrimitiveError()
	case rootStarted:
		// Non-strict too: a line after a complete root array or keyed
		// object has no place in the value, and is never dropped.
		return d.errAt(d.col0, fmt.Sprintf("unexpected %s after the end of the root %s: nothing may follow it", quoteForMsg(d.ln.text[d.col0:]), d.rootKind))
	}
	if d.depth > 0 { // both modes (v4.4)
		return d.errAt(d.col0, "unexpected indentation: the first line of a document is not indented")
	}
	c := d.ln.text[d.col0:]
	kl := &d.kl
	ok, err := d.parseKeyLine(c, d.col0, kl, posRoot)
	if err != nil {
		return err
	}
	if !ok {
		if d.rootArrayToken(c) {
			return nil
		}
		d.rootState = rootPending
		raw := d.ln.text
		if d.ln.orig != nil {
			raw = d.ln.orig
		}
		d.rootLine = append(d.rootLine[:0], raw...)
		d.rootNum, d.rootOff, d.rootCol = d.ln.num, d.ln.off, d.col0
		return nil
	}
	d.rootState = rootStarted
	if kl.kind == klHeader && kl.hdr.keyless {
		d.rootKind = "array"
		if kl.hdr.keyed {
			d.rootKind = "keyed object"
		} else {
			d.stack[0].elems = d.elements
		}
		return d.openHeader(&kl.hdr, d.depth+1, 0, d.elements)
	}
	if _, err := d.openObject(scopeObject, d.depth, 0); err != nil {
		return err
	}
	return d.field(1, kl)
}

// lonePrimitiveError reports a first line without a colon that is not the
// only line: the document is an object, and the line has no key.
func (d *decoder) lonePrimitiveError() error {
	d.ln = lineCtx{num: d.rootNum, off: d.rootOff, text: d.rootLine}
	d.fixLine()
	c := d.ln.text[d.rootCol:]
	if _, err := d.parseKeyLine(c, d.rootCol, &d.kl, posObject); err != nil {
		return err
	}
	if d.kl.hdrErr != nil {
		return d.kl.hdrErr
	}
	return d.errAt(d.rootCol, fmt.Sprintf("missing colon after %s: a document of more than one line is an object of key: value lines (a lone value must be the only line)", quoteForMsg(trimSP(c))))
}

// rootArrayToken handles a first line `[]`: the empty root array.
func (d *decoder) rootArrayToken(c []byte) bool {
	if string(trimSP(c)) != "[]" {
		return false
	}
	d.rootState, d.rootKind = rootStarted, "array"
	if d.elements {
		d.stack[0].elems = true
	} else {
		d.out = append(d.out, "[]"...)
	}
	return true
}

// objectLine handles a line of an object's fields.
func (d *decoder) objectLine(fi int) error {
	c := d.ln.text[d.col0:]
	kl := &d.kl
	ok, err := d.parseKeyLine(c, d.col0, kl, posObject)
	if err != nil {
		return err
	}
	if !ok {
		if kl.hdrErr != nil {
			return kl.hdrErr
		}
		return d.errAt(d.col0, fmt.Sprintf("missing colon after key %s (expected key: value)", quoteForMsg(trimSP(c))))
	}
	return d.field(fi, kl)
}

// field writes the member of object fi that a key line holds and opens
// the scope of its value, if any.
func (d *decoder) field(fi int, kl *keyLine) error {
	f := &d.stack[fi]
	if err := d.beginMember(f, kl.key, kl.keyCol); err != nil {
		return err
	}
	fd, lvl := f.fd+1, f.lvl+1
	if kl.kind == klHeader {
		return d.openHeader(&kl.hdr, fd, lvl, false)
	}
	switch v := kl.val; {
	case len(v) == 0:
		_, err := d.openObject(scopeObject, fd, lvl)
		return err
	case len(v) == 2 && v[0] == '[' && v[1] == ']':
		d.out = append(d.out, "[]"...)
		return nil
	default:
		return d.appendToken(v, kl.valCol)
	}
}

// openHeader writes the start of the value an array or keyed header
// opens and opens its scope: items, rows or entries at depth fd. lvl is
// the JSON level of the value; elems writes a root array as NDJSON lines.
func (d *decoder) openHeader(h *arrayHeader, fd, lvl int, elems bool) error {
	switch {
	case h.keyed:
		f, err := d.openObject(scopeKeyed, fd, lvl)
		if err != nil {
			return err
		}
		return d.tabularScope(f, h)
	case h.fields:
		if !elems {
			d.out = append(d.out, '[')
		}
		f, err := d.push(scopeTable, fd, lvl)
		if err != nil {
			return err
		}
		f.elems = elems
		return d.tabularScope(f, h)
	case len(h.rest) > 0:
		return d.inlineArray(h, lvl, elems)
	}
	if !elems {
		d.out = append(d.out, '[')
	}
	f, err := d.push(scopeList, fd, lvl)
	if err != nil {
		return err
	}
	f.elems, f.want = elems, h.n
	d.keepHeader(f, h.bracketCol)
	return nil
}

// tabularScope sets up a table or keyed object from its header.
func (d *decoder) tabularScope(f *scope, h *arrayHeader) error {
	f.want, f.delim = h.n, h.delim
	d.keepHeader(f, h.bracketCol)
	if err := d.buildTemplate(&f.tmpl, f.lvl+1); err != nil {
		return err
	}
	return nil
}

// inlineArray writes an inline primitive array (§9.1).
func (d *decoder) inlineArray(h *arrayHeader, lvl int, elems bool) error {
	d.spans, _ = splitCells(d.spans[:0], h.rest, h.delim, false)
	spans := d.spans
	if d.strict && len(spans) != h.n {
		return d.errAt(h.bracketCol, fmt.Sprintf("array declares %d %s, found %d", h.n, pluralWord(h.n, "value", "values"), len(spans)))
	}
	if elems {
		for _, sp := range spans {
			if err := d.appendToken(h.rest[sp.a:sp.b], h.restCol+sp.a); err != nil {
				return err
			}
			d.out = append(d.out, '\n')
		}
		return nil
	}
	d.out = append(d.out, '[')
	for i, sp := range spans {
		if i > 0 {
			d.out = append(d.out, ',')
		}
		if d.indent != "" {
			d.out = append(d.out, d.nl(lvl+1)...)
		}
		if err := d.appendToken(h.rest[sp.a:sp.b], h.restCol+sp.a); err != nil {
			return err
		}
	}
	if d.indent != "" && len(spans) > 0 {
		d.out = append(d.out, d.nl(lvl)...)
	}
	d.out = append(d.out, ']')
	return nil
}

// listLine handles a line at the item depth of an expanded list.
func (d *decoder) listLine(fi int) error {
	f := &d.stack[fi]
	c := d.ln.text[d.col0:]
	if c[0] != '-' || len(c) > 1 && c[1] != ' ' {
		// Non-strict too: no scope below a list takes a line at its
		// item depth.
		return d.errAt(d.col0, fmt.Sprintf("expected a list item (\"- value\"), found %s", quoteForMsg(c)))
	}
	if d.strict && f.n >= f.want {
		return d.errAt(d.col0, fmt.Sprintf("array declares %d %s, found a %s", f.want, pluralWord(f.want, "item", "items"), ordinalWord(f.n+1)))
	}
	d.beginElem(f)
	fd, lvl := f.fd+1, f.lvl+1
	col := d.col0 + 1
	for col < len(d.ln.text) && d.ln.text[col] == ' ' {
		col++
	}
	rest := trimSP(d.ln.text[col:])
	switch {
	case len(rest) == 0:
		d.out = append(d.out, "{}"...)
		return nil
	case len(rest) == 2 && rest[0] == '[' && rest[1] == ']':
		d.out = append(d.out, "[]"...)
		return nil
	}
	kl := &d.kl
	ok, err := d.parseKeyLine(rest, col, kl, posListItem)
	if err != nil {
		return err
	}
	if !ok {
		return d.appendToken(rest, col)
	}
	if kl.kind == klHeader && kl.hdr.keyless {
		return d.openHeader(&kl.hdr, fd, lvl, false)
	}
	if _, err := d.openObject(scopeObject, fd, lvl); err != nil {
		return err
	}
	return d.field(len(d.stack)-1, kl)
}

// tableLine handles a line at the row depth of a tabular array. It
// reports true when the line is a key-value line, which ends the rows.
func (d *decoder) tableLine(fi int) (bool, error) {
	f := &d.stack[fi]
	c := d.ln.text[d.col0:]
	spans, kv := splitCells(d.spans[:0], c, f.delim, true)
	d.spans = spans
	if kv {
		return true, d.closeTop()
	}
	if d.strict && f.n >= f.want {
		return false, d.errAt(d.col0, fmt.Sprintf("array declares %d %s, found a %s", f.want, pluralWord(f.want, "row", "rows"), ordinalWord(f.n+1)))
	}
	// Both modes: a row has a cell for each leaf field (v4.4; non-strict
	// mode no longer makes a missing cell null).
	if len(spans) != f.tmpl.width {
		return false, d.widthError("tabular row", f, d.col0, spans)
	}
	d.beginElem(f)
	return false, d.emitRow(&f.tmpl, c, d.col0, spans)
}

// widthError reports a row whose cell count is not the header's; base is
// the column of the cells in the line.
func (d *decoder) widthError(what string, f *scope, base int, spans []cellSpan) error {
	col := len(d.ln.text)
	if len(spans) > f.tmpl.width {
		col = base + spans[f.tmpl.width].a
	}
	leaf := pluralWord(f.tmpl.width, "field", "fields")
	if f.tmpl.nested {
		leaf = "leaf " + leaf
	}
	return d.errAt(col, fmt.Sprintf("%s has %d %s, the header declares %d %s", what, len(spans), pluralWord(len(spans), "cell", "cells"), f.tmpl.width, leaf))
}

// keyedLine handles a line at the entry depth of a keyed tabular object.
func (d *decoder) keyedLine(fi int) error {
	f := &d.stack[fi]
	c := d.ln.text[d.col0:]
	key, rest, restCol, ok, err := d.entryKey(c, d.col0)
	if err != nil {
		return err
	}
	if !ok { // non-strict too: the line would be lost
		return d.errAt(d.col0, fmt.Sprintf("expected an entry row (key: cells), found %s with no colon", quoteForMsg(c)))
	}
	var spans []cellSpan
	if len(rest) > 0 {
		spans, _ = splitCells(d.spans[:0], rest, f.delim, false)
		d.spans = spans
	}
	if d.strict && f.n >= f.want {
		return d.errAt(d.col0, fmt.Sprintf("object declares %d %s, found a %s", f.want, pluralWord(f.want, "entry", "entries"), ordinalWord(f.n+1)))
	}
	if len(spans) != f.tmpl.width {
		return d.widthError("entry row", f, restCol, spans)
	}
	if err := d.beginMember(f, key, d.col0); err != nil {
		return err
	}
	return d.emitRow(&f.tmpl, rest, restCol, spans)
}

// beginElem starts an element of array f.
func (d *decoder) beginElem(f *scope) {
	if f.n == 0 {
		d.openSpans++
	}
	switch {
	case f.elems:
		if f.n > 0 {
			d.out = append(d.out, '\n')
		}
	case f.n > 0:
		d.out = append(d.out, ',')
		fallthrough
	default:
		if d.indent != "" {
			d.out = append(d.out, d.nl(f.lvl+1)...)
		}
	}
	f.n++
}

// beginMember starts the member key of object f: a duplicate key is an
// error in strict mode; in non-strict mode the member's place is noted
// for last-write-wins.
func (d *decoder) beginMember(f *scope, key []byte, col int) error {
	idx, firstLine, dup := f.keys.add(key, d.ln.num)
	if dup && d.strict {
		return d.errAt(col, fmt.Sprintf("duplicate key %s (first at line %d)", quoteForMsg(key), firstLine))
	}
	if f.kind == scopeKeyed && f.n == 0 {
		d.openSpans++
	}
	if !d.strict && len(f.mems) > 0 {
		f.mems[len(f.mems)-1].end = len(d.out)
	}
	if f.n > 0 {
		d.out = append(d.out, ',')
	}
	if d.indent != "" {
		d.out = append(d.out, d.nl(f.lvl+1)...)
	}
	start := len(d.out)
	d.out = quoteJSON(d.out, key)
	if d.indent != "" {
		d.out = append(d.out, ':', ' ')
	} else {
		d.out = append(d.out, ':')
	}
	if !d.strict {
		m := len(f.mems)
		f.mems = append(f.mems, heldMember{start: start, val: len(d.out)})
		if dup {
			f.dup = true
			f.last[idx] = m
		} else {
			f.first = append(f.first, m)
			f.last = append(f.last, m)
		}
	}
	f.n++
	return nil
}

// closeTop closes the innermost scope, checking its count.
func (d *decoder) closeTop() error {
	fi := len(d.stack) - 1
	f := &d.stack[fi]
	if d.strict && f.kind != scopeObject && f.n != f.want {
		what, unit := "array", pluralWord(f.want, "item", "items")
		switch f.kind {
		case scopeTable:
			unit = pluralWord(f.want, "row", "rows")
		case scopeKeyed:
			what, unit = "object", pluralWord(f.want, "entry", "entries")
		}
		return syntaxErrorIn(f.hdr, f.hdrCol, fmt.Sprintf("%s declares %d %s, found %d", what, f.want, unit, f.n))
	}
	switch f.kind {
	case scopeObject, scopeKeyed:
		if !d.strict {
			if f.dup && !d.keepDups {
				d.resolveDuplicates(f)
			}
			d.openObjs--
		}
		if f.n > 0 && d.indent != "" {
			d.out = append(d.out, d.nl(f.lvl)...)
		}
		d.out = append(d.out, '}')
	default:
		switch {
		case f.elems:
			if f.n > 0 {
				d.out = append(d.out, '\n')
			}
		case f.n > 0 && d.indent != "":
			d.out = append(d.out, d.nl(f.lvl)...)
			fallthrough
		default:
			d.out = append(d.out, ']')
		}
	}
	if f.kind != scopeObject && f.n > 0 {
		d.openSpans--
	}
	d.stack = d.stack[:fi]
	return nil
}

// resolveDuplicates rewrites the output held for object f with one member
// per key: at the place of the key's first occurrence, the value of its
// last (last-write-wins, §14.3).
func (d *decoder) resolveDuplicates(f *scope) {
	f.mems[len(f.mems)-1].end = len(d.out)
	s := d.scratch[:0]
	for k, fm := range f.first {
		if k > 0 {
			s = append(s, ',')
		}
		if d.indent != "" {
			s = append(s, d.nl(f.lvl+1)...)
		}
		first, last := f.mems[fm], f.mems[f.last[k]]
		s = append(s, d.out[first.start:first.val]...)
		s = append(s, d.out[last.val:last.end]...)
	}
	d.out = append(d.out[:f.start], s...)
	d.scratch = s
}

// nl is a line end followed by the indentation of JSON level lvl.
func (d *decoder) nl(lvl int) []byte {
	n := 1 + lvl*len(d.indent)
	for len(d.nlBuf) < n {
		d.nlBuf = append(d.nlBuf, d.indent...)
	}
	return d.nlBuf[:n]
}
