package cmd

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/pkg/sign"
)

// keyOptions say where the signing key is. Never on the command line: it
// would show in ps and in the shell's history.
type keyOptions struct {
	File string
	Env  string
}

// signFlags are the flags sign and verify share: the key, the scheme and
// the size limit of an event.
type signFlags struct {
	Key          keyOptions
	Scheme       sign.Scheme
	MaxEventSize int
	scheme       string
	maxSize      string
}

func (s *signFlags) add(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&s.Key.File, "key-file", "", "read the key from `FILE` (one trailing newline is stripped)")
	f.StringVar(&s.Key.Env, "key-env", "", "read the key from the environment variable `NAME`")
	f.StringVar(&s.scheme, "scheme", "spec", "what is signed: spec, payload, payload-compact or event-compact")
	f.StringVar(&s.maxSize, "max-frame-size", "64MiB", "largest event accepted")
	_ = c.RegisterFlagCompletionFunc("scheme", cobra.FixedCompletions(sign.Schemes, cobra.ShellCompDirectiveNoFileComp))
}

// parseOne is parse for a command of one input (sign, seal): the input,
// standard input when args names none, goes to input.
func (s *signFlags) parseOne(ios *IOStreams, c *cobra.Command, args []string, input *string) error {
	if err := s.parse(); err != nil {
		return err
	}
	inputs, err := inputNames(ios, args, c.CommandPath())
	if err != nil {
		return err
	}
	*input = inputs[0]
	return nil
}

// parse checks the shared flags and reads their values.
func (s *signFlags) parse() error {
	var err error
	if err := s.Key.check(); err != nil {
		return err
	}
	if s.Scheme, err = sign.ParseScheme(s.scheme); err != nil {
		return usageErrorf("", "--scheme: %v", err)
	}
	if s.MaxEventSize, err = parseSize(s.maxSize); err != nil {
		return usageErrorf("", "--max-frame-size: %v", err)
	}
	return nil
}

// check says whether exactly one key source is named.
func (k *keyOptions) check() error {
	switch {
	case k.File == "" && k.Env == "":
		return usageErrorf("put the key in a file readable only by you (--key-file FILE) or in an environment variable (--key-env NAME)",
			"a key is needed: --key-file or --key-env")
	case k.File != "" && k.Env != "":
		return usageErrorf("", "--key-file and --key-env cannot be used together")
	}
	return nil
}

// load reads the key. Its bytes never appear in a message.
func (k *keyOptions) load(rep *reporter) ([]byte, error) {
	if k.Env != "" {
		v, ok := os.LookupEnv(k.Env)
		switch {
		case !ok:
			return nil, invalidError(fmt.Errorf("the environment variable %s is not set", k.Env), "export it in the environment toonkit runs in, or use --key-file")
		case v == "":
			return nil, invalidError(fmt.Errorf("the environment variable %s is empty", k.Env), "")
		}
		return []byte(v), nil
	}
	st, err := os.Stat(k.File)
	if err == nil && st.IsDir() {
		return nil, ioErrorf("cannot read the key file %s: it is a directory", k.File)
	}
	b, err := os.ReadFile(k.File)
	if err != nil {
		return nil, ioErrorf("cannot read the key file %s: %s", k.File, pathErrText(err))
	}
	if perm := st.Mode().Perm(); perm&0o044 != 0 {
		rep.warnf("the key file %s is readable by group or others (mode %04o)", k.File, perm)
		rep.hint("chmod 600 " + k.File)
	}
	if bytes.HasSuffix(b, []byte("\r\n")) {
		b = b[:len(b)-2]
	} else if bytes.HasSuffix(b, []byte("\n")) {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil, invalidError(fmt.Errorf("the key file %s is empty", k.File), "")
	}
	return b, nil
}

// signer loads the key and makes the Signer of a scheme.
func (k *keyOptions) signer(rep *reporter, scheme sign.Scheme) (*sign.Signer, error) {
	s, _, err := k.signerKey(rep, scheme)
	return s, err
}

// signerKey is signer, with the key's bytes (for a seal's HMAC).
func (k *keyOptions) signerKey(rep *reporter, scheme sign.Scheme) (*sign.Signer, []byte, error) {
	key, err := k.load(rep)
	if err != nil {
		return nil, nil, err
	}
	s, err := sign.NewSigner(key, scheme)
	if err != nil {
		return nil, nil, invalidError(err, "")
	}
	return s, key, nil
}
