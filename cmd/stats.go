package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/fatih/color"
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec"
	measure "github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
)

// StatsOptions are the options of `toonkit stats`.
type StatsOptions struct {
	IO           *cli.IOStreams
	Inputs       []string
	From         codec.Format // "": detected per input
	Tokenizers   []string
	Report       string // text or json
	MaxFrameSize int
	TOON         toonFlags
	Jobs         int
}

// statsFormats are the encodings stats reads.
var statsFormats = []codec.Format{codec.JSON, codec.NDJSON, codec.TOON, codec.Tabular}

func newStatsCmd(ios *cli.IOStreams, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{IO: ios}
	var from string
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "stats [--from F] [FILE...|-]",
		Short: "Count the bytes, characters and tokens of the data in each format, to find the cheapest",
		Long: `Stats reads JSON, NDJSON or TOON (detected, or named with --from; a table
too) and counts the bytes, characters and LLM tokens of the same data written
as compact and indented JSON, TOON and a table, to find the cheapest.

EXIT STATUS
  0  the data was measured
  1  the input is invalid
  2  usage error
  3  an input could not be read

The full reference: docs/commands/stats.md, or man toonkit-stats.`,
		Example: `  # which format costs the fewest tokens for this data
  toonkit stats users.json

  # counted by one tokenizer, as data
  toonkit stats --tokenizer cl100k_base --report json orders.json

  # NDJSON from standard input
  cat events.ndjson | toonkit stats`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if from != "" {
				if opts.From, err = codec.Parse(from, statsFormats...); err != nil {
					return cli.UsageErrorf("", "--from: %v", err)
				}
			}
			for _, t := range opts.Tokenizers {
				if !slices.Contains(tokens.Encodings, t) {
					return cli.UsageErrorf("", "--tokenizer: unknown tokenizer %q (supported: %s)", t, strings.Join(tokens.Encodings, ", "))
				}
			}
			switch opts.Report {
			case "text", "json":
			default:
				return cli.UsageErrorf("", "--report: unknown report %q (supported: text, json)", opts.Report)
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if err := opts.TOON.check(c, false, opts.From == "" || opts.From == codec.TOON); err != nil {
				return err
			}
			if err := cli.SizeOf(maxSize, &opts.MaxFrameSize); err != nil {
				return err
			}
			if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runStats(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&from, "from", "", "input format: json, ndjson, toon or tabular; detected when absent")
	f.StringArrayVar(&opts.Tokenizers, "tokenizer", nil, "count with this tokenizer only: o200k_base or cl100k_base (repeatable; default: both)")
	f.StringVar(&opts.Report, "report", "text", "report format: text or json")
	f.Var(maxSize, "max-frame-size", "largest record or line accepted")
	addJobsFlag(f, &opts.Jobs, "the batches of records counted at once")
	opts.TOON.add(f, false, true)
	c.Flags().Lookup("indent").Usage = "TOON: spaces per indentation level, of the input and of the TOON measured"
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"json", "ndjson", "jsonl", "toon", "tabular", "a2a"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions(tokens.Encodings, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("report", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runStats(opts *StatsOptions) error {
	copts := &ConvertOptions{IO: opts.IO, Inputs: opts.Inputs, From: opts.From, MaxFrameSize: opts.MaxFrameSize, TOON: opts.TOON, To: codec.TOON}
	mopts := measure.Options{Tokenizers: opts.Tokenizers, IndentSize: opts.TOON.Indent, Workers: opts.Jobs}
	shown := false
	if opts.IO.IsStderrTTY() && !opts.IO.Quiet {
		// A line on the terminal, rewritten as the records are counted,
		// and cleared at the end.
		mopts.Progress = func(done int64) {
			if done > int64(progressBytes) {
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
		c := opts.IO.ColorStdout()
		b = rep.AppendText(nil, measure.Paint{Bold: paint(c, color.Bold), Best: paint(c, color.FgGreen, color.Bold),
			Cheaper: paint(c, color.FgGreen), Dearer: paint(c, color.FgYellow), Faint: paint(c, color.Faint)})
	}
	if _, err := opts.IO.Out.Write(b); err != nil {
		return cli.IOErrorf("cannot write the report: %s", cli.PathErrText(err))
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

// progressBytes is the size of data from which stats shows its progress
// on a terminal (a variable for the tests).
var progressBytes = 50 << 20
