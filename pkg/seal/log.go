package seal

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/pkg/sign"
)

// ErrUnsigned is an event of a log being sealed whose signature does not
// verify (or that has none): FromLog seals only a log that verifies.
var ErrUnsigned = errors.New("signature missing or not valid")

// FromLog reads the trace events of a signed log (as sign.Reader reads
// them), checks each one's signature with s (with any of its keys), and adds it to a Builder. The
// first event that is not a valid signed event stops it, with an error
// that names its place.
func FromLog(in io.Reader, s *sign.Signer, maxEventSize int) (*Builder, error) {
	var b Builder
	var mac [sha256.Size]byte
	rd := sign.NewReader(in, maxEventSize)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return &b, nil
		}
		if err != nil {
			return nil, err
		}
		ev, err := s.Event(rec)
		if err != nil {
			fe := err.(*sign.FieldError)
			return nil, &sign.EventError{Index: rec.Index, Pos: rec.PosAt(fe.Offset), Field: fe}
		}
		sig := ev.Signature
		if !ev.HasSig {
			sig = ev.TopSignature
		}
		if s.Match(ev, sig) < 0 {
			return nil, fmt.Errorf("%s: event %d: %w", rec.Pos, rec.Index+1, ErrUnsigned)
		}
		mac = s.Sum() // the key's that signed it, of s's keys
		b.Add(ev.RunID, ev.Seq, ev.T, &mac)
	}
}
