package jsonv

// Members calls f with the name (as written, without its quotes, escapes
// and all) and the value of each member of obj, a valid JSON object (as
// Reader.Next gives it), in any formatting: white space (RFC 8259: space,
// tab, LF, CR) may stand around the object and around its structural
// characters, as json.dumps writes `{"a": 1, "b": 2}` or indents it. The
// values are given without the white space around them, but may hold
// white space within them. It finds the members by a structural scan,
// without checking them again, and reports false, having called f for
// none or some members, when obj is not a JSON object (or not valid
// JSON): the caller then falls back on a decoder, for its error. escaped
// says whether the name holds an escape.
func Members(obj []byte, f func(name []byte, escaped bool, value []byte)) bool {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = SkipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return SkipSpace(obj, i+1) == len(obj)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return false
		}
		end, escaped := stringEnd(obj, i)
		if end < 0 {
			return false
		}
		name := obj[i+1 : end-1]
		if end = SkipSpace(obj, end); end >= len(obj) || obj[end] != ':' {
			return false
		}
		v := SkipSpace(obj, end+1)
		e := valueEnd(obj, v)
		if e < 0 {
			return false
		}
		f(name, escaped, obj[v:e])
		if e = SkipSpace(obj, e); e >= len(obj) {
			return false
		}
		switch obj[e] {
		case ',':
			i = SkipSpace(obj, e+1)
		case '}':
			return SkipSpace(obj, e+1) == len(obj)
		default:
			return false
		}
	}
}

// SkipSpace returns the index of the first byte of b from i on that is not
// JSON white space (space, tab, LF, CR): i itself, at once, in compact
// JSON.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the offset just past the string that starts at b[i],
// and whether it holds an escape; -1 when it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); {
		k := stringStop(b[j:])
		if k < 0 {
			return -1, escaped
		}
		j += k
		if b[j] == '"' {
			return j + 1, escaped
		}
		escaped = true
		j += 2
	}
	return -1, escaped
}

// valueEnd returns the offset just past the value that starts at b[i]
// (white space within it is passed over: only brackets and string quotes
// count), or -1.
func valueEnd(b []byte, i int) int { return SkipValue(b, i) }

// SkipValue returns the offset just past the JSON value that starts at b[i]
// in valid JSON, or -1, by a structural scan: a string ends at its closing
// quote, an object or array at its closing bracket (only brackets and
// string quotes count within it), a number or literal before the first
// ',' '}' ']' or white space.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e, _ := stringEnd(b, i)
		return e
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, _ := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(b)
}
