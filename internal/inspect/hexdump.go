package inspect

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/internal/paint"
)

// printer builds the Text view in a buffer and hands it to the writer in
// pieces, so that memory stays bounded however long a hexdump is.
type printer struct {
	w     *errWriter
	style paint.Func
	buf   []byte
}

const flushAt = 32 << 10

// str writes text in a role.
func (p *printer) str(role paint.Role, s string) {
	if p.style != nil && role != 0 && s != "" {
		s = p.style(role, s)
	}
	p.buf = append(p.buf, s...)
}

// plain writes text without a role.
func (p *printer) plain(s string) { p.buf = append(p.buf, s...) }

// nl ends a line.
func (p *printer) nl() {
	p.buf = append(p.buf, '\n')
	if len(p.buf) >= flushAt {
		p.flush()
	}
}

func (p *printer) flush() {
	if len(p.buf) > 0 {
		p.w.Write(p.buf)
		p.buf = p.buf[:0]
	}
}

// mark is a range of absolute offsets [from, to) to show as broken
// (Invalid) or odd (Warning).
type mark struct {
	from, to int64
	role     paint.Role
	label    string
}

func markAt(marks []mark, pos int64) *mark {
	for i := range marks {
		if pos >= marks[i].from && pos < marks[i].to {
			return &marks[i]
		}
	}
	return nil
}

func marksIn(marks []mark, from, to int64) bool {
	for _, m := range marks {
		if m.from < to && m.to > from {
			return true
		}
	}
	return false
}

// run merges neighbouring pieces of text in the same role into one call
// of the Style, so that a line of printable bytes is one colored span.
// Without a Style the text goes straight to the printer.
type run struct {
	p    *printer
	role paint.Role
	text []byte
	col  int // plain width written so far on the line
}

func (r *run) add(role paint.Role, s string) {
	r.col += len(s)
	if r.p.style == nil {
		r.p.buf = append(r.p.buf, s...)
		return
	}
	if role != r.role {
		r.end()
		r.role = role
	}
	r.text = append(r.text, s...)
}

func (r *run) end() {
	if len(r.text) > 0 {
		r.p.str(r.role, string(r.text))
		r.text = r.text[:0]
	}
}

// hexCell and asciiCell are the hexdump's text for each byte value.
var hexCell, asciiCell [256]string

func init() {
	const digits = "0123456789abcdef"
	for b := range 256 {
		hexCell[b] = string([]byte{digits[b>>4], digits[b&15]})
		asciiCell[b] = "."
		if b >= 0x20 && b < 0x7F {
			asciiCell[b] = string(rune(b))
		}
	}
}

func hexOffset(off int64) string {
	s := strconv.FormatInt(off, 16)
	if len(s) < 8 {
		s = "00000000"[len(s):] + s
	}
	return s
}

// hexCols holds the column of each cell of a hexdump line, for markers.
type hexCols struct {
	hex   [16]int
	ascii [16]int
}

// hexdump writes data, whose first byte is at absolute offset at, as
// hexdump -C does: lines of 16 bytes at offsets that are multiples of 16
// (so that they agree with xxd and hexdump of the whole input), the bytes
// in hex in two groups of 8, and the printable ones beside them. A line
// equal to the line before is squeezed into "*", except the last line,
// which is always shown so that the end is visible. Bytes are colored by
// category (paint.Byte); marked bytes take their mark's role, and a line
// of carets under them says why.
func (p *printer) hexdump(indent string, data []byte, at int64, marks []mark) {
	if len(data) == 0 {
		return
	}
	end := at + int64(len(data))
	var prev []byte
	squeezing := false
	for ls := at &^ 15; ls < end; ls += 16 {
		lo, hi := max(ls, at), min(ls+16, end)
		line := data[lo-at : hi-at]
		full := hi-lo == 16
		marked := marksIn(marks, ls, ls+16)
		if full && prev != nil && hi != end && !marked && bytes.Equal(line, prev) {
			if !squeezing {
				p.plain(indent)
				p.str(paint.Dim, "*")
				p.nl()
				squeezing = true
			}
			continue
		}
		squeezing = false
		if p.style == nil && !marked {
			p.hexLinePlain(indent, ls, lo, line)
		} else {
			cols := p.hexLine(indent, ls, lo, line, marks)
			if marked {
				p.markerLine(indent, ls, lo, hi, marks, cols)
			}
		}
		prev = nil
		if full && !marked {
			prev = line
		}
	}
}

// asciiByte is the hexdump's printable column for each byte value.
var asciiByte [256]byte

func init() {
	for b := range asciiByte {
		asciiByte[b] = asciiCell[b][0]
	}
}

// hexLinePlain is hexLine without a Style and without marks: the same
// text, written straight into the buffer.
func (p *printer) hexLinePlain(indent string, ls, lo int64, line []byte) {
	const digits = "0123456789abcdef"
	b := append(p.buf, indent...)
	b = appendHexOffset(b, ls)
	first := int(lo - ls) // the cell of line[0]
	n := first + len(line)
	// "  ", 16 cells of "xx ", one more space after the eighth, " |",
	// up to 16 characters and "|".
	at := len(b)
	b = slices.Grow(b, 2+16*3+1+2+16+1)[:at+2+16*3+1+2]
	cells := b[at:]
	cells[0], cells[1] = ' ', ' '
	k := 2
	for j := range 16 {
		if j >= first && j < n {
			c := line[j-first]
			cells[k], cells[k+1] = digits[c>>4], digits[c&15]
		} else {
			cells[k], cells[k+1] = ' ', ' '
		}
		cells[k+2] = ' '
		k += 3
		if j == 7 {
			cells[k] = ' '
			k++
		}
	}
	cells[k], cells[k+1] = ' ', '|'
	for range first {
		b = append(b, ' ')
	}
	for _, c := range line {
		b = append(b, asciiByte[c])
	}
	p.buf = append(b, '|')
	p.nl()
}

// appendHexOffset appends hexOffset(off).
func appendHexOffset(dst []byte, off int64) []byte {
	const zeros = "00000000"
	var tmp [16]byte
	h := strconv.AppendInt(tmp[:0], off, 16)
	if len(h) < 8 {
		dst = append(dst, zeros[len(h):]...)
	}
	return append(dst, h...)
}

// hexLine writes one line of the hexdump: bytes line from offset lo, in
// the line that starts at ls.
func (p *printer) hexLine(indent string, ls, lo int64, line []byte, marks []mark) *hexCols {
	var cols hexCols
	r := &run{p: p}
	p.plain(indent)
	off := hexOffset(ls)
	p.str(paint.Dim, off)
	r.col = len(indent) + len(off)
	r.add(0, "  ")
	var roles [16]paint.Role
	last := -1
	marked := marksIn(marks, ls, ls+16)
	for j := 0; j < 16; j++ {
		pos := ls + int64(j)
		if pos < lo || pos >= lo+int64(len(line)) {
			continue
		}
		b := line[pos-lo]
		roles[j] = paint.Byte(b)
		if marked {
			if m := markAt(marks, pos); m != nil {
				roles[j] = m.role
			}
		}
		last = j
	}
	for j := 0; j < 16; j++ {
		cols.hex[j] = r.col
		pos := ls + int64(j)
		if roles[j] == 0 {
			r.add(0, "  ")
		} else {
			r.add(roles[j], hexCell[line[pos-lo]])
		}
		sep := " "
		if j == 7 {
			sep = "  "
		}
		if j < 15 && roles[j] != 0 && roles[j+1] == roles[j] {
			r.add(roles[j], sep)
		} else {
			r.add(0, sep)
		}
	}
	r.add(0, " |")
	for j := 0; j <= last; j++ {
		cols.ascii[j] = r.col
		if roles[j] == 0 {
			r.add(0, " ")
			continue
		}
		r.add(roles[j], asciiCell[line[ls+int64(j)-lo]])
	}
	r.add(0, "|")
	r.end()
	p.nl()
	return &cols
}

// markerLine writes carets under the marked bytes of a hexdump line, and
// the label of the first mark.
func (p *printer) markerLine(indent string, ls, lo, hi int64, marks []mark, cols *hexCols) {
	line := []byte(strings.Repeat(" ", cols.ascii[0]+17))
	var first *mark
	lastCol := 0
	for j := 0; j < 16; j++ {
		pos := ls + int64(j)
		if pos < lo || pos >= hi {
			continue
		}
		m := markAt(marks, pos)
		if m == nil {
			continue
		}
		if first == nil {
			first = m
		}
		c := caret(m.role)
		line[cols.hex[j]], line[cols.hex[j]+1] = c, c
		line[cols.ascii[j]] = c
		lastCol = cols.ascii[j] + 1
	}
	if first == nil {
		return
	}
	role := first.role
	if role == paint.Invalid {
		role = paint.Broken
	}
	text := strings.TrimRight(string(line[:lastCol]), " ")
	// Color only the carets, not the spaces between them.
	r := &run{p: p}
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' {
			r.add(0, " ")
		} else {
			r.add(role, text[i:i+1])
		}
	}
	if first.label != "" {
		r.add(0, "  ")
		r.add(role, first.label)
	}
	r.end()
	p.nl()
}

func caret(role paint.Role) byte {
	if role == paint.Caution {
		return '~'
	}
	return '^'
}
