package cli

import (
	"fmt"
	"io"
	"math"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/outfile"
	measure "github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
)

// Stats counts the input, as a compact JSON array of its records, and the
// Output (measure.Flow). A nil *stats counts nothing.
type Stats struct {
	encoding string
	flow     *measure.Flow
	Out      io.Writer // the output's counter
}

// NewStats counts tokens with the tokenizer named encoding.
func NewStats(encoding string) (*Stats, error) {
	f, err := measure.NewFlow(encoding)
	if err != nil {
		return nil, UsageErrorf("", "--tokenizer: %v", err)
	}
	return &Stats{encoding: encoding, flow: f, Out: f.Out()}, nil
}

// CountGiven makes the inputs that ios opens from now on counted as they
// are given (IOStreams.Given), for Print's first row.
func (s *Stats) CountGiven(ios *IOStreams) {
	if s != nil {
		ios.Given = s.flow.Given()
	}
}

// Record counts one record of the input.
func (s *Stats) Record(rec []byte) {
	if s != nil {
		s.flow.Record(rec)
	}
}

// Document counts the whole input, one JSON value (compact), instead of
// records.
func (s *Stats) Document(v []byte) {
	if s != nil {
		s.flow.Document(v)
	}
}

// Print writes the table of counts on stderr: the input as it was given,
// as compact JSON (what toonkit counts its savings against: the input's
// formatting is no saving of the output's) and the output, and the output's
// saving against each form of the input. The tokens are the tokenizer's
// own counts, not an estimate.
func (s *Stats) Print(ios *IOStreams, to codec.Format) error {
	in, out, err := s.flow.Counts()
	var given tokens.Counts
	if err == nil {
		given, err = s.flow.GivenCounts()
	}
	if err != nil {
		return InvalidError(fmt.Errorf("counting tokens: %w", err), "")
	}
	saving := savingText
	w := ios.ErrOut
	row := "  %-26s %10s %10s %10s\n"
	counts := func(name string, c tokens.Counts) {
		fmt.Fprintf(w, row, name, fmt.Sprint(c.Bytes), fmt.Sprint(c.Chars), fmt.Sprint(c.Tokens))
	}
	savings := func(name string, c tokens.Counts) {
		fmt.Fprintf(w, row, name, saving(c.Bytes, out.Bytes), saving(c.Chars, out.Chars), saving(c.Tokens, out.Tokens))
	}
	fmt.Fprintf(w, "toonkit: stats (tokens counted by the %s tokenizer)\n", s.encoding)
	fmt.Fprintf(w, row, "", "bytes", "chars", "tokens")
	counts("input as given", given)
	counts("input as compact JSON", in)
	counts("output as "+string(to), out)
	savings("saving vs input as given", given)
	savings("saving vs compact JSON", in)
	return nil
}

// Spool is an outfile.Spool whose errors are the CLI's.
type Spool struct{ *outfile.Spool }

// NewSpool makes a temporary file; what names it in messages.
func NewSpool(what string) (*Spool, error) {
	s, err := outfile.NewSpool(what)
	if err != nil {
		return nil, &ExitError{Code: ExitIO, Err: err}
	}
	return &Spool{s}, nil
}

// FailIO is the error of a write to the spool.
func (s *Spool) FailIO(err error) error { return &ExitError{Code: ExitIO, Err: s.Fail(err)} }

// Write writes to the spool; its error is the CLI's (fail).
func (s *Spool) Write(p []byte) (int, error) {
	n, err := s.W.Write(p)
	if err != nil {
		return n, s.FailIO(err)
	}
	return n, nil
}

// ReadBack flushes the spool and reads it from its start.
func (s *Spool) ReadBack() (io.Reader, error) {
	rd, err := s.Reader()
	if err != nil {
		return nil, &ExitError{Code: ExitIO, Err: err}
	}
	return rd, nil
}

// CopyTo copies the spool to w, the output (out) or a tee of it.
func (s *Spool) CopyTo(w io.Writer, out *Output) error {
	rd, err := s.ReadBack()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rd); err != nil {
		return Failure(out, s.FailIO(err))
	}
	return out.Err()
}

// savingText is the saving of b over a, as a percentage with one decimal
// ("-" for nothing to save from); a saving that rounds to zero is 0.0%,
// never -0.0%.
func savingText(a, b int64) string {
	if a == 0 {
		return "-"
	}
	v := 100 * (1 - float64(b)/float64(a))
	if math.Abs(v) < 0.05 {
		v = 0
	}
	return fmt.Sprintf("%.1f%%", v)
}
