package toon

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"
)

// This file is Marshal's reflection walk. It writes with the byte-level
// encoder's pieces (line, appendName, appendHeader, appendString,
// appendNumberAt) and takes the same decisions as its walk (encode.go,
// encode_table.go) where they can be taken from the Go value cheaply; where
// they cannot, the part goes through json.Marshal and that walk
// (encodeSub), and where encoding/json would fail, the whole value does
// (errRestart), so that the errors are encoding/json's.

// pkind is how a Go type is written.
type pkind uint8

const (
	pBool pkind = iota
	pInt
	pUint
	pFloat32
	pFloat64
	pString
	pNumber // json.Number
	pBytes  // []byte: base64
	pTime   // time.Time: its MarshalJSON, a string
	pBigInt // *big.Int: its digits
	pText   // encoding.TextMarshaler
	pJSON   // json.Marshaler
	pStruct
	pMap
	pSlice
	pArray
	pPtr
	pIface
	pUnsupported
)

// plan is the cached description of a type.
type plan struct {
	kind pkind
	// addr is the plan of a pointer to the type, used when the value is
	// addressable: its MarshalJSON or MarshalText has a pointer receiver.
	addr *plan
	elem *plan // pointers, slices, arrays, map values
	// stringKeys: a map whose keys are of kind string.
	stringKeys bool
	fields     []fieldPlan
	// always: every field is always written (no omitempty, omitzero or
	// embedded pointer); direct: every field is direct.
	always, direct bool
	// prim: a value of the type is a primitive, never null (see
	// fieldPlan.direct).
	prim bool
	// header is a struct's field list as a table header writes it,
	// "{a,b}:", for each delimiter (delimIndex).
	header [3][]byte
	// size is the length of the last document Marshal made of a value
	// of the type.
	size atomic.Int64
}

// fieldPlan is a struct field with its plan and key.
type fieldPlan struct {
	*field
	key  memberKey
	plan *plan
	// direct: the field holds a primitive that is never null (a bool,
	// number or string kind without marshalers, a time.Time); keyColon
	// is its key as written, with ": ".
	direct   bool
	keyColon []byte
}

var (
	planCache     sync.Map // reflect.Type → *plan
	planMu        sync.Mutex
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	numberType    = reflect.TypeFor[json.Number]()
	timeType      = reflect.TypeFor[time.Time]()
	bigIntPtrType = reflect.TypeFor[*big.Int]()
)

// planFor returns the plan of t.
func planFor(t reflect.Type) *plan {
	if p, ok := planCache.Load(t); ok {
		return p.(*plan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	building := map[reflect.Type]*plan{}
	p := buildPlan(t, building)
	for t, p := range building {
		planCache.Store(t, p)
	}
	return p
}

// buildPlan makes the plan of t, in the order of encoding/json's
// newTypeEncoder: marshalers first (a pointer receiver's when the value
// is addressable), then the kind.
func buildPlan(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := planCache.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{}
	building[t] = p
	if t.Kind() == reflect.Pointer {
		// A pointer's marshaler, whatever its receiver, is called on
		// the same pointer whether the walk stops at the pointer (as
		// encoding/json does) or at its addressable element (as here).
		p.kind = pPtr
		p.elem = buildPlan(t.Elem(), building)
		return p
	}
	if pt := reflect.PointerTo(t); !t.Implements(marshalerType) {
		switch {
		case pt == bigIntPtrType:
			p.addr = &plan{kind: pBigInt}
		case pt.Implements(marshalerType):
			p.addr = &plan{kind: pJSON}
		case pt.Implements(textMarshaler) && !t.Implements(textMarshaler):
			p.addr = &plan{kind: pText}
		}
	}
	switch {
	case t == timeType:
		p.kind, p.prim = pTime, true
		return p
	case t.Implements(marshalerType):
		p.kind = pJSON
		return p
	case t.Implements(textMarshaler):
		p.kind = pText
		return p
	}
	defer func() {
		switch p.kind {
		case pBool, pInt, pUint, pFloat32, pFloat64, pString, pNumber, pTime:
			p.prim = p.addr == nil
		}
	}()
	switch t.Kind() {
	case reflect.Bool:
		p.kind = pBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = pInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = pUint
	case reflect.Float32:
		p.kind = pFloat32
	case reflect.Float64:
		p.kind = pFloat64
	case reflect.String:
		p.kind = pString
		if t == numberType {
			p.kind = pNumber
		}
	case reflect.Interface:
		p.kind = pIface
	case reflect.Map:
		p.kind = pMap
		p.stringKeys = t.Key().Kind() == reflect.String
		p.elem = buildPlan(t.Elem(), building)
	case reflect.Slice:
		p.kind = pSlice
		if et := t.Elem(); et.Kind() == reflect.Uint8 {
			ept := reflect.PointerTo(et)
			if !ept.Implements(marshalerType) && !ept.Implements(textMarshaler) {
				p.kind = pBytes
				return p
			}
		}
		p.elem = buildPlan(t.Elem(), building)
	case reflect.Array:
		p.kind = pArray
		p.elem = buildPlan(t.Elem(), building)
	case reflect.Struct:
		p.kind = pStruct
		p.always, p.direct = true, true
		fs := cachedFields(t)
		for i := range fs.list {
			f := &fs.list[i]
			fp := fieldPlan{field: f, key: memberKey{raw: []byte(f.name)}, plan: buildPlan(f.typ, building)}
			fp.direct = fp.plan.prim && !f.quoted
			var e encoder
			e.appendName(fp.key.raw)
			fp.key.out = e.out
			fp.keyColon = append(e.out[:len(e.out):len(e.out)], ':', ' ')
			if !fp.direct {
				p.direct = false
			}
			if f.omitEmpty || f.omitZero || len(f.index) > 1 {
				p.always = false
			}
			p.fields = append(p.fields, fp)
		}
		for d, delim := range []byte{',', '\t', '|'} {
			var e encoder
			e.out = append(e.out, '{')
			for i := range p.fields {
				if i > 0 {
					e.out = append(e.out, delim)
				}
				e.appendName(p.fields[i].key.raw)
			}
			p.header[d] = append(e.out, '}', ':')
		}
	default:
		p.kind = pUnsupported
	}
	return p
}

// marshalState is the reflection walk's state: the byte-level encoder
// whose output it writes, and scratch space.
type marshalState struct {
	e     encoder
	level int     // containers and pointers entered
	keys  []mapKV // the sorted members of the maps being written
	row0  []int   // the fields of a table's first row
	cols  []uint8 // their classes
	tmp   []byte  // scratch for numbers and text
	kbuf  []byte  // scratch for invalid UTF-8
	// sclass is e.class with the bytes of multi-byte UTF-8 sequences
	// marked classStop: a string of classPlain bytes is ASCII.
	sclass [256]uint8
}

// mapKV is a map member.
type mapKV struct {
	key string
	val reflect.Value
}

// maxLevel is how deep the walk goes before it hands the value to
// encoding/json, which finds cycles.
const maxLevel = 1000

// The classes of values, as the byte-level encoder sees their JSON.
const (
	cPrim    = iota // a string, number, true, false or null
	cObject         // an object with members
	cEmpty          // an object without members
	cArray          // an array
	cUnknown        // only its JSON can tell
)

// marshal writes the document of v.
func (m *marshalState) marshal(v any) error {
	if v == nil {
		m.line(0)
		m.e.out = append(m.e.out, "null"...)
		return nil
	}
	rv := reflect.ValueOf(v)
	return m.root(rv, planFor(rv.Type()))
}

// resolve follows pointers, interfaces and pointer-receiver marshalers to
// the value that is written; null reports a nil.
func (m *marshalState) resolve(v reflect.Value, p *plan) (reflect.Value, *plan, bool, error) {
	for n := 0; ; n++ {
		if n > maxLevel {
			return v, p, false, errRestart
		}
		if p.addr != nil && v.CanAddr() {
			v, p = v.Addr(), p.addr
		}
		switch p.kind {
		case pPtr:
			if v.IsNil() {
				return v, p, true, nil
			}
			v, p = v.Elem(), p.elem
			continue
		case pIface:
			if v.IsNil() {
				return v, p, true, nil
			}
			v = v.Elem()
			p = planFor(v.Type())
			continue
		case pMap, pSlice, pBytes:
			return v, p, v.IsNil(), nil
		case pJSON, pText, pBigInt:
			if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
				return v, p, true, nil
			}
		}
		return v, p, false, nil
	}
}

// class returns the class of the resolved value v.
func (m *marshalState) class(v reflect.Value, p *plan, null bool) int {
	if null {
		return cPrim
	}
	switch p.kind {
	case pStruct:
		if m.firstField(v, p, 0) < 0 {
			return cEmpty
		}
		return cObject
	case pMap:
		if v.Len() == 0 {
			return cEmpty
		}
		return cObject
	case pSlice, pArray:
		return cArray
	case pJSON, pUnsupported:
		return cUnknown
	}
	return cPrim
}

// classOf resolves v and returns its class.
func (m *marshalState) classOf(v reflect.Value, p *plan) (int, error) {
	v, p, null, err := m.resolve(v, p)
	if err != nil {
		return 0, err
	}
	return m.class(v, p, null), nil
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// fieldValue returns the value of field i of the struct v, and whether it
// is written.
func fieldValue(v reflect.Value, fp *fieldPlan) (reflect.Value, bool) {
	var fv reflect.Value
	if len(fp.index) == 1 {
		fv = v.Field(fp.index[0])
	} else {
		var ok bool
		if fv, ok = fieldByIndex(v, fp.index); !ok {
			return fv, false
		}
	}
	if fp.omitEmpty && isEmptyValue(fv) || fp.omitZero && fp.isZero(fv) {
		return fv, false
	}
	return fv, true
}

// firstField returns the index of the first field written from i on, or
// -1.
func (m *marshalState) firstField(v reflect.Value, p *plan, i int) int {
	if p.always {
		if i < len(p.fields) {
			return i
		}
		return -1
	}
	for ; i < len(p.fields); i++ {
		if _, ok := fieldValue(v, &p.fields[i]); ok {
			return i
		}
	}
	return -1
}

// The positions of a value, for the byte-level walk (viaJSON).
const (
	atRoot = iota
	atField
	atItem
	atArray     // an array in a field
	atItemArray // an array that is a list item
)

// viaJSON writes v at its position through json.Marshal and the byte-level
// walk.
func (m *marshalState) viaJSON(v reflect.Value, at int, k memberKey, depth int) error {
	var x any
	if v.CanAddr() {
		x = v.Addr().Interface()
	} else {
		x = v.Interface()
	}
	js, err := json.Marshal(x)
	if err != nil {
		return errRestart
	}
	return m.e.encodeSub(js, func(e *encoder) {
		switch at {
		case atRoot:
			e.root(0)
		case atField:
			e.field(k, 0, depth)
		case atItem:
			e.item(0, depth)
		case atArray:
			e.array(k, 0, depth, false)
		case atItemArray:
			e.array(k, 0, depth, true)
		}
	})
}

// root writes the document's value.
func (m *marshalState) root(v reflect.Value, p *plan) error {
	v, p, null, err := m.resolve(v, p)
	if err != nil {
		return err
	}
	e := &m.e
	if null {
		m.line(0)
		e.out = append(e.out, "null"...)
		return nil
	}
	switch p.kind {
	case pStruct, pMap:
		if keyed, err := m.mayBeKeyed(v, p); err != nil || keyed {
			if err != nil {
				return err
			}
			if ok, err := m.keyed(memberKey{none: true}, v, p, 0); err != nil || ok {
				return err
			}
			return m.viaJSON(v, atRoot, memberKey{}, 0)
		}
		return m.object(v, p, 0)
	case pSlice, pArray:
		return m.array(memberKey{none: true}, v, p, 0, false)
	case pJSON, pUnsupported:
		return m.viaJSON(v, atRoot, memberKey{}, 0)
	case pString, pText, pTime, pBytes:
		s, err := m.text(v, p)
		if err != nil {
			return err
		}
		m.line(0)
		if len(s) >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF {
			e.out = appendQuotedTOON(e.out, s)
		} else {
			e.appendString(s)
		}
		return nil
	}
	m.line(0)
	return m.prim(v, p)
}

// mayBeKeyed reports whether the object v, a struct or map, may take the
// keyed tabular form (§9.5): its first two members are objects with
// members (or may be). It also refuses maps it does not write itself.
func (m *marshalState) mayBeKeyed(v reflect.Value, p *plan) (bool, error) {
	if p.kind == pMap {
		if !p.stringKeys {
			return true, nil
		}
		if v.Len() < 2 {
			return false, nil
		}
		// The members are sorted in object(); look at the two smallest.
		var k1, k2 string
		var v1, v2 reflect.Value
		first := true
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			if !utf8.ValidString(k) {
				return true, nil
			}
			switch {
			case first:
				k1, v1, first = k, it.Value(), false
			case k < k1:
				k1, k2, v1, v2 = k, k1, it.Value(), v1
			case !v2.IsValid() || k < k2:
				k2, v2 = k, it.Value()
			}
		}
		for _, x := range []reflect.Value{v1, v2} {
			c, err := m.classOf(x, p.elem)
			if err != nil || c != cObject && c != cUnknown {
				return false, err
			}
		}
		return true, nil
	}
	i := m.firstField(v, p, 0)
	for n := 0; n < 2; n++ {
		if i < 0 {
			return false, nil
		}
		fp := &p.fields[i]
		fv, _ := fieldValue(v, fp)
		c, err := m.classOf(fv, fp.plan)
		if err != nil || c != cObject && c != cUnknown {
			return false, err
		}
		i = m.firstField(v, p, i+1)
	}
	return true, nil
}

// enter resolves v, a level deeper: past maxLevel, the value goes to
// encoding/json, which tells a cycle from a deep value. leave undoes it.
func (m *marshalState) enter(v reflect.Value, p *plan) (reflect.Value, *plan, bool, error) {
	if m.level++; m.level > maxLevel {
		return v, p, false, errRestart
	}
	return m.resolve(v, p)
}

func (m *marshalState) leave() { m.level-- }

// keyed writes the object v (§9.5), whose first two members are objects,
// in the keyed tabular form when its members are all of one struct type
// whose fields are always written primitives (a map of such structs, or a
// struct of such fields), and reports whether it did; for other objects
// the byte-level walk decides.
func (m *marshalState) keyed(k memberKey, v reflect.Value, p *plan, depth int) (bool, error) {
	var rp *plan
	n := 0
	if p.kind == pMap {
		rp, n = p.elem, v.Len()
		if !p.stringKeys {
			return false, nil
		}
	} else {
		for i := range p.fields {
			fp := &p.fields[i]
			if _, ok := fieldValue(v, fp); !ok {
				continue
			}
			if rp != nil && fp.plan != rp || fp.quoted {
				return false, nil
			}
			rp = fp.plan
			n++
		}
	}
	if rp == nil || rp.kind != pStruct || !rp.always || !rp.direct || len(rp.fields) == 0 || n < 2 {
		return false, nil
	}
	start := len(m.keys)
	defer func() {
		clear(m.keys[start:])
		m.keys = m.keys[:start]
	}()
	if p.kind == pMap {
		for it := v.MapRange(); it.Next(); {
			key := it.Key().String()
			if !utf8.ValidString(key) {
				return false, nil // two keys may become one
			}
			m.keys = append(m.keys, mapKV{key, it.Value()})
		}
		slices.SortFunc(m.keys[start:], func(a, b mapKV) int { return strings.Compare(a.key, b.key) })
	}
	e := &m.e
	m.tableHeader(k, n, true, depth)
	e.out = append(e.out, rp.header[delimIndex(e.delim)]...)
	row := func(key memberKey, rv reflect.Value) error {
		m.line(depth + 1)
		e.appendKey(key)
		e.out = append(e.out, ':', ' ')
		for f := range rp.fields {
			if f > 0 {
				e.out = append(e.out, e.delim)
			}
			if err := m.prim(rv.Field(rp.fields[f].index[0]), rp.fields[f].plan); err != nil {
				return err
			}
		}
		return nil
	}
	if p.kind == pMap {
		for _, kv := range m.keys[start:] {
			if err := row(memberKey{raw: unsafe.Slice(unsafe.StringData(kv.key), len(kv.key))}, kv.val); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	for i := range p.fields {
		fp := &p.fields[i]
		if fv, ok := fieldValue(v, fp); ok {
			if err := row(fp.key, fv); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// field writes an object's member k with the value v at depth, as the
// byte-level walk's field does.
func (m *marshalState) field(k memberKey, fp *fieldPlan, v reflect.Value, p *plan, depth int) error {
	v, p, null, err := m.enter(v, p)
	defer m.leave()
	if err != nil {
		return err
	}
	e := &m.e
	if null {
		m.line(depth)
		e.appendKey(k)
		e.out = append(e.out, ": null"...)
		return nil
	}
	switch p.kind {
	case pStruct, pMap:
		if keyed, err := m.mayBeKeyed(v, p); err != nil || keyed {
			if err != nil {
				return err
			}
			if ok, err := m.keyed(k, v, p, depth); err != nil || ok {
				return err
			}
			return m.viaJSON(v, atField, k, depth)
		}
		m.line(depth)
		e.appendKey(k)
		e.out = append(e.out, ':')
		return m.object(v, p, depth+1)
	case pSlice, pArray:
		return m.array(k, v, p, depth, false)
	case pJSON, pUnsupported:
		return m.viaJSON(v, atField, k, depth)
	}
	m.line(depth)
	e.appendKey(k)
	e.out = append(e.out, ':', ' ')
	if fp != nil && fp.quoted {
		return m.quoted(v, p)
	}
	return m.prim(v, p)
}

// object writes the members of the struct or map v as fields at depth.
func (m *marshalState) object(v reflect.Value, p *plan, depth int) error {
	if p.kind == pStruct {
		for i := range p.fields {
			fp := &p.fields[i]
			var fv reflect.Value
			if p.always {
				fv = v.Field(fp.index[0])
			} else {
				var ok bool
				if fv, ok = fieldValue(v, fp); !ok {
					continue
				}
			}
			if fp.direct {
				e := &m.e
				m.line(depth)
				e.out = append(e.out, fp.keyColon...)
				if err := m.prim(fv, fp.plan); err != nil {
					return err
				}
				continue
			}
			if err := m.field(fp.key, fp, fv, fp.plan, depth); err != nil {
				return err
			}
		}
		return nil
	}
	start := len(m.keys)
	defer func() {
		clear(m.keys[start:])
		m.keys = m.keys[:start]
	}()
	for it := v.MapRange(); it.Next(); {
		m.keys = append(m.keys, mapKV{it.Key().String(), it.Value()})
	}
	kvs := m.keys[start:]
	slices.SortFunc(kvs, func(a, b mapKV) int { return strings.Compare(a.key, b.key) })
	for _, kv := range kvs {
		if !utf8.ValidString(kv.key) {
			return errRestart // two keys may become one
		}
	}
	for i := range kvs {
		kv := m.keys[start+i]
		k := memberKey{raw: unsafe.Slice(unsafe.StringData(kv.key), len(kv.key))}
		if err := m.field(k, nil, kv.val, p.elem, depth); err != nil {
			return err
		}
	}
	return nil
}

// item writes the list item v (§9.4, §10), its hyphen at depth.
func (m *marshalState) item(v reflect.Value, p *plan, depth int) error {
	v, p, null, err := m.enter(v, p)
	defer m.leave()
	if err != nil {
		return err
	}
	e := &m.e
	if null {
		e.dash = depth
		m.line(depth)
		e.out = append(e.out, "null"...)
		return nil
	}
	switch p.kind {
	case pStruct:
		if m.firstField(v, p, 0) < 0 {
			m.line(depth)
			e.out = append(e.out, '-')
			return nil
		}
		e.dash = depth
		return m.object(v, p, depth+1)
	case pMap:
		if !p.stringKeys {
			return m.viaJSON(v, atItem, memberKey{}, depth)
		}
		if v.Len() == 0 {
			m.line(depth)
			e.out = append(e.out, '-')
			return nil
		}
		e.dash = depth
		return m.object(v, p, depth+1)
	case pSlice, pArray:
		e.dash = depth
		return m.array(memberKey{none: true}, v, p, depth, true)
	case pJSON, pUnsupported:
		return m.viaJSON(v, atItem, memberKey{}, depth)
	}
	e.dash = depth
	m.line(depth)
	return m.prim(v, p)
}

// array writes the array v (§9) with its key k at depth, as the
// byte-level walk's array does.
func (m *marshalState) array(k memberKey, v reflect.Value, p *plan, depth int, item bool) error {
	e := &m.e
	n := v.Len()
	if n == 0 {
		e.emptyArray(k, depth, item)
		return nil
	}
	at := atArray
	if item {
		at = atItemArray
	}
	if p.elem.prim {
		m.line(depth)
		e.appendHeader(k, n, false, -1)
		e.out = append(e.out, ' ')
		for i := range n {
			if i > 0 {
				e.out = append(e.out, e.delim)
			}
			if err := m.prim(v.Index(i), p.elem); err != nil {
				return err
			}
			if len(e.out) >= encodeChunk {
				e.flush()
			}
		}
		return nil
	}
	c0, err := m.classOf(v.Index(0), p.elem)
	if err != nil {
		return err
	}
	switch c0 {
	case cUnknown:
		return m.viaJSON(v, at, k, depth)
	case cObject:
		if !item {
			switch tab, err := m.tabular(k, v, p, depth); {
			case err != nil:
				return err
			case tab == tabWritten:
				return nil
			case tab == tabUnknown:
				return m.viaJSON(v, at, k, depth)
			}
		}
	case cPrim:
		prims := true
		for i := 1; i < n; i++ {
			c, err := m.classOf(v.Index(i), p.elem)
			if err != nil {
				return err
			}
			if c == cUnknown {
				return m.viaJSON(v, at, k, depth)
			}
			if c != cPrim {
				prims = false
				break
			}
		}
		if prims {
			m.line(depth)
			e.appendHeader(k, n, false, -1)
			e.out = append(e.out, ' ')
			for i := range n {
				if i > 0 {
					e.out = append(e.out, e.delim)
				}
				if err := m.primOf(v.Index(i), p.elem, false); err != nil {
					return err
				}
				if len(e.out) >= encodeChunk {
					e.flush()
				}
			}
			return nil
		}
	}
	// The list form (§9.4).
	m.line(depth)
	e.appendHeader(k, n, false, -1)
	for i := range n {
		if err := m.item(v.Index(i), p.elem, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// The answers of tabular.
const (
	tabList    = iota // not a table: the list form
	tabWritten        // written as a table
	tabUnknown        // only the byte-level walk can tell
)

// tabular writes the array v, whose first element is an object with
// members, as a table (§9.3) when its elements are structs of one type
// holding primitives in the same fields.
func (m *marshalState) tabular(k memberKey, v reflect.Value, p *plan, depth int) (int, error) {
	n := v.Len()
	m.row0, m.cols = m.row0[:0], m.cols[:0]
	sp := p.elem
	groups := false
	if !(sp.kind == pStruct && sp.always && sp.direct) {
		// Rows that may differ: check each. A row that breaks the form
		// settles it (a list); one that only its JSON can tell about, or
		// a nested group, leaves the byte-level walk to decide, unless a
		// later row breaks the form.
		sp = nil
		unknown := false
		for i := range n {
			rv, rp, verdict, err := m.tableRow(v, i, p, sp)
			switch {
			case err != nil || verdict == tabList:
				return verdict, err
			case verdict == tabUnknown:
				unknown = true
				continue
			}
			if i == 0 {
				if rp.kind == pMap && rp.stringKeys {
					return m.tabularMaps(k, v, p, depth)
				}
				if rp.kind != pStruct {
					return tabUnknown, nil
				}
				sp = rp
			}
			if sp.always && sp.direct {
				continue // every row has every field, a primitive
			}
			j := 0
			for f := range sp.fields {
				fp := &sp.fields[f]
				fv, ok := fieldValue(rv, fp)
				if !ok {
					continue
				}
				if i == 0 {
					m.row0 = append(m.row0, f)
				} else if j >= len(m.row0) || m.row0[j] != f {
					return tabList, nil
				}
				c, list, unk, err := m.cell(fv, fp.plan, i, j)
				if err != nil || list {
					return tabList, err
				}
				unknown = unknown || unk
				groups = groups || c == cObject && !unk
				j++
			}
			if j != len(m.row0) {
				return tabList, nil
			}
		}
		if unknown {
			return tabUnknown, nil
		}
		for j, f := range m.row0 {
			// A nested group is written here when it is a struct field
			// whose fields are all never-null primitives, the same in
			// every row.
			if gp := sp.fields[f].plan; m.cols[j] == cObject && !(gp.kind == pStruct && gp.always && gp.direct) {
				return tabUnknown, nil
			}
		}
	}
	e := &m.e
	m.tableHeader(k, n, false, depth)
	d := delimIndex(e.delim)
	if sp.always && sp.direct {
		// Every field, every row: the header is made once per type.
		e.out = append(e.out, sp.header[d]...)
		for i := range n {
			rv := v.Index(i)
			if rv.Kind() != reflect.Struct {
				rv, _, _, _ = m.resolve(rv, p.elem)
			}
			m.line(depth + 1)
			for f := range sp.fields {
				if f > 0 {
					e.out = append(e.out, e.delim)
				}
				if err := m.prim(rv.Field(sp.fields[f].index[0]), sp.fields[f].plan); err != nil {
					return 0, err
				}
			}
		}
		return tabWritten, nil
	}
	fields := m.row0
	e.out = append(e.out, '{')
	for j, f := range fields {
		if j > 0 {
			e.out = append(e.out, e.delim)
		}
		e.appendName(sp.fields[f].key.raw)
		if groups && m.cols[j] == cObject {
			h := sp.fields[f].plan.header[d]
			e.out = append(e.out, h[:len(h)-1]...) // {a,b} without the colon
		}
	}
	e.out = append(e.out, '}', ':')
	for i := range n {
		rv, _, _, _ := m.resolve(v.Index(i), p.elem)
		m.line(depth + 1)
		for j, f := range fields {
			if j > 0 {
				e.out = append(e.out, e.delim)
			}
			fp := &sp.fields[f]
			fv, _ := fieldValue(rv, fp)
			var err error
			switch {
			case groups && m.cols[j] == cObject:
				for g := range fp.plan.fields {
					if g > 0 {
						e.out = append(e.out, e.delim)
					}
					gf := &fp.plan.fields[g]
					if err = m.prim(fv.Field(gf.index[0]), gf.plan); err != nil {
						break
					}
				}
			case fp.direct:
				err = m.prim(fv, fp.plan)
			default:
				err = m.primOf(fv, fp.plan, fp.quoted)
			}
			if err != nil {
				return 0, err
			}
		}
	}
	return tabWritten, nil
}

// tableRow resolves the element i of the array v, a row of a table
// candidate whose rows are of the plan first (any plan for row 0). verdict
// is -1 when the row may be one, else the answer of tabular.
func (m *marshalState) tableRow(v reflect.Value, i int, p, first *plan) (rv reflect.Value, rp *plan, verdict int, err error) {
	rv, rp, null, err := m.resolve(v.Index(i), p.elem)
	switch {
	case err != nil:
		return rv, rp, 0, err
	case null:
		return rv, rp, tabList, nil
	case i > 0 && rp != first:
		if c := m.class(rv, rp, false); c == cObject || c == cUnknown {
			return rv, rp, tabUnknown, nil
		}
		return rv, rp, tabList, nil
	}
	return rv, rp, -1, nil
}

// cell checks the cell j of row i of a table candidate against the
// column's class in the first row: list reports a cell that breaks the
// form (§9.3), unknown one that only its JSON can tell about.
func (m *marshalState) cell(v reflect.Value, p *plan, i, j int) (c int, list, unknown bool, err error) {
	if c, err = m.classOf(v, p); err != nil {
		return c, false, false, err
	}
	if i == 0 {
		m.cols = append(m.cols, uint8(c))
	}
	switch col := int(m.cols[j]); {
	case c == cArray || c == cEmpty:
		list = true
	case c == cUnknown || col == cUnknown:
		unknown = true
	case (col == cObject) != (c == cObject):
		list = true
	}
	return c, list, unknown, nil
}

// tabularMaps is tabular for an array whose first element is a map with
// string keys: a table when every element is a map of that type with the
// same keys, holding primitives. The sorted members of all rows are held
// in m.keys while the rows are checked, then written.
func (m *marshalState) tabularMaps(k memberKey, v reflect.Value, p *plan, depth int) (int, error) {
	n := v.Len()
	start := len(m.keys)
	defer func() {
		clear(m.keys[start:])
		m.keys = m.keys[:start]
	}()
	var mp *plan
	width := 0
	unknown := false
	m.cols = m.cols[:0]
	for i := range n {
		rv, rp, verdict, err := m.tableRow(v, i, p, mp)
		switch {
		case err != nil || verdict == tabList:
			return verdict, err
		case verdict == tabUnknown:
			unknown = true
			continue
		}
		if i == 0 {
			mp = rp
		}
		row := len(m.keys)
		for it := rv.MapRange(); it.Next(); {
			m.keys = append(m.keys, mapKV{it.Key().String(), it.Value()})
		}
		kvs := m.keys[row:]
		if i == 0 {
			width = len(kvs)
		}
		if len(kvs) != width || width == 0 {
			return tabList, nil
		}
		slices.SortFunc(kvs, func(a, b mapKV) int { return strings.Compare(a.key, b.key) })
		for j, kv := range kvs {
			if !utf8.ValidString(kv.key) {
				unknown = true // two keys may become one
			}
			if i > 0 && kv.key != m.keys[start+j].key {
				return tabList, nil
			}
			c, list, unk, err := m.cell(kv.val, mp.elem, i, j)
			if err != nil || list {
				return tabList, err
			}
			// Nested groups of maps are left to the byte-level walk.
			unknown = unknown || unk || c == cObject
		}
	}
	if unknown {
		return tabUnknown, nil
	}
	e := &m.e
	m.tableHeader(k, n, false, depth)
	e.out = append(e.out, '{')
	for j := range width {
		if j > 0 {
			e.out = append(e.out, e.delim)
		}
		e.appendName(unsafe.Slice(unsafe.StringData(m.keys[start+j].key), len(m.keys[start+j].key)))
	}
	e.out = append(e.out, '}', ':')
	for i := range n {
		m.line(depth + 1)
		for j, kv := range m.keys[start+i*width : start+(i+1)*width] {
			if j > 0 {
				e.out = append(e.out, e.delim)
			}
			if err := m.primOf(kv.val, mp.elem, false); err != nil {
				return 0, err
			}
		}
	}
	return tabWritten, nil
}

// delimIndex numbers the delimiters for plan.header.
func delimIndex(d byte) int {
	switch d {
	case '\t':
		return 1
	case '|':
		return 2
	}
	return 0
}

// primOf resolves v and writes it as a primitive; quoted is the string
// option of its field.
func (m *marshalState) primOf(v reflect.Value, p *plan, quoted bool) error {
	v, p, null, err := m.resolve(v, p)
	switch {
	case err != nil:
		return err
	case null:
		m.e.out = append(m.e.out, "null"...)
		return nil
	case quoted:
		return m.quoted(v, p)
	}
	return m.prim(v, p)
}

// prim writes the resolved primitive v.
func (m *marshalState) prim(v reflect.Value, p *plan) error {
	e := &m.e
	switch p.kind {
	case pString:
		m.appendGoString(v.String())
	case pBool:
		if v.Bool() {
			e.out = append(e.out, "true"...)
		} else {
			e.out = append(e.out, "false"...)
		}
	case pInt:
		e.out = strconv.AppendInt(e.out, v.Int(), 10)
	case pUint:
		e.out = strconv.AppendUint(e.out, v.Uint(), 10)
	case pFloat32, pFloat64:
		return m.appendFloat(v, p)
	case pNumber:
		s := v.String()
		if s == "" {
			s = "0"
		}
		lit := unsafe.Slice(unsafe.StringData(s), len(s))
		if !IsNumber(lit) {
			return errRestart
		}
		e.out, _ = appendNumberAt(e.out, lit, 0)
	case pBigInt:
		x := v.Interface().(*big.Int)
		m.tmp = x.Append(m.tmp[:0], 10)
		e.out, _ = appendNumberAt(e.out, m.tmp, 0)
	default:
		s, err := m.text(v, p)
		if err != nil {
			return err
		}
		e.appendString(s)
	}
	return nil
}

// line is the encoder's line for Marshal's held output: a line at depth
// after another starts with one append.
func (m *marshalState) line(depth int) {
	e := &m.e
	if n := 1 + depth*e.indent; e.lines && e.dash < 0 && n <= len(newlineIndent) {
		e.out = append(e.out, newlineIndent[:n]...)
		return
	}
	e.line(depth)
}

// tableHeader starts the header of a table or keyed table (§9.3, §9.5)
// on a line at depth: the key, the length and the delimiter, without the
// fields and the colon.
func (m *marshalState) tableHeader(k memberKey, n int, keyed bool, depth int) {
	m.line(depth)
	m.e.appendHeader(k, n, keyed, -1)
	m.e.out = m.e.out[:len(m.e.out)-1]
}

// newlineIndent is a newline and the spaces of indentations (Marshal's
// output is held, never flushed by line).
const newlineIndent = "\n" + indentSpaces

// appendGoString writes the Go string s as a string value. The common
// string, ASCII without a byte that calls for quotes, takes one pass.
func (m *marshalState) appendGoString(s string) {
	e := &m.e
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	i := 0
	for i < len(b) && m.sclass[b[i]] == classPlain {
		i++
	}
	switch {
	case i < len(b) && !utf8.Valid(b[i:]):
		b = m.validUTF8(b)
		e.appendString(b)
	case i < len(b):
		e.appendString(b)
	case e.plainEdges(b):
		e.out = append(e.out, b...)
	default:
		e.out = appendQuotedTOON(e.out, b)
	}
}

// validUTF8 returns s with each byte of invalid UTF-8 replaced by U+FFFD,
// as encoding/json writes it.
func (m *marshalState) validUTF8(s []byte) []byte {
	m.kbuf = m.kbuf[:0]
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		m.kbuf = utf8.AppendRune(m.kbuf, r)
		i += size
	}
	return m.kbuf
}

// appendFloat writes the float v in the canonical form (§2) of the
// literal encoding/json writes. Where encoding/json uses strconv's 'f'
// format (1e-6 <= |v| < 1e21), the shortest digits are canonical already
// but for -0, so they are written in place; other literals go through
// appendNumberAt.
func (m *marshalState) appendFloat(v reflect.Value, p *plan) error {
	f := v.Float()
	abs := math.Abs(f)
	limit := float64(1 << 53)
	if p.kind == pFloat32 {
		limit = 1 << 24
	}
	if abs >= 1 && abs < limit && f == math.Trunc(f) {
		// An integer below 2^53 (2^24 for a float32), where every integer
		// is exact: its shortest digits are its own, no other integer
		// being as near.
		m.e.out = strconv.AppendInt(m.e.out, int64(f), 10)
		return nil
	}
	if abs != 0 && abs >= 1e-6 && abs < 1e21 && !math.IsInf(f, 0) {
		bits := 64
		if p.kind == pFloat32 {
			bits = 32
			if float32(abs) < 1e-6 || float32(abs) >= 1e21 {
				goto general
			}
		}
		m.e.out = strconv.AppendFloat(m.e.out, f, 'f', -1, bits)
		return nil
	}
general:
	lit, err := m.float(v, p)
	if err != nil {
		return err
	}
	m.e.out, _ = appendNumberAt(m.e.out, lit, 0)
	return nil
}

// float returns the JSON literal of the float v as encoding/json writes it.
func (m *marshalState) float(v reflect.Value, p *plan) ([]byte, error) {
	f := v.Float()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, errRestart
	}
	bits := 64
	if p.kind == pFloat32 {
		bits = 32
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	m.tmp = strconv.AppendFloat(m.tmp[:0], f, format, -1, bits)
	if n := len(m.tmp); format == 'e' && n >= 4 && m.tmp[n-4] == 'e' && m.tmp[n-3] == '-' && m.tmp[n-2] == '0' {
		m.tmp[n-2] = m.tmp[n-1] // e-07 is e-7, as encoding/json writes it
		m.tmp = m.tmp[:n-1]
	}
	return m.tmp, nil
}

// text returns the string that the resolved v is written as: a string, a
// []byte's base64, a time's RFC 3339 form, a TextMarshaler's text. Invalid
// UTF-8 becomes U+FFFD, byte by byte, as encoding/json writes it.
func (m *marshalState) text(v reflect.Value, p *plan) ([]byte, error) {
	var s []byte
	switch p.kind {
	case pString:
		str := v.String()
		s = unsafe.Slice(unsafe.StringData(str), len(str))
	case pBytes:
		b := v.Bytes()
		m.tmp = base64.StdEncoding.AppendEncode(m.tmp[:0], b)
		return m.tmp, nil
	case pTime:
		js, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil || len(js) < 2 {
			return nil, errRestart
		}
		s = js[1 : len(js)-1]
	case pText:
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return []byte("null"), nil
		}
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return nil, errRestart
		}
		s = b
	default:
		return nil, errRestart
	}
	if !utf8.Valid(s) {
		s = m.validUTF8(s)
	}
	return s, nil
}

// quoted writes the resolved primitive v of a field with the string
// option: its JSON inside a string.
func (m *marshalState) quoted(v reflect.Value, p *plan) error {
	e := &m.e
	var lit []byte
	switch p.kind {
	case pBool:
		lit = strconv.AppendBool(m.tmp[:0], v.Bool())
	case pInt:
		lit = strconv.AppendInt(m.tmp[:0], v.Int(), 10)
	case pUint:
		lit = strconv.AppendUint(m.tmp[:0], v.Uint(), 10)
	case pFloat32, pFloat64:
		var err error
		if lit, err = m.float(v, p); err != nil {
			return err
		}
	case pNumber:
		s := v.String()
		if s == "" {
			s = "0"
		}
		if !IsNumber([]byte(s)) {
			return errRestart
		}
		lit = []byte(s)
	case pString:
		js, err := json.Marshal(v.String())
		if err != nil {
			return errRestart
		}
		lit = js
	default:
		return m.prim(v, p)
	}
	m.tmp = lit
	e.appendString(lit)
	return nil
}
