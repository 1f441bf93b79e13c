package bridge

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
)

// node is a JSON value: an object as its members in order (so that any
// member can be read, replaced or moved), anything else as its compact
// bytes, kept exactly as they were read.
type node struct {
	raw  []byte // not an object
	keys []string
	vals []*node
}

func newObject() *node { return &node{} }

func rawNode(b []byte) *node { return &node{raw: b} }

func strNode(s string) *node {
	b, _ := jsontext.AppendQuote(nil, s)
	return &node{raw: b}
}

func (n *node) isObject() bool { return n != nil && n.raw == nil }

// parse reads one valid JSON value (white space is allowed, as
// jsonv.Reader gives records) into a node; objects are split to any
// depth, arrays and scalars kept as compact bytes.
func parse(b []byte) (*node, error) {
	b = jsonv.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		c, err := jsonv.AppendCompact(nil, b)
		if err != nil {
			return nil, err
		}
		return rawNode(c), nil
	}
	n := newObject()
	var perr error
	ok := jsonv.Members(b, func(name []byte, escaped bool, value []byte) {
		if perr != nil {
			return
		}
		k := string(name)
		if escaped {
			u, err := jsontext.AppendUnquote(nil, append(append([]byte{'"'}, name...), '"'))
			if err != nil {
				perr = err
				return
			}
			k = string(u)
		}
		v, err := parse(value)
		if err != nil {
			perr = err
			return
		}
		n.set1(k, v)
	})
	if !ok {
		// White space between the members: compact it first.
		c, err := jsonv.AppendCompact(nil, b)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(c, b) {
			return parse(c)
		}
		return nil, &jsontext.SyntacticError{Err: errNotObject}
	}
	if perr != nil {
		return nil, perr
	}
	return n, nil
}

// append writes n as compact JSON.
func (n *node) append(dst []byte) []byte {
	if n.raw != nil {
		return append(dst, n.raw...)
	}
	dst = append(dst, '{')
	for i, k := range n.keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, _ = jsontext.AppendQuote(dst, k)
		dst = append(dst, ':')
		dst = n.vals[i].append(dst)
	}
	return append(dst, '}')
}

func (n *node) bytes() []byte { return n.append(nil) }

func equal(a, b *node) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.bytes(), b.bytes())
}

// member returns the value of member k, or nil.
func (n *node) member(k string) *node {
	if !n.isObject() {
		return nil
	}
	for i, name := range n.keys {
		if name == k {
			return n.vals[i]
		}
	}
	return nil
}

// set1 sets member k, in place when it exists, at the end otherwise.
func (n *node) set1(k string, v *node) {
	for i, name := range n.keys {
		if name == k {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, k)
	n.vals = append(n.vals, v)
}

func (n *node) del1(k string) {
	for i, name := range n.keys {
		if name == k {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			return
		}
	}
}

// get returns the value at a dotted path, or nil.
func (n *node) get(path string) *node {
	for path != "" && n != nil {
		k, rest, _ := strings.Cut(path, ".")
		n, path = n.member(k), rest
	}
	return n
}

// set sets the value at a dotted path, making the objects on the way (an
// object in the way that is not one is replaced).
func (n *node) set(path string, v *node) { n.setp(strings.Split(path, "."), v) }

// setp is set for a path given as its names.
func (n *node) setp(names []string, v *node) {
	for _, k := range names[:len(names)-1] {
		next := n.member(k)
		if !next.isObject() {
			next = newObject()
			n.set1(k, next)
		}
		n = next
	}
	n.set1(names[len(names)-1], v)
}

// del removes the value at a dotted path, and the objects on the way that
// it leaves empty.
func (n *node) del(path string) {
	k, rest, more := strings.Cut(path, ".")
	if !more {
		n.del1(k)
		return
	}
	if next := n.member(k); next.isObject() {
		next.del(rest)
		if len(next.keys) == 0 {
			n.del1(k)
		}
	}
}

// str returns the value at path when it is a string.
func (n *node) str(path string) (string, bool) {
	v := n.get(path)
	if v == nil || len(v.raw) == 0 || v.raw[0] != '"' {
		return "", false
	}
	u, err := jsontext.AppendUnquote(nil, v.raw)
	if err != nil {
		return "", false
	}
	return string(u), true
}

// clone copies the objects of n (raw bytes are shared: they are never
// changed in place).
func (n *node) clone() *node {
	if n == nil || n.raw != nil {
		return n
	}
	c := &node{keys: append([]string(nil), n.keys...), vals: make([]*node, len(n.vals))}
	for i, v := range n.vals {
		c.vals[i] = v.clone()
	}
	return c
}
