package seal

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/sign"
)

// LogError is the first problem of a log being sealed that verify reports
// as an error: a signature missing or not valid, a seq repeated, out of
// order or after a gap, a record that is not a trace event, a key that
// signs after its retirement or after a newer key. Nothing is sealed that
// verify rejects.
type LogError struct{ Problem sign.Problem }

func (e *LogError) Error() string {
	p := e.Problem
	msg := fmt.Sprintf("%s:%d:%d: event %d", p.File, p.Line, p.Column, p.Index+1)
	if p.Run != "" {
		msg += fmt.Sprintf(": seq %s (run %s)", p.Seq, p.Run)
	}
	if p.Pointer != "" {
		msg += ": " + p.Pointer
	}
	return msg + ": " + p.Msg
}

// FromLog reads the trace events of a signed log (as sign.Reader reads
// them), checks them as verify does with the keys of s, and adds them to
// a Builder (FromVerified, on one worker).
func FromLog(in io.Reader, s *sign.Signer, maxEventSize int) (*Builder, error) {
	return FromVerified(in, "", &sign.Log{Signer: s}, sign.VerifyOptions{Workers: 1, MaxEventSize: maxEventSize})
}

// FromVerified checks the events of a log read from in, named file in
// positions, as l checks them (sign.Log.Verify: each signature with any of
// l.Signer's keys, the seqs of each run, the keys of each run and their
// retirement: l's KeyIDs and Retired), and adds each to a Builder, in
// order. It sets l's Emit and Signed. The first problem that is an error
// is returned as a *LogError once the log is read: nothing is sealed that
// verify rejects. An input that cannot be read as JSON is the error of
// sign.Log.Verify.
func FromVerified(in io.Reader, file string, l *sign.Log, opts sign.VerifyOptions) (*Builder, error) {
	var b Builder
	var first *sign.Problem
	l.Emit = func(p sign.Problem) {
		if !p.Warning && first == nil {
			first = &p
		}
	}
	l.Signed = func(_ sign.Where, run, seq, t []byte, mac *[sha256.Size]byte) { b.Add(run, seq, t, mac) }
	if err := l.Verify(context.Background(), in, file, opts); err != nil {
		return nil, err
	}
	l.Finish()
	if first != nil {
		return nil, &LogError{Problem: *first}
	}
	return &b, nil
}
