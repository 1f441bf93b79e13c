package host

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// State is a Narratoria session state: a JSON object that state_patch
// events are merged into with JSON Merge Patch (RFC 7396), as the
// Narratoria host merges them: an object merges into an object member by
// member, recursively; an array or a scalar replaces what was there; null
// deletes a member. Member order is kept (a new member goes last), and
// numbers keep their literals as written (strings are written in the
// compact form of package jsonv: escapes only where JSON needs them).
type State struct {
	root *value
}

// value is a JSON value of the state: an object (obj), or any other value
// as its compact JSON text (raw).
type value struct {
	obj   bool
	raw   []byte
	names []string
	vals  []*value
	index map[string]int // for objects of many members
}

// NewState returns the state held in doc, a JSON object; an empty doc
// (only white space) is the empty object.
func NewState(doc []byte) (*State, error) {
	if len(jsonv.TrimSpace(doc)) == 0 {
		return &State{root: &value{obj: true}}, nil
	}
	if err := jsonv.Check(doc); err != nil {
		return nil, err
	}
	d := newDecoder(doc)
	if d.PeekKind() != '{' {
		return nil, errors.New("the state must be a JSON object")
	}
	root, err := merge(d, nil, true)
	if err != nil {
		return nil, err
	}
	return &State{root: root}, nil
}

// Merge merges a patch, a JSON object, into the state. An invalid patch
// leaves the state as it was.
func (s *State) Merge(patch []byte) error {
	if err := jsonv.Check(patch); err != nil {
		return err
	}
	d := newDecoder(patch)
	if d.PeekKind() != '{' {
		return errors.New("a state patch must be a JSON object")
	}
	root, err := merge(d, s.root, false)
	if err != nil {
		return err
	}
	s.root = root
	return nil
}

// MergePatch applies an RFC 7396 merge patch of any kind to a target
// document and returns the result, compact: the algorithm of RFC 7396
// section 2, as State.Merge applies it.
func MergePatch(target, patch []byte) ([]byte, error) {
	var t *value
	if len(jsonv.TrimSpace(target)) > 0 {
		if err := jsonv.Check(target); err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
		var err error
		if t, err = merge(newDecoder(target), nil, true); err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
	}
	if err := jsonv.Check(patch); err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	v, err := merge(newDecoder(patch), t, false)
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	return v.append(nil), nil
}

// newDecoder reads b, checked with jsonv.Check already: its escaped lone
// surrogates (which jsonv.Check allows, as JSON.stringify writes them) are
// taken as they are.
func newDecoder(b []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowInvalidUTF8(true))
}

// merge reads the next value of d as a merge patch and applies it to
// target (nil: no value), which it changes in place when both are objects,
// and returns the result. With keepNull, null members are values, not
// deletions: the patch is read as a document.
func merge(d *jsontext.Decoder, target *value, keepNull bool) (*value, error) {
	if d.PeekKind() != '{' {
		v, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		return &value{raw: bytes.Clone(jsonv.Compacted(nil, v))}, nil
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	if target == nil || !target.obj {
		target = &value{obj: true}
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String()
		if d.PeekKind() == 'n' && !keepNull {
			if _, err := d.ReadToken(); err != nil {
				return nil, err
			}
			target.delete(name)
			continue
		}
		i := target.find(name)
		var old *value
		if i >= 0 {
			old = target.vals[i]
		}
		v, err := merge(d, old, keepNull)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			target.vals[i] = v
		} else {
			target.add(name, v)
		}
	}
	_, err := d.ReadToken()
	return target, err
}

// indexFrom is the number of members from which an object keeps an index.
const indexFrom = 16

func (v *value) find(name string) int {
	if v.index != nil {
		if i, ok := v.index[name]; ok {
			return i
		}
		return -1
	}
	for i, n := range v.names {
		if n == name {
			return i
		}
	}
	return -1
}

func (v *value) add(name string, val *value) {
	v.names = append(v.names, name)
	v.vals = append(v.vals, val)
	switch {
	case v.index != nil:
		v.index[name] = len(v.names) - 1
	case len(v.names) >= indexFrom:
		v.reindex()
	}
}

func (v *value) delete(name string) {
	i := v.find(name)
	if i < 0 {
		return
	}
	v.names = append(v.names[:i], v.names[i+1:]...)
	v.vals = append(v.vals[:i], v.vals[i+1:]...)
	if v.index != nil {
		v.reindex()
	}
}

func (v *value) reindex() {
	v.index = make(map[string]int, len(v.names))
	for i, n := range v.names {
		v.index[n] = i
	}
}

// append appends the value as compact JSON.
func (v *value) append(dst []byte) []byte {
	if !v.obj {
		return append(dst, v.raw...)
	}
	return jsonv.AppendObject(dst, v.names, func(dst []byte, i int) []byte { return v.vals[i].append(dst) })
}

// AppendJSON appends the state as compact JSON.
func (s *State) AppendJSON(dst []byte) []byte { return s.root.append(dst) }

// AppendIndented appends the state as JSON indented by two spaces, each
// line after the first starting with prefix.
func (s *State) AppendIndented(dst []byte, prefix string) []byte {
	return jsonv.AppendIndent(dst, s.AppendJSON(nil), prefix, "  ")
}
