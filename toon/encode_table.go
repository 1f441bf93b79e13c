package toon

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// This file holds the tabular forms: arrays of uniform objects (§9.3) and
// objects whose values are uniform objects (keyed, §9.5).
//
// Detection builds a field tree from the first row and checks every row
// against it level by level: all rows' member names and value kinds at one
// level first, then each nested group's column of objects. Checking a level
// across all rows before going deeper keeps the work proportional to the
// rows' size however the nesting fails, and the values not looked into are
// passed over with skip, at a bounded cost.
//
// Writing takes each row's members in the first row's order as they come
// (rowInOrder), or else finds each leaf's value first (fill).

// wideFieldLevel is the most fields at one level that are looked up by a
// linear search when a row's members come in another order than the first
// row's; wider levels get a hash table.
const wideFieldLevel = 8

// tableField is one field of a tabular header; node 0 is the row itself.
type tableField struct {
	name    []byte // decoded
	lo, hi  int32  // children: e.nodes[lo:hi]
	group   bool   // a nested field group (a column of objects)
	col     int32  // a group's column among its level's groups (detection)
	leaf    int32  // a leaf's cell index: depth-first, pre-order
	tab     int32  // offset in e.ftab of the children's hash table, or -1
	tabMask uint32 // the table's size less one
	simple  bool   // the name holds no quote or backslash (fastMatch)
	// word holds a short simple name and its closing quote, as the 8
	// bytes at the name's start compare with it under wmask (fastMatch);
	// wmask is 0 for other names.
	word, wmask uint64
}

// newTableField makes the field of a decoded name.
func newTableField(name []byte) tableField {
	nd := tableField{name: name, col: -1, tab: -1}
	nd.simple = !bytes.ContainsAny(name, "\"\\")
	if nd.simple && len(name) < 8 {
		var w [8]byte
		copy(w[:], name)
		w[len(name)] = '"'
		nd.word = binary.LittleEndian.Uint64(w[:])
		nd.wmask = ^uint64(0) >> (64 - 8*(len(name)+1))
	}
	return nd
}

// tableRows iterates over the rows of a table: the elements of an array, the
// values of an object's members, or a column of nested-group objects held
// in e.cols.
type tableRows struct {
	i      int  // the next element or member (not col)
	obj    bool // members of an object
	col    bool // e.cols[base+k*stride] for k < n
	base   int
	stride int
	n, k   int
}

// nextRow returns the offset of the next row's value.
func (e *encoder) nextRow(s *tableRows) (int, bool) {
	switch {
	case s.col:
		if s.k >= s.n {
			return 0, false
		}
		s.k++
		v := e.cols[s.base+(s.k-1)*s.stride]
		if e.release != nil && e.release.moved(v) {
			e.release.call(v)
		}
		return v, true
	case s.obj:
		if e.at(s.i) != '"' {
			return 0, false
		}
		_, _, v := e.member(s.i)
		return v, true
	}
	if c := e.at(s.i); c == ']' || c == 0 {
		return 0, false
	}
	return s.i, true
}

// doneRow moves past a row's value, which ends at end.
func (e *encoder) doneRow(s *tableRows, end int) {
	if !s.col {
		s.i = e.next(end)
	}
}

// resetFields starts a new field tree: node 0, the row.
func (e *encoder) resetFields() {
	e.nodes = append(e.nodes[:0], tableField{tab: -1})
	e.cols = e.cols[:0]
	e.ftab = e.ftab[:0]
	e.names = e.names[:0]
}

// tabular writes the array at p in tabular form (§9.3) when its elements
// are uniform objects, and returns the offset past it.
func (e *encoder) tabular(k memberKey, p, depth int) (int, bool) {
	e.resetFields()
	n, ok := e.classify(0, tableRows{i: e.ws(p + 1)})
	if !ok {
		return 0, false
	}
	e.numberLeaves()
	e.line(depth)
	e.appendHeader(k, n, false, 0)
	i := e.ws(p + 1)
	for e.at(i) != ']' && i < len(e.in) {
		e.line(depth + 1)
		i = e.next(e.row(i))
	}
	return i + 1, true
}

// keyed writes the object at p in keyed tabular form (§9.5) when it has
// two or more members whose values are uniform objects, and returns the
// offset past it.
func (e *encoder) keyed(k memberKey, p, depth int) (int, bool) {
	// The cheap refusals first: two members whose values are non-empty
	// objects.
	first := e.ws(p + 1)
	if e.at(first) != '"' {
		return 0, false
	}
	_, _, v := e.member(first)
	if e.in[v] != '{' || e.isEmpty(v) {
		return 0, false
	}
	i := e.next(e.skip(v))
	if e.at(i) != '"' {
		return 0, false
	}
	if _, _, v = e.member(i); e.in[v] != '{' || e.isEmpty(v) {
		return 0, false
	}
	e.resetFields()
	n, ok := e.classify(0, tableRows{i: first, obj: true})
	if !ok {
		return 0, false
	}
	e.numberLeaves()
	e.line(depth)
	e.appendHeader(k, n, true, 0)
	for i = first; e.at(i) == '"'; {
		name, escaped, v := e.member(i)
		e.line(depth + 1)
		e.appendKey(memberKey{raw: name, escaped: escaped})
		e.out = append(e.out, ':', ' ')
		i = e.next(e.row(v))
	}
	return i + 1, true
}

// classify checks that the rows of src are non-empty objects of one shape
// (§9.3: the same names, each column all primitives or all objects of one
// shape in turn), making the fields of node parent from the first row. It
// returns the number of rows.
func (e *encoder) classify(parent int, src tableRows) (int, bool) {
	// The fields, from the first row.
	r := src
	p0, ok := e.nextRow(&r)
	if !ok || e.in[p0] != '{' {
		return 0, false
	}
	lo := int32(len(e.nodes))
	groups := 0
	i := e.ws(p0 + 1)
	if e.at(i) != '"' {
		return 0, false
	}
	for e.at(i) == '"' {
		name, escaped, v := e.member(i)
		nd := newTableField(e.fieldName(name, escaped))
		switch e.in[v] {
		case '[':
			return 0, false
		case '{':
			if e.isEmpty(v) {
				return 0, false
			}
			nd.group, nd.col = true, int32(groups)
			groups++
		}
		e.nodes = append(e.nodes, nd)
		i = e.next(e.skip(v))
	}
	hi := int32(len(e.nodes))
	e.nodes[parent].lo, e.nodes[parent].hi = lo, hi
	if hi-lo > wideFieldLevel {
		e.hashFields(parent)
	}

	// Every row, the first included: names and kinds; the offsets of the
	// nested groups' objects go to e.cols, a row of groups at a time.
	base := len(e.cols)
	n := 0
	for p, ok := e.nextRow(&src); ok; p, ok = e.nextRow(&src) {
		if e.in[p] != '{' {
			return 0, false
		}
		row := len(e.cols)
		e.cols = append(e.cols, make([]int, groups)...)
		members := int32(0)
		i := e.ws(p + 1)
		for e.at(i) == '"' {
			f := int(lo + members)
			v, ok := 0, false
			if f < int(hi) {
				v, ok = e.fastMatch(i, &e.nodes[f])
			}
			if !ok {
				name, escaped, value := e.member(i)
				if f, v = e.find(parent, members, name, escaped), value; f < 0 {
					return 0, false
				}
			}
			var end int
			c := e.in[v]
			if nd := &e.nodes[f]; nd.group {
				if c != '{' || e.isEmpty(v) {
					return 0, false
				}
				e.cols[row+int(nd.col)] = v
				end = e.skip(v)
			} else {
				if c == '{' || c == '[' {
					return 0, false
				}
				end = e.primEnd(v)
			}
			members++
			i = e.next(end)
		}
		if members != hi-lo {
			return 0, false
		}
		e.doneRow(&src, i+1)
		n++
	}

	// Each nested group's column, in turn.
	for f := lo; f < hi; f++ {
		if nd := e.nodes[f]; nd.group {
			col := tableRows{col: true, base: base + int(nd.col), stride: groups, n: n}
			if _, ok := e.classify(int(f), col); !ok {
				return 0, false
			}
		}
	}
	e.cols = e.cols[:base]
	return n, true
}

// fieldName returns the decoded value of a raw member name, held in
// e.names when it has escapes.
func (e *encoder) fieldName(raw []byte, escaped bool) []byte {
	if !escaped {
		return raw
	}
	start := len(e.names)
	e.names = appendJSONUnescaped(e.names, raw)
	return e.names[start:len(e.names):len(e.names)]
}

// find returns the child of node parent named by a raw member name, the
// j-th member of its object: the j-th child when the members come in the
// first row's order; -1 when there is none.
func (e *encoder) find(parent int, j int32, raw []byte, escaped bool) int {
	name := raw
	if escaped {
		e.kbuf = appendJSONUnescaped(e.kbuf[:0], raw)
		name = e.kbuf
	}
	nd := &e.nodes[parent]
	if f := nd.lo + j; f < nd.hi && bytes.Equal(e.nodes[f].name, name) {
		return int(f)
	}
	if nd.tab >= 0 {
		for h := uint32(maphash.Bytes(e.seed, name)); ; h++ {
			f := e.ftab[nd.tab+int32(h&nd.tabMask)]
			if f < 0 {
				return -1
			}
			if bytes.Equal(e.nodes[f].name, name) {
				return int(f)
			}
		}
	}
	for f := nd.lo; f < nd.hi; f++ {
		if bytes.Equal(e.nodes[f].name, name) {
			return int(f)
		}
	}
	return -1
}

// fastMatch reports whether the member at i is named nd, by comparing the
// field's name with the member's raw name in place; it returns the offset
// of the member's value. A false answer says nothing: the name may be
// spelled with escapes.
func (e *encoder) fastMatch(i int, nd *tableField) (int, bool) {
	in := e.in
	j := i + 1 + len(nd.name) // the closing quote
	if nd.wmask != 0 && i+9 <= len(in) {
		if binary.LittleEndian.Uint64(in[i+1:i+9])&nd.wmask != nd.word {
			return 0, false
		}
	} else if !nd.simple || j >= len(in) || in[j] != '"' || string(in[i+1:j]) != string(nd.name) {
		return 0, false
	}
	if j+2 < len(in) && in[j+1] == ':' && in[j+2] > ' ' {
		return j + 2, true // compact
	}
	return e.ws(e.ws(j+1) + 1), true
}

// hashFields makes the hash table of a wide level's fields.
func (e *encoder) hashFields(parent int) {
	nd := &e.nodes[parent]
	size := 1 << bits.Len(uint(2*(nd.hi-nd.lo)))
	nd.tab, nd.tabMask = int32(len(e.ftab)), uint32(size-1)
	for range size {
		e.ftab = append(e.ftab, -1)
	}
	for f := nd.lo; f < nd.hi; f++ {
		for h := uint32(maphash.Bytes(e.seed, e.nodes[f].name)); ; h++ {
			if slot := &e.ftab[nd.tab+int32(h&nd.tabMask)]; *slot < 0 {
				*slot = f
				break
			}
		}
	}
}

// numberLeaves numbers the leaf fields depth-first, in pre-order: the
// order of a row's cells.
func (e *encoder) numberLeaves() {
	e.leaves = 0
	e.numberFrom(0)
	if cap(e.slots) < e.leaves {
		e.slots = make([]int, e.leaves)
	}
	e.slots = e.slots[:e.leaves]
}

// numberFrom numbers the leaves under node parent, from e.leaves on.
func (e *encoder) numberFrom(parent int) {
	nd := e.nodes[parent]
	for f := nd.lo; f < nd.hi; f++ {
		if e.nodes[f].group {
			e.numberFrom(int(f))
		} else {
			e.nodes[f].leaf = int32(e.leaves)
			e.leaves++
		}
	}
}

// row writes the cells of the row object at p, which classify accepted,
// joined by the delimiter, and returns the offset past it.
func (e *encoder) row(p int) int {
	mark := len(e.out)
	if end, ok := e.rowInOrder(0, p, true); ok {
		return end
	}
	// The members come in another order than the fields: find each leaf's
	// value, then write them in field order.
	e.out = e.out[:mark]
	end := e.fill(0, p)
	for l, v := range e.slots {
		if l > 0 {
			e.out = append(e.out, e.delim)
		}
		e.prim(v)
	}
	return end
}

// rowInOrder writes the cells of the object at p as they come, for as
// long as its members come in the order of node parent's fields (at every
// level). It reports false when they do not.
func (e *encoder) rowInOrder(parent int, p int, first bool) (int, bool) {
	nd := e.nodes[parent]
	out := e.out
	i := e.ws(p + 1)
	for f := nd.lo; f < nd.hi; f++ {
		if e.at(i) != '"' {
			return 0, false
		}
		v, ok := e.fastMatch(i, &e.nodes[f])
		if !ok {
			name, escaped, value := e.member(i)
			if escaped {
				e.kbuf = appendJSONUnescaped(e.kbuf[:0], name)
				name = e.kbuf
			}
			if !bytes.Equal(e.nodes[f].name, name) {
				return 0, false
			}
			v = value
		}
		var end int
		if e.nodes[f].group {
			e.out = out
			if end, ok = e.rowInOrder(int(f), v, first); !ok {
				return 0, false
			}
			out = e.out
		} else {
			if !first {
				out = append(out, e.delim)
			}
			out, end = e.appendPrim(out, v)
		}
		first = false
		i = e.next(end)
	}
	e.out = out
	return i + 1, true
}

// fill sets e.slots to the offsets of the leaf values of the object at p
// for the fields of node parent, and returns the offset past it.
func (e *encoder) fill(parent int, p int) int {
	i := e.ws(p + 1)
	for j := int32(0); e.at(i) == '"'; j++ {
		name, escaped, v := e.member(i)
		f := e.find(parent, j, name, escaped)
		var end int
		switch {
		case f < 0: // not after classify
			end = e.skip(v)
		case e.nodes[f].group:
			end = e.fill(f, v)
		default:
			e.slots[e.nodes[f].leaf] = v
			end = e.primEnd(v)
		}
		i = e.next(end)
	}
	return i + 1
}
