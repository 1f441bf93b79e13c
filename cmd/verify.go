package cmd

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/report"
	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// VerifyOptions are the options of `toonkit verify`.
type VerifyOptions struct {
	IO      *IOStreams
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

func newVerifyCmd(ios *IOStreams, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: ios}
	c := &cobra.Command{
		Use:   "verify (--key-file FILE | --key-env NAME | --keyring FILE)... [--scheme S] [--report text|json|github|junit] [--explain] [--require-both] [-j N] FILE...|-",
		Short: "Prove that a log of signed AOP trace events was not changed",
		Long: `Verify recomputes the HMAC-SHA256 signature of every AOP trace event (NDJSON
or a JSON array; several files are one log, in the order given), compares it
with the event's in constant time, and checks the log as a whole:
  - within a run_id, seq goes up by one from event to event: a repeat, a
    step back, or a gap (events removed) is an error;
  - every event is signed. The spec's event structure requires
    meta.signature, and its generator stores a copy in a top-level
    signature; many stored logs have meta.signature only. An event is
    checked against meta.signature, or against the top-level copy when
    meta.signature is absent (a warning); when both are there they must be
    equal. --require-both wants both places, for producers that promise it.
A run that starts after seq 1 is a warning: events before it may be missing.
A log with no events at all (empty files, white space, an empty JSON array)
is an error, reported before any report is written, since a pass would vouch
for nothing: --allow-empty accepts it.

The text report has one line per problem, then a summary:
  audit.ndjson:17: seq 16 (run 550e8400…): signature mismatch
  verified 1204 events in 3 runs: 1 failure
Events signed in meta.signature only are counted in one note before the
summary; records that are not trace events (or JSON that cannot be read, which
ends its file) are not counted as events verified, but as unread. --report
json writes one object {"ok","events","unread","runs","failures",
"warnings","meta_signature_only","top_signature_only","findings"};
--report github writes workflow commands that GitHub Actions shows as
annotations; --report junit JUnit XML, a <testsuite> per file, a <testcase>
per event with problems ("seq 16 run 550e8400…", a <failure> per error,
warnings as <system-out>), one for the events without problems, and past
--junit-cases N (default 1000) one that counts the rest. --explain shows, under each signature that does not
match, the exact message that was signed to check it (the scheme's fields
and the canonical payload), for a producer to compare with its own bytes.
The signature toonkit computed is never shown: a log of a CI run would
otherwise hand out a valid signature for a tampered event.

--seal FILE also checks the log against its seal (toonkit sign --seal,
toonkit seal; docs/formats/seal.md): the seal's own HMAC first (a seal that
does not verify is an error, and nothing else is judged), with the first
key, the current one: a seal that verifies only with a key rotated out is
an error that names that key, since whoever holds an old key can seal a
forged log with it (with several keys, a note names the key that sealed).
A seal file over --max-seal-size (default 64MiB) is refused unread. Then
every
run of the seal is in the log and no other, and that each run starts and
ends at the sealed seq with the sealed count and hash chain. Each finding
names its run (code SIG030):
  audit.seal:1: run 550e8400…: the log ends at seq 3, the seal at seq 5 (2 events removed from the end)
  audit.seal:1: run 550e8400…: missing from the log (the seal has 4 events, seq 1 to 4)
  audit.seal:1: run r-3: not in the seal (the log has 1 event, seq 1 to 1)
A toonkit-seal/3 seal also states the order of all the events: runs
reordered, interleaved or split are an error too.
With --explain the first finding of a run says where the log first departs
from the seal: the event (its seq, line and byte offset), or the window of
at most 16 events the seal's checkpoints bound it to.

--scheme and the keys are as for sign (see toonkit sign --help). With
several keys, newest first, each event verifies with any; a line before the
summary names the keys of each run (json: "keys"), and a run whose events
go back to an older key after a newer one is an error (SIG005). A keyring
line may end in retired=TIME (RFC 3339): an event that key signed at a t at
or after TIME is an error (SIG006).

-j N parses the events and checks their signatures on N workers (default:
the usable CPUs); the rules of the log run in one ordered pass, so the
report, its order and the exit status are those of -j 1. NDJSON (one event
a line, or indented) and JSON arrays whose elements start lines of their own
are spread over the workers; the rest of a file from a line over 256 KiB
(a JSON array on one line) or from malformed JSON on is read by one worker.

EXIT STATUS
  0  every event verified
  1  a signature did not match, the log has a gap, a repeat or an event out
     of order, an event is unsigned or not a trace event, its two signatures
     differ (or, with --require-both, one is missing), or the log has no
     events (without --allow-empty)
  2  usage error, or a key missing or empty
  3  an input, a key file or a keyring could not be read`,
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
			if opts.Jobs, err = workers(opts.Jobs); err != nil {
				return err
			}
			if opts.Inputs, err = inputNames(ios, args, c.CommandPath()); err != nil {
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
	rep := newReporter(opts.IO)
	signer, ring, err := opts.Key.signer(rep, opts.Scheme)
	if err != nil {
		return err
	}
	sl, err := readSeal(opts, ring)
	if err != nil {
		return err
	}
	if sl != nil && len(ring) > 1 {
		rep.notef("%s: sealed with the key %s, the current one", opts.Seal, ring[0].ID)
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
			rep.report(err, true)
			unreadable++
		}
		r.End(displayName(name), log.Records()-before, err)
	}
	if log.Records() == 0 && unreadable == 0 && !opts.AllowEmpty {
		return invalidError(errors.New("no events to verify"), "the log has no trace events (only white space, or an empty JSON array): --allow-empty accepts an empty log")
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
		return ioErrorf("cannot write the report: %s", pathErrText(err))
	}
	if err := out.Flush(); err != nil {
		return ioErrorf("cannot write the report: %s", pathErrText(err))
	}
	switch {
	case unreadable > 0:
		return reported(ExitIO)
	case !log.OK():
		return reported(ExitInvalid)
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
	in, err := openInput(opts.IO, name)
	if err != nil {
		return err
	}
	defer in.Close()
	err = log.Verify(context.Background(), in.R, in.Name, sign.VerifyOptions{Workers: opts.Jobs, MaxEventSize: opts.MaxEventSize, Live: !in.regular()})
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
		return readError(in.Name, err)
	}
	return nil
}
