package cmd

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/report"
	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// VerifyOptions are the options of `toonkit verify`.
type VerifyOptions struct {
	IO      *cli.IOStreams
	Inputs  []string
	Explain bool
	// RequireBoth wants every signature in meta.signature and at the top level.
	RequireBoth bool
	// AllowEmpty accepts a log with no events; else it is an error.
	AllowEmpty bool
	Jobs       int // workers; 1 is the single-worker path
	Seal       string
	signFlags
	sealFlags
	reportFlags // --report, --junit-cases
}

func newVerifyCmd(ios *cli.IOStreams, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: ios}
	c := &cobra.Command{
		Use:   "verify (--key-file FILE | --key-env NAME | --keyring FILE)... [--scheme S] [--report text|json|github|junit] [--explain] [--require-both] [-j N] FILE...|-",
		Short: "Prove that a log of signed AOP trace events was not changed",
		Long: `Verify recomputes the HMAC-SHA256 signature of every AOP trace event (NDJSON
or a JSON array; several files are one log, in the order given), compares it
with the event's, and checks the log as a whole: seq one more than the one
before within a run, every event signed, and, with --seal, the log's seal.

EXIT STATUS
  0  every event verified
  1  a signature did not match, the log has a gap, a repeat or an event out
     of order, an event is unsigned or not a trace event, its two signatures
     differ (or, with --require-both, one is missing), or the log has no
     events (without --allow-empty)
  2  usage error, or a key missing or empty
  3  an input, a key file or a keyring could not be read

The full reference: docs/commands/verify.md, or man toonkit-verify.`,
		Example: `  # a signed audit log, in CI
  toonkit verify --key-file audit.key audit.ndjson

  # a log that was tampered with: what changed, and the message signed (exit status 1)
  toonkit verify --key-file audit.key --explain tampered.ndjson

  # the result as data
  toonkit verify --key-file audit.key --report json audit.ndjson

  # test results for GitLab or Jenkins
  toonkit verify --key-file audit.key --report junit audit.ndjson > verify.xml

  # a log signed across a key rotation: a keyring, newest key first
  toonkit verify --keyring audit.keyring audit.ndjson

  # a producer that promises both copies: an event with one copy only is an error
  toonkit verify --key-file audit.key --require-both audit.ndjson`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if err := opts.signFlags.parse(); err != nil {
				return err
			}
			if err := opts.sealFlags.parse(); err != nil {
				return err
			}
			if err := opts.reportFlags.check(report.VerifyFormats); err != nil {
				return err
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runVerify(opts)
		},
	}
	opts.signFlags.add(c)
	opts.sealFlags.add(c)
	opts.reportFlags.add(c, report.VerifyFormats)
	c.Flags().BoolVar(&opts.Explain, "explain", false, "show the message signed for each signature that does not match")
	addJobsFlag(c.Flags(), &opts.Jobs, "parse and check the events")
	c.Flags().StringVar(&opts.Seal, "seal", "", "also check the log against its seal in `FILE` (toonkit sign --seal, toonkit seal)")
	c.Flags().BoolVar(&opts.AllowEmpty, "allow-empty", false, "accept a log with no events (an empty file, an empty JSON array): without it that is an error")
	c.Flags().BoolVar(&opts.RequireBoth, "require-both", false, "want each signature in meta.signature and in the top-level signature: one place only is an error")
	return c
}

func runVerify(opts *VerifyOptions) error {
	rep := cli.NewReporter(opts.IO)
	signer, ring, err := opts.Key.signer(rep, opts.Scheme)
	if err != nil {
		return err
	}
	sl, err := readSeal(opts, ring)
	if err != nil {
		return err
	}
	if sl != nil && len(ring) > 1 {
		rep.Notef("%s: sealed with the key %s, the current one", opts.Seal, ring[0].ID)
	}
	ro, err := opts.reportOptions(opts.IO, false)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(opts.IO.Out)
	defer out.Flush()
	r := report.NewVerify(out, ro, opts.Scheme)
	log := &sign.Log{Signer: signer, Explain: opts.Explain, RequireBoth: opts.RequireBoth, Emit: r.Problem, KeyIDs: ring.IDs(), Retired: ring.Retired()}
	var sb seal.Builder
	if sl != nil {
		sb.For(sl, opts.Explain)
		log.Signed = func(w sign.Where, run, seq, t []byte, d *[sha256.Size]byte) { sb.AddAt(w, run, seq, t, d) }
	}
	unreadable := 0
	for _, name := range opts.Inputs {
		r.Begin(displayName(name))
		before := log.Records()
		err := verifyFile(opts, name, log)
		if err != nil {
			out.Flush()
			rep.Report(err, true)
			unreadable++
		}
		r.End(displayName(name), log.Records()-before, err)
	}
	if log.Records() == 0 && unreadable == 0 && !opts.AllowEmpty {
		return cli.InvalidError(errors.New("no events to verify"), "the log has no trace events (only white space, or an empty JSON array): --allow-empty accepts an empty log")
	}
	log.Finish()
	if sl != nil && unreadable == 0 {
		for _, f := range sb.Compare(sl) {
			msg := f.Msg
			if opts.Explain && f.Departs != "" {
				msg += "; " + f.Departs
			}
			log.Report(sign.Problem{Where: sign.Where{File: opts.Seal, Line: 1, Column: 1, Index: -1}, Run: f.RunID, Code: sign.CodeSeal, Msg: msg})
		}
	}
	if err := r.Close(report.SummaryOf(log)); err != nil {
		return cli.IOErrorf("cannot write the report: %s", cli.PathErrText(err))
	}
	if err := out.Flush(); err != nil {
		return cli.IOErrorf("cannot write the report: %s", cli.PathErrText(err))
	}
	switch {
	case unreadable > 0:
		return cli.Reported(cli.ExitIO)
	case !log.OK():
		return cli.Reported(cli.ExitInvalid)
	}
	return nil
}

// readSeal reads and checks the seal of --seal, nil without it: its own
// HMAC first, with the current key (readSealFile).
func readSeal(opts *VerifyOptions, ring keys.Ring) (*seal.Seal, error) {
	if opts.Seal == "" {
		return nil, nil
	}
	return readSealFile(opts.Seal, opts.MaxSealSize, opts.Scheme, ring)
}

// verifyFile checks the events of one file, as part of the log, on
// opts.Jobs workers (sign.Log.Verify). Only an input that cannot be read is
// an error; all else is a problem of the log.
func verifyFile(opts *VerifyOptions, name string, log *sign.Log) error {
	in, err := cli.OpenInput(opts.IO, name)
	if err != nil {
		return err
	}
	defer in.Close()
	err = log.Verify(context.Background(), in.R, in.Name, sign.VerifyOptions{Workers: opts.Jobs, MaxEventSize: opts.MaxEventSize, Live: !in.Regular()})
	var se *jsonv.SyntaxError
	var tl *jsonv.TooLargeError
	switch {
	case err == nil:
	case errors.As(err, &se):
		log.Bad(sign.Where{File: in.Name, Line: se.Pos.Line, Column: se.Pos.Column, Offset: se.Pos.Offset, Index: log.Records()}, "",
			se.Msg+": the rest of the file cannot be read")
	case errors.As(err, &tl):
		log.Bad(sign.Where{File: in.Name, Line: tl.Pos.Line, Column: tl.Pos.Column, Offset: tl.Pos.Offset, Index: log.Records()}, "",
			fmt.Sprintf("an event passes the limit of %d bytes (--max-frame-size): the rest of the file is not read", tl.Limit))
	default:
		return cli.ReadError(in.Name, err)
	}
	return nil
}
