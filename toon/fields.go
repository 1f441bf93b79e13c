package toon

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file resolves the fields of Go struct types, for Marshal and
// Unmarshal alike, by the rules of encoding/json:
//
//   - The name and options come from the field's `toon:"..."` tag when it
//     has one (even an empty one), else from its `json:"..."` tag. A tag
//     is a name, then options after commas: omitempty, omitzero, string.
//   - A tag of "-" drops the field; "-," names it "-".
//   - A name that is not a valid tag name (encoding/json's isValidTag:
//     letters, digits and the punctuation !#$%&()*+-./:;<=>?@[]^_{|}~ and
//     space) is ignored, and the Go field name is used.
//   - Unexported fields are skipped; an embedded struct (or pointer to
//     struct) without a name in its tag has its fields promoted, even when
//     its type is unexported; an embedded field of an unexported non-struct
//     type is skipped.
//   - Among fields of one name, the shallowest wins; at one depth a tagged
//     field beats untagged ones; two fields left at one depth, both tagged
//     or both not, cancel each other and neither is encoded or decoded.
//   - Fields come in the order of their index sequence (declaration order,
//     promoted fields where their embedded struct stands).
//
// The result is cached per type.

// field is one encoded field of a struct type.
type field struct {
	name      string
	tagged    bool  // the name came from a tag
	index     []int // the index sequence, through embedded structs
	typ       reflect.Type
	omitEmpty bool
	omitZero  bool
	quoted    bool // the string option, on a bool, number or string field
	// isZero reports whether a value of the field is zero for omitzero: the
	// type's IsZero method when it has one, else reflect.Value.IsZero.
	isZero func(reflect.Value) bool
}

// structFields are the fields of a struct type, in encoding order.
type structFields struct {
	list []field
	// byName finds a field by its exact name, byFold by its name folded
	// with foldName (encoding/json matches names case-insensitively when
	// there is no exact match; the first field of a folded name wins).
	byName map[string]int
	byFold map[string]int
}

// lookup finds the field that the member name selects when decoding, as
// encoding/json does: the exact name, else a case-insensitive match.
func (s *structFields) lookup(name []byte) (*field, bool) {
	if i, ok := s.byName[string(name)]; ok {
		return &s.list[i], true
	}
	if i, ok := s.byFold[string(foldName(name))]; ok {
		return &s.list[i], true
	}
	return nil, false
}

var fieldCache sync.Map // reflect.Type → *structFields

// cachedFields returns the fields of the struct type t.
func cachedFields(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f, _ := fieldCache.LoadOrStore(t, typeFields(t))
	return f.(*structFields)
}

// fieldTag returns the tag that governs a struct field: its toon tag when
// it has one, else its json tag.
func fieldTag(sf reflect.StructField) string {
	if tag, ok := sf.Tag.Lookup("toon"); ok {
		return tag
	}
	return sf.Tag.Get("json")
}

// tagOptions is what follows the name in a tag.
type tagOptions string

// contains reports whether the comma-separated options hold name.
func (o tagOptions) contains(name string) bool {
	s := string(o)
	for s != "" {
		var opt string
		opt, s, _ = strings.Cut(s, ",")
		if opt == name {
			return true
		}
	}
	return false
}

// isValidTag reports whether s may be a field name in a tag.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

type isZeroer interface{ IsZero() bool }

var isZeroerType = reflect.TypeFor[isZeroer]()

// zeroFunc returns the omitzero test of a field of type t.
func zeroFunc(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() ||
				(v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) ||
				v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Interface().(isZeroer).IsZero()
		}
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.Interface().(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				v2 := reflect.New(v.Type()).Elem()
				v2.Set(v)
				v = v2
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return reflect.Value.IsZero
}

// typeFields resolves the fields of the struct type t (breadth first
// through embedded structs, as encoding/json does).
func typeFields(t reflect.Type) *structFields {
	current := []field{}
	next := []field{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []field

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}

		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := fieldTag(sf)
				if tag == "-" {
					continue
				}
				name, o, _ := strings.Cut(tag, ",")
				opts := tagOptions(o)
				if !isValidTag(name) {
					name = ""
				}
				index := make([]int, len(f.index)+1)
				copy(index, f.index)
				index[len(f.index)] = i

				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				quoted := false
				if opts.contains("string") {
					switch ft.Kind() {
					case reflect.Bool,
						reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64,
						reflect.String:
						quoted = true
					}
				}

				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					fl := field{
						name:      name,
						tagged:    tagged,
						index:     index,
						typ:       sf.Type,
						omitEmpty: opts.contains("omitempty"),
						omitZero:  opts.contains("omitzero"),
						quoted:    quoted,
					}
					if fl.omitZero {
						fl.isZero = zeroFunc(sf.Type)
					}
					fields = append(fields, fl)
					if count[f.typ] > 1 {
						// Several embedded structs of this type at this
						// depth: a duplicate makes the name cancel out.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, field{name: ft.Name(), index: index, typ: ft})
				}
			}
		}
	}

	slices.SortFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})

	// Keep the dominant field of each name.
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		fi := fields[i]
		for advance = 1; i+advance < len(fields); advance++ {
			if fields[i+advance].name != fi.name {
				break
			}
		}
		if advance > 1 {
			fj := fields[i+1]
			if len(fi.index) == len(fj.index) && fi.tagged == fj.tagged {
				continue
			}
		}
		out = append(out, fi)
	}
	fields = out
	slices.SortFunc(fields, func(a, b field) int { return slices.Compare(a.index, b.index) })

	s := &structFields{
		list:   fields,
		byName: make(map[string]int, len(fields)),
		byFold: make(map[string]int, len(fields)),
	}
	for i, f := range fields {
		s.byName[f.name] = i
		folded := string(foldName([]byte(f.name)))
		if _, ok := s.byFold[folded]; !ok {
			s.byFold[folded] = i
		}
	}
	return s
}

// fieldByIndex returns the field of the struct v at index, following
// embedded pointers; ok is false when one of them is nil.
func fieldByIndex(v reflect.Value, index []int) (fv reflect.Value, ok bool) {
	for k, i := range index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

// foldName returns a folded form of name such that foldName(x) ==
// foldName(y) exactly when bytes.EqualFold(x, y).
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

// foldRune returns the smallest rune of r's fold set.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
