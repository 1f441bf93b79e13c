package jsonv

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Duplicates says what a Reader does with an object whose member names
// repeat (RFC 8259 leaves it to the reader): refuse it, the default, or
// keep one member of each name, at the place of the first, as jq and
// JavaScript's JSON.parse do.
type Duplicates int

const (
	// DuplicatesError refuses an object with a repeated name: a
	// *SyntaxError at the second name, with DuplicateName set.
	DuplicatesError Duplicates = iota
	// DuplicatesLast keeps the last value of each name, at the place of
	// the first (jq: {"a":1,"b":2,"a":3} is {"a":3,"b":2}).
	DuplicatesLast
	// DuplicatesFirst keeps the first value of each name.
	DuplicatesFirst
)

// DuplicatesNames are the names ParseDuplicates takes, in order.
var DuplicatesNames = []string{"error", "last", "first"}

// ParseDuplicates parses a name of DuplicatesNames.
func ParseDuplicates(s string) (Duplicates, error) {
	for i, n := range DuplicatesNames {
		if strings.EqualFold(s, n) {
			return Duplicates(i), nil
		}
	}
	return 0, fmt.Errorf("unknown value %q (supported: %s)", s, strings.Join(DuplicatesNames, ", "))
}

func (d Duplicates) String() string {
	if d >= 0 && int(d) < len(DuplicatesNames) {
		return DuplicatesNames[d]
	}
	return fmt.Sprintf("Duplicates(%d)", int(d))
}

// Dedupe appends to dst the value src, one JSON value that is valid but
// for repeated member names, with one member of each name in each of its
// objects, as keep says (DuplicatesLast or DuplicatesFirst; with
// DuplicatesError src is checked as Check does and appended as it is). The
// value is written compact, its names, strings and numbers as src spells
// them; escaped lone surrogates are allowed, as Check allows them.
func Dedupe(dst, src []byte, keep Duplicates) ([]byte, error) {
	if keep == DuplicatesError {
		if err := Check(src); err != nil {
			return nil, err
		}
		return append(dst, TrimSpace(src)...), nil
	}
	if !utf8.Valid(src) {
		return nil, Check(src) // raw invalid UTF-8, which jsontext's option lets through
	}
	return dedupe(dst, src, src, keep)
}

// dedupe is Dedupe reading parse, which is src or a copy of it of the
// same length whose bytes jsontext reads (NaN masked as a number), and
// copying the bytes of src.
func dedupe(dst, parse, src []byte, keep Duplicates) ([]byte, error) {
	d := deduper{src: src, keep: keep}
	d.dec.Reset(bytes.NewBuffer(parse), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	out, err := d.value(dst)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.ReadToken(); err == nil {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return out, nil
}

type deduper struct {
	dec  jsontext.Decoder
	src  []byte
	keep Duplicates
}

// raw is the bytes of src that the token or value just read spans (n
// bytes long, ending at the decoder's offset).
func (d *deduper) raw(n int) []byte {
	end := int(d.dec.InputOffset())
	return d.src[end-n : end]
}

// member is an object's member being gathered: its name as written and
// unescaped, and its value, compact.
type member struct {
	name []byte
	key  string
	val  []byte
}

func (d *deduper) value(dst []byte) ([]byte, error) {
	switch d.dec.PeekKind() {
	case '{':
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		var ms []member
		var index map[string]int
		for d.dec.PeekKind() != '}' {
			nv, err := d.dec.ReadValue()
			if err != nil {
				return nil, err
			}
			name := d.raw(len(nv))
			key, err := jsontext.AppendUnquote(nil, nv)
			if err != nil {
				return nil, err
			}
			val, err := d.value(nil)
			if err != nil {
				return nil, err
			}
			at := -1
			if index != nil {
				if i, ok := index[string(key)]; ok {
					at = i
				}
			} else {
				for i := range ms {
					if ms[i].key == string(key) {
						at = i
						break
					}
				}
			}
			switch {
			case at < 0:
				ms = append(ms, member{name: name, key: string(key), val: val})
				if index == nil && len(ms) > 16 {
					index = make(map[string]int, 2*len(ms))
					for i := range ms {
						index[ms[i].key] = i
					}
				} else if index != nil {
					index[string(key)] = len(ms) - 1
				}
			case d.keep == DuplicatesLast:
				ms[at].val = val
			}
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, m.name...)
			dst = append(dst, ':')
			dst = append(dst, m.val...)
		}
		return append(dst, '}'), nil
	case '[':
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		dst = append(dst, '[')
		for first := true; d.dec.PeekKind() != ']'; first = false {
			if !first {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = d.value(dst); err != nil {
				return nil, err
			}
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		return append(dst, ']'), nil
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	return append(dst, d.raw(len(v))...), nil
}
