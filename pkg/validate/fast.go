package validate

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// The fast path. Most messages are valid, and the schema library, which
// works on decoded Go values, is slow for them (several times slower than
// ajv). So each schema is also compiled here into a small checker that
// works on the JSON bytes as they are, in any formatting (compact, or
// json.dumps' ", " and ": ", indented, CRLF, tabs), and answers yes (valid),
// no (invalid) or unknown. Only yes is trusted: a message that is not plainly valid goes
// through the schema library, which gives the findings. The checker answers
// yes only where it is sure the library would too (strings without
// escapes, integers that fit, the common shapes of RFC 3339 times); a fuzz
// test holds it to that against the library.

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
	return n
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
	if (kind == '-' || kind >= '0' && kind <= '9') && !checkable(string(v)) {
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
		for _, m := range members {
			count++
			if m.escaped {
				res = and(res, unknown)
				continue
			}
			for i, r := range n.required {
				if i < 64 && r == string(m.name) {
					seen |= 1 << i
				}
			}
			if p := n.props[string(m.name)]; p != nil && res != no {
				res = and(res, fs.eval(c, p, m.value))
			}
		}
		for i := range n.required {
			if i < 64 && seen&(1<<i) == 0 {
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
		for i := skipSpace(v, 1); i < len(v)-1; {
			end := jsonv.SkipValue(v, i)
			if end < 0 {
				return unknown
			}
			if res = and(res, fs.eval(c, n.items, v[i:end])); res == no {
				return no
			}
			i = skipSpace(v, end)
			if i < len(v)-1 && v[i] == ',' {
				i = skipSpace(v, i+1)
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
	fs := schemas.fast[name]
	return fs != nil && fs.eval(c, fs.root, raw) == yes
}

// splitCache keeps the members of the objects of one message, split once:
// the schemas look at an object several times (properties, if, then), and
// the stream rules read fields afterwards.
type splitCache struct {
	entries []splitEntry
}

type splitEntry struct {
	obj     []byte
	members []member
	ok      bool
}

// reset forgets the objects of the last message, keeping the memory.
func (c *splitCache) reset() { c.entries = c.entries[:0] }

// split gives the members of the object obj; ok is false when obj is not
// an object.
func (c *splitCache) split(obj []byte) ([]member, bool) {
	for i := range c.entries {
		e := &c.entries[i]
		if len(e.obj) == len(obj) && len(obj) > 0 && &e.obj[0] == &obj[0] {
			return e.members, e.ok
		}
	}
	if len(c.entries) < cap(c.entries) {
		c.entries = c.entries[:len(c.entries)+1]
	} else {
		c.entries = append(c.entries, splitEntry{})
	}
	e := &c.entries[len(c.entries)-1]
	e.obj = obj
	e.members, e.ok = appendMembers(e.members[:0], obj)
	return e.members, e.ok
}

// appendMembers appends the members of obj, a valid JSON object, to ms: each
// name as written (without its quotes) and each value without the white
// space around it. White space is allowed wherever JSON allows it (space,
// tab, LF, CR around the structural characters), so that Python's
// json.dumps output (", " and ": ", indent=2, CRLF) is split as compact
// JSON is. It finds the members by a structural scan (the reader has
// checked the value) and reports false when obj is not an object.
func appendMembers(ms []member, obj []byte) ([]member, bool) {
	if len(obj) < 2 || obj[0] != '{' {
		return ms, false
	}
	i := skipSpace(obj, 1)
	if i < len(obj) && obj[i] == '}' {
		return ms, i == len(obj)-1
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return ms, false
		}
		end := jsonv.SkipValue(obj, i)
		if end < 0 {
			return ms, false
		}
		name := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return ms, false
		}
		i = skipSpace(obj, i+1)
		e := jsonv.SkipValue(obj, i)
		if e < 0 {
			return ms, false
		}
		ms = append(ms, member{name, obj[i:e], bytes.IndexByte(name, '\\') >= 0})
		i = skipSpace(obj, e)
		if i >= len(obj) {
			return ms, false
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return ms, i == len(obj)-1
		default:
			return ms, false
		}
	}
}

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}
