package records

import (
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/codec/tabular"
)

// RowError is an error of TableSink: the record at Where is no row (Err is
// tabular.ErrNotObject, or the object's own fault).
type RowError struct {
	Where string
	Err   error
}

func (e *RowError) Error() string { return fmt.Sprintf("%s: %v", e.Where, e.Err) }

func (e *RowError) Unwrap() error { return e.Err }

// TableSink writes records, objects, as one Genesis table in one pass
// (tabular.RowWriter): the rows go to Rows (a temporary file, say) as they
// come, with a cell for every key seen so far, and every cell is checked;
// Finish writes the header and then the rows, read back, giving the rows
// written before a key appeared its empty cell. So a caller can refuse a
// table that would not read back as written (Report().Lossy; First names
// the first lossy cells) before anyone sees a byte of it, in memory bounded
// by the largest record and the number of keys.
//
// Each lossy cell is named with the input of its row: Src's name, or Name
// for the records without a Src.
type TableSink struct {
	// Rows holds the rows until Finish. Its write errors are returned as
	// they are.
	Rows io.Writer
	// Src is the source of the records being written, for errors and for
	// the input of their rows; What names the records without one:
	// "result" makes "result 3", and Name their input.
	Src  *Source
	What string
	Name string
	// Lossy, when set, is given each lossy cell as it is found; otherwise
	// the first Max of them are kept for First.
	Lossy func(tabular.NamedLossy)
	Max   int

	tw     tabular.RowWriter
	losses tabular.Losses
	line   []byte
	n      int
	inputs []rowInput
}

// rowInput says that the rows from first on come from the input name.
type rowInput struct {
	first int
	name  string
}

// input is the name of the input of the rows being written, noted from the
// row on which it starts (a Report, for its row, only then).
func (t *TableSink) input() string {
	name := t.Name
	if t.Src != nil {
		name = t.Src.Name()
	}
	if len(t.inputs) == 0 || t.inputs[len(t.inputs)-1].name != name {
		t.inputs = append(t.inputs, rowInput{t.tw.Report().Rows, name})
	}
	return name
}

// InputOf names the input of a row.
func (t *TableSink) InputOf(row int) string {
	name := t.Name
	for _, in := range t.inputs {
		if in.first <= row {
			name = in.name
		}
	}
	return name
}

// lossy is the lossy callback of the rows of the input name.
func (t *TableSink) lossy(name string) func(tabular.Lossy) {
	return func(l tabular.Lossy) {
		if t.Lossy != nil {
			t.Lossy(tabular.NamedLossy{Input: name, Lossy: l})
		} else {
			t.losses.Max = t.Max
			t.losses.Add(name, l)
		}
	}
}

// Write writes the row of rec, a valid JSON object. A record that is no
// row is a *RowError.
func (t *TableSink) Write(rec []byte) error {
	t.n++
	name := t.input()
	var err error
	if t.line, err = t.tw.AppendRow(t.line[:0], rec, t.lossy(name)); err != nil {
		where := fmt.Sprintf("%s %d", t.What, t.n)
		if t.Src != nil {
			where = t.Src.Where()
		}
		return &RowError{Where: where, Err: err}
	}
	_, err = t.Rows.Write(t.line)
	return err
}

// WriteRows writes rows split already (on workers: tabular.Rows.Split), as
// Write would write each.
func (t *TableSink) WriteRows(rs *tabular.Rows) error {
	t.n += rs.Len()
	t.line = t.tw.AppendRows(t.line[:0], rs, t.lossy(t.input()))
	_, err := t.Rows.Write(t.line)
	return err
}

// End does nothing: Finish writes the table.
func (t *TableSink) End() error { return nil }

// Report sums up the rows written so far.
func (t *TableSink) Report() tabular.Report { return t.tw.Report() }

// First lists the first lossy cells, with their inputs, in row order: those
// kept (Max of them) and the first cell missing from a row written before
// its key appeared.
func (t *TableSink) First() []tabular.NamedLossy {
	t.losses.Max = t.Max
	return t.losses.First(t.tw.Report(), t.InputOf)
}

// LossyError says that a table would not read back as written: Cells of
// its cells are lossy, the first of them First (TableSink.First).
type LossyError struct {
	Cells int64
	First []tabular.NamedLossy
}

func (e *LossyError) Error() string {
	cells := "cells"
	if e.Cells == 1 {
		cells = "cell"
	}
	return fmt.Sprintf("%d %s would not read back as written: the table is not written", e.Cells, cells)
}

// Check says whether the rows written so far read back as written: nil,
// or the *LossyError that refuses the table.
func (t *TableSink) Check() *LossyError {
	if r := t.tw.Report(); r.Lossy > 0 {
		return &LossyError{Cells: r.Lossy, First: t.First()}
	}
	return nil
}

// Finish writes the table to w: the header, then the rows read back from
// rows (what Rows holds), reporting to lossy (which may be nil) each cell
// missing from a row written before its key appeared.
func (t *TableSink) Finish(w io.Writer, rows io.Reader, lossy func(tabular.NamedLossy)) error {
	var l func(tabular.Lossy)
	if lossy != nil {
		l = func(c tabular.Lossy) { lossy(tabular.NamedLossy{Input: t.InputOf(c.Row), Lossy: c}) }
	}
	return t.tw.Finish(w, rows, l)
}

// AutoSink writes records both as a table (Table) and as a compact JSON
// array (JSON), for a caller that writes one of the two at the end, as
// the A2A spec's negotiation picks it (Choose): a record that is no object
// settles it for JSON, and the table is written no further.
type AutoSink struct {
	Table *TableSink
	JSON  *JSONSink

	notObject string // the error of the first record that is no object
}

// Write writes rec to JSON and, until a record that is no object, to
// Table. Other errors of Table (*RowError) are returned.
func (a *AutoSink) Write(rec []byte) error {
	if err := a.JSON.Write(rec); err != nil {
		return err
	}
	if a.notObject != "" {
		return nil
	}
	err := a.Table.Write(rec)
	if errors.Is(err, tabular.ErrNotObject) {
		a.notObject = err.Error()
		return nil
	}
	return err
}

// End ends the JSON (Finish writes the table).
func (a *AutoSink) End() error { return a.JSON.End() }

// Choose says whether the table is the one to write, and why: every
// record was an object and the table pays (tabular.Report.Pays).
func (a *AutoSink) Choose() (table bool, why string) {
	if a.notObject != "" {
		return false, a.notObject
	}
	return a.Table.Report().Pays()
}
