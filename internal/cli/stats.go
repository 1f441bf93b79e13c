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

// DocumentWriter counts what is written to it as the input's compact JSON
// (one value), instead of records.
func (s *Stats) DocumentWriter() io.Writer { return s.flow.DocumentWriter() }

// PrintDecoded writes the table of counts of a decode on stderr: the TOON
// as it was given, the JSON written (as the format to, JSON or NDJSON) and
// the value as compact JSON, and what the TOON saves against each of the
// two.
func (s *Stats) PrintDecoded(ios *IOStreams, to codec.Format) error {
	given, value, out, err := s.counts()
	if err != nil {
		return err
	}
	s.table(ios.ErrOut, []namedCounts{{"input as given (toon)", given}, {"output as " + string(to), out}, {"output as compact JSON", value}},
		[]saving{{"toon's saving vs output", out, given}, {"toon's saving vs compact", value, given}})
	return nil
}

// Print writes the table of counts on stderr: the input as it was given,
// as compact JSON (what toonkit counts its savings against: the input's
// formatting is no saving of the output's) and the output, and the output's
// saving against each form of the input. The tokens are the tokenizer's
// own counts, not an estimate.
func (s *Stats) Print(ios *IOStreams, to codec.Format) error {
	given, in, out, err := s.counts()
	if err != nil {
		return err
	}
	s.table(ios.ErrOut, []namedCounts{{"input as given", given}, {"input as compact JSON", in}, {"output as " + string(to), out}},
		[]saving{{"saving vs input as given", given, out}, {"saving vs compact JSON", in, out}})
	return nil
}

// counts are the counts of the input as given, of the input (or the
// value) as compact JSON, and of the output.
func (s *Stats) counts() (given, in, out tokens.Counts, err error) {
	in, out, err = s.flow.Counts()
	if err == nil {
		given, err = s.flow.GivenCounts()
	}
	if err != nil {
		return given, in, out, InvalidError(fmt.Errorf("counting tokens: %w", err), "")
	}
	return given, in, out, nil
}

type namedCounts struct {
	name string
	c    tokens.Counts
}

// saving is a row of what to saves against from.
type saving struct {
	name     string
	from, to tokens.Counts
}

// table writes the tokenizer's line, then a row of each of counts and of
// savings.
func (s *Stats) table(w io.Writer, counts []namedCounts, savings []saving) {
	row := "  %-26s %10s %10s %10s\n"
	fmt.Fprintf(w, "toonkit: stats (tokens counted by the %s tokenizer)\n", s.encoding)
	fmt.Fprintf(w, row, "", "bytes", "chars", "tokens")
	for _, r := range counts {
		fmt.Fprintf(w, row, r.name, fmt.Sprint(r.c.Bytes), fmt.Sprint(r.c.Chars), fmt.Sprint(r.c.Tokens))
	}
	for _, r := range savings {
		fmt.Fprintf(w, row, r.name, savingText(r.from.Bytes, r.to.Bytes), savingText(r.from.Chars, r.to.Chars), savingText(r.from.Tokens, r.to.Tokens))
	}
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
