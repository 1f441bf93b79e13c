package toon

import (
	"errors"
	"io"
)

// Encode writes the TOON form of one JSON value to w, without a final
// newline (§12). value must be valid JSON without duplicate names (as
// jsonv reads it); on anything else Encode returns an error, never panics.
func Encode(w io.Writer, value []byte, opts EncodeOptions) error {
	return errors.New("toon: encode: not implemented")
}
