package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/paint"
)

// prettyJSON writes one valid JSON value indented by two spaces per level,
// each line starting with indent, as jq does: member order, number literals
// and string escapes kept, empty objects and arrays as {} and [].
func (p *printer) prettyJSON(indent string, js []byte) error {
	if p.style == nil && len(js) <= maxPlainPretty && p.prettyPlain(indent, js) {
		return nil
	}
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
			p.str(paint.JSONPunct, safeString(v))
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
			p.str(paint.JSONPunct, string(k)+string(closing))
			return nil
		}
		p.str(paint.JSONPunct, string(k))
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
				p.str(paint.JSONPunct, ",")
				p.nl()
			}
			p.plain(inner)
			if k == '{' {
				name, err := dec.ReadValue()
				if err != nil {
					return err
				}
				p.str(paint.JSONKey, safeString(name))
				p.str(paint.JSONPunct, ":")
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
		p.str(paint.JSONPunct, string(closing))
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
			p.str(paint.JSONString, safeString(v[:cut]))
			p.str(paint.Dim, fmt.Sprintf(`…" (%d bytes in all)`, len(v)))
			return nil
		}
		p.str(paint.JSONString, safeString(v))
	case '0':
		p.str(paint.JSONNumber, string(v))
	case 'n':
		p.str(paint.JSONNull, string(v))
	default:
		p.str(paint.JSONLiteral, string(v))
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

// maxPlainPretty is the largest payload prettyPlain writes: its output is
// built whole in the printer's buffer.
const maxPlainPretty = 64 << 10

// twoSpaces holds the indentation of the JSON view, two spaces a level.
var twoSpaces = strings.Repeat("  ", maxPrettyDepth+1)

// prettyPlain is prettyJSON without a Style, for a payload in compact form
// (as Reader.JSON gives it): the same text, written byte by byte into the
// buffer without decoding tokens. It gives up, writing nothing, when the
// payload needs more than that (white space, nesting past
// maxPrettyDepth, a string longer than maxShownString or with a character
// that safeString escapes); prettyJSON then does it the long way.
func (p *printer) prettyPlain(indent string, js []byte) bool {
	b := append(p.buf, indent...)
	depth := 0
	for i := 0; i < len(js); {
		c := js[i]
		switch c {
		case '{', '[':
			if i+1 < len(js) && (js[i+1] == '}' || js[i+1] == ']') {
				b = append(b, c, js[i+1])
				i += 2
				continue
			}
			if depth >= maxPrettyDepth {
				return false
			}
			depth++
			b = append(b, c, '\n')
			b = append(b, indent...)
			b = append(b, twoSpaces[:2*depth]...)
		case '}', ']':
			if depth == 0 {
				return false
			}
			depth--
			b = append(b, '\n')
			b = append(b, indent...)
			b = append(b, twoSpaces[:2*depth]...)
			b = append(b, c)
		case ',':
			b = append(b, ',', '\n')
			b = append(b, indent...)
			b = append(b, twoSpaces[:2*depth]...)
		case ':':
			b = append(b, ':', ' ')
		case '"':
			j := i + 1
			for j < len(js) && js[j] != '"' {
				switch {
				case js[j] == '\\':
					j += 2
				case js[j] >= 0x7F:
					r, n := utf8.DecodeRune(js[j:])
					if unsafeRune(r) {
						return false
					}
					j += n
				default:
					j++
				}
			}
			if j >= len(js) || j+1-i > maxShownString {
				return false
			}
			b = append(b, js[i:j+1]...)
			i = j + 1
			continue
		case ' ', '\t', '\r', '\n':
			return false
		default: // a number, true, false or null
			j := i + 1
			for j < len(js) && js[j] != ',' && js[j] != '}' && js[j] != ']' {
				j++
			}
			b = append(b, js[i:j]...)
			i = j
			continue
		}
		i++
	}
	if depth != 0 {
		return false
	}
	p.buf = b
	p.nl()
	return true
}
