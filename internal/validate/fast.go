package validate

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// The fast path. Most messages are valid, and the schema library, which
// works on decoded Go values, is slow for them (several times slower than
// ajv). So each schema is also compiled here into a small checker that
// works on the JSON bytes as they are, in any formatting (compact, or
// json.dumps' ", " and ": ", indented, CRLF, tabs), and answers yes
// (valid), no (invalid) or unknown. Only yes is trusted: a message that is
// not plainly valid goes through the schema library, which gives the
// findings. The checker answers yes only where it is sure the library
// would too (strings without escapes, integers that fit; the schemas'
// patterns and the date-time format are checked by hand, exactly as the
// library checks them: formats.go); fuzz tests hold it to that against
// the library, in any formatting.

type verdict int8

const (
	yes verdict = iota
	unknown
	no
)

// and combines verdicts: no wins, then unknown.
func and(a, b verdict) verdict { return max(a, b) }

type fnode struct {
	unsure   bool // a keyword this checker does not know: always unknown
	types    uint8
	props    map[string]*fnode
	required []string
	fields   []field  // props and required, made by compileNode for eval
	enum     []string // allowed strings (the schemas' enums are all strings)
	constRaw []byte   // compact JSON of a const
	min, max *float64
	match    func([]byte) bool // the pattern
	format   string
	items    *fnode
	maxProps int // -1: none
	allOf    []*fnode
	ifn      *fnode
	thenn    *fnode
	ref      string
}

const (
	tObject uint8 = 1 << iota
	tArray
	tString
	tNumber
	tInteger
	tBoolean
	tNull
)

var typeBits = map[string]uint8{"object": tObject, "array": tArray, "string": tString, "number": tNumber, "integer": tInteger, "boolean": tBoolean, "null": tNull}

// fastSchema is a compiled schema with its $defs.
type fastSchema struct {
	root *fnode
	defs map[string]*fnode
}

// compileFast compiles a schema document (decoded by the schema library).
func compileFast(doc any) *fastSchema {
	fs := &fastSchema{defs: map[string]*fnode{}}
	if m, ok := doc.(map[string]any); ok {
		if defs, ok := m["$defs"].(map[string]any); ok {
			for k, d := range defs {
				fs.defs[k] = compileNode(d)
			}
		}
	}
	fs.root = compileNode(doc)
	return fs
}

func compileNode(s any) *fnode {
	n := &fnode{maxProps: -1}
	m, ok := s.(map[string]any)
	if !ok {
		n.unsure = s != true
		return n
	}
	for k, v := range m {
		switch k {
		case "$schema", "$id", "title", "description", "$defs":
		case "type":
			switch t := v.(type) {
			case string:
				n.types |= typeBits[t]
			case []any:
				for _, x := range t {
					s, _ := x.(string)
					n.types |= typeBits[s]
				}
			}
		case "properties":
			n.props = map[string]*fnode{}
			for name, sub := range v.(map[string]any) {
				n.props[name] = compileNode(sub)
			}
		case "required":
			for _, x := range v.([]any) {
				n.required = append(n.required, x.(string))
			}
		case "enum":
			for _, x := range v.([]any) {
				s, ok := x.(string)
				if !ok {
					n.unsure = true
				}
				n.enum = append(n.enum, s)
			}
		case "const":
			b, err := jsonMarshalCompact(v)
			if err != nil {
				n.unsure = true
			}
			n.constRaw = b
		case "minimum", "maximum":
			f, err := strconv.ParseFloat(numberString(v), 64)
			if err != nil {
				n.unsure = true
			}
			if k == "minimum" {
				n.min = &f
			} else {
				n.max = &f
			}
		case "pattern":
			if m := knownPatterns[v.(string)]; m != nil {
				n.match = m
				break
			}
			re, err := regexp.Compile(v.(string))
			if err != nil {
				n.unsure = true
			}
			n.match = re.Match
		case "format":
			n.format = v.(string)
		case "items":
			n.items = compileNode(v)
		case "maxProperties":
			i, err := strconv.Atoi(numberString(v))
			if err != nil {
				n.unsure = true
			}
			n.maxProps = i
		case "allOf":
			for _, x := range v.([]any) {
				n.allOf = append(n.allOf, compileNode(x))
			}
		case "if":
			n.ifn = compileNode(v)
		case "then":
			n.thenn = compileNode(v)
		case "$ref":
			ref, _ := v.(string)
			if !strings.HasPrefix(ref, "#/$defs/") {
				n.unsure = true
			}
			n.ref = strings.TrimPrefix(ref, "#/$defs/")
		default:
			if !strings.HasPrefix(k, "x-") {
				n.unsure = true
			}
		}
	}
	n.fields = fieldsOf(n.props, n.required)
	return n
}

// field is a member name the schema of an object names: its schema (nil
// when it has none) and its place in required (-1 when not required).
type field struct {
	name string
	node *fnode
	req  int
}

// fieldsOf lists the fields of properties and required, the required first
// (in their order), for a linear search: faster than a map for the ten or
// so fields of a message.
func fieldsOf(props map[string]*fnode, required []string) []field {
	var fs []field
	for i, r := range required {
		if !slices.ContainsFunc(fs, func(f field) bool { return f.name == r }) {
			fs = append(fs, field{r, props[r], i})
		}
	}
	names := slices.Sorted(maps.Keys(props))
	for _, name := range names {
		if !slices.Contains(required, name) {
			fs = append(fs, field{name, props[name], -1})
		}
	}
	return fs
}

// lookup is the field named name, or nil.
func (n *fnode) lookup(name []byte) *field {
	for i := range n.fields {
		f := &n.fields[i]
		if len(f.name) == len(name) && f.name == string(name) {
			return f
		}
	}
	return nil
}

// eval checks the JSON value v (without white space around it).
func (fs *fastSchema) eval(c *splitCache, n *fnode, v []byte) verdict {
	if n.unsure || len(v) == 0 {
		return unknown
	}
	res := yes
	if n.ref != "" {
		d := fs.defs[n.ref]
		if d == nil {
			return unknown
		}
		if res = fs.eval(c, d, v); res == no {
			return no
		}
	}
	kind := v[0]
	if (kind == '-' || kind >= '0' && kind <= '9') && !checkable(v) {
		return unknown // the slow path says it cannot be checked
	}
	if n.types != 0 {
		res = and(res, typeVerdict(n.types, v))
		if res == no {
			return no
		}
	}
	if n.enum != nil {
		res = and(res, enumVerdict(n.enum, v))
	}
	if n.constRaw != nil {
		res = and(res, constVerdict(n.constRaw, v))
	}
	if (n.min != nil || n.max != nil) && (kind == '-' || kind >= '0' && kind <= '9') {
		f, err := strconv.ParseFloat(string(v), 64)
		switch {
		case err != nil || f > 1e15 || f < -1e15:
			res = and(res, unknown)
		case n.min != nil && f < *n.min || n.max != nil && f > *n.max:
			return no
		}
	}
	if kind == '"' && (n.match != nil || n.format != "") {
		s, plain := plainString(v)
		switch {
		case !plain:
			res = and(res, unknown)
		case n.match != nil && !n.match(s):
			return no
		case n.format == "date-time":
			if !isDateTime(s) {
				return no
			}
		case n.format != "":
			res = and(res, unknown)
		}
	}
	if kind == '{' && (n.props != nil || n.required != nil || n.maxProps >= 0) {
		count := 0
		var seen uint64 // the required fields found
		if len(n.required) > 64 {
			res = and(res, unknown)
		}
		members, ok := c.split(v)
		if !ok {
			return unknown
		}
		for i := range members {
			m := &members[i]
			count++
			if m.escaped {
				res = and(res, unknown)
				continue
			}
			f := n.lookup(m.name)
			if f == nil {
				continue
			}
			if f.req >= 0 && f.req < 64 {
				seen |= 1 << f.req
			}
			if f.node != nil && res != no {
				res = and(res, fs.eval(c, f.node, m.value))
			}
		}
		for _, f := range n.fields {
			if f.req >= 0 && f.req < 64 && seen&(1<<f.req) == 0 {
				return no
			}
		}
		if n.maxProps >= 0 && count > n.maxProps {
			return no
		}
		if res == no {
			return no
		}
	}
	if kind == '[' && n.items != nil {
		for i := jsonv.SkipSpace(v, 1); i < len(v)-1; {
			end := jsonv.SkipValue(v, i)
			if end < 0 {
				return unknown
			}
			if res = and(res, fs.eval(c, n.items, v[i:end])); res == no {
				return no
			}
			i = jsonv.SkipSpace(v, end)
			if i < len(v)-1 && v[i] == ',' {
				i = jsonv.SkipSpace(v, i+1)
			}
		}
	}
	for _, a := range n.allOf {
		if res = and(res, fs.eval(c, a, v)); res == no {
			return no
		}
	}
	if n.ifn != nil {
		switch fs.eval(c, n.ifn, v) {
		case yes:
			if n.thenn != nil {
				res = and(res, fs.eval(c, n.thenn, v))
			}
		case unknown:
			res = and(res, unknown)
		}
	}
	return res
}

func typeVerdict(types uint8, v []byte) verdict {
	switch v[0] {
	case '{':
		return bit(types&tObject != 0)
	case '[':
		return bit(types&tArray != 0)
	case '"':
		return bit(types&tString != 0)
	case 't', 'f':
		return bit(types&tBoolean != 0)
	case 'n':
		return bit(types&tNull != 0)
	}
	if types&tNumber != 0 {
		return yes
	}
	if types&tInteger != 0 {
		if bytes.ContainsAny(v, ".eE") {
			return unknown // 1.0 is an integer to JSON Schema
		}
		return yes
	}
	return no
}

func bit(b bool) verdict {
	if b {
		return yes
	}
	return no
}

func enumVerdict(enum []string, v []byte) verdict {
	if v[0] != '"' {
		return no // the enums are of strings
	}
	s, plain := plainString(v)
	if !plain {
		return unknown
	}
	for _, e := range enum {
		if e == string(s) {
			return yes
		}
	}
	return no
}

func constVerdict(c, v []byte) verdict {
	if bytes.Equal(c, v) {
		return yes
	}
	if c[0] == '"' && v[0] == '"' {
		if _, plain := plainString(v); plain {
			return no
		}
	}
	if isPlainInt(c) && isPlainInt(v) {
		return no // different integers written plainly
	}
	if c[0] == '"' && v[0] != '"' || isPlainInt(c) && (v[0] == '"' || v[0] == '{' || v[0] == '[' || v[0] == 't' || v[0] == 'f' || v[0] == 'n') {
		return no // another kind of value
	}
	return unknown
}

// isPlainInt reports whether b is an integer literal without fraction or
// exponent.
func isPlainInt(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainString gives the content of a JSON string without escapes.
func plainString(v []byte) ([]byte, bool) {
	s := v[1 : len(v)-1]
	return s, bytes.IndexByte(s, '\\') < 0
}

func numberString(v any) string {
	switch x := v.(type) {
	case interface{ String() string }:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	}
	return ""
}

// jsonMarshalCompact is the compact JSON of a schema value.
func jsonMarshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// fastValid reports whether the schema's fast checker is sure that the
// JSON value raw is valid. c keeps the objects it splits, for the
// caller to read fields from afterwards.
func fastValid(c *splitCache, name string, raw []byte) bool {
	if loadSchemas() != nil { // once, before the workers read the schemas
		return false
	}
	fs := schemas.fast[name]
	return fs != nil && fs.eval(c, fs.root, raw) == yes
}

// splitCache keeps the members of the objects of one message, split once:
// the schemas look at an object several times (properties, if, then), and
// the stream rules read fields afterwards. scan splits every object of a
// message in one pass over its bytes; split finds an object among them
// (or splits one it was not given).
type splitCache struct {
	base    []byte       // the message scan split
	entries []splitEntry // its objects, in the order they start
	lazy    []splitEntry // objects split on demand
}

type splitEntry struct {
	obj     []byte
	start   int // offset of obj in base
	members []member
	ok      bool
}

// reset forgets the objects of the last message, keeping the memory.
func (c *splitCache) reset() {
	c.base, c.entries, c.lazy = nil, c.entries[:0], c.lazy[:0]
}

// next is a cleared entry at the end of list, its memory reused.
func next(list []splitEntry) ([]splitEntry, *splitEntry) {
	if len(list) < cap(list) {
		list = list[:len(list)+1]
	} else {
		list = append(list, splitEntry{})
	}
	e := &list[len(list)-1]
	*e = splitEntry{members: e.members[:0]}
	return list, e
}

// scan splits every object of the valid JSON value v; the value's objects
// are then found by split at no cost but a binary search.
func (c *splitCache) scan(v []byte) {
	c.reset()
	c.base = v
	if c.skip(v, 0) != len(v) {
		c.entries = c.entries[:0] // not JSON as the reader gives it
	}
}

// skip returns the offset just past the value that starts at b[i], having
// split the objects within it; -1 when it is not valid JSON.
func (c *splitCache) skip(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '{':
		return c.object(b, i)
	case '[':
		j := jsonv.SkipSpace(b, i+1)
		if j < len(b) && b[j] == ']' {
			return j + 1
		}
		for {
			e := c.skip(b, j)
			if e < 0 {
				return -1
			}
			j = jsonv.SkipSpace(b, e)
			if j >= len(b) {
				return -1
			}
			switch b[j] {
			case ',':
				j = jsonv.SkipSpace(b, j+1)
			case ']':
				return j + 1
			default:
				return -1
			}
		}
	}
	return jsonv.SkipValue(b, i)
}

// object splits the object that starts at b[i] and the objects within it,
// and returns the offset just past it, or -1.
func (c *splitCache) object(b []byte, i int) int {
	var e *splitEntry
	c.entries, e = next(c.entries)
	at := len(c.entries) - 1 // e moves when entries grows
	ms, end := c.members(e.members, b, i)
	e = &c.entries[at]
	e.members = ms
	if end < 0 {
		return -1
	}
	e.obj, e.start, e.ok = b[i:end], i, true
	return end
}

// members appends the members of the object that starts at b[i] to ms, each
// name as written (without its quotes) and each value without the white
// space around it, and returns the offset just past the object (-1 when
// it is not one). White space is allowed wherever JSON allows it (space,
// tab, LF, CR around the structural characters), so that Python's
// json.dumps output (", " and ": ", indent=2, CRLF) is split as compact
// JSON is. It finds the members by a structural scan (the reader has
// checked the value), as jsonv.Members does, but splits the objects within
// the values in the same pass, where jsonv.Members would pass over them
// to have them scanned again.
func (c *splitCache) members(ms []member, b []byte, i int) ([]member, int) {
	if i >= len(b) || b[i] != '{' {
		return ms, -1
	}
	j := jsonv.SkipSpace(b, i+1)
	if j < len(b) && b[j] == '}' {
		return ms, j + 1
	}
	for {
		if j >= len(b) || b[j] != '"' {
			return ms, -1
		}
		ne := jsonv.SkipValue(b, j)
		if ne < 0 {
			return ms, -1
		}
		name := b[j+1 : ne-1]
		j = jsonv.SkipSpace(b, ne)
		if j >= len(b) || b[j] != ':' {
			return ms, -1
		}
		j = jsonv.SkipSpace(b, j+1)
		ve := c.skip(b, j)
		if ve < 0 {
			return ms, -1
		}
		ms = append(ms, member{name, b[j:ve], bytes.IndexByte(name, '\\') >= 0})
		j = jsonv.SkipSpace(b, ve)
		if j >= len(b) {
			return ms, -1
		}
		switch b[j] {
		case ',':
			j = jsonv.SkipSpace(b, j+1)
		case '}':
			return ms, j + 1
		default:
			return ms, -1
		}
	}
}

// split gives the members of the object obj; ok is false when obj is not
// an object.
func (c *splitCache) split(obj []byte) ([]member, bool) {
	if len(obj) == 0 {
		return nil, false
	}
	// obj is a slice of base when scan split it: the offset is the
	// difference of the capacities.
	if off := cap(c.base) - cap(obj); off >= 0 && off < len(c.base) && &c.base[off] == &obj[0] {
		lo, hi := 0, len(c.entries)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if c.entries[m].start < off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(c.entries) && c.entries[lo].start == off && len(c.entries[lo].obj) == len(obj) {
			return c.entries[lo].members, c.entries[lo].ok
		}
	}
	for i := range c.lazy {
		e := &c.lazy[i]
		if len(e.obj) == len(obj) && &e.obj[0] == &obj[0] {
			return e.members, e.ok
		}
	}
	var e *splitEntry
	c.lazy, e = next(c.lazy)
	e.obj = obj
	e.ok = jsonv.Members(obj, func(name []byte, escaped bool, v []byte) {
		e.members = append(e.members, member{name, v, escaped})
	})
	return e.members, e.ok
}
