package validate

import (
	"errors"
	"io"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec"
)

// ErrNoRules is returned by Check for a format that has no built-in rules
// (json, ndjson, toon: a user's schema checks them, see UserSchema).
var ErrNoRules = errors.New("no built-in rules")

// Check validates r, the input named name, by the built-in rules of
// format: Binary, Tabular, Chiffon, Trace, Narratoria, or Capture (a pcap
// or pcapng file, its connections chosen by copts). It returns the count
// of records, and ErrNoRules for a format without rules.
func Check(r io.Reader, name string, format codec.Format, opts Options, copts capture.Options, emit Emit) (int, error) {
	switch format {
	case codec.Binary:
		return Binary(r, name, opts, emit)
	case codec.Tabular:
		return Tabular(r, name, opts, emit)
	case codec.Chiffon:
		return Chiffon(r, name, opts, emit)
	case codec.Trace:
		return Trace(r, name, opts, emit)
	case codec.Narratoria:
		return Narratoria(r, name, opts, emit)
	case codec.Pcap:
		return Capture(r, name, opts, copts, emit)
	case codec.TOON:
		return TOON(r, name, opts, emit)
	}
	return 0, ErrNoRules
}
