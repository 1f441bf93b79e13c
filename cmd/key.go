package cmd

import (
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/sign"
)

// signFlags are the flags sign and verify share: the key, the scheme and
// the size limit of an event.
type signFlags struct {
	*seal.Signing // Key, Scheme, MaxEventSize: the command's
	scheme        string
	maxSize       *size.Flag
}

func (s *signFlags) add(c *cobra.Command) {
	f := c.Flags()
	f.Var(keys.Flag(keys.File, &s.Key.Sources), "key-file", "read a key from `FILE` (one trailing newline is stripped); repeat it for older keys, newest first")
	f.Var(keys.Flag(keys.Env, &s.Key.Sources), "key-env", "read a key from the environment variable `NAME`; repeatable")
	f.Var(keys.Flag(keys.Keyring, &s.Key.Sources), "keyring", "read keys from `FILE`, a line \"id key\" each, newest first; repeatable")
	f.StringVar(&s.scheme, "scheme", "spec", "what is signed: spec, payload, payload-compact or event-compact")
	s.maxSize = size.NewFlag("max-frame-size", "64MiB")
	f.Var(s.maxSize, "max-frame-size", "largest event accepted")
	_ = c.RegisterFlagCompletionFunc("scheme", cobra.FixedCompletions(sign.Schemes, cobra.ShellCompDirectiveNoFileComp))
}

// parseOne is parse for a command of one input (sign, seal): the input,
// standard input when args names none, goes to input.
func (s *signFlags) parseOne(ios *cli.IOStreams, c *cobra.Command, args []string, input *string) error {
	if err := s.parse(); err != nil {
		return err
	}
	inputs, err := cli.InputNames(ios, args, c.CommandPath())
	if err != nil {
		return err
	}
	*input = inputs[0]
	return nil
}

// addSigning adds the flags of the commands that sign (sign, seal).
func (s *signFlags) addSigning(c *cobra.Command) {
	s.add(c)
	s.Key.Signing = true
	c.Flags().BoolVar(&s.Key.AllowShort, "allow-short-key", false, "sign with a key shorter than 8 bytes all the same")
}

// parse checks the shared flags and reads their values.
func (s *signFlags) parse() error {
	var err error
	if len(s.Key.Sources) == 0 {
		return cli.UsageErrorf("put the key in a file readable only by you (--key-file FILE) or in an environment variable (--key-env NAME)",
			"a key is needed: --key-file, --key-env or --keyring")
	}
	if s.Scheme, err = sign.ParseScheme(s.scheme); err != nil {
		return cli.UsageErrorf("", "--scheme: %v", err)
	}
	return cli.SizeOf(s.maxSize, &s.MaxEventSize)
}
