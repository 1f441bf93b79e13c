package tabular

import "fmt"

// This file holds a second, plain writer of tables, for the tests only: the
// keys collected in a first pass (KeySet), then an Encoder with those keys.
// RowWriter, the one toonkit uses, writes in one pass; FuzzRoundTrip holds
// it to this reference, byte for byte and lossy cell for lossy cell.

// KeySet collects the keys of a stream of objects: their union, in the order
// they are first seen.
type KeySet struct {
	keys  []string
	index map[string]int
	split splitter
}

// Add adds the member names of obj, which must be a valid JSON object.
func (k *KeySet) Add(obj []byte) error {
	if k.index == nil {
		k.index = map[string]int{}
	}
	return k.split.each(obj, func(name, _ []byte) {
		if _, ok := k.index[string(name)]; !ok {
			k.index[string(name)] = len(k.keys)
			k.keys = append(k.keys, string(name))
		}
	})
}

// Keys returns the keys collected, in first-seen order.
func (k *KeySet) Keys() []string { return k.keys }

// Encoder writes a table for a fixed list of keys.
type Encoder struct {
	keys  []string
	index map[string]int
	cells [][]byte // the value of each key in the current row, nil when absent
	row   int
	split splitter
	cw    cellWriter
}

// NewEncoder returns an Encoder of rows with the given keys (the union of
// all rows' keys, from a KeySet).
func NewEncoder(keys []string) *Encoder {
	e := &Encoder{keys: keys, index: make(map[string]int, len(keys)), cells: make([][]byte, len(keys))}
	for i, k := range keys {
		e.index[k] = i
	}
	return e
}

// AppendHeader appends the header lines.
func (e *Encoder) AppendHeader(dst []byte) []byte { return AppendHeader(dst, e.keys) }

// AppendRow appends the row of obj, a valid JSON object whose keys are all
// among the Encoder's. Each cell that would not read back as it was is
// reported to lossy (which may be nil); the row is written all the same.
func (e *Encoder) AppendRow(dst []byte, obj []byte, lossy func(Lossy)) ([]byte, error) {
	clear(e.cells)
	var unknown string
	err := e.split.each(obj, func(name, v []byte) {
		i, ok := e.index[string(name)]
		if !ok {
			unknown = string(name)
			return
		}
		e.cells[i] = v
	})
	if err != nil {
		return dst, err
	}
	if unknown != "" {
		return dst, fmt.Errorf("key %q is not among the table's keys", unknown)
	}
	for i, v := range e.cells {
		if i > 0 {
			dst = append(dst, ',')
		}
		var why string
		dst, why = e.cw.appendCell(dst, v)
		if why != "" && lossy != nil {
			lossy(Lossy{Row: e.row, Key: e.keys[i], Value: shortJSON(v), Why: why})
		}
	}
	e.row++
	return append(dst, '\n'), nil
}
