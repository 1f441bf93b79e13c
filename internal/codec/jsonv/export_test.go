package jsonv

import "io"

// Scan exposes the Checker's one-pass check to the external tests: ok when
// it vouched for src on its own, k the length of src's compact prefix.
func (c *Checker) Scan(src []byte) (k int, ok bool) { return c.scan(src) }

// CompactPrefix exposes compactPrefix to the external tests.
var CompactPrefix = compactPrefix

// JSONTextReader is a Reader that reads every value with jsontext, as
// Readers did before the Checker read objects and arrays.
func JSONTextReader(r io.Reader, opts Options) *Reader {
	rd := NewReader(r, opts)
	rd.noChk = true
	return rd
}

// SlowReads is how many times r read an object or an array (or the start
// of one the bytes buffered cut short) with jsontext rather than with the
// Checker's one pass.
func (r *Reader) SlowReads() int { return r.slow }
