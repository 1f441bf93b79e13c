package cmd

import (
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/seal"
)

// SealOptions are the options of `toonkit seal`: the command, which its
// flags fill.
type SealOptions struct {
	seal.SealCommand
	signFlags signFlags
}

func newSealCmd(ios *cli.IOStreams, runF func(*SealOptions) error) *cobra.Command {
	opts := &SealOptions{SealCommand: seal.SealCommand{IO: ios}}
	opts.signFlags.Signing = &opts.Signing
	c := &cobra.Command{
		Use:   "seal (--key-file FILE | --key-env NAME | --keyring FILE)... [--scheme S] [-o FILE] [FILE|-]",
		Short: "Write the seal of an audit log already signed",
		Long: `Seal checks the signature of every event of a log already signed, then
writes the log's seal (docs/formats/seal.md), with which toonkit verify --seal
catches a log cut at its end or start, a run removed or added, and events
swapped or replaced.

EXIT STATUS
  0  the seal was written
  1  the log is not one toonkit verify accepts (an event is not a trace
     event or has a member name twice, its signature does not verify, a
     seq is repeated, out of order or after a gap), the input is not trace
     events, or it has no events
  2  usage error, or a key missing, empty or shorter than 8 bytes
  3  the input or a key file could not be read, or the output written

The full reference: docs/commands/seal.md, or man toonkit-seal.`,
		Example: `  # seal a log the Python services signed
  toonkit seal --key-file audit.key audit.ndjson -o audit.seal`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.signFlags.parseOne(ios, c, args, &opts.Input); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return seal.RunSeal(&opts.SealCommand)
		},
	}
	opts.signFlags.addSigning(c)
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the seal to `FILE`; - forces stdout")
	return c
}
