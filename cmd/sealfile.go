package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// sealFlags are the flags of the commands that read a seal (verify --seal,
// sign --seal --append): its size limit.
type sealFlags struct {
	MaxSealSize int
	maxSealSize *size.Flag
}

func (s *sealFlags) add(c *cobra.Command) {
	s.maxSealSize = size.NewFlag("max-seal-size", "64MiB")
	c.Flags().Var(s.maxSealSize, "max-seal-size", "largest seal file read (--seal)")
}

func (s *sealFlags) parse() error { return cli.SizeOf(s.maxSealSize, &s.MaxSealSize) }

// readSealFile reads the seal in path, of at most limit bytes, and checks
// it for a log of scheme signed with the keys of ring: its own HMAC first,
// which must be that of the current key, ring[0]. A seal made with a key
// rotated out is refused, naming that key: whoever holds an old key can
// seal a forged log with it (docs/formats/seal.md).
func readSealFile(path string, limit int, scheme sign.Scheme, ring keys.Ring) (*seal.Seal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.IOErrorf("cannot read the seal %s: %s", path, cli.PathErrText(err))
	}
	defer f.Close()
	data, err := seal.ReadLimit(f, int64(limit))
	var tl *seal.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, cli.InvalidError(fmt.Errorf("%s: %w (--max-seal-size)", path, err), "raise --max-seal-size if seals that large are expected")
	case err != nil:
		return nil, cli.IOErrorf("cannot read the seal %s: %s", path, cli.PathErrText(err))
	}
	sl, k, err := seal.ParseKeyFor(data, scheme, ring.Secrets()...)
	var se *seal.SchemeError
	switch {
	case errors.Is(err, seal.ErrHMAC):
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "nothing else is judged: a seal that does not verify says nothing of the log")
	case k > 0:
		return nil, cli.InvalidError(fmt.Errorf("%s: the seal was made with the key %s, not with the current key %s (the first given): whoever holds a key rotated out can seal a forged log with it", path, ring[k].ID, ring[0].ID),
			"seal the log again with the current key (toonkit seal) once it verifies")
	case errors.As(err, &se):
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "verify with --scheme "+se.Seal)
	case err != nil:
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "")
	}
	return sl, nil
}

// sealLogError reports a log that is not sealed since verify rejects it
// (seal.LogError, sign.SignedError), or returns nil for another error.
func sealLogError(name string, err error) error {
	const hint = "only a log that toonkit verify accepts is sealed: run it on the log"
	var le *seal.LogError
	var se *sign.SignedError
	switch {
	case errors.As(err, &le):
		p := le.Problem
		if p.File == "" {
			p.File = name
		}
		return cli.InvalidError(&seal.LogError{Problem: p}, hint)
	case errors.As(err, &se):
		return cli.InvalidError(fmt.Errorf("%s:%w", name, err), hint)
	}
	return nil
}
