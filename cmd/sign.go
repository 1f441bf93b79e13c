package cmd

import (
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/seal"
)

// SignOptions are the options of `toonkit sign`: the command, which its
// flags fill.
type SignOptions struct {
	seal.SignCommand
	signFlags signFlags
	sealFlags sealFlags
}

func newSignCmd(ios *cli.IOStreams, runF func(*SignOptions) error) *cobra.Command {
	opts := &SignOptions{SignCommand: seal.SignCommand{IO: ios}}
	opts.signFlags.Signing, opts.sealFlags.dst = &opts.Signing, &opts.MaxSealSize
	c := &cobra.Command{
		Use:   "sign (--key-file FILE | --key-env NAME | --keyring FILE)... [--scheme S] [-o FILE] [FILE|-]",
		Short: "Sign AOP trace events with HMAC-SHA256",
		Long: `Sign computes the HMAC-SHA256 signature of each AOP trace event and writes
the events back, in the same shape (NDJSON or a JSON array), with the
signature in meta.signature and in a top-level signature. Every other byte is
kept. --seal FILE also writes the log's seal.

EXIT STATUS
  0  every event signed
  1  an event could not be signed, or the input is not trace events; with
     --seal, the input has no events, a seq repeated, out of order or
     after a gap, or the seal to extend not valid
  2  usage error, or a key missing, empty or shorter than 8 bytes
  3  the input or a key file could not be read, or the output written

The full reference: docs/commands/sign.md, or man toonkit-sign.`,
		Example: `  # sign an audit log, replacing it only if every event signs
  toonkit sign --key-file audit.key audit.ndjson -o audit.ndjson

  # sign what another command writes, with the key in the environment
  # (in CI, a secret variable)
  export AOP_KEY="$(cat audit.key)"; cat audit.ndjson | toonkit sign --key-env AOP_KEY > signed.ndjson

  # sign and seal an audit log
  toonkit sign --key-file audit.key --seal audit.seal audit.ndjson -o signed.ndjson

  # the AOP backend's own scheme
  toonkit sign --key-file audit.key --scheme payload-compact audit.ndjson`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.signFlags.parseOne(ios, c, args, &opts.Input); err != nil {
				return err
			}
			if err := opts.sealFlags.parse(); err != nil {
				return err
			}
			var err error
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if opts.Seal == "-" {
				return cli.UsageErrorf("name a file: the signed events go to the output", "--seal: cannot be -")
			}
			if opts.Append && opts.Seal == "" {
				return cli.UsageErrorf("name the seal to extend: --seal FILE --append", "--append needs --seal")
			}
			if runF != nil {
				return runF(opts)
			}
			return seal.RunSign(&opts.SignCommand)
		},
	}
	opts.signFlags.addSigning(c)
	addJobsFlag(c.Flags(), &opts.Jobs, "parse and sign events")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when every event signs); - forces stdout")
	c.Flags().BoolVar(&opts.Append, "append", false, "with --seal: extend the seal already in FILE with the events signed now (the log grows)")
	c.Flags().StringVar(&opts.Seal, "seal", "", "also write the log's seal to `FILE` (docs/formats/seal.md), when every event signs")
	opts.sealFlags.add(c)
	return c
}
