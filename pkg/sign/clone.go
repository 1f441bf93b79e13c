package sign

import (
	"errors"
	"hash"
)

// Clone returns a Signer of the same key and scheme, with state of its own:
// one for each goroutine that signs or verifies.
func (s *Signer) Clone() (*Signer, error) {
	c, ok := s.mac.(hash.Cloner)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	mac, err := c.Clone()
	if err != nil {
		return nil, err
	}
	return &Signer{scheme: s.scheme, mac: mac}, nil
}
