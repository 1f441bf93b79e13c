package cmd

import (
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/report"
	"github.com/toonkit/toonkit/internal/seal"
)

// VerifyOptions are the options of `toonkit verify`: the command, which
// its flags fill.
type VerifyOptions struct {
	seal.VerifyCommand
	signFlags   signFlags
	sealFlags   sealFlags
	reportFlags // --report, --junit-cases
}

func newVerifyCmd(ios *cli.IOStreams, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{VerifyCommand: seal.VerifyCommand{IO: ios}}
	opts.signFlags.Signing, opts.sealFlags.dst = &opts.Signing, &opts.MaxSealSize
	opts.ReportOptions = func() (report.Options, error) { return opts.reportOptions(opts.IO, false) }
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
			return seal.RunVerify(&opts.VerifyCommand)
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
