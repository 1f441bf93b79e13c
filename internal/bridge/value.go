package bridge

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// node is a JSON value: an object as its members in order (so that any
// member can be read, replaced or moved), anything else as its compact
// bytes, kept exactly as they were read. An object read from the input
// stays bytes too until a member of it is asked for (obj).
type node struct {
	raw []byte   // compact JSON; nil for an expanded object
	m   []member // an expanded object's members
}

type member struct {
	k string
	v *node
}

// A made object, or a made value of a few bytes, comes with room for its
// members, or its bytes, in the same allocation.
type (
	objectBlock struct {
		n  node
		ms [4]member
	}
	rawBlock struct {
		n   node
		buf [56]byte // a UUID or a time, quoted
	}
)

func newObject() *node {
	b := &objectBlock{}
	b.n.m = b.ms[:0]
	return &b.n
}

// newRaw is a node whose raw bytes have room for size bytes, to be
// appended.
func newRaw(size int) *node {
	if size > len(rawBlock{}.buf) {
		return &node{raw: make([]byte, 0, size)}
	}
	b := &rawBlock{}
	b.n.raw = b.buf[:0]
	return &b.n
}

func rawNode(b []byte) *node { return &node{raw: b} }

func strNode[T ~string | ~[]byte](s T) *node {
	n := newRaw(len(s) + 2)
	n.raw, _ = jsontext.AppendQuote(n.raw, s)
	return n
}

func num(i int64) *node {
	n := newRaw(20)
	n.raw = strconv.AppendInt(n.raw, i, 10)
	return n
}

func (n *node) isObject() bool { return n != nil && (n.raw == nil || n.raw[0] == '{') }

// obj expands an object still held as bytes into its members, and
// returns n.
func (n *node) obj() *node {
	if n == nil || n.raw == nil || n.raw[0] != '{' {
		return n
	}
	raw := n.raw
	n.raw = nil
	// The members are gathered on the stack first, so that their slice
	// and their nodes (one block, so that no node moves) are allocated
	// once, at their size.
	type found struct {
		k   string
		raw []byte
	}
	var small [24]found
	fs := small[:0]
	jsonv.Members(raw, func(name []byte, escaped bool, value []byte) {
		k, known := names[string(name)]
		if !known {
			k = string(name)
		}
		if escaped {
			if u, err := jsontext.AppendUnquote(nil, append(append([]byte{'"'}, name...), '"')); err == nil {
				k = string(u)
			}
		}
		fs = append(fs, found{k, value})
	})
	block := make([]node, len(fs))
	n.m = make([]member, len(fs))
	for i, f := range fs {
		block[i].raw = f.raw
		n.m[i] = member{k: f.k, v: &block[i]}
	}
	return n
}

// parse reads one valid JSON value (white space is allowed, as
// jsonv.Reader gives records); an object is expanded at its top level,
// the rest on demand.
//
// The nodes refer to b's bytes when b is compact already: b must not change
// while they are in use.
func parse(b []byte) (*node, error) {
	b = jsonv.TrimSpace(b)
	if err := jsonv.Check(b); err != nil {
		return nil, err
	}
	return rawNode(jsonv.Compacted(nil, b)).obj(), nil
}

// append writes n as compact JSON.
func (n *node) append(dst []byte) []byte {
	if n.raw != nil {
		return append(dst, n.raw...)
	}
	dst = append(dst, '{')
	for i, m := range n.m {
		dst = m.v.append(jsonv.AppendName(dst, i, m.k))
	}
	return append(dst, '}')
}

func (n *node) bytes() []byte { return n.append(nil) }

func equal(a, b *node) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.raw != nil && b.raw != nil:
		return bytes.Equal(a.raw, b.raw)
	case a.raw == nil && b.raw == nil:
		if len(a.m) != len(b.m) {
			return false
		}
		for i, m := range a.m {
			if m.k != b.m[i].k || !equal(m.v, b.m[i].v) {
				return false
			}
		}
		return true
	case a.raw == nil:
		a, b = b, a
	}
	return bytes.Equal(a.raw, b.bytes())
}

// member returns the value of member k, or nil.
func (n *node) member(k string) *node {
	if !n.isObject() {
		return nil
	}
	for _, m := range n.obj().m {
		if m.k == k {
			return m.v
		}
	}
	return nil
}

// set1 sets member k, in place when it exists, at the end otherwise.
func (n *node) set1(k string, v *node) {
	for i, m := range n.obj().m {
		if m.k == k {
			n.m[i].v = v
			return
		}
	}
	n.m = append(n.m, member{k, v})
}

func (n *node) del1(k string) {
	for i, m := range n.obj().m {
		if m.k == k {
			n.m = append(n.m[:i], n.m[i+1:]...)
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
func (n *node) set(path string, v *node) {
	for {
		k, rest, more := strings.Cut(path, ".")
		if !more {
			n.set1(k, v)
			return
		}
		n, path = n.step(k), rest
	}
}

// getp is get for a path given as its names.
func (n *node) getp(names []string) *node {
	for _, k := range names {
		n = n.member(k)
	}
	return n
}

// setp is set for a path given as its names.
func (n *node) setp(names []string, v *node) {
	for _, k := range names[:len(names)-1] {
		n = n.step(k)
	}
	n.set1(names[len(names)-1], v)
}

// step returns the object member k, made when it is not one.
func (n *node) step(k string) *node {
	next := n.member(k)
	if !next.isObject() {
		next = newObject()
		n.set1(k, next)
	}
	return next.obj()
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
		if len(next.obj().m) == 0 {
			n.del1(k)
		}
	}
}

// str returns the value at path when it is a string.
func (n *node) str(path string) (string, bool) {
	b, ok := n.get(path).text()
	return string(b), ok
}

// text is the text of a string value, unescaped (without copying it when
// it holds no escape).
func (n *node) text() ([]byte, bool) {
	if n == nil || len(n.raw) == 0 || n.raw[0] != '"' {
		return nil, false
	}
	if bytes.IndexByte(n.raw, '\\') < 0 {
		return n.raw[1 : len(n.raw)-1], true
	}
	u, err := jsontext.AppendUnquote(nil, n.raw)
	return u, err == nil
}

// clone copies n: its objects, and its nodes, which obj may expand in
// place (raw bytes are shared: they are never changed in place).
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	if n.raw != nil {
		return rawNode(n.raw)
	}
	c := &node{m: make([]member, len(n.m))}
	for i, m := range n.m {
		c.m[i] = member{m.k, m.v.clone()}
	}
	return c
}

// names holds the member names of the protocols, so that parsing a message
// makes no new string for them.
var names = map[string]string{}

func init() {
	for _, p := range pairs {
		for _, r := range p.common {
			addNames(r.path[:]...)
		}
		for _, tm := range p.types {
			for _, r := range tm.rules {
				addNames(r.path[:]...)
			}
		}
	}
	for _, o := range orders {
		for path, list := range o {
			addNames(path)
			addNames(list...)
		}
	}
	addNames("header", "payload", "x_source", "protocol", "fields", "generated")
}

func addNames(paths ...string) {
	for _, p := range paths {
		for _, k := range strings.Split(p, ".") {
			names[k] = k
		}
	}
}

// memberNames is the member names of an object, in order.
func (n *node) memberNames() []string {
	var list []string
	for _, m := range n.obj().m {
		list = append(list, m.k)
	}
	return list
}

// elements calls f with each element of an array, in order, until f gives
// false; it reports whether n is an array (nil counts as an empty one) and
// f went through all of it.
func elements(n *node, f func(*node) bool) bool {
	if n == nil {
		return true
	}
	raw := n.raw
	if len(raw) < 2 || raw[0] != '[' {
		return false
	}
	for i := 1; raw[i] != ']'; {
		e := jsonv.SkipValue(raw, i)
		if e < 0 || !f(rawNode(raw[i:e])) {
			return false
		}
		if i = e; raw[i] == ',' {
			i++
		}
	}
	return true
}

// delp removes the member at a path given as its names, leaving the
// objects on the way as they are.
func (n *node) delp(names []string) {
	for _, k := range names[:len(names)-1] {
		if n = n.member(k); !n.isObject() {
			return
		}
	}
	n.del1(names[len(names)-1])
}
