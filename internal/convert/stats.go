package convert

import (
	"errors"
	"fmt"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	measure "github.com/toonkit/toonkit/internal/stats"
)

// RunStats runs stats: the bytes and tokens of the inputs in every format,
// as text (colored with the palette when stdout gets color) or JSON.
func RunStats(opts *StatsOptions) error {
	return cli.DuplicateKeys(runStats(opts))
}

func runStats(opts *StatsOptions) error {
	copts := &Options{IO: opts.IO, Inputs: opts.Inputs, From: opts.From, MaxFrameSize: opts.MaxFrameSize, TOON: opts.TOON, To: codec.TOON,
		CSVStrings: opts.CSVStrings, DuplicateKeys: opts.DuplicateKeys}
	mopts := measure.Options{Tokenizers: opts.Tokenizers, IndentSize: opts.TOON.Indent, Workers: opts.Jobs}
	shown := false
	if opts.IO.IsStderrTTY() && !opts.IO.Quiet {
		// A line on the terminal, rewritten as the records are counted,
		// and cleared at the end.
		mopts.Progress = func(done int64) {
			if done > int64(ProgressBytes) {
				shown = true
				fmt.Fprintf(opts.IO.ErrOut, "\r\x1b[Ktoonkit: stats: %d MB of records counted...", done/1e6)
			}
		}
	}
	var m *measure.Meter
	var name string
	var merr error
	for i, n := range opts.Inputs {
		src, err := openConvertSource(copts, n)
		if err == nil && i == 0 {
			mopts.Single = oneValue(copts, src)
			mopts.Formats = measure.Among(opts.Among, src.Format() == codec.Tabular)
			m, err = measure.NewMeter(mopts)
		}
		if err == nil {
			name = src.Name()
			err = src.EachRecord(func(rec []byte) error { merr = m.Record(rec); return merr })
		}
		if err != nil && m != nil {
			m.Close()
		}
		if merr != nil {
			return statsError(name, merr)
		}
		if err != nil {
			return err
		}
	}
	rep, err := m.Close()
	if shown {
		fmt.Fprint(opts.IO.ErrOut, "\r\x1b[K")
	}
	if err != nil {
		return statsError(name, err)
	}
	var b []byte
	if opts.Report == "json" {
		b = rep.AppendJSON(nil)
	} else {
		b = rep.AppendText(nil, opts.IO.StdoutPaint())
	}
	if _, err := opts.IO.Out.Write(b); err != nil {
		return cli.ReportWriteError(err)
	}
	return nil
}

// statsError is a failure to measure: the temporary file's (exit 3), or
// the data's.
func statsError(name string, err error) error {
	if te := (*measure.TempError)(nil); errors.As(err, &te) {
		return cli.IOErrorf("%s: %v", name, te)
	}
	return cli.InvalidError(fmt.Errorf("%s: %w", name, err), "")
}
