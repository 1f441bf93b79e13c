package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/outfile"
	measure "github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
)

// addStatsFlags adds --stats and --tokenizer.
func addStatsFlags(f *pflag.FlagSet, stats *bool, tokenizer *string) {
	f.BoolVar(stats, "stats", false, "print bytes, characters and tokens of the input (as compact JSON) and of the output on stderr")
	f.StringVar(tokenizer, "tokenizer", tokens.Encodings[0], "tokenizer for --stats and --delimiter auto: o200k_base or cl100k_base")
}

// stats counts the input, as a compact JSON array of its records, and the
// output (measure.Flow). A nil *stats counts nothing.
type stats struct {
	encoding string
	flow     *measure.Flow
	out      io.Writer // the output's counter
}

func newStats(encoding string) (*stats, error) {
	f, err := measure.NewFlow(encoding)
	if err != nil {
		return nil, usageErrorf("", "--tokenizer: %v", err)
	}
	return &stats{encoding: encoding, flow: f, out: f.Out()}, nil
}

// record counts one record of the input.
func (s *stats) record(rec []byte) {
	if s != nil {
		s.flow.Record(rec)
	}
}

// document counts the whole input, one JSON value (compact), instead of
// records.
func (s *stats) document(v []byte) {
	if s != nil {
		s.flow.Document(v)
	}
}

// print writes the table of counts on stderr.
func (s *stats) print(ios *IOStreams, to codec.Format) error {
	in, out, err := s.flow.Counts()
	if err != nil {
		return invalidError(fmt.Errorf("counting tokens: %w", err), "")
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

// spool is an outfile.Spool whose errors are the CLI's.
type spool struct{ *outfile.Spool }

func newSpool(what string) (*spool, error) {
	s, err := outfile.NewSpool(what)
	if err != nil {
		return nil, &ExitError{Code: ExitIO, Err: err}
	}
	return &spool{s}, nil
}

// fail is the error of a write to the spool.
func (s *spool) fail(err error) error { return &ExitError{Code: ExitIO, Err: s.Fail(err)} }

// Write writes to the spool; its error is the CLI's (fail).
func (s *spool) Write(p []byte) (int, error) {
	n, err := s.W.Write(p)
	if err != nil {
		return n, s.fail(err)
	}
	return n, nil
}

// reader flushes the spool and reads it from its start.
func (s *spool) reader() (io.Reader, error) {
	rd, err := s.Reader()
	if err != nil {
		return nil, &ExitError{Code: ExitIO, Err: err}
	}
	return rd, nil
}

// copyTo copies the spool to w, the output (out) or a tee of it.
func (s *spool) copyTo(w io.Writer, out *output) error {
	rd, err := s.reader()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rd); err != nil {
		return failure(out, s.fail(err))
	}
	return out.Err()
}
