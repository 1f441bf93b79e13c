// Package isotime writes times as RFC 3339 in UTC with a fixed number of
// fraction digits (2006-01-02T15:04:05.000Z), the form of the capture
// times in toonkit's records and of the timestamps in inspect's views,
// without parsing a layout for each time.
package isotime

import (
	"strings"
	"time"
)

// Append appends t, in UTC, as YYYY-MM-DDTHH:MM:SS.F...Z with digits
// fraction digits (1 to 9; the fraction is cut, not rounded). A year
// outside 0 to 9999 is written by time's own layout.
func Append(dst []byte, t time.Time, digits int) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05."+strings.Repeat("0", digits)+"Z07:00")
	}
	h, mi, sec := t.Clock()
	var b [30]byte
	put := func(at, n, v int) {
		for i := at + n - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, y)
	put(5, 2, int(mo))
	put(8, 2, d)
	put(11, 2, h)
	put(14, 2, mi)
	put(17, 2, sec)
	frac := t.Nanosecond()
	for i := digits; i < 9; i++ {
		frac /= 10
	}
	put(20, digits, frac)
	b[4], b[7], b[10], b[13], b[16], b[19], b[20+digits] = '-', '-', 'T', ':', ':', '.', 'Z'
	return append(dst, b[:21+digits]...)
}
