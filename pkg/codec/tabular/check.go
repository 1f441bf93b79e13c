package tabular

import "fmt"

// Checker looks at the rows of a table before it is written, in one pass
// and in memory bounded by the number of keys: it collects the keys (their
// union, in first-seen order), reports every cell whose value would not
// read back as it was, and sums up what the table would be (see Report), so
// that a caller can refuse a lossy table before writing a byte of it, and
// tell whether the table pays at all.
type Checker struct {
	keys      KeySet
	enc       Encoder // for the cells, whose form does not depend on the keys
	rows      int
	present   []int64 // per key: rows that hold it
	sumKeys   int64   // keys per row, summed: what is missing is rows*keys - sumKeys
	count0    int     // keys of row 0
	short     *Lossy  // the first row that lacks a key seen before it
	have      []bool
	cellBytes int64
	jsonBytes int64
	losses    int64
	deep      int64
	firstDeep *Lossy
}

// Add looks at the row obj, a valid JSON object, and reports to lossy (which
// may be nil) each of its cells that would not read back as it was. Cells
// missing from a row are counted once all rows are in (see Report).
func (c *Checker) Add(obj []byte, lossy func(Lossy)) error {
	n, row := 0, c.rows
	clear(c.have)
	err := eachMember(&c.enc.dec, obj, func(name, v []byte) {
		if c.keys.index == nil {
			c.keys.index = map[string]int{}
		}
		i, ok := c.keys.index[string(name)]
		if !ok {
			i = len(c.keys.keys)
			c.keys.index[string(name)] = i
			c.keys.keys = append(c.keys.keys, string(name))
			c.present = append(c.present, 0)
			c.have = append(c.have, false)
		}
		c.present[i]++
		c.have[i] = true
		n++
		var why string
		c.enc.buf2, why = c.enc.appendCell(c.enc.buf2[:0], v)
		c.cellBytes += int64(len(c.enc.buf2))
		if why != "" {
			c.losses++
			if lossy != nil {
				lossy(Lossy{Row: row, Key: string(name), Value: shortJSON(v), Why: why})
			}
		}
		if Deep(v) {
			if c.deep == 0 {
				c.firstDeep = &Lossy{Row: row, Key: string(name), Value: shortJSON(v), Why: "nests deeper than the one level the A2A spec allows (toonkit reads it back exactly; a Genesis sender would have used JSON)"}
			}
			c.deep++
		}
	})
	if err != nil {
		return err
	}
	if row == 0 {
		c.count0 = n
	}
	if n < len(c.keys.keys) && c.short == nil {
		for i, h := range c.have {
			if !h {
				c.short = &Lossy{Row: row, Key: c.keys.keys[i], Why: missingWhy}
				break
			}
		}
	}
	c.sumKeys += int64(n)
	c.jsonBytes += int64(len(obj))
	c.rows++
	return nil
}

// Keys returns the keys seen so far, in first-seen order.
func (c *Checker) Keys() []string { return c.keys.Keys() }

// Report sums up a table.
type Report struct {
	Rows int
	Keys []string
	// Lossy counts the cells that would not read back as they were: the
	// values reported by Add, and the missing cells.
	Lossy int64
	// FirstMissing is the first missing cell, nil when none is.
	FirstMissing *Lossy
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

// Report sums up the rows added so far.
func (c *Checker) Report() Report {
	k := len(c.keys.keys)
	r := Report{Rows: c.rows, Keys: c.keys.keys, Deep: c.deep, FirstDeep: c.firstDeep, Overlap: 1}
	missing := int64(c.rows)*int64(k) - c.sumKeys
	r.Lossy = c.losses + missing
	switch {
	case missing == 0:
	case c.count0 < k:
		r.FirstMissing = &Lossy{Row: 0, Key: c.keys.keys[c.count0], Why: missingWhy}
	default:
		r.FirstMissing = c.short
	}
	if k > 0 {
		all := 0
		for _, p := range c.present {
			if p == int64(c.rows) {
				all++
			}
		}
		r.Overlap = float64(all) / float64(k)
	}
	head := int64(len(NewEncoder(c.keys.keys).AppendHeader(nil)))
	r.TableBytes = head + c.cellBytes + int64(c.rows)*int64(max(k, 1))
	r.JSONBytes = c.jsonBytes + int64(max(c.rows-1, 0)) + 2
	return r
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
