package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// SignOptions are the options of `toonkit sign`.
type SignOptions struct {
	IO     *cli.IOStreams
	Input  string
	Output string
	Seal   string
	Append bool
	Jobs   int
	signFlags
	sealFlags
}

func newSignCmd(ios *cli.IOStreams, runF func(*SignOptions) error) *cobra.Command {
	opts := &SignOptions{IO: ios}
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
			if err := opts.parseOne(ios, c, args, &opts.Input); err != nil {
				return err
			}
			if err := opts.sealFlags.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runSign(opts)
		},
	}
	opts.addSigning(c)
	addJobsFlag(c.Flags(), &opts.Jobs, "parse and sign events")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when every event signs); - forces stdout")
	c.Flags().BoolVar(&opts.Append, "append", false, "with --seal: extend the seal already in FILE with the events signed now (the log grows)")
	c.Flags().StringVar(&opts.Seal, "seal", "", "also write the log's seal to `FILE` (docs/formats/seal.md), when every event signs")
	opts.sealFlags.add(c)
	return c
}

func runSign(opts *SignOptions) error {
	n, err := cli.Workers(opts.Jobs)
	if err != nil {
		return err
	}
	if opts.Seal == "-" {
		return cli.UsageErrorf("name a file: the signed events go to the output", "--seal: cannot be -")
	}
	if opts.Append && opts.Seal == "" {
		return cli.UsageErrorf("name the seal to extend: --seal FILE --append", "--append needs --seal")
	}
	rep := cli.NewReporter(opts.IO)
	signer, ring, err := opts.Key.signer(rep, opts.Scheme)
	if err != nil {
		return err
	}
	key := ring[0].Secret
	in, err := cli.OpenInput(opts.IO, opts.Input)
	if err != nil {
		return err
	}
	defer in.Close()
	out := cli.NewOutput(opts.IO, opts.Output)
	h := sign.StreamHandler{
		Output: func(b []byte) error {
			out.Write(b)
			return out.Err()
		},
		Bad: func(e *sign.EventError) error {
			rep.Errorf("%s", eventError(in.Name, e))
			return nil
		},
		Idle: out.Flush,
	}
	sb := &seal.Builder{}
	if opts.Append {
		if sb, err = resumeSeal(opts.Seal, opts.MaxSealSize, ring, opts.Scheme); err != nil {
			return err
		}
	}
	if opts.Seal != "" {
		h.Signed = sb.Append
	}
	bad, err := sign.SignStream(context.Background(), in.R, signer, sign.StreamOptions{Workers: n,
		MaxEventSize: opts.MaxEventSize, Live: !in.Regular(), LeaveRead: true}, h)
	if err != nil {
		out.Abort()
		if err == out.Err() {
			return err
		}
		if le := sealLogError(in.Name, err); le != nil {
			return le
		}
		return eventsReadError(in.Name, err)
	}
	if bad > 0 {
		out.Abort()
		return cli.Reported(cli.ExitInvalid)
	}
	if opts.Seal == "" {
		return out.Commit()
	}
	doc, err := sealDocument(sb, key, opts.Scheme, in.Name)
	if err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	so := cli.NewOutput(opts.IO, opts.Seal)
	so.Write(doc)
	return so.Commit()
}

// resumeSeal reads the seal that sign --append extends, its HMAC checked
// with the current key (readSealFile): a seal made with a key rotated out
// is not extended, since its holder could have made it.
func resumeSeal(path string, limit int, ring keys.Ring, scheme sign.Scheme) (*seal.Builder, error) {
	sl, err := readSealFile(path, limit, scheme, ring)
	if err != nil {
		return nil, err
	}
	b, err := seal.Resume(sl)
	if err != nil {
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "")
	}
	return b, nil
}

// clock is time.Now, or a clock stopped at SOURCE_DATE_EPOCH (seconds
// since 1970) when it is set, for reproducible seals and reports.
func clock() (func() time.Time, error) {
	e, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok {
		return time.Now, nil
	}
	sec, err := strconv.ParseInt(e, 10, 64)
	if err != nil {
		return nil, cli.UsageErrorf("", "SOURCE_DATE_EPOCH: %q is not a number of seconds", e)
	}
	return func() time.Time { return time.Unix(sec, 0) }, nil
}

// sealDocument is the seal file of the events added to b, made now (clock).
// A seal of no events is refused: it would vouch for an empty log (name,
// the input, is named).
func sealDocument(b *seal.Builder, key []byte, scheme sign.Scheme, name string) ([]byte, error) {
	now, err := clock()
	if err != nil {
		return nil, err
	}
	sl, err := b.Seal(key, scheme, now())
	var doc []byte
	if err == nil {
		if len(sl.Runs) == 0 {
			return nil, cli.InvalidError(fmt.Errorf("%s: no events to seal", name), "the log has no trace events (only white space, or an empty JSON array): a seal of none would vouch for an empty log")
		}
		doc, err = sl.Marshal()
	}
	if err != nil {
		return nil, cli.InvalidError(fmt.Errorf("cannot make the seal: %w", err), "")
	}
	return doc, nil
}

// eventsReadError reports an error of the trace event reader: malformed
// JSON with its excerpt, an event over the limit, or a read error.
func eventsReadError(name string, err error) error {
	var tl *jsonv.TooLargeError
	if errors.As(err, &tl) {
		return cli.InvalidError(fmt.Errorf("%s:%w", name, err), "raise --max-frame-size if such events are expected")
	}
	return cli.JSONReadError(name, err)
}

// eventError is the message for an event that is not a trace event:
// FILE:LINE:COL: /pointer: what is wrong.
func eventError(name string, e *sign.EventError) string {
	return fmt.Sprintf("%s:%s", name, e)
}
