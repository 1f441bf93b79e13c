package tabular

import "slices"

// Losses keeps the first lossy cells that a RowWriter reports (through the
// lossy callback of AppendRow), each with the input its row came from, so
// that a refused table can name a few of them.
type Losses struct {
	Max   int // how many cells are kept and listed
	cells []NamedLossy
}

// NamedLossy is a lossy cell and the name of the input of its row.
type NamedLossy struct {
	Input string
	Lossy
}

// Add keeps l, unless Max cells are kept already.
func (ls *Losses) Add(input string, l Lossy) {
	if len(ls.cells) < ls.Max {
		ls.cells = append(ls.cells, NamedLossy{input, l})
	}
}

// First is the list for a report: the cells kept and the first cell
// missing from a row written before its key appeared (r.FirstLate, whose
// input inputOf names), in row order, at most Max of them.
func (ls *Losses) First(r Report, inputOf func(row int) string) []NamedLossy {
	cells := slices.Clone(ls.cells)
	if r.FirstLate != nil {
		cells = append(cells, NamedLossy{inputOf(r.FirstLate.Row), *r.FirstLate})
		slices.SortStableFunc(cells, func(a, b NamedLossy) int { return a.Row - b.Row })
	}
	return cells[:min(len(cells), ls.Max)]
}
