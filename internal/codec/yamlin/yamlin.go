// Package yamlin reads YAML as JSON records, for toonkit's commands that
// take JSON (`--from yaml`, and files named .yaml or .yml).
//
// The text is parsed by go.yaml.in/yaml/v3 into yaml.Node trees, so that
// mapping order is kept; what a node means is decided here, by the YAML
// 1.2 core schema (docs/formats/yaml.md has every rule):
//
//   - a plain scalar is null (null, Null, NULL, ~, nothing), a bool
//     (true, True, TRUE, false, False, FALSE), an integer ([-+]?[0-9]+,
//     0o17, 0x1F), a float, or else a string: yes, no, on, off, 0777 as
//     written, 2001-12-14 and 1_000 are strings, 0777 is 777 (PyYAML,
//     which reads YAML 1.1, differs there);
//   - numbers are written as JSON numbers with every digit kept (no
//     float64 on the way): 007 is 7, 0x1F is 31, +1.50 is 1.50, .5 is
//     0.5, and a 40-digit integer stays exact;
//   - .inf, -.inf and .nan have no JSON form: an error at their
//     line:column, with a hint (quote them to keep them as strings);
//   - !!binary is its base64 text (white space removed), !!timestamp the
//     text as written; any other tag but the core schema's is an error;
//   - a key that is not a string is the JSON text of its value (1, true,
//     null, 1.5); a mapping or sequence as a key is an error; a key given
//     twice in one mapping is an error;
//   - merge keys (<<: *base, <<: [*a, *b]) are expanded as PyYAML does;
//   - anchors and aliases are expanded into copies, up to
//     Options.MaxAliasNodes nodes per document (the limit against alias
//     bombs), an alias inside its own anchor's node being an error;
//   - a stream of several documents is a record per document, as NDJSON
//     is; one document whose root is a sequence gives its elements with
//     Options.Elements, as a JSON array does.
//
// Errors are *Error: what kind, and where (a *jsonv.SyntaxError, with
// the line's excerpt; the parser gives the line of a syntax error, not
// its column).
package yamlin

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"go.yaml.in/yaml/v3"
)

// The limits Options take when left 0.
const (
	// DefaultMaxSize bounds the input, which is read whole, and each
	// record's JSON text.
	DefaultMaxSize = jsonv.DefaultMaxValueSize
	// DefaultMaxAliasNodes bounds the nodes that aliases copy into one
	// document: a billion laughs stops at the millionth.
	DefaultMaxAliasNodes = 1_000_000
	// DefaultMaxDepth bounds the nesting of a record, as toonkit's TOON
	// encoder bounds it.
	DefaultMaxDepth = 10000
	// MaxRadixDigits bounds the digits of a 0o or 0x integer, which is
	// turned into decimal (a decimal integer is copied, at any length).
	MaxRadixDigits = 4096
)

// Options configure a Reader.
type Options struct {
	// MaxSize bounds the input, read whole, and the JSON text of one
	// record; 0: DefaultMaxSize.
	MaxSize int
	// MaxAliasNodes bounds the nodes that aliases copy into one document;
	// 0: DefaultMaxAliasNodes.
	MaxAliasNodes int
	// MaxDepth bounds the nesting of a record; 0: DefaultMaxDepth.
	MaxDepth int
	// Elements makes a stream of one document whose root is a sequence
	// give the sequence's elements as records, as a JSON array does;
	// otherwise every document is one record.
	Elements bool
}

// ErrorKind tells what an *Error is about.
type ErrorKind int

const (
	// Syntax: the text is not YAML (the parser's message).
	Syntax ErrorKind = iota
	// Unsupported: YAML that has no JSON form: a non-finite float, a
	// collection as a key, an alias inside its own anchor, a tag that is
	// not the core schema's, a tagged value its tag does not fit.
	Unsupported
	// Duplicate: a key given twice in one mapping.
	Duplicate
	// Limit: the input, a record, the nesting or the copies made by
	// aliases pass their limit.
	Limit
)

// Error is a YAML input that cannot be read as JSON: its Kind and the
// error itself, with the position and the line's excerpt when the line is
// known (Unwrap gives the *jsonv.SyntaxError then, so that toonkit's
// error reporting shows it), and a hint where one is known.
type Error struct {
	Kind   ErrorKind
	Syntax *jsonv.SyntaxError
}

func (e *Error) Error() string {
	if e.Syntax.Pos.Line == 0 {
		return e.Syntax.Msg
	}
	return e.Syntax.Error()
}

// Unwrap is the *jsonv.SyntaxError of an error whose line is known.
func (e *Error) Unwrap() error {
	if e.Syntax.Pos.Line == 0 {
		return nil
	}
	return e.Syntax
}

// Reader reads the records of a YAML stream.
type Reader struct {
	in    io.Reader
	opts  Options
	data  []byte
	dec   *yaml.Decoder
	begun bool
	err   error // sticky: the error Next returned

	queue  []*yaml.Node // documents read ahead
	qerr   error        // the error met reading ahead, after queue
	docs   int          // documents read so far
	single bool         // the stream holds one document

	elems []*yaml.Node // the elements of a root sequence still to give
	c     conv         // the conversion of the document being read
	buf   []byte
}

// NewReader reads the YAML stream in. It is read whole, at the first Next
// or Records, up to Options.MaxSize bytes.
func NewReader(in io.Reader, opts Options) *Reader {
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.MaxAliasNodes <= 0 {
		opts.MaxAliasNodes = DefaultMaxAliasNodes
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	r := &Reader{in: in, opts: opts}
	r.c.r = r
	return r
}

// ToJSON converts a YAML stream to JSON text, compact: the one value of a
// stream of one document, or an array of the documents (none: []).
func ToJSON(data []byte, opts Options) ([]byte, error) {
	opts.Elements = false
	r := NewReader(bytes.NewReader(data), opts)
	var out []byte
	var n int
	for {
		rec, _, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			out = append(out, '[')
		} else {
			out = append(out, ',')
		}
		out = append(out, rec...)
		n++
	}
	switch {
	case n == 0:
		return []byte("[]"), nil
	case n == 1:
		return out[1:], nil
	}
	return append(out, ']'), nil
}

var bom = []byte("\xEF\xBB\xBF")

// begin reads the input and the first two documents, which tell whether
// the stream holds one.
func (r *Reader) begin() error {
	if r.begun {
		return r.err
	}
	r.begun = true
	data, err := io.ReadAll(io.LimitReader(r.in, int64(r.opts.MaxSize)+1))
	if err != nil {
		r.err = err
		return err
	}
	if len(data) > r.opts.MaxSize {
		r.err = r.fail(Limit, nil, fmt.Sprintf("the YAML input passes the limit of %d bytes (it is read whole)", r.opts.MaxSize), "")
		return r.err
	}
	r.data = bytes.TrimPrefix(data, bom)
	r.dec = yaml.NewDecoder(bytes.NewReader(r.data))
	for range 2 {
		doc, err := r.readDoc()
		if err != nil {
			r.qerr = err
			break
		}
		if doc == nil {
			break
		}
		r.queue = append(r.queue, doc)
	}
	r.single = len(r.queue) == 1 && r.qerr == nil
	return nil
}

// Records reports whether the stream's records make an array: several
// documents, none, or one whose root is a sequence. One document whose
// root is anything else is one value. Errors are left for Next.
func (r *Reader) Records() bool {
	if r.begin() != nil || !r.single {
		return true
	}
	return r.queue[0].Content[0].Kind == yaml.SequenceNode
}

// readDoc parses the next document; nil at the end of the stream.
func (r *Reader) readDoc() (doc *yaml.Node, err error) {
	defer func() {
		if p := recover(); p != nil {
			// go-yaml panics on an input it does not expect; none is
			// known, but a panic is no error message.
			doc, err = nil, r.fail(Syntax, nil, fmt.Sprintf("the YAML parser failed: %v", p), "")
		}
	}()
	var n yaml.Node
	if err := r.dec.Decode(&n); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, r.parseError(err)
	}
	r.docs++
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, r.fail(Syntax, &n, "the YAML parser gave no document", "")
	}
	return &n, nil
}

// lineRE is the position go-yaml gives its messages.
var lineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// anchorRE is the message of an alias to an unknown anchor.
var anchorRE = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// parseError is go-yaml's error as an *Error, at the line it names.
func (r *Reader) parseError(err error) error {
	msg := err.Error()
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		se := &jsonv.SyntaxError{Pos: jsonv.Position{Line: line}, Msg: msg[len(m[0]):]}
		return &Error{Kind: Syntax, Syntax: se}
	}
	if m := anchorRE.FindStringSubmatch(msg); m != nil {
		// go-yaml names no line here: the first "*name" not followed by
		// more of a name is where the alias stands.
		se := &jsonv.SyntaxError{Msg: fmt.Sprintf("alias *%s names no anchor defined before it", m[1])}
		for off := 0; ; {
			i := bytes.Index(r.data[off:], []byte("*"+m[1]))
			if i < 0 {
				break
			}
			end := off + i + 1 + len(m[1])
			if end == len(r.data) || bytes.IndexByte([]byte(" \t\r\n,]}"), r.data[end]) >= 0 {
				r.place(se, off+i)
				break
			}
			off = end
		}
		return &Error{Kind: Syntax, Syntax: se}
	}
	return &Error{Kind: Syntax, Syntax: &jsonv.SyntaxError{Msg: strings.TrimPrefix(msg, "yaml: ")}}
}

// place sets the position of se to byte off of the input, with the
// line's excerpt.
func (r *Reader) place(se *jsonv.SyntaxError, off int) {
	line := 1 + bytes.Count(r.data[:off], []byte("\n"))
	start := bytes.LastIndexByte(r.data[:off], '\n') + 1
	end := bytes.IndexByte(r.data[off:], '\n')
	if end < 0 {
		end = len(r.data)
	} else {
		end += off
	}
	text := bytes.TrimSuffix(r.data[start:end], []byte("\r"))
	se.Pos = jsonv.Position{Offset: int64(off), Line: line, Column: utf8.RuneCount(r.data[start:off]) + 1}
	se.Excerpt, se.Caret = jsonv.Excerpt(text, off-start)
}

// fail is an error of kind at node n (nil: no position).
func (r *Reader) fail(kind ErrorKind, n *yaml.Node, msg, hint string) error {
	se := &jsonv.SyntaxError{Msg: msg, Hint: hint}
	if n != nil && n.Line > 0 {
		se.Pos = jsonv.Position{Line: n.Line, Column: n.Column}
		if text, ok := r.line(n.Line); ok {
			col := 0 // the node's column is in characters
			for i := 1; i < n.Column && col < len(text); i++ {
				_, size := utf8.DecodeRune(text[col:])
				col += size
			}
			se.Excerpt, se.Caret = jsonv.Excerpt(text, col)
			se.Pos.Offset = int64(r.lineStart(n.Line) + col)
		}
	}
	return &Error{Kind: kind, Syntax: se}
}

// lineStart is the offset of line n (1-based) in the input.
func (r *Reader) lineStart(n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(r.data[off:], '\n')
		if j < 0 {
			return len(r.data)
		}
		off += j + 1
	}
	return off
}

// line is the text of line n (1-based), without its line end.
func (r *Reader) line(n int) ([]byte, bool) {
	off := r.lineStart(n)
	if off >= len(r.data) && n > 1 {
		return nil, false
	}
	text := r.data[off:]
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return bytes.TrimSuffix(text, []byte("\r")), true
}

// Next returns the next record, compact JSON valid until the next call,
// and the position of its node; io.EOF after the last.
func (r *Reader) Next() ([]byte, jsonv.Position, error) {
	if err := r.begin(); err != nil {
		return nil, jsonv.Position{}, err
	}
	if r.err != nil {
		return nil, jsonv.Position{}, r.err
	}
	rec, pos, err := r.next()
	if err != nil && err != io.EOF {
		r.err = err
	}
	return rec, pos, err
}

func (r *Reader) next() ([]byte, jsonv.Position, error) {
	for {
		if len(r.elems) > 0 {
			n := r.elems[0]
			r.elems = r.elems[1:]
			return r.record(n)
		}
		if len(r.queue) == 0 {
			if r.qerr != nil {
				return nil, jsonv.Position{}, r.qerr
			}
			doc, err := r.readDoc()
			if err != nil {
				return nil, jsonv.Position{}, err
			}
			if doc == nil {
				return nil, jsonv.Position{}, io.EOF
			}
			r.queue = append(r.queue, doc)
		}
		root := r.queue[0].Content[0]
		r.queue = r.queue[1:]
		r.c.reset()
		if r.opts.Elements && r.single && root.Kind == yaml.SequenceNode {
			if err := r.c.collectionTag(root, "!!seq"); err != nil {
				return nil, jsonv.Position{}, err
			}
			if root.Anchor != "" {
				r.c.active[root] = true // an alias to the root within it is a cycle
			}
			r.elems = root.Content
			r.single = false
			continue
		}
		return r.record(root)
	}
}

// record converts node n to a record.
func (r *Reader) record(n *yaml.Node) ([]byte, jsonv.Position, error) {
	var err error
	r.buf, err = r.c.value(r.buf[:0], n, 0)
	return r.buf, jsonv.Position{Line: n.Line, Column: n.Column}, err
}

// conv converts the nodes of one document.
type conv struct {
	r       *Reader
	copies  int                 // nodes copied through aliases in this document
	inAlias int                 // depth of alias expansion
	alias   *yaml.Node          // the outermost alias being expanded
	active  map[*yaml.Node]bool // anchored nodes being converted or merged
}

func (c *conv) reset() {
	c.copies, c.inAlias, c.alias = 0, 0, nil
	if c.active == nil {
		c.active = map[*yaml.Node]bool{}
	}
	clear(c.active)
}

// enter counts a node converted: its depth, the copies made through
// aliases, the size of the record so far.
func (c *conv) enter(dst []byte, n *yaml.Node, depth int) error {
	r := c.r
	if depth > r.opts.MaxDepth {
		return r.fail(Limit, n, fmt.Sprintf("the nesting passes the limit of %d levels", r.opts.MaxDepth), "")
	}
	if c.inAlias > 0 {
		if err := c.copied(nil, n); err != nil {
			return err
		}
	}
	if len(dst) > r.opts.MaxSize {
		return r.fail(Limit, n, fmt.Sprintf("the record's JSON passes the limit of %d bytes", r.opts.MaxSize), "")
	}
	return nil
}

// copied counts a node copied through an alias (alias, or the outermost
// one being expanded), and stops past the limit.
func (c *conv) copied(alias, n *yaml.Node) error {
	c.copies++
	if c.copies <= c.r.opts.MaxAliasNodes {
		return nil
	}
	at := c.alias
	if at == nil {
		at = alias
	}
	if at == nil {
		at = n
	}
	return c.r.fail(Limit, at, fmt.Sprintf("aliases copy more than %d nodes into this document (the limit against alias bombs)", c.r.opts.MaxAliasNodes),
		"each alias is expanded into a copy of its anchor's node; a document that needs more copies is refused")
}

// value appends the JSON of node n.
func (c *conv) value(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	if err := c.enter(dst, n, depth); err != nil {
		return dst, err
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.viaAlias(n, func() ([]byte, error) { return c.value(dst, n.Alias, depth) })
	case yaml.ScalarNode:
		return c.scalar(dst, n)
	case yaml.SequenceNode:
		if err := c.collectionTag(n, "!!seq"); err != nil {
			return dst, err
		}
		if n.Anchor != "" {
			c.active[n] = true
			defer delete(c.active, n)
		}
		dst = append(dst, '[')
		for i, e := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = c.value(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case yaml.MappingNode:
		return c.mapping(dst, n, depth)
	}
	return dst, c.r.fail(Syntax, n, fmt.Sprintf("unexpected YAML node of kind %d", n.Kind), "")
}

// viaAlias runs f, which converts the node alias a names, as a copy: an
// alias within its own anchor's node is an error.
func (c *conv) viaAlias(a *yaml.Node, f func() ([]byte, error)) ([]byte, error) {
	if a.Alias == nil || c.active[a.Alias] {
		return nil, c.r.fail(Unsupported, a, fmt.Sprintf("alias *%s stands inside the node its anchor names: it has no finite JSON form", a.Value), "")
	}
	if c.inAlias == 0 {
		c.alias = a
	}
	c.inAlias++
	defer func() { c.inAlias-- }()
	return f()
}

// collectionTag checks the tag of a sequence or mapping.
func (c *conv) collectionTag(n *yaml.Node, want string) error {
	if n.Style&yaml.TaggedStyle == 0 || n.Tag == want {
		return nil
	}
	return c.r.fail(Unsupported, n, fmt.Sprintf("tag %s is not one toonkit reads on a %s", n.Tag, kindName(n)), tagHint)
}

const tagHint = "toonkit reads the YAML 1.2 core schema's tags (!!str, !!int, !!float, !!bool, !!null, !!seq, !!map) and !!binary, !!timestamp; remove the tag to read the value by its form"

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "scalar"
}

// A pair is a member of a mapping: its key, and its value node; alias is
// the alias it was merged through, if any.
type pair struct {
	key   string
	kn    *yaml.Node
	vn    *yaml.Node
	alias *yaml.Node
}

// mapping appends the JSON object of mapping n: its merge keys expanded,
// a key given twice an error, the keys in order (a key merged and given
// again stays where it first stood, with the value given last, as in a
// Python dict that PyYAML fills).
func (c *conv) mapping(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	var m members
	if err := c.flatten(&m, n, nil, depth); err != nil {
		return dst, err
	}
	if n.Anchor != "" {
		c.active[n] = true
		defer delete(c.active, n)
	}
	dst = append(dst, '{')
	var err error
	for i, p := range m.order {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonv.AppendQuote(dst, p.key), ':')
		if p.alias == nil {
			dst, err = c.value(dst, p.vn, depth+1)
		} else {
			dst, err = c.viaAlias(p.alias, func() ([]byte, error) { return c.value(dst, p.vn, depth+1) })
		}
		if err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// members are the members of a mapping, in order, as a Python dict is
// filled: a key added again keeps its place and takes the new value.
type members struct {
	order []pair
	index map[string]int
}

func (m *members) add(p pair) {
	if i, ok := m.index[p.key]; ok {
		m.order[i].vn, m.order[i].alias = p.vn, p.alias
		return
	}
	if m.index == nil {
		m.index = map[string]int{}
	}
	m.index[p.key] = len(m.order)
	m.order = append(m.order, p)
}

// flatten adds the pairs of mapping n to out in the order PyYAML's
// flatten_mapping lists them: the pairs its merge key brings (of a
// sequence of mappings, the last first), then its own. alias is the alias
// n was reached through.
func (c *conv) flatten(out *members, n *yaml.Node, alias *yaml.Node, depth int) error {
	if err := c.collectionTag(n, "!!map"); err != nil {
		return err
	}
	if depth > c.r.opts.MaxDepth {
		return c.r.fail(Limit, n, fmt.Sprintf("the nesting passes the limit of %d levels", c.r.opts.MaxDepth), "")
	}
	var mergeKey *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind != yaml.ScalarNode || kn.Tag != "!!merge" {
			continue
		}
		if mergeKey != nil {
			return c.r.fail(Duplicate, kn, fmt.Sprintf("a second merge key << in this mapping (the first is at %d:%d)", mergeKey.Line, mergeKey.Column), "give one << key a sequence of mappings: <<: [*a, *b]")
		}
		mergeKey = kn
		if err := c.merge(out, vn, alias, depth); err != nil {
			return err
		}
	}
	var seen map[string]*yaml.Node
	if len(n.Content) > 2 {
		seen = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn == mergeKey {
			continue
		}
		key, err := c.key(kn)
		if err != nil {
			return err
		}
		if first, ok := seen[key]; ok {
			return c.r.fail(Duplicate, kn, fmt.Sprintf("key %s is given twice in this mapping (first at %d:%d)", strconv.Quote(key), first.Line, first.Column), "YAML forbids duplicate keys; keep one")
		}
		if seen != nil {
			seen[key] = kn
		}
		out.add(pair{key: key, kn: kn, vn: vn, alias: alias})
		if alias != nil || c.inAlias > 0 {
			if err := c.copied(alias, kn); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge adds the pairs that the value v of a merge key brings.
func (c *conv) merge(out *members, v *yaml.Node, alias *yaml.Node, depth int) error {
	target, via := v, alias
	if v.Kind == yaml.AliasNode {
		target = v.Alias
		if via == nil {
			via = v
		}
	}
	switch target.Kind {
	case yaml.MappingNode:
		return c.mergeMapping(out, target, v, via, depth)
	case yaml.SequenceNode:
		for i := len(target.Content) - 1; i >= 0; i-- {
			e, evia := target.Content[i], via
			m := e
			if e.Kind == yaml.AliasNode {
				m = e.Alias
				if evia == nil {
					evia = e
				}
			}
			if m.Kind != yaml.MappingNode {
				return c.r.fail(Unsupported, e, "a merge key's sequence holds mappings only", "<<: takes a mapping, or a sequence of mappings: <<: [*a, *b]")
			}
			if err := c.mergeMapping(out, m, e, evia, depth); err != nil {
				return err
			}
		}
		return nil
	}
	return c.r.fail(Unsupported, v, "the value of a merge key << is a mapping or a sequence of mappings", "<<: takes a mapping, or a sequence of mappings: <<: [*a, *b]")
}

// mergeMapping is flatten of the mapping m that a merge key names (at
// node at), guarding against a mapping merged into itself.
func (c *conv) mergeMapping(out *members, m, at, via *yaml.Node, depth int) error {
	if c.active[m] {
		return c.r.fail(Unsupported, at, "a mapping merges itself (<< names an anchor whose node holds it): it has no finite JSON form", "")
	}
	if m.Anchor != "" {
		c.active[m] = true
		defer delete(c.active, m)
	}
	return c.flatten(out, m, via, depth+1)
}

// key is the JSON name of a mapping key: a string as it is, any other
// scalar the JSON text of its value (an infinity or NaN, its text).
func (c *conv) key(kn *yaml.Node) (string, error) {
	n := kn
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", c.r.fail(Unsupported, kn, fmt.Sprintf("a %s as a mapping key has no JSON form (JSON keys are strings)", kindName(n)), "")
	}
	k, text, err := c.resolve(n)
	switch {
	case err != nil:
		return "", err
	case k == nonFinite:
		return n.Value, nil
	}
	return text, nil
}

// The kinds of scalar.
type scalarKind int

const (
	str scalarKind = iota
	null
	boolean
	integer
	float
	nonFinite
	binary
	timestamp
)

// scalar appends the JSON of a scalar node.
func (c *conv) scalar(dst []byte, n *yaml.Node) ([]byte, error) {
	k, text, err := c.resolve(n)
	switch {
	case err != nil:
		return dst, err
	case k == nonFinite:
		what := "an infinite float"
		if strings.Contains(strings.ToLower(n.Value), "nan") {
			what = "a NaN (not a number)"
		}
		return dst, c.r.fail(Unsupported, n, fmt.Sprintf("%s is %s, which JSON cannot hold", n.Value, what),
			fmt.Sprintf("quote it ('%s') to read it as a string", n.Value))
	case k == str || k == binary || k == timestamp:
		return jsonv.AppendQuote(dst, text), nil
	}
	return append(dst, text...), nil
}

// resolve tells what a scalar is, by its tag or by the core schema, and
// its JSON text (a string's value, for str, binary and timestamp).
func (c *conv) resolve(n *yaml.Node) (scalarKind, string, error) {
	if n.Style&yaml.TaggedStyle == 0 {
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return str, n.Value, nil
		}
		k, text := core(n.Value)
		if k == integer && text == "" && (strings.HasPrefix(n.Value, "0o") || strings.HasPrefix(n.Value, "0x")) {
			return c.radix(n)
		}
		return k, text, nil
	}
	switch n.Tag {
	case "!!str":
		return str, n.Value, nil
	case "!!null", "!!bool", "!!int", "!!float":
		k, text := core(n.Value)
		fits := map[string]bool{"!!null": k == null, "!!bool": k == boolean, "!!int": k == integer,
			"!!float": k == float || k == nonFinite || k == integer && !strings.HasPrefix(n.Value, "0o") && !strings.HasPrefix(n.Value, "0x")}[n.Tag]
		if !fits {
			return 0, "", c.r.fail(Unsupported, n, fmt.Sprintf("%s is not a %s of the YAML 1.2 core schema", strconv.Quote(n.Value), n.Tag), "")
		}
		if k == integer && (strings.HasPrefix(n.Value, "0o") || strings.HasPrefix(n.Value, "0x")) {
			return c.radix(n)
		}
		if n.Tag == "!!float" && k == integer {
			k = float
		}
		return k, text, nil
	case "!!binary":
		b64 := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, n.Value)
		if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
			return 0, "", c.r.fail(Unsupported, n, "a !!binary value that is not base64", "")
		}
		return binary, b64, nil
	case "!!timestamp":
		if !timestampRE.MatchString(n.Value) {
			return 0, "", c.r.fail(Unsupported, n, fmt.Sprintf("%s is not a YAML timestamp", strconv.Quote(n.Value)), "")
		}
		return timestamp, n.Value, nil
	}
	return 0, "", c.r.fail(Unsupported, n, fmt.Sprintf("tag %s is not one toonkit reads", n.Tag), tagHint)
}

// timestampRE is the form of a YAML 1.1 timestamp
// (yaml.org/type/timestamp).
var timestampRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$`)

// radix is the decimal JSON text of a 0o or 0x integer.
func (c *conv) radix(n *yaml.Node) (scalarKind, string, error) {
	digits, base := n.Value[2:], 8
	if n.Value[1] == 'x' {
		base = 16
	}
	if len(digits) > MaxRadixDigits {
		return 0, "", c.r.fail(Limit, n, fmt.Sprintf("an integer of more than %d base-%d digits", MaxRadixDigits, base), "")
	}
	var v big.Int
	v.SetString(digits, base)
	return integer, v.String(), nil
}

// core resolves a plain scalar by the YAML 1.2 core schema: its kind
// (null, bool, int, float, an infinity or NaN, or else a string) and its
// JSON text (a string's own text). A decimal integer is written without
// its sign + and its leading zeros (-0 as 0); a float keeps every digit,
// with a 0 before a bare point or after a point that ends the digits
// (.5 is 0.5, 1. is 1.0), and its exponent as written. The JSON text of
// 0o and 0x integers is "" (their digits are converted by the Reader).
func core(s string) (kind scalarKind, text string) {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return null, "null"
	case "true", "True", "TRUE":
		return boolean, "true"
	case "false", "False", "FALSE":
		return boolean, "false"
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
		return nonFinite, ""
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'o' && allIn(s[2:], "01234567") || s[1] == 'x' && allIn(s[2:], "0123456789abcdefABCDEF")) {
		return integer, ""
	}
	i, neg := 0, false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[intStart:i]
	if i == len(s) {
		if intPart == "" {
			return str, s
		}
		intPart = strings.TrimLeft(intPart, "0")
		if intPart == "" {
			return integer, "0"
		}
		if neg {
			return integer, "-" + intPart
		}
		return integer, intPart
	}
	point, frac := false, ""
	if s[i] == '.' {
		point = true
		i++
		f := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[f:i]
	}
	if intPart == "" && frac == "" {
		return str, s // ".", "-.", ".e5"
	}
	exp := ""
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e := i
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == d {
			return str, s
		}
		exp = s[e:i]
	}
	if i != len(s) {
		return str, s
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	b.WriteString(intPart)
	if point {
		b.WriteByte('.')
		if frac == "" {
			frac = "0"
		}
		b.WriteString(frac)
	}
	b.WriteString(exp)
	return float, b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// IsLimit reports whether err is an *Error of kind Limit.
func IsLimit(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == Limit
}
