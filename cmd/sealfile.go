package cmd

import (
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
)

// sealFlags are the flags of the commands that read a seal (verify --seal,
// sign --seal --append): its size limit.
type sealFlags struct {
	dst         *int // the command's MaxSealSize
	maxSealSize *size.Flag
}

func (s *sealFlags) add(c *cobra.Command) {
	s.maxSealSize = size.NewFlag("max-seal-size", "64MiB")
	c.Flags().Var(s.maxSealSize, "max-seal-size", "largest seal file read (--seal)")
}

func (s *sealFlags) parse() error { return cli.SizeOf(s.maxSealSize, s.dst) }
