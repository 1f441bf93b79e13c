package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// prettyJSON writes one valid JSON value indented by two spaces per level,
// each line starting with indent, as jq does: member order, number literals
// and string escapes kept, empty objects and arrays as {} and [].
func (p *printer) prettyJSON(indent string, js []byte) error {
	dec := jsontext.NewDecoder(bytes.NewBuffer(js)) // read in place, not copied
	p.plain(indent)
	err := p.jsonValue(dec, indent, 0)
	p.nl()
	return err
}

var errUnexpected = errors.New("unexpected end of JSON")

// maxShownString is the longest string shown whole in the JSON view.
const maxShownString = 4 << 10

// maxPrettyDepth is the nesting below which values are printed on one line,
// so that a deeply nested payload does not blow the view up with
// indentation (the output stays proportional to the payload).
const maxPrettyDepth = 32

func (p *printer) jsonValue(dec *jsontext.Decoder, indent string, depth int) error {
	switch k := dec.PeekKind(); k {
	case '{', '[':
		if depth >= maxPrettyDepth {
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			p.str(JSONPunct, safeString(v))
			return nil
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		closing := jsontext.Kind('}')
		if k == '[' {
			closing = ']'
		}
		if dec.PeekKind() == closing {
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			p.str(JSONPunct, string(k)+string(closing))
			return nil
		}
		p.str(JSONPunct, string(k))
		p.nl()
		inner := indent + strings.Repeat("  ", depth+1)
		for n := 0; ; n++ {
			next := dec.PeekKind()
			if next == closing {
				break
			}
			if next == 0 {
				if _, err := dec.ReadToken(); err != nil {
					return err
				}
				return errUnexpected
			}
			if n > 0 {
				p.str(JSONPunct, ",")
				p.nl()
			}
			p.plain(inner)
			if k == '{' {
				name, err := dec.ReadValue()
				if err != nil {
					return err
				}
				p.str(JSONKey, safeString(name))
				p.str(JSONPunct, ":")
				p.plain(" ")
			}
			if err := p.jsonValue(dec, indent, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		p.nl()
		p.plain(indent + strings.Repeat("  ", depth))
		p.str(JSONPunct, string(closing))
		return nil
	case 0:
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return errUnexpected
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch v.Kind() {
	case '"':
		if len(v) > maxShownString {
			// The hexdump above has every byte; here a long string is cut.
			cut := maxShownString
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			if i := bytes.LastIndexByte(v[:cut], '\\'); i >= cut-6 {
				cut = i // do not cut an escape in two
			}
			p.str(JSONString, safeString(v[:cut]))
			p.str(Dim, fmt.Sprintf(`…" (%d bytes in all)`, len(v)))
			return nil
		}
		p.str(JSONString, safeString(v))
	case '0':
		p.str(JSONNumber, string(v))
	case 'n':
		p.str(JSONNull, string(v))
	default:
		p.str(JSONLiteral, string(v))
	}
	return nil
}

// safeString returns a JSON string literal with the characters that could
// drive or confuse a terminal escaped as \uXXXX: DEL, the C1 controls,
// the line and paragraph separators and the bidirectional overrides. The
// value of the string is the same.
func safeString(v []byte) string {
	clean := true
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if unsafeRune(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return string(v)
	}
	var sb strings.Builder
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if unsafeRune(r) {
			fmt.Fprintf(&sb, `\u%04x`, r)
		} else {
			sb.Write(v[i : i+n])
		}
		i += n
	}
	return sb.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r == 0x7F, r >= 0x80 && r <= 0x9F:
		return true
	case r == 0x2028, r == 0x2029, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
