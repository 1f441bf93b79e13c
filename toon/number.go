package toon

import "strconv"

// IsNumber reports whether an unquoted token is a number by the decoder
// grammar of §4: /^-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i without a
// forbidden leading zero ("05", "-007"; "0.5" and "0e1" are numbers).
func IsNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	start := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	if i == start || tok[start] == '0' && i-start > 1 {
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		f := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		if i == f {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		e := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		if i == e {
			return false
		}
	}
	return i == len(tok)
}

// IsNumericLike reports whether a string must be quoted as numeric-like by
// the encoder rule of §7.2: /^[+-]?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i,
// leading zeros included.
func IsNumericLike(s []byte) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 || !isDigit(s[0]) {
		return false
	}
	if s[0] == '0' {
		// "05" is numeric-like to the encoder; make it pass IsNumber's
		// leading-zero rule by looking at it as "5".
		for len(s) > 1 && s[0] == '0' && isDigit(s[1]) {
			s = s[1:]
		}
	}
	return IsNumber(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// maxExponent bounds the exponents that AppendNumber normalizes; a literal
// with a larger one is written as it is (lowercase e), which is still exact.
const maxExponent = 1 << 40

// AppendNumber appends the canonical form (§2) of a number literal that is
// valid JSON or valid by IsNumber: no exponent when n = 0 or
// 1e-6 <= |n| < 1e21, no leading zeros, no trailing zeros after the point,
// no point when the fraction is zero, -0 as 0; outside that range
// d[.ddd]e+X or d[.ddd]e-X, as JavaScript writes it. The digits are copied,
// never rounded through a float64: the value is exact at any size.
func AppendNumber(dst, lit []byte) []byte {
	neg := len(lit) > 0 && lit[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	intStart := i
	for i < len(lit) && isDigit(lit[i]) {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(lit) && lit[i] == '.' {
		i++
		fracStart = i
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
		fracEnd = i
	}
	exp := int64(0)
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		for ; i < len(lit); i++ {
			exp = exp*10 + int64(lit[i]-'0')
			if exp > maxExponent {
				return appendLiteral(dst, lit)
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// The digits D = int digits then fraction digits; the point stands
	// after `point` digits of D (negative: before it, with zeros between).
	ip, fp := lit[intStart:intEnd], lit[fracStart:fracEnd]
	point := int64(len(ip)) + exp
	for len(ip) > 0 && ip[0] == '0' {
		ip = ip[1:]
		point--
	}
	if len(ip) == 0 {
		for len(fp) > 0 && fp[0] == '0' {
			fp = fp[1:]
			point--
		}
	}
	// Trailing zeros of D: those of the fraction, then, when it had only
	// zeros, those of the integer part (10.0e100 is 1e+101).
	for len(fp) > 0 && fp[len(fp)-1] == '0' {
		fp = fp[:len(fp)-1]
	}
	if len(fp) == 0 {
		for len(ip) > 0 && ip[len(ip)-1] == '0' {
			ip = ip[:len(ip)-1]
		}
	}
	n := int64(len(ip) + len(fp))
	if n == 0 {
		return append(dst, '0')
	}
	digit := func(k int64) byte {
		if k < int64(len(ip)) {
			return ip[k]
		}
		return fp[k-int64(len(ip))]
	}
	if neg {
		dst = append(dst, '-')
	}
	if point < -5 || point > 21 {
		dst = append(dst, digit(0))
		if n > 1 {
			dst = append(dst, '.')
			for k := int64(1); k < n; k++ {
				dst = append(dst, digit(k))
			}
		}
		dst = append(dst, 'e')
		if point-1 >= 0 {
			dst = append(dst, '+')
		}
		return strconv.AppendInt(dst, point-1, 10)
	}
	switch {
	case point <= 0:
		dst = append(dst, "0."...)
		for k := point; k < 0; k++ {
			dst = append(dst, '0')
		}
		for k := int64(0); k < n; k++ {
			dst = append(dst, digit(k))
		}
	case point < n:
		for k := int64(0); k < n; k++ {
			if k == point {
				dst = append(dst, '.')
			}
			dst = append(dst, digit(k))
		}
	default:
		for k := int64(0); k < n; k++ {
			dst = append(dst, digit(k))
		}
		for k := n; k < point; k++ {
			dst = append(dst, '0')
		}
	}
	return dst
}

// appendLiteral writes a literal with an exponent too large to normalize,
// as it is but for a lowercase e.
func appendLiteral(dst, lit []byte) []byte {
	for _, c := range lit {
		if c == 'E' {
			c = 'e'
		}
		dst = append(dst, c)
	}
	return dst
}
