package jsonv

// Scan exposes the Checker's one-pass check to the external tests: ok when
// it vouched for src on its own, k the length of src's compact prefix.
func (c *Checker) Scan(src []byte) (k int, ok bool) { return c.scan(src) }

// CompactPrefix exposes compactPrefix to the external tests.
var CompactPrefix = compactPrefix
