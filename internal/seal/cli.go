package seal

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/report"
	"github.com/toonkit/toonkit/internal/sign"
)

// This file holds the commands that sign, seal and verify a log of AOP
// trace events (toonkit sign, seal, verify), their flags parsed by cmd.

// Signing are the options that sign, seal and verify share: the keys, the
// scheme and the size limit of an event.
type Signing struct {
	Key          keys.Selection
	Scheme       sign.Scheme
	MaxEventSize int
}

// SignCommand are the options of `toonkit sign`.
type SignCommand struct {
	IO          *cli.IOStreams
	Input       string
	Output      string
	Seal        string
	Append      bool
	Jobs        int // workers, checked (cli.Workers)
	MaxSealSize int // of the seal that --append extends
	Signing
}

// RunSign signs the events of opts.Input to opts.Output, and with --seal
// writes their seal.
func RunSign(opts *SignCommand) error {
	rep := cli.NewReporter(opts.IO)
	signer, ring, err := opts.Key.Signer(rep, opts.Scheme)
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
	sb := &Builder{}
	if opts.Append {
		if sb, err = resumeSeal(opts.Seal, opts.MaxSealSize, ring, opts.Scheme); err != nil {
			return err
		}
	}
	if opts.Seal != "" {
		h.Signed = sb.Append
	}
	bad, err := sign.SignStream(context.Background(), in.R, signer, sign.StreamOptions{Workers: opts.Jobs,
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

// SealCommand are the options of `toonkit seal`.
type SealCommand struct {
	IO     *cli.IOStreams
	Input  string
	Output string
	Signing
}

// RunSeal checks the signatures of a log already signed and writes its
// seal.
func RunSeal(opts *SealCommand) error {
	rep := cli.NewReporter(opts.IO)
	signer, ring, err := opts.Key.Signer(rep, opts.Scheme)
	if err != nil {
		return err
	}
	in, err := cli.OpenInput(opts.IO, opts.Input)
	if err != nil {
		return err
	}
	defer in.Close()
	log := &sign.Log{Signer: signer, KeyIDs: ring.IDs(), Retired: ring.Retired()}
	b, err := FromVerified(in.R, in.Name, log, sign.VerifyOptions{Workers: 1, MaxEventSize: opts.MaxEventSize})
	if err != nil {
		if le := sealLogError(in.Name, err); le != nil {
			return le
		}
		return eventsReadError(in.Name, err)
	}
	doc, err := sealDocument(b, ring[0].Secret, opts.Scheme, in.Name)
	if err != nil {
		return err
	}
	out := cli.NewOutput(opts.IO, opts.Output)
	out.Write(doc)
	return out.Commit()
}

// VerifyCommand are the options of `toonkit verify`.
type VerifyCommand struct {
	IO      *cli.IOStreams
	Inputs  []string
	Explain bool
	// RequireBoth wants every signature in meta.signature and at the top level.
	RequireBoth bool
	// AllowEmpty accepts a log with no events; else it is an error.
	AllowEmpty  bool
	Jobs        int // workers; 1 is the single-worker path
	Seal        string
	MaxSealSize int
	Signing
	// ReportOptions are the options of the report (its format, colors
	// and clock), asked for once the keys and the seal are read.
	ReportOptions func() (report.Options, error)
}

// RunVerify checks the log of opts.Inputs, and its seal with --seal, and
// writes the report to standard output.
func RunVerify(opts *VerifyCommand) error {
	rep := cli.NewReporter(opts.IO)
	signer, ring, err := opts.Key.Signer(rep, opts.Scheme)
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
	ro, err := opts.ReportOptions()
	if err != nil {
		return err
	}
	out := bufio.NewWriter(opts.IO.Out)
	defer out.Flush()
	r := report.NewVerify(out, ro, opts.Scheme)
	log := &sign.Log{Signer: signer, Explain: opts.Explain, RequireBoth: opts.RequireBoth, Emit: r.Problem, KeyIDs: ring.IDs(), Retired: ring.Retired()}
	var sb Builder
	if sl != nil {
		sb.For(sl, opts.Explain)
		log.Signed = func(w sign.Where, run, seq, t []byte, d *[sha256.Size]byte) { sb.AddAt(w, run, seq, t, d) }
	}
	unreadable := 0
	for _, name := range opts.Inputs {
		r.Begin(cli.DisplayName(name))
		before := log.Records()
		err := verifyFile(opts, name, log)
		if err != nil {
			out.Flush()
			rep.Report(err, true)
			unreadable++
		}
		r.End(cli.DisplayName(name), log.Records()-before, err)
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
	return cli.EndReport(r.Close(report.SummaryOf(log)), out.Flush, unreadable, log.OK())
}

// readSeal reads and checks the seal of --seal, nil without it: its own
// HMAC first, with the current key (readSealFile).
func readSeal(opts *VerifyCommand, ring keys.Ring) (*Seal, error) {
	if opts.Seal == "" {
		return nil, nil
	}
	return readSealFile(opts.Seal, opts.MaxSealSize, opts.Scheme, ring)
}

// verifyFile checks the events of one file, as part of the log, on
// opts.Jobs workers (sign.Log.Verify). Only an input that cannot be read is
// an error; all else is a problem of the log.
func verifyFile(opts *VerifyCommand, name string, log *sign.Log) error {
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

// resumeSeal reads the seal that sign --append extends, its HMAC checked
// with the current key (readSealFile): a seal made with a key rotated out
// is not extended, since its holder could have made it.
func resumeSeal(path string, limit int, ring keys.Ring, scheme sign.Scheme) (*Builder, error) {
	sl, err := readSealFile(path, limit, scheme, ring)
	if err != nil {
		return nil, err
	}
	b, err := Resume(sl)
	if err != nil {
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "")
	}
	return b, nil
}

// sealDocument is the seal file of the events added to b, made now
// (cli.Clock). A seal of no events is refused: it would vouch for an empty
// log (name, the input, is named).
func sealDocument(b *Builder, key []byte, scheme sign.Scheme, name string) ([]byte, error) {
	now, err := cli.Clock()
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

// readSealFile reads the seal in path, of at most limit bytes, and checks
// it for a log of scheme signed with the keys of ring: its own HMAC first,
// which must be that of the current key, ring[0]. A seal made with a key
// rotated out is refused, naming that key: whoever holds an old key can
// seal a forged log with it (docs/formats/seal.md).
func readSealFile(path string, limit int, scheme sign.Scheme, ring keys.Ring) (*Seal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cli.IOErrorf("cannot read the seal %s: %s", path, cli.PathErrText(err))
	}
	defer f.Close()
	data, err := ReadLimit(f, int64(limit))
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, cli.InvalidError(fmt.Errorf("%s: %w (--max-seal-size)", path, err), "raise --max-seal-size if seals that large are expected")
	case err != nil:
		return nil, cli.IOErrorf("cannot read the seal %s: %s", path, cli.PathErrText(err))
	}
	sl, k, err := ParseKeyFor(data, scheme, ring.Secrets()...)
	var se *SchemeError
	switch {
	case errors.Is(err, ErrHMAC):
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "nothing else is judged: a seal that does not verify says nothing of the log")
	case k > 0:
		return nil, cli.InvalidError(fmt.Errorf("%s: the seal was made with the key %s, not with the current key %s (the first given): whoever holds a key rotated out can seal a forged log with it", path, ring[k].ID, ring[0].ID),
			"seal the log again with the current key (toonkit seal) once it verifies")
	case errors.As(err, &se):
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "verify with --scheme "+se.Seal)
	case err != nil:
		return nil, cli.InvalidError(fmt.Errorf("%s: %w", path, err), "")
	}
	return sl, nil
}

// sealLogError reports a log that is not sealed since verify rejects it
// (LogError, sign.SignedError), or returns nil for another error.
func sealLogError(name string, err error) error {
	const hint = "only a log that toonkit verify accepts is sealed: run it on the log"
	var le *LogError
	var se *sign.SignedError
	switch {
	case errors.As(err, &le):
		p := le.Problem
		if p.File == "" {
			p.File = name
		}
		return cli.InvalidError(&LogError{Problem: p}, hint)
	case errors.As(err, &se):
		return cli.InvalidError(fmt.Errorf("%s:%w", name, err), hint)
	}
	return nil
}
