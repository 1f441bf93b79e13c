package cli

import (
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/outfile"
	measure "github.com/toonkit/toonkit/internal/stats"
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

// Print writes the table of counts on stderr.
func (s *Stats) Print(ios *IOStreams, to codec.Format) error {
	in, out, err := s.flow.Counts()
	if err != nil {
		return InvalidError(fmt.Errorf("counting tokens: %w", err), "")
	}
	saving := func(a, b int64) string {
		if a == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*(1-float64(b)/float64(a)))
	}
	w := ios.ErrOut
	row := "  %-22s %10s %10s %10s\n"
	fmt.Fprintf(w, "toonkit: stats (tokens by %s)\n", s.encoding)
	fmt.Fprintf(w, row, "", "bytes", "chars", "tokens")
	fmt.Fprintf(w, row, "input as compact JSON", fmt.Sprint(in.Bytes), fmt.Sprint(in.Chars), fmt.Sprint(in.Tokens))
	fmt.Fprintf(w, row, "output as "+string(to), fmt.Sprint(out.Bytes), fmt.Sprint(out.Chars), fmt.Sprint(out.Tokens))
	fmt.Fprintf(w, row, "saving", saving(in.Bytes, out.Bytes), saving(in.Chars, out.Chars), saving(in.Tokens, out.Tokens))
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
