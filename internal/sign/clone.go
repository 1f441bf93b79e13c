package sign

import (
	"errors"
	"hash"
)

// Clone returns a Signer of the same key and scheme, with state of its own:
// one for each goroutine that signs or verifies.
// With keys added (AddKey) every key's state is cloned.
func (s *Signer) Clone() (*Signer, error) {
	clone := func(h hash.Hash) (hash.Hash, error) {
		c, ok := h.(hash.Cloner)
		if !ok {
			return nil, errors.ErrUnsupported
		}
		return c.Clone()
	}
	mac, err := clone(s.mac)
	if err != nil {
		return nil, err
	}
	n := &Signer{scheme: s.scheme, mac: mac}
	if s.macs != nil {
		n.macs = []hash.Hash{mac}
		for _, h := range s.macs[1:] {
			c, err := clone(h)
			if err != nil {
				return nil, err
			}
			n.macs = append(n.macs, c)
		}
	}
	return n, nil
}

// reset resets every key's state (before clones share it).
func (s *Signer) reset() {
	s.mac.Reset()
	for _, h := range s.macs {
		h.Reset()
	}
}
