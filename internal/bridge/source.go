package bridge

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
)

// ProtocolOf is the protocol of a format, if it is one: binary frames are
// Kado's.
func ProtocolOf(f codec.Format) (Protocol, bool) {
	switch f {
	case codec.Chiffon:
		return Chiffon, true
	case codec.Trace:
		return Trace, true
	case codec.Narratoria:
		return Narratoria, true
	case codec.Binary:
		return Kado, true
	}
	return "", false
}

// Applies reports whether a conversion from the format from ("": detected
// per input) to the format to maps messages between protocols: the target
// is a protocol, or binary frames from a protocol (named, or detected: an
// input that holds no protocol's messages then gives its records to the
// frames as they are, see Inputs).
func Applies(from, to codec.Format) bool {
	if to == codec.Binary {
		return from == "" || from == codec.Chiffon || from == codec.Trace || from == codec.Narratoria
	}
	return to == codec.Chiffon || to == codec.Trace || to == codec.Narratoria
}

// SourceError says that an input holds no protocol's messages: of a
// format that is none (Format), or JSON whose first message no rule fits
// (Why, codec.Detection's).
type SourceError struct {
	Name   string
	Format codec.Format // "" for JSON whose protocol cannot be told
	Why    string
}

func (e *SourceError) Error() string {
	if e.Format == "" {
		return fmt.Sprintf("%s: cannot tell the protocol: %s", e.Name, e.Why)
	}
	return fmt.Sprintf("%s: the input is %s, not messages of a protocol", e.Name, e.Format)
}

// SourceProtocol is the protocol of an input: from's, when from is one;
// Kado for binary frames; else the first message's (codec.DetectProtocol,
// from the source's buffered start). An input with no message at all is
// Chiffon, which converts to nothing. Other inputs are a *SourceError,
// unless records says that their records may stand as they are: the
// protocol is then "".
func SourceProtocol(src *records.Source, from codec.Format, records bool) (Protocol, error) {
	if p, ok := ProtocolOf(from); ok {
		return p, nil
	}
	if src.Format() == codec.Binary {
		return Kado, nil
	}
	if src.Format() == codec.JSON || src.Format() == codec.NDJSON {
		peek, _ := src.Reader().Peek(64 << 10)
		d := codec.DetectProtocol(peek)
		switch {
		case d.Format != "":
			p, _ := ProtocolOf(d.Format)
			return p, nil
		case records:
			return "", nil
		case len(jsonv.TrimSpace(peek)) > 0:
			return "", &SourceError{Name: src.Name(), Why: d.Why}
		}
		return Chiffon, nil // empty: no messages
	}
	if records {
		return "", nil
	}
	return "", &SourceError{Name: src.Name(), Format: src.Format()}
}
