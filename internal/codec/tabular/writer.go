package tabular

import (
	"bufio"
	"fmt"
	"io"
)

// RowWriter writes a table in one pass, in memory bounded by the number of
// keys. The keys are the union of all rows' keys in first-seen order, known
// only at the end, so the rows are written first (to a temporary file, say)
// and the header last: AppendRow writes each row with a cell for every key
// seen so far, and Finish writes the header and copies the rows, giving the
// rows written before a key first appeared an empty cell for it (at the end
// of the row, since new keys come last). Every cell that would not read back
// as it was is reported, so that a caller can refuse a lossy table before
// anyone sees a byte of it; Report sums the table up.
type RowWriter struct {
	keys      []string
	index     map[string]int
	split     splitter
	cells     [][]byte // the values of the current row, by key
	cw        cellWriter
	rows      int
	grew      []growth // where the key count grew after row 0
	present   []int64  // per key: rows that hold it
	cellBytes int64
	jsonBytes int64
	losses    int64 // cells reported lossy by AppendRow
	late      int64 // cells missing from rows written before their key appeared
	firstKeys int   // the keys of row 0
	deep      int64
	firstDeep *Lossy
	at        []int // AppendRows: the member of each key in the row
	// The keys back to back, and the end of each in it (AppendRows).
	joined  []byte
	keyEnds []int
}

// growth says that rows from row on have keys cells.
type growth struct{ row, keys int }

// AppendRow appends the row of obj, a valid JSON object, with a cell for
// every key seen so far (obj's new keys are added last), and reports to
// lossy (which may be nil) each cell that would not read back as it was.
// The rows before a key first appeared lack it: Finish reports them.
func (t *RowWriter) AppendRow(dst, obj []byte, lossy func(Lossy)) ([]byte, error) {
	if t.index == nil {
		t.index = map[string]int{}
	}
	clear(t.cells)
	before := len(t.keys)
	m := 0 // the member's position: rows mostly have the keys in one order
	err := t.split.each(obj, func(name, v []byte) {
		i, _ := t.column(m, name)
		m++
		t.cells[i] = v
		t.present[i]++
	})
	if err != nil {
		return dst, err
	}
	t.keysGrew(before)
	start := len(dst)
	for i, v := range t.cells {
		if i > 0 {
			dst = append(dst, ',')
		}
		var why string
		dst, why = t.cw.appendCell(dst, v)
		if why != "" {
			t.losses++
			if lossy != nil {
				lossy(Lossy{Row: t.rows, Key: t.keys[i], Value: shortJSON(v), Why: why})
			}
		}
		if v != nil && Deep(v) {
			if t.deep == 0 {
				t.firstDeep = &Lossy{Row: t.rows, Key: t.keys[i], Value: shortJSON(v), Why: deepWhy}
			}
			t.deep++
		}
	}
	t.cellBytes += int64(len(dst) - start - max(len(t.cells)-1, 0))
	t.jsonBytes += int64(len(obj))
	t.rows++
	return append(dst, '\n'), nil
}

const deepWhy = "nests deeper than the one level the A2A spec allows (toonkit reads it back exactly; a Genesis sender would have used JSON)"

// column returns the column of the key name, the member at index m of its
// row, adding the key when it is new; inPlace says that it is the m-th key.
func (t *RowWriter) column(m int, name []byte) (i int, inPlace bool) {
	if m < len(t.keys) && t.keys[m] == string(name) {
		return m, true
	}
	i, ok := t.index[string(name)]
	if !ok {
		i = len(t.keys)
		t.index[string(name)] = i
		t.keys = append(t.keys, string(name))
		t.joined = append(t.joined, name...)
		t.keyEnds = append(t.keyEnds, len(t.joined))
		t.present = append(t.present, 0)
		t.cells = append(t.cells, nil)
	}
	return i, false
}

// keysGrew notes the keys the row being written added to the before there
// were.
func (t *RowWriter) keysGrew(before int) {
	switch {
	case t.rows == 0:
		t.firstKeys = len(t.keys)
	case len(t.keys) > before:
		t.grew = append(t.grew, growth{t.rows, len(t.keys)})
		t.late += int64(t.rows) * int64(len(t.keys)-before)
	}
}

// Keys returns the keys seen so far, in first-seen order.
func (t *RowWriter) Keys() []string { return t.keys }

// keysAt is the number of keys row had cells for when it was written.
func (t *RowWriter) keysAt(row int) int {
	k := t.firstKeys
	for _, g := range t.grew {
		if g.row > row {
			break
		}
		k = g.keys
	}
	return k
}

// Report sums up a table.
type Report struct {
	Rows int
	Keys []string
	// Lossy counts the cells that would not read back as they were, the
	// missing ones included.
	Lossy int64
	// LateMissing counts the cells missing from rows written before their
	// key first appeared; FirstLate is the first of them (Finish reports
	// them all).
	LateMissing int64
	FirstLate   *Lossy
	// Deep counts the cells nested deeper than the spec allows; FirstDeep
	// is the first of them.
	Deep      int64
	FirstDeep *Lossy
	// Overlap is the share of the keys that every row holds (1 with no keys).
	Overlap float64
	// TableBytes is the size of the table; JSONBytes that of the rows as a
	// compact JSON array, given compact rows.
	TableBytes, JSONBytes int64
}

// Report sums up the rows written so far.
func (t *RowWriter) Report() Report {
	k := len(t.keys)
	r := Report{Rows: t.rows, Keys: t.keys, Deep: t.deep, FirstDeep: t.firstDeep, Overlap: 1,
		Lossy: t.losses + t.late, LateMissing: t.late}
	if t.late > 0 {
		r.FirstLate = &Lossy{Row: 0, Key: t.keys[t.firstKeys], Why: missingWhy}
	}
	if k > 0 {
		all := 0
		for _, p := range t.present {
			if p == int64(t.rows) {
				all++
			}
		}
		r.Overlap = float64(all) / float64(k)
	}
	head := int64(len(AppendHeader(nil, t.keys)))
	r.TableBytes = head + t.cellBytes + int64(t.rows)*int64(max(k, 1))
	r.JSONBytes = t.jsonBytes + int64(max(t.rows-1, 0)) + 2
	return r
}

// Finish writes the header and then the rows that AppendRow wrote (read
// back from rows), giving each row an empty cell for every key that first
// appeared after it was written, and reporting those cells to lossy (which
// may be nil).
func (t *RowWriter) Finish(w io.Writer, rows io.Reader, lossy func(Lossy)) error {
	if _, err := w.Write(AppendHeader(nil, t.keys)); err != nil {
		return err
	}
	if len(t.grew) == 0 {
		_, err := io.Copy(w, rows)
		return err
	}
	br := bufio.NewReaderSize(rows, 256<<10)
	var line []byte
	for row := 0; ; row++ {
		part, err := br.ReadSlice('\n')
		line = append(line[:0], part...)
		for err == bufio.ErrBufferFull {
			part, err = br.ReadSlice('\n')
			line = append(line, part...)
		}
		if err == io.EOF && len(line) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) == 0 || line[len(line)-1] != '\n' {
			return fmt.Errorf("row %d of the kept rows is cut short", row)
		}
		have, all := t.keysAt(row), len(t.keys)
		if have < all {
			line = line[:len(line)-1]
			pad := all - have
			if have == 0 {
				pad-- // no cell yet: the first needs no comma
			}
			for range pad {
				line = append(line, ',')
			}
			line = append(line, '\n')
			if lossy != nil {
				for _, k := range t.keys[have:] {
					lossy(Lossy{Row: row, Key: k, Why: missingWhy})
				}
			}
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
}

// The A2A spec's rules for choosing the table over JSON.
const (
	MinRows    = 2
	MinOverlap = 0.7
	MinSaving  = 0.2
)

// Pays says whether the A2A spec's negotiation picks the table: an array of
// at least 2 objects whose keys overlap by at least 70%, nested no deeper
// than one level, that converts without loss and is more than 20% smaller
// than compact JSON. why says what decided, in a few words.
func (r Report) Pays() (ok bool, why string) {
	saving := 1 - float64(r.TableBytes)/float64(max(r.JSONBytes, 1))
	sizes := fmt.Sprintf("%d bytes as a table, %d as compact JSON (%.1f%% smaller)", r.TableBytes, r.JSONBytes, 100*saving)
	switch {
	case r.Rows < MinRows:
		return false, fmt.Sprintf("%d %s: a table needs at least %d", r.Rows, plural(r.Rows, "row", "rows"), MinRows)
	case r.Overlap < MinOverlap:
		return false, fmt.Sprintf("the rows share %.0f%% of their keys, under %.0f%%", 100*r.Overlap, 100*MinOverlap)
	case r.Deep > 0:
		return false, fmt.Sprintf("%d %s nested deeper than one level", r.Deep, plural(int(r.Deep), "cell is", "cells are"))
	case r.Lossy > 0:
		return false, fmt.Sprintf("%d %s would not read back as written", r.Lossy, plural(int(r.Lossy), "cell", "cells"))
	case saving <= MinSaving:
		return false, sizes + fmt.Sprintf(": not more than %.0f%%", 100*MinSaving)
	}
	return true, sizes
}
