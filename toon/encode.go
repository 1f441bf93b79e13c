package toon

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
)

// FromJSON writes the TOON form of one JSON value to w, without a final
// newline (§12). value is one JSON text, with optional white space around
// it and an optional UTF-8 byte order mark before it; NaN, Infinity and
// -Infinity, as Python's json.dumps writes non-finite floats, may stand
// for values, and are written as null (§3; toonx.EncodeOptions.NonFinite counts
// them). FromJSON returns an error, having written nothing, when it is not
// valid JSON (RFC 8259, UTF-8) with those three words, when an object holds a member name twice (the error matches
// errEncodeDuplicateName), when a string holds an escaped lone surrogate
// (TOON strings are Unicode text, §7.1) or when arrays and objects nest
// deeper than 10000 levels. It never panics.
//
// The output is that of the reference encoder (@toon-format/toon) for the
// same document, but for what the host languages differ in: numbers keep
// their exact digits (AppendNumber), not those of a float64, and member
// order is the order of the JSON text (JavaScript moves integer-like names
// first).
//
// FromJSON works on the raw bytes without building a tree. The commonest
// document, a root array of flat objects whose members come in one order
// (a table of primitives), is checked and written in one pass, its output
// held until the end of the text (about half of value for pretty-printed
// rows) and then written to w at once. Any other value takes the general
// path: a validating pass (which indexes the large containers, so that any
// value is skipped at a bounded cost), then a walk that decides each
// array's and object's form by scanning its elements and writes it; its
// memory beyond value is a small fraction of it, and the output is
// streamed to w in 64 KiB chunks.
func FromJSON(w io.Writer, jsonText []byte, opts MarshalOptions) error {
	return fromJSON(w, jsonText, opts.encodeOptions())
}

// fromJSON is FromJSON with the hooks of toonx.EncodeOptions.
func fromJSON(w io.Writer, value []byte, opts encodeOptions) error {
	e, err := newEncoderUnchecked(w, value, opts)
	if err != nil {
		return err
	}
	// In bounded memory (toonx.EncodeOptions.Release), the general path
	// alone: the one-pass table form holds its output until the end.
	if opts.Release != nil || !e.fastTable() {
		if err := e.general(); err != nil {
			return err
		}
	}
	return e.done()
}

// general encodes any value: the validating pass, then the walk.
func (e *encoder) general() error {
	var err error
	e.nonFinite = 0 // the one-pass form may have counted some before it gave up
	v := jsonValidator{in: e.in, seed: e.seed, nonFinite: &e.nonFinite, release: e.release}
	if e.index, err = v.check(); err != nil {
		return err
	}
	e.release.reset(0)
	e.root(e.ws(0))
	e.flush()
	return e.err
}

// done returns the error of w, or tells toonx.EncodeOptions.NonFinite of the
// non-finite numbers written as null.
func (e *encoder) done() error {
	if e.err == nil && e.nonFinite > 0 && e.onNonFinite != nil {
		e.onNonFinite(e.nonFinite)
	}
	return e.err
}

// encodeTable is toonx.EncodeTable.
func encodeTable(w io.Writer, value []byte, opts encodeOptions) (bool, error) {
	e, err := newEncoderUnchecked(w, value, opts)
	if err != nil {
		return false, err
	}
	if !e.fastTable() {
		return false, nil
	}
	return true, e.done()
}

// encodeChunk is the size from which buffered output is written to w.
const encodeChunk = 64 << 10

// encoder writes the TOON form of one validated JSON text.
type encoder struct {
	in     []byte
	index  []skipSpan // the skip index (validator)
	w      io.Writer
	out    []byte // output not yet written to w
	err    error  // the first write error
	indent int    // spaces per level
	delim  byte   // the document delimiter, declared by every header
	lines  bool   // a line has been started
	dash   int    // depth of a pending list-item hyphen, or -1
	hold   bool   // flush keeps the output in out (Marshal)

	nonFinite   int       // NaN, Infinity and -Infinity written as null
	onNonFinite func(int) // toonx.EncodeOptions.NonFinite
	release     *releaser // toonx.EncodeOptions.Release, or nil

	class [256]uint8 // the classes of bytes in string values
	sbuf  []byte     // a decoded string value
	raw   []byte     // a copy of a value (fastTable)
	kbuf  []byte     // a decoded key

	// Tabular forms (encode_table.go).
	nodes  []tableField
	leaves int     // leaf fields of the current field tree
	slots  []int   // value offsets of one row's leaf cells
	cols   []int   // value offsets of nested-group columns, row by row
	ftab   []int32 // hash tables of wide field levels
	names  []byte  // decoded field names that had escapes
	seed   maphash.Seed
}

// newEncoder checks the options and value.
func newEncoder(w io.Writer, value []byte, opts encodeOptions) (*encoder, error) {
	e, err := newEncoderUnchecked(w, value, opts)
	if err != nil {
		return nil, err
	}
	if e.index, err = validateJSON(value, &e.nonFinite); err != nil {
		return nil, err
	}
	return e, nil
}

// newEncoderUnchecked checks the options; the value is yet to be checked.
func newEncoderUnchecked(w io.Writer, value []byte, opts encodeOptions) (*encoder, error) {
	indent := opts.IndentSize
	if indent == 0 {
		indent = DefaultIndentSize
	}
	if indent < 0 {
		return nil, fmt.Errorf("toon: encode: negative indent size %d", indent)
	}
	delim := Delimiter(opts.Delimiter)
	if delim == 0 {
		delim = Comma
	}
	if delim != Comma && delim != Tab && delim != Pipe {
		return nil, fmt.Errorf("toon: encode: invalid delimiter %q (supported: comma, tab, pipe)", rune(delim))
	}
	if w == nil {
		return nil, errors.New("toon: encode: nil writer")
	}
	// A UTF-8 byte order mark, which RFC 8259 lets a parser ignore, is
	// skipped (error offsets then count from after it).
	value = bytes.TrimPrefix(value, utf8BOM)
	e := &encoder{in: value, w: w, indent: indent, delim: byte(delim), dash: -1, seed: maphash.MakeSeed(), onNonFinite: opts.NonFinite}
	if opts.Release != nil {
		e.release = &releaser{fn: opts.Release, every: opts.ReleaseEvery}
		if e.release.every <= 0 {
			e.release.every = defaultReleaseEvery
		}
	}
	// The output is rarely much larger than the input, and never held
	// beyond a chunk and a line.
	e.out = make([]byte, 0, min(len(value)+len(value)/2+64, encodeChunk+encodeChunk/4))
	for c := range 0x20 {
		e.class[c] = classQuote
	}
	for _, c := range []byte{':', '[', ']', '{', '}', byte(delim)} {
		e.class[c] = classQuote
	}
	e.class['"'], e.class['\\'] = classStop, classStop
	return e, nil
}

// flush writes the buffered output to w.
func (e *encoder) flush() {
	if e.hold {
		return
	}
	if len(e.out) > 0 && e.err == nil {
		_, e.err = e.w.Write(e.out)
	}
	e.out = e.out[:0]
}

// line starts an output line at depth: a newline unless it is the first
// line, then the indentation; or, when a list item is pending, the
// indentation of its depth and the hyphen.
func (e *encoder) line(depth int) {
	if len(e.out) >= encodeChunk {
		e.flush()
	}
	if e.lines {
		e.out = append(e.out, '\n')
	}
	e.lines = true
	if e.dash >= 0 {
		e.spaces(e.dash)
		e.out = append(e.out, '-', ' ')
		e.dash = -1
		return
	}
	e.spaces(depth)
}

const indentSpaces = "                                                                "

// spaces appends the indentation of depth levels. Past a write error it
// appends nothing, as the output goes nowhere.
func (e *encoder) spaces(depth int) {
	if depth <= len(indentSpaces) && e.indent <= len(indentSpaces) && depth*e.indent <= len(indentSpaces) {
		e.out = append(e.out, indentSpaces[:depth*e.indent]...)
		return
	}
	for range depth {
		for n := e.indent; n > 0 && e.err == nil; {
			k := min(n, len(indentSpaces))
			e.out = append(e.out, indentSpaces[:k]...)
			n -= k
			if len(e.out) >= encodeChunk {
				e.flush()
			}
		}
	}
}

// memberKey is an object member's name as written in the JSON text.
type memberKey struct {
	raw     []byte // between the quotes, escapes and all
	escaped bool
	none    bool   // no key: a root or list-item value
	out     []byte // when not nil, the key as written (Marshal's fields)
}

// root writes the top-level value that starts at p.
func (e *encoder) root(p int) {
	switch e.in[p] {
	case '{':
		if _, ok := e.keyed(memberKey{none: true}, p, 0); ok {
			return
		}
		e.fields(p, 0)
	case '[':
		e.array(memberKey{none: true}, p, 0, false)
	case '"':
		e.line(0)
		end, escaped := jsonStringEnd(e.in, p)
		s := e.in[p+1 : end-1]
		if escaped {
			e.sbuf = appendJSONUnescaped(e.sbuf[:0], s)
			s = e.sbuf
		}
		// A leading byte order mark would be taken for one by a decoder.
		if len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF {
			e.out = appendQuotedTOON(e.out, s)
		} else {
			e.appendString(s)
		}
	default:
		e.line(0)
		e.prim(p)
	}
}

// fields writes the members of the object at p as fields at depth (§8)
// and returns the offset past the object.
func (e *encoder) fields(p, depth int) int {
	i := e.ws(p + 1)
	for e.at(i) == '"' {
		name, escaped, v := e.member(i)
		i = e.next(e.field(memberKey{raw: name, escaped: escaped}, v, depth))
	}
	return i + 1
}

// field writes one object field k whose value starts at v, at depth, and
// returns the offset past the value.
func (e *encoder) field(k memberKey, v, depth int) int {
	switch e.in[v] {
	case '[':
		return e.array(k, v, depth, false)
	case '{':
		if end, ok := e.keyed(k, v, depth); ok {
			return end
		}
		e.line(depth)
		e.appendKey(k)
		e.out = append(e.out, ':')
		return e.fields(v, depth+1)
	}
	e.line(depth)
	e.appendKey(k)
	e.out = append(e.out, ':', ' ')
	return e.prim(v)
}

// array writes the array at p (§9) with its key k at depth and returns the
// offset past it. An item array (an element of a list) never takes the
// tabular form, and its empty form is [0]: rather than [].
func (e *encoder) array(k memberKey, p, depth int, item bool) int {
	first := e.ws(p + 1)
	switch e.in[first] {
	case ']':
		e.emptyArray(k, depth, item)
		return first + 1
	case '{':
		if !item {
			if end, ok := e.tabular(k, p, depth); ok {
				return end
			}
		}
	case '[':
	default:
		if n, end, ok := e.primitives(first); ok {
			e.line(depth)
			e.appendHeader(k, n, false, -1)
			e.out = append(e.out, ' ')
			e.inline(first)
			return end
		}
	}
	// The list form (§9.4).
	e.line(depth)
	e.appendHeader(k, e.count(p), false, -1)
	i := first
	for e.at(i) != ']' && i < len(e.in) {
		i = e.next(e.item(i, depth+1))
	}
	return i + 1
}

// emptyArray writes an empty array with its key k at depth: [0]: as a
// list item, [] otherwise.
func (e *encoder) emptyArray(k memberKey, depth int, item bool) {
	e.line(depth)
	switch {
	case item:
		e.appendHeader(k, 0, false, -1)
	case k.none:
		e.out = append(e.out, '[', ']')
	default:
		e.appendKey(k)
		e.out = append(e.out, ':', ' ', '[', ']')
	}
}

// primitives reports whether the elements from first on, up to the end
// of their array, are all primitives, with their number and the offset
// past the array.
func (e *encoder) primitives(first int) (n, end int, ok bool) {
	i := first
	for ; e.at(i) != ']' && i < len(e.in); n++ {
		if c := e.in[i]; c == '{' || c == '[' {
			return 0, 0, false
		}
		i = e.next(e.primEnd(i))
	}
	return n, i + 1, true
}

// inline writes the primitive elements from first on, joined by the
// delimiter (§9.1).
func (e *encoder) inline(first int) {
	for i := first; e.at(i) != ']' && i < len(e.in); {
		if i != first {
			e.out = append(e.out, e.delim)
		}
		i = e.next(e.prim(i))
		if len(e.out) >= encodeChunk {
			e.flush()
		}
	}
}

// item writes the list item (§9.4, §10) that starts at p, its hyphen at
// depth, and returns the offset past it.
func (e *encoder) item(p, depth int) int {
	switch e.in[p] {
	case '{':
		i := e.ws(p + 1)
		if e.at(i) != '"' {
			e.line(depth)
			e.out = append(e.out, '-')
			return i + 1
		}
		// The first field on the hyphen line; its own content (rows,
		// entries, nested fields) at depth+2, the other fields at depth+1.
		name, escaped, v := e.member(i)
		e.dash = depth
		i = e.next(e.field(memberKey{raw: name, escaped: escaped}, v, depth+1))
		for e.at(i) == '"' {
			name, escaped, v := e.member(i)
			i = e.next(e.field(memberKey{raw: name, escaped: escaped}, v, depth+1))
		}
		return i + 1
	case '[':
		e.dash = depth
		return e.array(memberKey{none: true}, p, depth, true)
	}
	e.dash = depth
	e.line(depth)
	return e.prim(p)
}
