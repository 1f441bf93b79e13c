package cmd

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
	"github.com/toonkit/toonkit/pkg/tokens"
)

// addStatsFlags adds --stats and --tokenizer.
func addStatsFlags(f *pflag.FlagSet, stats *bool, tokenizer *string) {
	f.BoolVar(stats, "stats", false, "print bytes, characters and tokens of the input (as compact JSON) and of the output on stderr")
	f.StringVar(tokenizer, "tokenizer", tokens.Encodings[0], "tokenizer for --stats: o200k_base or cl100k_base")
}

// stats counts the input, as a compact JSON array of its records, and the
// output. A nil *stats counts nothing.
type stats struct {
	encoding string
	in, out  *tokens.Counter
	n        int
}

func newStats(encoding string) (*stats, error) {
	in, err := tokens.NewCounter(encoding)
	if err != nil {
		return nil, usageErrorf("", "--tokenizer: %v", err)
	}
	out, _ := tokens.NewCounter(encoding)
	return &stats{encoding: encoding, in: in, out: out}, nil
}

// record counts one record of the input.
func (s *stats) record(rec []byte) {
	if s == nil {
		return
	}
	if s.n == 0 {
		s.in.Write([]byte{'['})
	} else {
		s.in.Write([]byte{','})
	}
	s.in.Write(rec)
	s.n++
}

// print writes the table of counts on stderr.
func (s *stats) print(ios *IOStreams, to codec.Format) error {
	if s.n == 0 {
		s.in.Write([]byte("[]"))
	} else {
		s.in.Write([]byte{']'})
	}
	in, err := s.in.Counts()
	if err != nil {
		return invalidError(fmt.Errorf("counting tokens: %w", err), "")
	}
	out, err := s.out.Counts()
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

// spoolWriter keeps the records of an input that cannot be read twice in a
// temporary file, as NDJSON. A nil file keeps nothing.
type spoolWriter struct {
	f *os.File
	w *bufio.Writer
}

func newSpoolWriter(f *os.File) *spoolWriter {
	if f == nil {
		return &spoolWriter{}
	}
	return &spoolWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}
}

func (s *spoolWriter) write(rec []byte) error {
	if s.w == nil {
		return nil
	}
	s.w.Write(rec)
	if err := s.w.WriteByte('\n'); err != nil {
		return ioErrorf("cannot keep the input for a second pass: %s", pathErrText(err))
	}
	return nil
}

func (s *spoolWriter) done() error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return ioErrorf("cannot keep the input for a second pass: %s", pathErrText(err))
	}
	return nil
}

// spoolSource reads back the records kept by a spoolWriter; name is the
// input they came from.
func spoolSource(f *os.File, name string, maxSize int) *source {
	s := &source{name: name, format: codec.NDJSON, in: &input{Name: name, R: f}, br: bufio.NewReaderSize(f, 64<<10)}
	s.jr = jsonv.NewReader(s.br, jsonv.Options{MaxValueSize: int64(maxSize)})
	return s
}
