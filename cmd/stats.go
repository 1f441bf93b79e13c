package cmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/mcpproxy"
	"github.com/toonkit/toonkit/internal/size"
	"github.com/toonkit/toonkit/internal/tokens"
)

func newStatsCmd(ios *cli.IOStreams, runF func(*convert.StatsOptions) error) *cobra.Command {
	opts := &convert.StatsOptions{IO: ios}
	var from, dups string
	var among []string
	var mcpLog bool
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
  cat events.ndjson | toonkit stats

  # what toonkit mcp proxy saved, by tool, from its log
  toonkit stats --mcp-log proxy.log`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if mcpLog {
				return runMCPLogStats(c, ios, opts, args)
			}
			if from != "" {
				if opts.From, err = codec.Parse(from, convert.StatsFormats...); err != nil {
					return cli.UsageErrorf("", "--from: %v", err)
				}
			}
			if err := checkCSVStrings(opts.CSVStrings, opts.From); err != nil {
				return err
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
			if err := checkTOONFlags(&opts.TOON, c, false, opts.From == "" || opts.From == codec.TOON); err != nil {
				return err
			}
			if err := parseDuplicateKeys(c, dups, true, "", &opts.DuplicateKeys); err != nil {
				return err
			}
			if err := parseAmong(among, &opts.Among); err != nil {
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
			return convert.RunStats(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&from, "from", "", "input format: json, ndjson, toon, tabular, yaml, csv or tsv; detected when absent (yaml, csv, tsv: by the extension .yaml, .yml, .csv, .tsv)")
	addCSVStringsFlag(f, &opts.CSVStrings)
	f.StringArrayVar(&opts.Tokenizers, "tokenizer", nil, "count with this tokenizer only: o200k_base or cl100k_base (repeatable; default: both)")
	f.StringVar(&opts.Report, "report", "text", "report format: text or json")
	f.BoolVar(&mcpLog, "mcp-log", false, "the inputs are logs of toonkit mcp proxy: sum the tokens its rewrites saved, by tool")
	f.Var(maxSize, "max-frame-size", "largest record or line accepted")
	addJobsFlag(f, &opts.Jobs, "the batches of records counted at once")
	addDuplicateKeysFlag(c, &dups)
	addAmongFlag(c, &among, "measure these")
	addTOONFlags(&opts.TOON, f, false, true)
	c.Flags().Lookup("indent").Usage = "TOON: spaces per indentation level, of the input and of the TOON measured"
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"json", "ndjson", "jsonl", "toon", "tabular", "a2a", "yaml", "yml", "csv", "tsv"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions(tokens.Encodings, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("report", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// runMCPLogStats is stats --mcp-log: the summary of toonkit mcp proxy's
// logs.
func runMCPLogStats(c *cobra.Command, ios *cli.IOStreams, opts *convert.StatsOptions, args []string) error {
	for _, name := range []string{"from", "tokenizer", "among", "indent", "delimiter", "duplicate-keys", "csv-strings", "max-frame-size", "jobs"} {
		if fl := c.Flags().Lookup(name); fl != nil && fl.Changed {
			return cli.UsageErrorf("", "--%s does not go with --mcp-log, which sums the counts the log holds", name)
		}
	}
	switch opts.Report {
	case "text", "json":
	default:
		return cli.UsageErrorf("", "--report: unknown report %q (supported: text, json)", opts.Report)
	}
	inputs, err := cli.InputNames(ios, args, c.CommandPath())
	if err != nil {
		return err
	}
	return mcpproxy.RunSummary(ios, inputs, opts.Report == "json")
}
