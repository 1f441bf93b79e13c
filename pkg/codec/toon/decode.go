package toon

import (
	"errors"
	"io"
)

// Decode reads one TOON document from r and writes its JSON value to w as
// it goes, followed by a newline. A malformed document gives a
// *jsonv.SyntaxError with the line, column and an excerpt with a caret;
// what was written before it is to be discarded by the caller.
func Decode(w io.Writer, r io.Reader, opts DecodeOptions) error {
	return errors.New("toon: decode: not implemented")
}
