package cmd

import (
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/keys"
)

// KeygenOptions are the options of `toonkit keygen`.
type KeygenOptions = keys.Keygen

func newKeygenCmd(ios *cli.IOStreams, runF func(*KeygenOptions) error) *cobra.Command {
	opts := &KeygenOptions{IO: ios}
	c := &cobra.Command{
		Use:   "keygen [-o FILE]",
		Short: "Write a new random signing key",
		Long: `Keygen writes a new random 256-bit salt key, as 64 hex digits and a line
break, for sign, seal and verify (--key-file). With -o FILE the file is
created readable and writable by its owner only (mode 0600); an existing
file is never overwritten.

EXIT STATUS
  0  the key was written
  2  usage error
  3  the file exists or could not be written

The full reference: docs/commands/keygen.md, or man toonkit-keygen.`,
		Example: `  # a new key, and a log signed and sealed with it
  toonkit keygen -o new.key && toonkit sign --key-file new.key --seal audit.seal audit.ndjson -o signed.ndjson

  # an existing key file is kept (exit status 3)
  toonkit keygen -o audit.key`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return keys.RunKeygen(opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "create `FILE` (mode 0600; an existing file is kept)")
	return c
}
