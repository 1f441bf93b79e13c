package toon

import (
	"bytes"
	"fmt"
)

// arrayHeader is a parsed array or keyed header (§6).
type arrayHeader struct {
	keyless    bool
	n          int  // declared length or entry count
	keyed      bool // [N:]: a keyed tabular object (§9.5)
	fields     bool // a fields segment; its entries are in decoder.fields
	delim      byte // active delimiter
	bracketCol int  // column of "[" in the line
	rest       []byte
	restCol    int // column of rest in the line
}

// keyLine is a line in key position: `key: value`, `key:` or a header.
type keyLine struct {
	kind   uint8 // klValue or klHeader
	key    []byte
	keyCol int
	val    []byte // klValue: the value token, trimmed; empty for `key:`
	valCol int
	hdr    arrayHeader
	hdrErr error // a header without a colon, when the line has none
}

const (
	klValue = iota + 1
	klHeader
)

// keyPos is where a key line stands, for the keyless headers it admits.
type keyPos uint8

const (
	posObject   keyPos = iota // an object field: no keyless header
	posListItem               // after "- ": a keyless header without fields
	posRoot                   // the first line: any keyless header
)

// parseKeyLine classifies content c (at byte col of the line) in key
// position (§5.2): an array header, or a key-value line with its key up to
// the first unquoted colon. It reports false for a line without a colon.
// A malformed header, or one out of place, is an error in both modes
// (v4.4; v4.1 read it as a key-value line with a literal key in non-strict
// mode).
func (d *decoder) parseKeyLine(c []byte, col int, kl *keyLine, pos keyPos) (bool, error) {
	kl.kind, kl.hdrErr = 0, nil
	lb := -1
	var key []byte
	if c[0] == '"' {
		raw, end, err := d.unquote(d.keyBuf[:0], c, col)
		if err != nil {
			return false, err
		}
		d.keyBuf, key = raw, raw
		if end < len(c) && c[end] == '[' {
			lb = end
		} else {
			i := skipSP(c, end)
			if i < len(c) && c[i] == ':' {
				d.kvLine(kl, key, c, i, col)
				return true, nil
			}
			colon := indexUnquoted(c, end, ':', ':')
			if colon < 0 {
				return false, nil
			}
			return false, d.errAt(col+i, fmt.Sprintf("expected a colon after the quoted key, found %s", quoteForMsg(c[i:colon])))
		}
	} else {
		// The key runs to the first unquoted colon. An unquoted "[" before
		// it starts an array header, whose key it ends: the bracket follows
		// the key without a space (v4.4: `foo [2]: bar` is an error, no
		// longer a key-value line with the key "foo [2]").
		i := indexUnquoted(c, 0, ':', '[')
		if i < 0 {
			return false, nil
		}
		if c[i] == ':' {
			d.kvLine(kl, trimSP(c[:i]), c, i, col)
			return true, nil
		}
		if i > 0 && (c[i-1] == ' ' || c[i-1] == '\t') {
			if indexUnquoted(c, i, ':', ':') < 0 {
				return false, nil
			}
			return false, d.errAt(col+i-1, `unexpected space before "[": an array header's "[" follows its key directly (foo[2]: …), and a key holding " [" is quoted ("foo [2]": …)`)
		}
		lb, key = i, c[:i]
	}
	h := &kl.hdr
	err := d.parseHeader(c, lb, col, h)
	if indexUnquoted(c, lb, ':', ':') < 0 {
		// No colon outside quotes (a quote in a field name may hide it):
		// no key line at all, and the caller says so, with the header's
		// error if it has one.
		kl.hdrErr = err
		return false, nil
	}
	if err == nil {
		h.keyless = lb == 0
		if !h.keyless || pos == posRoot || pos == posListItem && !h.keyed && !h.fields {
			kl.kind, kl.key, kl.keyCol = klHeader, key, col
			return true, nil
		}
		if pos == posListItem {
			err = d.errAt(col, "a list item's array header without a key takes no field list: only the document's first line may be a keyless tabular or keyed header")
		} else {
			err = d.errAt(col, "array header without a key: only the document's first line or a list item (\"- [N]: …\") may omit the key")
		}
	}
	// A malformed header, or one out of place, is an error in both modes
	// (v4.4).
	return false, err
}

// kvLine fills kl with a key-value line whose colon is at c[colon]; c
// stands at byte col of the line.
func (d *decoder) kvLine(kl *keyLine, key, c []byte, colon, col int) {
	kl.kind, kl.key, kl.keyCol = klValue, key, col
	i := skipSP(c, colon+1)
	kl.val, kl.valCol = trimSP(c[i:]), col+i
}

// parseHeader parses the header whose bracket segment starts at c[lb]
// (§6), its fields into d.fields.
func (d *decoder) parseHeader(c []byte, lb, col int, h *arrayHeader) error {
	*h = arrayHeader{delim: ',', bracketCol: col + lb}
	i := lb + 1
	start := i
	for i < len(c) && isDigit(c[i]) {
		i++
	}
	switch {
	case i == start:
		return d.errAt(col+i, fmt.Sprintf("expected the array length after \"[\", found %s", quoteNextForMsg(c, i)))
	case c[start] == '0' && i-start > 1:
		return d.errAt(col+start, fmt.Sprintf("array length %s has a leading zero", c[start:i]))
	case i-start > 15:
		return d.errAt(col+start, fmt.Sprintf("array length %s is too large", c[start:i]))
	}
	for _, ch := range c[start:i] {
		h.n = h.n*10 + int(ch-'0')
	}
	if i < len(c) && c[i] == ':' {
		h.keyed = true
		i++
	}
	if i < len(c) && (c[i] == '\t' || c[i] == '|') {
		h.delim = c[i]
		i++
	}
	if i >= len(c) || c[i] != ']' {
		return d.errAt(col+i, fmt.Sprintf("expected \"]\" after the array length, found %s", quoteNextForMsg(c, i)))
	}
	i++
	if i < len(c) && c[i] == '{' {
		end, err := d.parseFields(c, i, col, h.delim)
		if err != nil {
			return err
		}
		h.fields, i = true, end
	}
	if i >= len(c) {
		return d.errAt(col+i, "missing colon at the end of the array header")
	}
	if c[i] != ':' {
		return d.errAt(col+i, fmt.Sprintf("unexpected %s between the array header and its colon", quoteNextForMsg(c, i)))
	}
	if h.keyed && !h.fields {
		return d.errAt(col+i, "a keyed header [N:] needs a field list, as in key[N:]{a,b}:")
	}
	i = skipSP(c, i+1)
	if h.fields {
		if j := skipSP(c, i); j < len(c) {
			return d.errAt(col+j, fmt.Sprintf("unexpected %s after a tabular header's colon: its rows go on the lines below", quoteForMsg(c[j:])))
		}
	}
	h.rest, h.restCol = trimSP(c[i:]), col+i
	return nil
}

// fieldEntry is one entry of a header's fields segment. Entry 0 is the
// segment itself.
type fieldEntry struct {
	name, nameEnd int // the decoded name: decoder.names[name:nameEnd]
	col           int
	parent        int
	group         bool // has a nested field group
	first, last   int  // a group's children, -1 for none
	next          int  // next sibling, -1 for none
	cell          int  // a leaf's cell index in a row
	use           int  // the entry whose value this one shows (last-write-wins)
	dropped       bool // a later duplicate, shown at the first one's place
}

// parseFields parses the fields segment at c[i] == '{' into d.fields and
// returns the index after its "}".
func (d *decoder) parseFields(c []byte, i, col int, delim byte) (int, error) {
	d.fields = append(d.fields[:0], fieldEntry{parent: -1, group: true, first: -1, last: -1, next: -1})
	d.names = d.names[:0]
	g, depth := 0, 1
	i++
	for {
		i = skipSP(c, i)
		nameCol, off := i, len(d.names)
		if i < len(c) && c[i] == '"' {
			raw, end, err := d.unquote(d.names, c[i:], col+i)
			if err != nil {
				return 0, err
			}
			d.names = raw
			i += end
		} else {
			j := i
			for ; j < len(c); j++ {
				ch := c[j]
				if ch == delim || ch == '{' || ch == '}' {
					break
				}
				if ch == '"' { // a quoted part inside the name is kept as it is
					j = skipQuotedPart(c, j) - 1
					continue
				}
				if ch == ',' || ch == '|' || ch == '\t' {
					return 0, d.errAt(col+j, fmt.Sprintf("the field list is split by %s, but the header declares the %s delimiter", delimiterName(ch), delimiterName(delim)))
				}
			}
			name := trimSP(c[i:j])
			if len(name) == 0 {
				if j < len(c) && c[j] == '}' && d.fields[g].first < 0 {
					return 0, d.errAt(col+j, "empty field list {}: a field list needs at least one field")
				}
				return 0, d.errAt(col+j, fmt.Sprintf("expected a field name, found %s", quoteNextForMsg(c, j)))
			}
			d.names = append(d.names, name...)
			i = j
		}
		e := len(d.fields)
		d.fields = append(d.fields, fieldEntry{name: off, nameEnd: len(d.names), col: col + nameCol, parent: g, first: -1, last: -1, next: -1, use: e})
		if p := &d.fields[g]; p.first < 0 {
			p.first, p.last = e, e
		} else {
			d.fields[p.last].next, p.last = e, e
		}
		sp := i
		i = skipSP(c, i)
		if i >= len(c) {
			return 0, d.errAt(col+i, "unmatched \"{\": the field list is not closed")
		}
		if c[i] == '{' && (i > sp || c[i-1] == ' ') { // v4.4, both modes
			return 0, d.errAt(col+i-1, fmt.Sprintf("unexpected space before the nested field group of %s: write %s{…}", quoteForMsg(d.names[off:]), d.names[off:]))
		}
		switch c[i] {
		case '{':
			depth++
			if depth+len(d.stack) > maxDecodeNesting {
				return 0, d.errAt(col+i, fmt.Sprintf("nesting deeper than %d levels", maxDecodeNesting))
			}
			d.fields[e].group, g = true, e
			i++
			continue
		case delim:
			i++
			continue
		case '}':
		default:
			return 0, d.errAt(col+i, fmt.Sprintf("expected %s or \"}\" after a field name, found %s", delimiterName(delim), quoteNextForMsg(c, i)))
		}
		for { // close groups
			i++
			g, depth = d.fields[g].parent, depth-1
			if g < 0 {
				return i, nil
			}
			i = skipSP(c, i)
			if i < len(c) && c[i] == '}' {
				continue
			}
			if i < len(c) && c[i] == delim {
				i++
				break
			}
			if i >= len(c) {
				return 0, d.errAt(col+i, "unmatched \"{\": the field list is not closed")
			}
			return 0, d.errAt(col+i, fmt.Sprintf("expected %s or \"}\" after a field group, found %s", delimiterName(delim), quoteNextForMsg(c, i)))
		}
	}
}

func delimiterName(c byte) string {
	switch c {
	case '\t':
		return "tab"
	case '|':
		return "pipe"
	}
	return "comma"
}

// rowTemplate is the layout of a row's JSON object: seg[:segEnd[0]], the
// value of cell[0], seg[segEnd[0]:segEnd[1]], the value of cell[1], …,
// seg[segEnd[last]:].
type rowTemplate struct {
	seg    []byte
	segEnd []int
	cell   []int
	width  int  // the cells of a row: the header's leaf fields
	nested bool // the header has nested field groups
}

// buildTemplate compiles the fields in d.fields into t, for row objects at
// JSON level lvl.
func (d *decoder) buildTemplate(t *rowTemplate, lvl int) error {
	t.seg, t.segEnd, t.cell, t.width, t.nested = t.seg[:0], t.segEnd[:0], t.cell[:0], 0, false
	for e := 1; e < len(d.fields); e++ {
		if d.fields[e].group {
			t.nested = true
		} else {
			d.fields[e].cell = t.width
			t.width++
		}
	}
	for g := range d.fields {
		if d.fields[g].group {
			if err := d.dedupeFields(g); err != nil {
				return err
			}
		}
	}
	t.seg = append(t.seg, '{')
	d.templateGroup(t, 0, lvl)
	return nil
}

func (d *decoder) fieldName(e int) []byte {
	return d.names[d.fields[e].name:d.fields[e].nameEnd]
}

// dedupeFields finds duplicate names among group g's fields: an error in
// strict mode; otherwise the first one shows the value of the last.
func (d *decoder) dedupeFields(g int) error {
	if d.keepDups && !d.strict {
		return nil
	}
	var seen map[string]int
	count := 0
	for e := d.fields[g].first; e >= 0; e = d.fields[e].next {
		count++
	}
	if count > 32 {
		seen = make(map[string]int, count)
	}
	for e := d.fields[g].first; e >= 0; e = d.fields[e].next {
		name, prev := d.fieldName(e), -1
		if seen != nil {
			if p, ok := seen[string(name)]; ok {
				prev = p
			} else {
				seen[string(name)] = e
			}
		} else {
			for p := d.fields[g].first; p != e; p = d.fields[p].next {
				if !d.fields[p].dropped && bytes.Equal(d.fieldName(p), name) {
					prev = p
					break
				}
			}
		}
		if prev < 0 {
			continue
		}
		if d.strict {
			return d.errAt(d.fields[e].col, fmt.Sprintf("duplicate field name %s in the header", quoteForMsg(name)))
		}
		d.fields[prev].use = e
		d.fields[e].dropped = true
	}
	return nil
}

// templateGroup appends the members of group g, an object at JSON level
// lvl, and its closing brace.
func (d *decoder) templateGroup(t *rowTemplate, g, lvl int) {
	first := true
	for e := d.fields[g].first; e >= 0; e = d.fields[e].next {
		if d.fields[e].dropped {
			continue
		}
		if !first {
			t.seg = append(t.seg, ',')
		}
		first = false
		if d.indent != "" {
			t.seg = append(t.seg, d.nl(lvl+1)...)
		}
		t.seg = quoteJSON(t.seg, d.fieldName(e))
		t.seg = append(t.seg, ':')
		if d.indent != "" {
			t.seg = append(t.seg, ' ')
		}
		u := d.fields[e].use
		if d.fields[u].group {
			t.seg = append(t.seg, '{')
			d.templateGroup(t, u, lvl+1)
		} else {
			t.segEnd = append(t.segEnd, len(t.seg))
			t.cell = append(t.cell, d.fields[u].cell)
		}
	}
	if d.indent != "" {
		t.seg = append(t.seg, d.nl(lvl)...)
	}
	t.seg = append(t.seg, '}')
}

// emitRow writes the object of one row: cells s[spans[i]] at column col,
// one for each leaf field.
func (d *decoder) emitRow(t *rowTemplate, s []byte, col int, spans []cellSpan) error {
	prev := 0
	for i, ci := range t.cell {
		d.out = append(d.out, t.seg[prev:t.segEnd[i]]...)
		prev = t.segEnd[i]
		sp := spans[ci]
		if err := d.appendToken(s[sp.a:sp.b], col+sp.a); err != nil {
			return err
		}
	}
	d.out = append(d.out, t.seg[prev:]...)
	return nil
}

// entryKey splits an entry row at its first unquoted colon (§9.5): the
// entry key and the cells after it, trimmed. It reports false for a line
// without a colon.
func (d *decoder) entryKey(c []byte, col int) (key, rest []byte, restCol int, ok bool, err error) {
	colon := -1
	if c[0] == '"' {
		raw, end, err := d.unquote(d.keyBuf[:0], c, col)
		if err != nil {
			return nil, nil, 0, false, err
		}
		d.keyBuf, key = raw, raw
		i := skipSP(c, end)
		switch {
		case i < len(c) && c[i] == ':':
			colon = i
		default:
			if colon = indexUnquoted(c, end, ':', ':'); colon < 0 {
				return nil, nil, 0, false, nil
			}
			return nil, nil, 0, false, d.errAt(col+i, fmt.Sprintf("expected a colon after the quoted entry key, found %s", quoteForMsg(c[i:colon])))
		}
	} else {
		if colon = indexUnquoted(c, 0, ':', ':'); colon < 0 {
			return nil, nil, 0, false, nil
		}
		key = trimSP(c[:colon])
	}
	i := skipSP(c, colon+1)
	return key, trimSP(c[i:]), col + i, true, nil
}

// indexUnquoted is the index of the first a or b at or after from in c
// outside quotes, or -1. A double quote opens a quoted part that the next
// unescaped one closes (Appendix B.3).
func indexUnquoted(c []byte, from int, a, b byte) int {
	for i := from; i < len(c); {
		switch ch := c[i]; {
		case ch == a || ch == b:
			return i
		case ch == '"':
			i = skipQuotedPart(c, i)
		default:
			i++
		}
	}
	return -1
}

func skipSP(c []byte, i int) int {
	for i < len(c) && c[i] == ' ' {
		i++
	}
	return i
}

// trimSP trims U+0020 on both sides (§12: no other character).
func trimSP(c []byte) []byte {
	i, j := 0, len(c)
	for i < j && c[i] == ' ' {
		i++
	}
	for j > i && c[j-1] == ' ' {
		j--
	}
	return c[i:j]
}

// quoteNextForMsg shows what stands at c[i] for a message.
func quoteNextForMsg(c []byte, i int) string {
	if i >= len(c) {
		return "the end of the line"
	}
	j := i + 1
	for j < len(c) && j < i+12 && c[j] != ' ' {
		j++
	}
	return quoteForMsg(c[i:j])
}
