package query

import (
	"slices"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
)

// A Need is what a filter reads of its input: the parts a Decoder must
// build, the rest of the input being checked and passed over without
// being made into values. A nil *Need, or one with all set, is the whole
// value.
//
// It is found from the filter's syntax (needOf), for the forms that read
// only paths of their input: .a, .a.b, .["a"], .[], pipes, commas,
// select, object and array construction, comparisons, arithmetic, and,
// or, //, if, string interpolation and literals. Anything else reached by
// the input (a function with arguments, a zero-argument function other
// than empty, reduce, as, try, .., a numeric index, an assignment) needs
// the whole value it is given; a result needs itself whole. So the values
// a filter sees are the ones it would see whole, wherever it looks: what
// is passed over is only what no part of the filter reaches. An error the
// filter raises quotes values whole too: a pruned object is never one it
// can fail on (indexing an object by name and iterating it never fail;
// an array or a scalar where a name is read is built whole).
type Need struct {
	all   bool
	keys  map[string]*Need // the members read by name, each with its need
	elems *Need            // every element of an array, every member of an object
}

// whole marks the value as needed whole.
func (n *Need) whole() {
	if n != nil {
		n.all, n.keys, n.elems = true, nil, nil
	}
}

func (n *Need) key(k string) *Need {
	if n == nil || n.all {
		return nil
	}
	if n.keys == nil {
		n.keys = map[string]*Need{}
	}
	c := n.keys[k]
	if c == nil {
		c = &Need{}
		n.keys[k] = c
	}
	return c
}

func (n *Need) each() *Need {
	if n == nil || n.all {
		return nil
	}
	if n.elems == nil {
		n.elems = &Need{}
	}
	return n.elems
}

// settle makes the need one the decoder follows: a value read both by
// name and by iteration is needed whole; empty needs (a value the filter
// reaches but reads nothing of, such as the input of select(true)) stay
// empty, so that an object is built with no members... except that then
// its type is all that is known of it, so it is built whole, as is every
// value whose need is empty: a need with neither keys nor elems is all.
func (n *Need) settle() {
	if n == nil || n.all {
		return
	}
	if n.keys != nil && n.elems != nil || n.keys == nil && n.elems == nil {
		n.whole()
		return
	}
	for _, c := range n.keys {
		c.settle()
	}
	if n.elems != nil {
		n.elems.settle()
	}
}

// shadowed are the builtins needOf reads by their meaning: a filter that
// defines one of them itself is read whole (Compile sees to it).
var shadowed = map[string]bool{"select": true, "empty": true}

// needOf returns what the filter reads of its input, nil for all of it.
// The filter defines none of the shadowed builtins.
func needOf(q *gojq.Query) *Need {
	root := &Need{}
	var f flow
	for _, n := range f.query(q, []*Need{root}) {
		n.whole()
	}
	root.settle()
	if root.all {
		return nil
	}
	return root
}

// flow follows the input through a filter: each step takes the needs of
// the values it is given (nil: a value that is not part of the input) and
// returns the needs of its results that are parts of the input (nil
// entries for the others), noting what it reads on the way.
type flow struct{}

// all marks the inputs whole: the step reads them in a way not followed.
func (flow) all(in []*Need) []*Need {
	for _, n := range in {
		n.whole()
	}
	return nil
}

// used marks the results of a step whole, for a step that consumes them
// (a comparison, a construction).
func (flow) used(out []*Need) {
	for _, n := range out {
		n.whole()
	}
}

func (f flow) query(q *gojq.Query, in []*Need) []*Need {
	if q == nil {
		return in
	}
	if len(q.Patterns) > 0 || len(q.Imports) > 0 {
		return f.all(in) // . as $x | ...: the variable reaches the input
	}
	if q.Term != nil {
		return f.term(q.Term, in)
	}
	switch q.Op {
	case gojq.OpPipe:
		return f.query(q.Right, f.query(q.Left, in))
	case gojq.OpComma:
		return append(f.query(q.Left, in), f.query(q.Right, in)...)
	case gojq.OpAdd, gojq.OpSub, gojq.OpMul, gojq.OpDiv, gojq.OpMod,
		gojq.OpEq, gojq.OpNe, gojq.OpGt, gojq.OpLt, gojq.OpGe, gojq.OpLe,
		gojq.OpAnd, gojq.OpOr, gojq.OpAlt:
		f.used(f.query(q.Left, in))
		f.used(f.query(q.Right, in))
		return nil
	}
	return f.all(in) // assignments, and what else may come
}

func (f flow) term(t *gojq.Term, in []*Need) []*Need {
	var out []*Need
	switch t.Type {
	case gojq.TermTypeIdentity:
		out = in
	case gojq.TermTypeIndex:
		k, ok := constKey(t.Index)
		if !ok {
			return f.all(in)
		}
		for _, n := range in {
			out = append(out, n.key(k))
		}
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber:
	case gojq.TermTypeString:
		if t.Str.Queries != nil {
			for _, sq := range t.Str.Queries {
				f.used(f.query(sq, in))
			}
		}
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			switch {
			case kv.Key != "" && kv.Key[0] == '$':
			case kv.Key != "" && kv.Val == nil: // {id}: {id: .id}
				if !isIdent(kv.Key) {
					return f.all(in) // {@base64} and the like
				}
				for _, n := range in {
					n.key(kv.Key).whole()
				}
			case kv.KeyString != nil && kv.KeyString.Queries != nil:
				for _, sq := range kv.KeyString.Queries {
					f.used(f.query(sq, in))
				}
			case kv.KeyQuery != nil:
				f.used(f.query(kv.KeyQuery, in))
			}
			if kv.Val != nil {
				f.used(f.query(kv.Val, in))
			} else if kv.Key == "" && kv.KeyString != nil {
				return f.all(in) // {"a"} and {"\(.x)"}: a name read from the input
			}
		}
	case gojq.TermTypeArray:
		if t.Array.Query != nil {
			f.used(f.query(t.Array.Query, in))
		}
	case gojq.TermTypeUnary:
		f.used(f.term(t.Unary.Term, in))
	case gojq.TermTypeQuery:
		out = f.query(t.Query, in)
	case gojq.TermTypeIf:
		f.used(f.query(t.If.Cond, in))
		out = f.query(t.If.Then, in)
		for _, e := range t.If.Elif {
			f.used(f.query(e.Cond, in))
			out = append(out, f.query(e.Then, in)...)
		}
		if t.If.Else != nil {
			out = append(out, f.query(t.If.Else, in)...)
		} else {
			out = append(out, in...) // if without else: the input
		}
	case gojq.TermTypeFunc:
		switch name := t.Func.Name; {
		case name[0] == '$': // a variable: --arg's, $ENV, $__loc__
		case name == "empty" && len(t.Func.Args) == 0:
			return nil
		case name == "select" && len(t.Func.Args) == 1:
			f.used(f.query(t.Func.Args[0], in))
			out = in
		default:
			return f.all(in)
		}
	default:
		return f.all(in)
	}
	for _, s := range t.SuffixList {
		var ok bool
		if out, ok = f.suffix(s, out); !ok {
			// .a[.k], .a[1:.n]: the index is computed from the term's
			// own input, not from .a
			f.all(out)
			return f.all(in)
		}
	}
	return out
}

// suffix follows a suffix of a term (.b, [], ?) from the needs of what it
// applies to; false for one it does not follow (a computed or numeric
// index, a slice).
func (f flow) suffix(s *gojq.Suffix, in []*Need) ([]*Need, bool) {
	switch {
	case s.Optional:
		return in, true
	case s.Iter:
		out := make([]*Need, len(in))
		for i, n := range in {
			out[i] = n.each()
		}
		return out, true
	case s.Index != nil:
		k, ok := constKey(s.Index)
		if !ok {
			return nil, false
		}
		out := make([]*Need, len(in))
		for i, n := range in {
			out[i] = n.key(k)
		}
		return out, true
	}
	return nil, false
}

// constKey is the name an index reads when it is a constant one (.a,
// ."a", .["a"]).
func constKey(ix *gojq.Index) (string, bool) {
	switch {
	case ix == nil || ix.IsSlice || ix.End != nil:
		return "", false
	case ix.Name != "":
		return ix.Name, true
	case ix.Str != nil && ix.Str.Queries == nil:
		return ix.Str.Str, true
	case ix.Start != nil && ix.Start.Term != nil && ix.Start.Term.Type == gojq.TermTypeString &&
		ix.Start.Term.Str.Queries == nil && len(ix.Start.Term.SuffixList) == 0:
		return ix.Start.Term.Str.Str, true
	}
	return "", false
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// String shows the need: * for a whole value, {a:…,b:…} for members read
// by name, []… for every element or member; "*" for nil.
func (n *Need) String() string {
	switch {
	case n == nil || n.all:
		return "*"
	case n.elems != nil:
		return "[]" + n.elems.String()
	}
	keys := make([]string, 0, len(n.keys))
	for k := range n.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		b.WriteString(n.keys[k].String())
	}
	b.WriteByte('}')
	return b.String()
}
