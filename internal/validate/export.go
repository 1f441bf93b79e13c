package validate

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ExportSchema returns an embedded schema in its exported form, the one
// --print-schema prints: the same rules, written so that strict validators
// take it as it is (`ajv compile --spec=draft2020 --strict=true`, with no
// plugin). toonkit's own checks use the embedded form (Schema), which
// differs in three ways only:
//
//   - The keywords x-code and x-message (the rule's finding code and its
//     message) are not keywords of any draft, which strict validators
//     refuse. They become one annotation, "$comment": "x-code: CHF040;
//     x-message: must be a UUID (the task)" (either part absent when the
//     node has none), after any $comment of the node's own.
//   - "format": "date-time" becomes a "pattern" (RFC 3339 date-time: a
//     full date, T, a full time, a zone; see dateTimePattern), since a validator
//     without a format plugin refuses unknown formats in strict mode and
//     others do not assert formats at all; the $comment says
//     "format: date-time".
//   - A number rule (minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//     multipleOf) in a node without "type", which strict validators take
//     for a mistake, moves into "anyOf": [{"not": {"type": "number"}},
//     {"type": "number", <the rule>}]: the same values pass.
//
// Member order is kept as written.
func ExportSchema(name string) ([]byte, error) {
	b, err := Schema(name)
	if err != nil {
		return nil, err
	}
	n, err := parseONode(b)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %v", name, err)
	}
	exportNode(n)
	var out bytes.Buffer
	n.write(&out, "")
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// dateTimePattern is RFC 3339's date-time (section 5.6) as a regular
// expression that ECMAScript and Go's regexp read alike: the days of each
// month (February up to 29 in any year), hours, minutes, seconds up to 60,
// a fraction, a zone. What it lets through that toonkit's own check does
// not: February 29 of a year that is not a leap year, and a second 60 at
// another time than 23:59 UTC.
const dateTimePattern = `^[0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|[12][0-9]))` +
	`[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`

// numberKeywords are the keywords that apply to numbers alone.
var numberKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}

// exportNode rewrites n and what it holds into the exported form.
func exportNode(n *onode) {
	for _, e := range n.arr {
		exportNode(e)
	}
	for _, m := range n.obj {
		exportNode(m.val)
	}
	if n.kind != '{' {
		return
	}
	var notes []string
	if c, ok := n.str("x-code"); ok {
		notes = append(notes, "x-code: "+c)
		n.del("x-code")
	}
	if msg, ok := n.str("x-message"); ok {
		notes = append(notes, "x-message: "+msg)
		n.del("x-message")
	}
	if f, ok := n.str("format"); ok && f == "date-time" {
		n.del("format")
		rule := leafNode(dateTimePattern)
		if n.get("pattern") == nil {
			n.set("pattern", rule)
		} else {
			n.allOf(&onode{kind: '{', obj: []omember{{"pattern", rule}}})
		}
		notes = append(notes, "format: date-time")
	}
	if n.get("type") == nil {
		var moved []omember
		for _, k := range numberKeywords {
			if v := n.get(k); v != nil && v.kind == '0' {
				moved = append(moved, omember{k, v})
				n.del(k)
			}
		}
		if len(moved) > 0 {
			num := &onode{kind: '{', obj: append([]omember{{"type", leafNode("number")}}, moved...)}
			other := &onode{kind: '{', obj: []omember{{"not", &onode{kind: '{', obj: []omember{{"type", leafNode("number")}}}}}}
			n.allOf(&onode{kind: '{', obj: []omember{{"anyOf", &onode{kind: '[', arr: []*onode{other, num}}}}})
		}
	}
	if len(notes) > 0 {
		text := strings.Join(notes, "; ")
		if c, ok := n.str("$comment"); ok {
			text = c + "; " + text
		}
		n.set("$comment", leafNode(text))
	}
}

// onode is a JSON value with its object members in the order written.
type onode struct {
	kind byte // '{', '[', or the jsontext kind of a leaf
	obj  []omember
	arr  []*onode
	leaf jsontext.Value
}

type omember struct {
	name string
	val  *onode
}

func leafNode(s string) *onode {
	v, _ := jsontext.AppendQuote(nil, s)
	return &onode{kind: '"', leaf: v}
}

func parseONode(b []byte) (*onode, error) {
	d := jsontext.NewDecoder(bytes.NewReader(b))
	return readONode(d)
}

func readONode(d *jsontext.Decoder) (*onode, error) {
	switch k := d.PeekKind(); k {
	case '{', '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n := &onode{kind: byte(k)}
		for d.PeekKind() != '}' && d.PeekKind() != ']' {
			var name string
			if k == '{' {
				t, err := d.ReadToken()
				if err != nil {
					return nil, err
				}
				name = t.String()
			}
			v, err := readONode(d)
			if err != nil {
				return nil, err
			}
			if k == '{' {
				n.obj = append(n.obj, omember{name, v})
			} else {
				n.arr = append(n.arr, v)
			}
		}
		_, err := d.ReadToken()
		return n, err
	}
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	return &onode{kind: byte(v.Kind()), leaf: bytes.Clone(v)}, nil
}

func (n *onode) get(name string) *onode {
	for _, m := range n.obj {
		if m.name == name {
			return m.val
		}
	}
	return nil
}

func (n *onode) str(name string) (string, bool) {
	v := n.get(name)
	if v == nil || v.kind != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, v.leaf)
	return string(s), err == nil
}

func (n *onode) del(name string) {
	for i, m := range n.obj {
		if m.name == name {
			n.obj = append(n.obj[:i], n.obj[i+1:]...)
			return
		}
	}
}

// set replaces the member name, or adds it at the end.
func (n *onode) set(name string, v *onode) {
	for i, m := range n.obj {
		if m.name == name {
			n.obj[i].val = v
			return
		}
	}
	n.obj = append(n.obj, omember{name, v})
}

// allOf adds a subschema to the node's allOf.
func (n *onode) allOf(sub *onode) {
	if a := n.get("allOf"); a != nil && a.kind == '[' {
		a.arr = append(a.arr, sub)
		return
	}
	n.set("allOf", &onode{kind: '[', arr: []*onode{sub}})
}

// write writes n indented by two spaces a level, as the embedded schemas
// are.
func (n *onode) write(w *bytes.Buffer, indent string) {
	switch n.kind {
	case '{', '[':
		open, end := byte('{'), byte('}')
		count := len(n.obj)
		if n.kind == '[' {
			open, end, count = '[', ']', len(n.arr)
		}
		w.WriteByte(open)
		if count == 0 {
			w.WriteByte(end)
			return
		}
		inner := indent + "  "
		for i := 0; i < count; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString("\n" + inner)
			if n.kind == '{' {
				q, _ := jsontext.AppendQuote(nil, n.obj[i].name)
				w.Write(q)
				w.WriteString(": ")
				n.obj[i].val.write(w, inner)
			} else {
				n.arr[i].write(w, inner)
			}
		}
		w.WriteString("\n" + indent)
		w.WriteByte(end)
	default:
		w.Write(n.leaf)
	}
}
