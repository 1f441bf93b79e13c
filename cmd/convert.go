package cmd

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/bridge"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/kado"
)

func newConvertCmd(ios *cli.IOStreams, runF func(*convert.Options) error) *cobra.Command {
	opts := &convert.Options{IO: ios, Now: time.Now}
	var from, to, compress, dups string
	var among []string
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "convert [--from F] --to T [FILE...|-]",
		Short: "Convert records between encodings, and messages between protocols",
		Long: `Convert reads records in one encoding (toon, binary, tabular, json, ndjson,
pcap) and writes them in another, or messages of one protocol (binary frames,
chiffon, trace, narratoria) as another's. --from is detected when absent;
--to may come from the extension of -o FILE.

EXIT STATUS
  0  every record converted
  1  the input is invalid, or the table would be lossy (without --lossy)
  2  usage error
  3  an input could not be read or the output could not be written

The full reference: docs/commands/convert.md, or man toonkit-convert.`,
		Example: `  # a JSON array as a table, with token statistics
  toonkit convert --to tabular --stats users.json

  # JSON to TOON, the format named by -o's extension; one value stays one value
  toonkit convert data.json -o data.toon

  # a table back to indented JSON
  toonkit convert --to json users.toon

  # JSON to TOON with tab-separated rows, and TOON back to NDJSON
  toonkit convert --to toon --delimiter tab orders.json -o orders.toon
  toonkit convert --from toon --to ndjson orders.toon

  # NDJSON to a JSON array on one line
  toonkit convert --from ndjson --to json -c events.ndjson

  # a capture of frames as a table, and back to frames
  toonkit convert --to tabular capture.bin -o capture.toon
  toonkit convert --to binary capture.toon -o capture-again.bin

  # the smaller of tabular and JSON, saying which
  toonkit convert --to auto --verbose users.json

  # the format with the fewest tokens, saying which
  toonkit convert --to cheapest orders.json

  # a Chiffon message log as signed trace events
  toonkit convert --from chiffon --to trace chiffon.ndjson | toonkit sign --key-file audit.key

  # a capture of frames as Chiffon envelopes, the same bytes every time
  toonkit convert --to chiffon --deterministic capture.bin -o capture.chiffon.ndjson

  # a Narratoria tool's events as trace events, and back
  toonkit convert --to trace tool-events.ndjson | toonkit convert --to narratoria`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			to, err := toFromOutput("convert", to, opts.Output, "json, ndjson, toon, tabular, binary, auto, cheapest, chiffon, trace, narratoria",
				convertExample(args), convertFormats...)
			if err != nil {
				return err
			}
			if strings.EqualFold(to, "auto") {
				opts.To = convert.Auto
			} else if strings.EqualFold(to, "cheapest") {
				opts.To = convert.Cheapest
			} else if opts.To, err = codec.Parse(to, convertFormats...); err != nil {
				return cli.UsageErrorf("", "--to: %v", err)
			}
			if from != "" {
				if opts.From, err = codec.Parse(from, append(append(convertFormats[:len(convertFormats):len(convertFormats)], codec.Pcap), inputOnlyFormats...)...); err != nil {
					return cli.UsageErrorf("", "--from: %v", err)
				}
			}
			if err := checkCSVStrings(opts.CSVStrings, opts.From); err != nil {
				return err
			}
			if err := checkConvertFlags(opts, c); err != nil {
				return err
			}
			if err := parseAmong(among, &opts.Among); err != nil {
				return err
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if err := opts.CaptureFlags.Check(); err != nil {
				return err
			}
			if err := checkBridgeFlags(&opts.Bridge, c, bridge.Applies(opts.From, opts.To)); err != nil {
				return err
			}
			if err := parseDuplicateKeys(c, dups, !bridge.Applies(opts.From, opts.To), "JSON and NDJSON records, not to messages converted between protocols", &opts.DuplicateKeys); err != nil {
				return err
			}
			if err := checkTOONFlags(&opts.TOON, c, opts.To == codec.TOON || opts.To == convert.Cheapest, opts.From == "" || opts.From == codec.TOON); err != nil {
				return err
			}
			opts.TOON.Tokenizer, opts.TOON.Verbose = opts.Tokenizer, opts.Verbose
			if err := sharedFlags(ios, c, args, maxSize, compress, opts.To == codec.Binary, opts.Output,
				&opts.MaxFrameSize, &opts.Compress, &opts.Inputs); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return convert.Run(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&from, "from", "", "input format: json, ndjson, toon, tabular, binary, pcap, chiffon, trace, narratoria, yaml, csv or tsv; detected when absent (yaml, csv, tsv: by the extension .yaml, .yml, .csv, .tsv)")
	addCSVStringsFlag(f, &opts.CSVStrings)
	f.StringVar(&to, "to", "", "output format: json, ndjson, toon, tabular, binary, auto, cheapest, chiffon, trace or narratoria")
	f.BoolVarP(&opts.Compact, "compact", "c", false, "--to json: the array on one line")
	f.BoolVar(&opts.Lossy, "lossy", false, "--to tabular: write a table that does not read back exactly, listing each lossy cell")
	addStatsFlags(f, &opts.Stats, &opts.Tokenizer)
	f.BoolVar(&opts.Verbose, "verbose", false, "--to auto, --delimiter auto: say which format or delimiter was chosen and why")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when the run succeeds; without --to, its extension .toon, .json, .ndjson, .jsonl or .bin names the format); - forces stdout")
	f.Var(maxSize, "max-frame-size", "largest record, line or frame accepted")
	f.StringVar(&compress, "compress", "auto", "--to binary: RLE compression, auto, always or never")
	addDuplicateKeysFlag(c, &dups)
	addAmongFlag(c, &among, "--to cheapest: choose among these")
	addJobsFlag(f, &opts.Jobs, "--to tabular, json, ndjson: the records of JSON and NDJSON input (and the rows of a table for json, ndjson); --to trace, narratoria, chiffon: the messages of JSON and NDJSON input (--to binary from protocols: one worker)")
	addCaptureFlags(f, &opts.CaptureFlags)
	addTOONFlags(&opts.TOON, f, true, true)
	addBridgeFlags(&opts.Bridge, f)
	formats := []string{"json", "ndjson", "jsonl", "toon", "tabular", "a2a", "binary", "kado", "frame", "chiffon", "trace", "aop", "narratoria", "tool"}
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions(append(formats[:len(formats):len(formats)], "pcap", "pcapng", "yaml", "yml", "csv", "tsv"), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("to", cobra.FixedCompletions(append(formats, "auto", "cheapest"), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions(tokens.Encodings, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("delimiter", cobra.FixedCompletions([]string{"comma", "tab", "pipe", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("compress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// convertExample is the hint of a convert without --to: the --to its first
// input most likely wants (convert.SuggestTo), with its inputs.
func convertExample(args []string) string {
	if len(args) == 0 {
		return "toonkit convert --to toon users.json"
	}
	ex := "toonkit convert --to " + string(convert.SuggestTo(args[0]))
	for _, a := range args {
		ex += " " + cli.ShellArg(a)
	}
	return ex
}

// checkConvertFlags refuses flags that do not apply to the output format.
func checkConvertFlags(opts *convert.Options, c *cobra.Command) error {
	set := func(name string) bool { return c.Flags().Changed(name) }
	switch {
	case set("compact") && opts.To != codec.JSON:
		return cli.UsageErrorf("", "-c/--compact applies to --to json only")
	case set("lossy") && opts.To != codec.Tabular:
		return cli.UsageErrorf("", "--lossy applies to --to tabular only (--to auto never writes a lossy table)")
	case set("among") && opts.To != convert.Cheapest:
		return cli.UsageErrorf("", "--among applies to --to cheapest only")
	case set("delimiter") && opts.To == convert.Cheapest:
		return cli.UsageErrorf("", "--delimiter: --to cheapest measures every delimiter and picks one")
	case set("stats") && opts.To == convert.Cheapest:
		return cli.UsageErrorf("toonkit stats shows the counts of every format", "--stats: --to cheapest says the tokens of each format it chose from")
	case set("verbose") && opts.To != convert.Auto && !(opts.To == codec.TOON && opts.TOON.AutoDelimiter()):
		return cli.UsageErrorf("", "--verbose applies to --to auto and --delimiter auto only")
	case set("compress") && opts.To != codec.Binary:
		return cli.UsageErrorf("", "--compress applies to --to binary only")
	case set("tokenizer") && !opts.Stats && !(opts.To == codec.TOON && opts.TOON.AutoDelimiter()) && opts.To != convert.Cheapest:
		return cli.UsageErrorf("add --stats", "--tokenizer applies to --stats, --delimiter auto and --to cheapest only")
	case set("tokenizer") && !slices.Contains(tokens.Encodings, opts.Tokenizer):
		return cli.UsageErrorf("", "--tokenizer: unknown tokenizer %q (supported: %s)", opts.Tokenizer, strings.Join(tokens.Encodings, ", "))
	}
	return nil
}

// toFromOutput returns --to or, without it, the format that -o FILE names
// by its extension (codec.FormatForExt), for a command that writes the
// formats given (list names them as its help does). Without either it is a
// usage error, with example as the hint.
func toFromOutput(cmd, to, output, list, example string, writes ...codec.Format) (string, error) {
	if to != "" {
		return to, nil
	}
	if output == "" || output == "-" {
		return "", cli.UsageErrorf("for example: "+example, "%s needs --to FORMAT (supported: %s)", cmd, list)
	}
	f, ok := codec.FormatForExt(output)
	switch {
	case !ok:
		return "", cli.UsageErrorf(fmt.Sprintf("-o FILE names the format by its extension (%s), or --to does", strings.Join(codec.Extensions(), ", ")),
			"%s needs --to FORMAT: the extension of -o %s names none (supported: %s)", cmd, output, list)
	case codec.InputOnly(f):
		return "", cli.UsageErrorf("toonkit reads YAML, CSV and TSV, and writes none of them; --to json writes JSON, which YAML 1.2 reads as it is",
			"%s needs --to FORMAT: -o %s names %s, which is an input format only (supported: %s)", cmd, output, f, list)
	case !slices.Contains(writes, f):
		return "", cli.UsageErrorf(fmt.Sprintf("toonkit convert writes %s", f),
			"%s needs --to FORMAT: -o %s names %s, which %s does not write (supported: %s)", cmd, output, f, cmd, list)
	}
	return string(f), nil
}

// sharedFlags parses the flags that encode and convert share,
// --max-frame-size and --compress, refuses binary output bound for a
// terminal, and names the inputs.
func sharedFlags(ios *cli.IOStreams, c *cobra.Command, args []string, maxSize *size.Flag, compress string, binaryOut bool, output string,
	n *int, mode *kado.CompressMode, inputs *[]string) error {
	if err := cli.SizeOf(maxSize, n); err != nil {
		return err
	}
	var err error
	if *mode, err = kado.ParseCompressMode(compress); err != nil {
		return cli.UsageErrorf("", "--compress: %v", err)
	}
	if binaryOut {
		if err := cli.RefuseBinaryTTY(ios, output); err != nil {
			return err
		}
	}
	*inputs, err = cli.InputNames(ios, args, c.CommandPath())
	return err
}
