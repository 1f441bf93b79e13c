package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeAny decodes one valid JSON value into the values the schema
// library takes (map[string]any, []any, json.Number, string, bool, nil),
// with jsontext: several times faster than encoding/json.
func decodeAny(raw []byte) (any, error) {
	d := jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	return decodeValue(d)
}

var errDepth = errors.New("nested too deep")

func decodeValue(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case '"':
		return tok.String(), nil
	case '0':
		n := tok.String()
		if !checkable(n) {
			n = clampExponent(n)
		}
		return json.Number(n), nil
	case '{':
		m := map[string]any{}
		for d.PeekKind() != '}' {
			name, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			k := name.String()
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		_, err := d.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for d.PeekKind() != ']' {
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.ReadToken()
		return a, err
	}
	return nil, errDepth
}

// checkable reports whether big.Rat can hold the JSON number n: any number
// whose exponent has at most 4 digits; a longer one is tried.
func checkable[T string | []byte](n T) bool {
	i := len(n)
	for j := range len(n) {
		if n[j] == 'e' || n[j] == 'E' {
			i = j
			break
		}
	}
	if len(n)-i <= 6 {
		return true
	}
	_, ok := new(big.Rat).SetString(string(n))
	return ok
}

// clampExponent rewrites a number whose exponent is too long for exact
// arithmetic (the schema library fails on it) to one with the same sign,
// the same side of every bound the schemas use, and the same integer-ness:
// a huge exponent becomes 10000, a tiny one -10000, a zero mantissa 0.
func clampExponent(n string) string {
	i := strings.IndexAny(n, "eE")
	mant, exp := n[:i], n[i+1:]
	if strings.Trim(mant, "-0.") == "" {
		return "0"
	}
	if strings.HasPrefix(exp, "-") {
		return mant + "E-10000"
	}
	return mant + "E10000"
}
