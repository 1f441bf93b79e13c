package tabular

import (
	"bytes"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Rows holds rows split apart from any RowWriter (Split, on a worker of a
// pipeline, say), to be written in input order by RowWriter.AppendRows,
// which gives what AppendRow gives for each of them. Split does the costly
// part of AppendRow (splitting the object, writing and checking each cell);
// AppendRows the part that depends on the rows before (the keys, and so
// the column of each cell, and the counts of the Report).
type Rows struct {
	split splitter
	cw    cellWriter
	line  []byte // the cells of the rows, in member order, a row's joined by ','
	names []byte // the names of the members, unquoted, back to back
	mems  []rowMember
	odd   []oddCell
	rows  []rowEnds
}

// rowMember is one member of a row. It holds no pointer: a batch holds
// thousands of them, written once each.
type rowMember struct {
	nameEnd int // in names; it starts where the member before ends
	cellEnd int // in line; it starts after the ',' after the member before
	odd     int // its entry in Rows.odd, or -1 for a cell that reads back as it was, nested no deeper than the spec allows
}

// oddCell is a cell to report: one that does not read back as it was
// (why), or one nested too deep.
type oddCell struct {
	why   string
	deep  bool
	value []byte // as written in the object
}

type rowEnds struct {
	mems, line, names, odd int // the ends of the row's members, cells, names and odd cells
	json                   int // the size of the object
}

// Reset empties rs, keeping its buffers.
func (rs *Rows) Reset() {
	rs.line, rs.names, rs.mems, rs.rows = rs.line[:0], rs.names[:0], rs.mems[:0], rs.rows[:0]
	clear(rs.odd) // the values they point to are the caller's
	rs.odd = rs.odd[:0]
}

// Len is the number of rows in rs.
func (rs *Rows) Len() int { return len(rs.rows) }

// Split adds the row of obj, a valid JSON object, to rs. It fails as
// AppendRow fails (ErrNotObject), adding nothing. rs keeps slices of obj,
// which must stay as it is until the row is written.
func (rs *Rows) Split(obj []byte) error {
	m0, l0, n0, o0 := len(rs.mems), len(rs.line), len(rs.names), len(rs.odd)
	err := rs.split.each(obj, func(name, v []byte) { rs.add(m0, name, v) })
	if err != nil {
		rs.mems, rs.line, rs.names, rs.odd = rs.mems[:m0], rs.line[:l0], rs.names[:n0], rs.odd[:o0]
		return err
	}
	rs.endRow(len(obj))
	return nil
}

// endRow ends the row whose members were added last, of an object of size
// bytes.
func (rs *Rows) endRow(size int) {
	rs.rows = append(rs.rows, rowEnds{})
	r := &rs.rows[len(rs.rows)-1]
	r.mems, r.line, r.names, r.odd, r.json = len(rs.mems), len(rs.line), len(rs.names), len(rs.odd), size
}

// SplitMembers adds the row of obj, a valid JSON object, whose members
// are mems (as jsonv.Reader.Members gives them: names without escapes), as
// Split would have added it, without looking for the members again.
func (rs *Rows) SplitMembers(obj []byte, mems []jsonv.Member) {
	m0 := len(rs.mems)
	for _, m := range mems {
		rs.add(m0, obj[m.NameStart:m.NameEnd], obj[m.ValueStart:m.ValueEnd])
	}
	rs.endRow(len(obj))
}

// add adds the member name (unquoted) and value v to the row whose first
// member is rs.mems[m0].
func (rs *Rows) add(m0 int, name, v []byte) {
	if len(rs.mems) > m0 {
		rs.line = append(rs.line, ',')
	}
	rs.names = append(rs.names, name...)
	var why string
	rs.line, why = rs.cw.appendCell(rs.line, v)
	m := rowMember{nameEnd: len(rs.names), cellEnd: len(rs.line), odd: -1}
	if deep := Deep(v); why != "" || deep {
		m.odd = len(rs.odd)
		rs.odd = append(rs.odd, oddCell{why: why, deep: deep, value: v})
	}
	rs.mems = append(rs.mems, m)
}

// AppendRows appends the rows of rs, in order, as AppendRow would have
// appended each (the same bytes, the same cells reported to lossy, which
// may be nil, and the same Report).
func (t *RowWriter) AppendRows(dst []byte, rs *Rows, lossy func(Lossy)) []byte {
	if t.index == nil {
		t.index = map[string]int{}
	}
	m0, l0, n0, o0 := 0, 0, 0, 0
	for _, r := range rs.rows {
		mems, names := rs.mems[m0:r.mems], rs.names[n0:]
		before := len(t.keys)
		if r.odd == o0 && t.keysAre(mems, names, n0) {
			// The common row: the keys so far, in their order, each cell
			// as it was: its cells as they are, and nothing to report.
			for i := range t.present {
				t.present[i]++
			}
			t.keysGrew(before)
			t.cellBytes += int64(r.line - l0 - max(len(t.keys)-1, 0))
			t.jsonBytes += int64(r.json)
			t.rows++
			dst = append(append(dst, rs.line[l0:r.line]...), '\n')
			m0, l0, n0 = r.mems, r.line, r.names
			continue
		}
		// The cell of each key, by the index of its member (-1: missing).
		inOrder := len(mems) == before
		t.at = t.at[:0]
		for range t.keys {
			t.at = append(t.at, -1)
		}
		start := 0
		for m, mem := range mems {
			name := names[start : mem.nameEnd-n0]
			start = mem.nameEnd - n0
			i, inPlace := t.column(m, name)
			inOrder = inOrder && inPlace
			for len(t.at) < len(t.keys) {
				t.at = append(t.at, -1)
			}
			t.at[i] = m
			t.present[i]++
		}
		t.keysGrew(before)
		lineStart := len(dst)
		if inOrder {
			dst = append(dst, rs.line[l0:r.line]...)
		}
		for i, m := range t.at {
			if !inOrder && i > 0 {
				dst = append(dst, ',')
			}
			if m < 0 {
				t.losses++
				if lossy != nil {
					lossy(Lossy{Row: t.rows, Key: t.keys[i], Why: missingWhy})
				}
				continue
			}
			mem := mems[m]
			if !inOrder {
				cs := l0
				if m > 0 {
					cs = mems[m-1].cellEnd + 1
				}
				dst = append(dst, rs.line[cs:mem.cellEnd]...)
			}
			if mem.odd < 0 {
				continue
			}
			odd := &rs.odd[mem.odd]
			if odd.why != "" {
				t.losses++
				if lossy != nil {
					lossy(Lossy{Row: t.rows, Key: t.keys[i], Value: shortJSON(odd.value), Why: odd.why})
				}
			}
			if odd.deep {
				if t.deep == 0 {
					t.firstDeep = &Lossy{Row: t.rows, Key: t.keys[i], Value: shortJSON(odd.value), Why: deepWhy}
				}
				t.deep++
			}
		}
		t.cellBytes += int64(len(dst) - lineStart - max(len(t.keys)-1, 0))
		t.jsonBytes += int64(r.json)
		t.rows++
		dst = append(dst, '\n')
		m0, l0, n0, o0 = r.mems, r.line, r.names, r.odd
	}
	return dst
}

// keysAre reports whether the names of mems (in names, which starts at n0
// of Rows.names) are the keys seen so far, in their order: the names back
// to back are the keys back to back, and each ends where its key ends (one
// comparison of the row's names, not one a name).
func (t *RowWriter) keysAre(mems []rowMember, names []byte, n0 int) bool {
	if len(mems) != len(t.keys) {
		return false
	}
	if len(mems) == 0 {
		return true
	}
	if !bytes.Equal(names[:mems[len(mems)-1].nameEnd-n0], t.joined) {
		return false
	}
	for m, mem := range mems {
		if mem.nameEnd-n0 != t.keyEnds[m] {
			return false
		}
	}
	return true
}
