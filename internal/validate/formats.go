package validate

// Hand-written checks of the string formats and patterns the schemas use,
// for the fast path: each answers exactly what the schema library answers
// (its "date-time" format checker, Go's regexp for a pattern), several
// times faster. formats_test.go holds them to that on many inputs, and
// fuzz targets on any input.

// uuidPattern is the schemas' pattern of a UUID in any of the forms
// Python's uuid.UUID reads: hyphens optional, braces, a urn:uuid: prefix.
const uuidPattern = `^(urn:uuid:)?\{?[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}\}?$`

// knownPatterns are the patterns of the schemas checked by hand.
var knownPatterns = map[string]func([]byte) bool{
	uuidPattern:                       matchUUID,
	`^[0-9a-f]{64}$`:                  matchHex64,
	`^bytes [0-9]+-[0-9]+ of [0-9]+$`: matchChunk,
}

// matchUUID reports whether s matches uuidPattern.
func matchUUID(s []byte) bool {
	if len(s) >= 9 && string(s[:9]) == "urn:uuid:" {
		s = s[9:]
	}
	if len(s) > 0 && s[0] == '{' {
		s = s[1:]
	}
	for g, n := range [5]int{8, 4, 4, 4, 12} {
		if g > 0 && len(s) > 0 && s[0] == '-' {
			s = s[1:]
		}
		if len(s) < n {
			return false
		}
		for _, c := range s[:n] {
			if hexVal[c] < 0 {
				return false
			}
		}
		s = s[n:]
	}
	if len(s) > 0 && s[0] == '}' {
		s = s[1:]
	}
	return len(s) == 0
}

// hexVal is the value of a hex digit (either case), -1 for any other byte.
var hexVal = hexTable(true)

// hexTable is the value of each hex digit, -1 for any other byte (and for
// A-F unless upper).
func hexTable(upper bool) (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = int8(c - 'a' + 10)
		if upper {
			t[c-'a'+'A'] = int8(c - 'a' + 10)
		}
	}
	return t
}

// matchHex64 reports whether s is 64 lowercase hex digits (an HMAC-SHA256).
func matchHex64(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// matchChunk reports whether s is "bytes A-B of N" (decimal digits, any
// number of them).
func matchChunk(s []byte) bool {
	digits := func(prefix string) bool {
		if len(s) < len(prefix) || string(s[:len(prefix)]) != prefix {
			return false
		}
		s = s[len(prefix):]
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		s = s[i:]
		return i > 0
	}
	return digits("bytes ") && digits("-") && digits(" of ") && len(s) == 0
}

// isDateTime reports whether s is a "date-time" as the schema library's
// format checker accepts it (RFC 3339 section 5.6, as it reads it):
// YYYY-MM-DD (a real day of the Gregorian calendar, as time.Parse checks
// it), T or t, hh:mm:ss with seconds up to 60 (a leap second only at
// 23:59 UTC), an optional fraction of one or more digits, then Z, z or
// ±hh:mm. Each two-character number is read as strconv.Atoi reads it, so
// that "+5" is 5 and "-0" is 0, as they are to the library.
func isDateTime(s []byte) bool {
	if len(s) < 20 || s[10] != 'T' && s[10] != 't' || !isDate(s[:10]) {
		return false
	}
	t := s[11:]
	if t[2] != ':' || t[5] != ':' {
		return false
	}
	h, okh := atoi2(t[0], t[1])
	m, okm := atoi2(t[3], t[4])
	sec, oks := atoi2(t[6], t[7])
	if !okh || !okm || !oks || h > 23 || m > 59 || sec > 60 {
		return false
	}
	t = t[8:]
	if len(t) > 0 && t[0] == '.' {
		i := 1
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		t = t[i:]
	}
	if len(t) != 1 || t[0] != 'Z' && t[0] != 'z' {
		if len(t) != 6 || t[0] != '+' && t[0] != '-' || t[3] != ':' {
			return false
		}
		zh, okzh := atoi2(t[1], t[2])
		zm, okzm := atoi2(t[4], t[5])
		if !okzh || !okzm || zh > 23 || zm > 59 {
			return false
		}
		// To UTC, for the leap second (as the library does it: no wrap
		// past midnight forwards).
		sign := 1
		if t[0] == '+' {
			sign = -1
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || h == 23 && m == 59
}

// atoi2 reads two characters as strconv.Atoi does, and fails on a number
// below 0: two digits, or a sign and one digit ("-0" is 0).
func atoi2(a, b byte) (int, bool) {
	if b < '0' || b > '9' {
		return 0, false
	}
	switch {
	case a >= '0' && a <= '9':
		return int(a-'0')*10 + int(b-'0'), true
	case a == '+':
		return int(b - '0'), true
	case a == '-':
		return 0, b == '0'
	}
	return 0, false
}

// isDate reports whether s is YYYY-MM-DD as time.Parse("2006-01-02") takes
// it: four, two and two digits, a month 1-12 and a day of that month.
func isDate(s []byte) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [8]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	year := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	month := int(s[5]-'0')*10 + int(s[6]-'0')
	day := int(s[8]-'0')*10 + int(s[9]-'0')
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}
