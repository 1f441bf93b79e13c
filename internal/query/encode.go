package query

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is how an Encoder writes values: jq's output flags.
type Format struct {
	Indent int  // spaces per level (jq's --indent, 0..7); 0 is compact (-c)
	Tab    bool // indent with one tab per level (--tab)
	Sort   bool // object keys sorted (-S)
	ASCII  bool // non-ASCII characters as \uXXXX escapes (-a)
	// AppendResult: Raw writes a string result as it is, not as JSON
	// (-r); Join as well, and with no newline after each result (-j).
	Raw, Join bool
}

// Encoder writes gojq values as JSON the way jq prints them: its number
// formatting, its string escapes (\b \f, no escaping of < > &, invalid
// UTF-8 as U+FFFD), and objects in the key order an Order remembers.
type Encoder struct {
	Format Format
	Order  *Order // nil: keys sorted
	keys   [][]string
}

// Append appends the JSON of v to dst. Values that are not JSON (gojq
// yields only JSON values) are written as null.
func (e *Encoder) Append(dst []byte, v any) []byte {
	return e.value(dst, v, 0)
}

// AppendResult appends a result as jq's command line writes it: its JSON,
// or a string as it is with Format.Raw or Join, and a newline unless Join.
func (e *Encoder) AppendResult(dst []byte, v any) []byte {
	if s, ok := v.(string); ok && (e.Format.Raw || e.Format.Join) {
		dst = append(dst, s...)
	} else {
		dst = e.Append(dst, v)
	}
	if !e.Format.Join {
		dst = append(dst, '\n')
	}
	return dst
}

// AppendString appends s as a JSON string.
func (e *Encoder) AppendString(dst []byte, s string) []byte {
	return appendString(dst, s, e.Format.ASCII)
}

func (e *Encoder) newline(dst []byte, level int) []byte {
	dst = append(dst, '\n')
	if e.Format.Tab {
		for range level {
			dst = append(dst, '\t')
		}
		return dst
	}
	for range level * e.Format.Indent {
		dst = append(dst, ' ')
	}
	return dst
}

func (e *Encoder) pretty() bool { return e.Format.Tab || e.Format.Indent > 0 }

func (e *Encoder) value(dst []byte, v any, level int) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case float64:
		return AppendFloat(dst, v)
	case *big.Int:
		return v.Append(dst, 10)
	case json.Number:
		return append(dst, v...)
	case string:
		return appendString(dst, v, e.Format.ASCII)
	case []any:
		if len(v) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, x := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.pretty() {
				dst = e.newline(dst, level+1)
			}
			dst = e.value(dst, x, level+1)
		}
		if e.pretty() {
			dst = e.newline(dst, level)
		}
		return append(dst, ']')
	case map[string]any:
		if len(v) == 0 {
			return append(dst, "{}"...)
		}
		if len(e.keys) <= level {
			e.keys = append(e.keys, make([][]string, level+1-len(e.keys))...)
		}
		keys := e.Order.keys(v, e.keys[level], e.Format.Sort)
		e.keys[level] = keys
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.pretty() {
				dst = e.newline(dst, level+1)
			}
			dst = appendString(dst, k, e.Format.ASCII)
			dst = append(dst, ':')
			if e.pretty() {
				dst = append(dst, ' ')
			}
			dst = e.value(dst, v[k], level+1)
		}
		if e.pretty() {
			dst = e.newline(dst, level)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// AppendFloat appends a computed number as jq prints it (jq 1.6 and 1.7
// alike): NaN as null, the infinities as ±1.7976931348623157e+308, else the
// shortest digits that read back to the same float64, in exponent form
// (two exponent digits at least: 1e-05, 1e+17) when the decimal point falls
// 4 or more places before the first digit or 16 or more after the last.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "null"...)
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], math.Abs(f), 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1 // digits[:decpt] before the point
	if f < 0 {
		dst = append(dst, '-')
	}
	switch {
	case decpt <= -4 || decpt > len(digits)+15:
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if x < 0 {
			dst = append(dst, '-')
			x = -x
		} else {
			dst = append(dst, '+')
		}
		if x < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(x), 10)
	case decpt <= 0:
		dst = append(dst, '0', '.')
		for range -decpt {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case decpt >= len(digits):
		dst = append(dst, digits...)
		for range decpt - len(digits) {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, digits[:decpt]...)
	dst = append(dst, '.')
	return append(dst, digits[decpt:]...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as jq writes strings.
func appendString(dst []byte, s string, ascii bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || ascii {
			dst = append(dst, s[start:i]...)
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				if ascii {
					dst = append(dst[:len(dst)-3], `\ufffd`...)
				}
			} else {
				dst = appendU(dst, r)
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendU appends r as \uXXXX, a surrogate pair above the BMP.
func appendU(dst []byte, r rune) []byte {
	if r >= 0x10000 {
		r -= 0x10000
		dst = appendU(dst, 0xD800+(r>>10))
		return appendU(dst, 0xDC00+(r&0x3FF))
	}
	return append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}
