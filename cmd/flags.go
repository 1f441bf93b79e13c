package cmd

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	measure "github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
)

// The encodings that convert reads and writes.
var convertFormats = []codec.Format{codec.JSON, codec.NDJSON, codec.Tabular, codec.Binary, codec.TOON, codec.Chiffon, codec.Trace, codec.Narratoria}

// inputOnlyFormats are the formats that encode, convert, query and stats
// read but none writes (codec.InputOnly), named by --from or by an
// input's extension.
var inputOnlyFormats = []codec.Format{codec.YAML, codec.CSV, codec.TSV}

// addCSVStringsFlag adds --csv-strings.
func addCSVStringsFlag(f *pflag.FlagSet, b *bool) {
	f.BoolVar(b, "csv-strings", false, "CSV and TSV input: keep every cell a string (an empty cell \"\"), not numbers, booleans and null")
}

// checkCSVStrings refuses --csv-strings with a --from that is no table of
// CSV or TSV (without --from, an input's extension may still name one).
func checkCSVStrings(set bool, from codec.Format) error {
	if set && from != "" && from != codec.CSV && from != codec.TSV {
		return cli.UsageErrorf("", "--csv-strings applies to CSV and TSV input only, not --from %s", from)
	}
	return nil
}

// addJobsFlag adds -j, --jobs: the number of workers of a command that
// spreads independent records over the CPUs (internal/pipeline). 0, the default,
// is the number of usable CPUs (GOMAXPROCS); 1 is the single-worker path.
// what names the work that is spread ("binary frames").
func addJobsFlag(f *pflag.FlagSet, jobs *int, what string) {
	f.IntVarP(jobs, "jobs", "j", 0, what+" on `N` workers, output byte-identical to -j 1 (default: the usable CPUs, GOMAXPROCS)")
}

// addStatsFlags adds --stats and --tokenizer.
func addStatsFlags(f *pflag.FlagSet, stats *bool, tokenizer *string) {
	f.BoolVar(stats, "stats", false, "print bytes, characters and tokens of the input (as compact JSON) and of the output on stderr")
	f.StringVar(tokenizer, "tokenizer", tokens.Encodings[0], "tokenizer for --stats and --delimiter auto: o200k_base or cl100k_base")
}

// addCaptureFlags adds --port and --conn.
func addCaptureFlags(f *pflag.FlagSet, cf *cli.CaptureFlags) {
	f.IntSliceVar(&cf.Ports, "port", nil, "captures: read only the TCP connections on port `N` (repeatable)")
	f.StringVar(&cf.Conn, "conn", "", "captures: read only the TCP connection `ADDR:PORT>ADDR:PORT`, as records name it (either end first; IPv6 in brackets)")
}

// addDuplicateKeysFlag adds --duplicate-keys, what a JSON object's repeated
// member names make (parseDuplicateKeys).
func addDuplicateKeysFlag(c *cobra.Command, name *string) {
	c.Flags().StringVar(name, "duplicate-keys", "error", "JSON input: what an object's repeated member name makes, `MODE` error (refused), last (its last value kept, at the first one's place, as jq does) or first")
	_ = c.RegisterFlagCompletionFunc("duplicate-keys", cobra.FixedCompletions(jsonv.DuplicatesNames, cobra.ShellCompDirectiveNoFileComp))
}

// parseDuplicateKeys parses --duplicate-keys; applies is false where the
// command reads no JSON records it could keep one member of, why says
// where it applies.
func parseDuplicateKeys(c *cobra.Command, name string, applies bool, why string, keep *jsonv.Duplicates) error {
	var err error
	if *keep, err = jsonv.ParseDuplicates(name); err != nil {
		return cli.UsageErrorf("", "--duplicate-keys: %v", err)
	}
	if c.Flags().Changed("duplicate-keys") && !applies {
		return cli.UsageErrorf("", "--duplicate-keys applies to %s", why)
	}
	return nil
}

// addAmongFlag adds --among, the formats that --to cheapest chooses from
// and stats measures (measure.ParseAmong).
func addAmongFlag(c *cobra.Command, among *[]string, usage string) {
	c.Flags().StringSliceVar(among, "among", nil, usage+": `FORMATS` of json, json-indent, toon-comma, toon-tab, toon-pipe, tabular (the Genesis A2A table), toon (its three delimiters) or all; default: all but tabular, unless the input is a table")
	_ = c.RegisterFlagCompletionFunc("among", cobra.FixedCompletions(append(measure.Formats[:len(measure.Formats):len(measure.Formats)], "toon", "all"), cobra.ShellCompDirectiveNoFileComp))
}

// parseAmong parses --among.
func parseAmong(list []string, among *[]string) error {
	var err error
	if *among, err = measure.ParseAmong(list); err != nil {
		return cli.UsageErrorf("", "--among: %v", err)
	}
	return nil
}
