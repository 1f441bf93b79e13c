package cmd

import (
	"errors"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/sign"
)

// KeygenOptions are the options of `toonkit keygen`.
type KeygenOptions struct {
	IO     *cli.IOStreams
	Output string
}

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
			return runKeygen(opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "create `FILE` (mode 0600; an existing file is kept)")
	return c
}

func runKeygen(opts *KeygenOptions) error {
	key := append(sign.NewKey(), '\n')
	if opts.Output == "" || opts.Output == "-" {
		_, err := opts.IO.Out.Write(key)
		return err
	}
	f, err := os.OpenFile(opts.Output, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return cli.IOErrorf("%s exists: keygen never overwrites a key (remove it first if it is really to go)", opts.Output)
	}
	if err != nil {
		return cli.IOErrorf("cannot write %s: %s", opts.Output, cli.PathErrText(err))
	}
	if _, err = f.Write(key); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(opts.Output)
		return cli.IOErrorf("cannot write %s: %s", opts.Output, cli.PathErrText(err))
	}
	return nil
}
