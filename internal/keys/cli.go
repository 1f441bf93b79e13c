package keys

import (
	"errors"
	"io/fs"
	"os"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/sign"
)

// Selection says where the keys are, in the order given (newest first:
// the first signs). Never on the command line: it would show in ps and in
// the shell's history.
type Selection struct {
	Sources    []Source
	AllowShort bool // sign and seal: a key shorter than MinLen
	Signing    bool // sign and seal: the first key's length is checked
}

// Signer loads the keys and makes the Signer of a scheme, which signs with
// the first key and verifies with any. Their bytes never appear in a
// message. A key problem is a usage error, a key file that cannot be read
// an I/O error.
func (k *Selection) Signer(rep *cli.Reporter, scheme sign.Scheme) (*sign.Signer, Ring, error) {
	ring, err := Load(k.Sources, Options{Warn: func(msg, hint string) {
		rep.Warnf("%s", msg)
		rep.Hint(hint)
	}})
	var w string
	if err == nil && k.Signing {
		w, err = CheckSigning(ring[0], k.AllowShort)
	}
	var ke *Error
	if errors.As(err, &ke) {
		if ke.IO {
			return nil, nil, cli.IOErrorf("%s", ke.Msg)
		}
		return nil, nil, cli.UsageErrorf(ke.Hint, "%s", ke.Msg)
	}
	if w != "" {
		rep.Warnf("%s", w)
	}
	s, err := ring.Signer(scheme)
	if err != nil {
		return nil, nil, cli.UsageErrorf("", "%v", err)
	}
	return s, ring, nil
}

// Keygen are the options of `toonkit keygen`.
type Keygen struct {
	IO     *cli.IOStreams
	Output string
}

// RunKeygen writes a new random key to standard output, or creates the
// file opts.Output (mode 0600), never overwriting one.
func RunKeygen(opts *Keygen) error {
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
