package cmd

import (
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/kado"
)

func newEncodeCmd(ios *cli.IOStreams, runF func(*convert.EncodeOptions) error) *cobra.Command {
	opts := &convert.EncodeOptions{IO: ios, Now: time.Now}
	var to, from, typ, seq, ts, compress, dups string
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "encode [--to toon|binary|tabular] [FILE...|-]",
		Short: "Encode JSON as TOON text, binary TOON frames or a tabular TOON table",
		Long: `Encode reads a stream of JSON values (one document, NDJSON, or values back to
back) and writes TOON, one document, unless --to says otherwise:
--to tabular takes a top-level array's elements as its rows; --to binary
makes one frame of each value, a top-level array included (its payload is
the array). Without --to, -o FILE names the format by its extension (.toon,
.bin), and any other name, or none, gets TOON. No FILE, or -, is standard
input. One JSON document of any size becomes TOON in bounded memory;
standard input of 4 MiB or more is written to a temporary file first.

EXIT STATUS
  0  every value encoded
  1  a value is not valid JSON or does not fit a frame
  2  usage error
  3  an input could not be read or the output could not be written

The full reference: docs/commands/encode.md, or man toonkit-encode.`,
		Example: `  # JSON as TOON, with what it saves in real tokens
  toonkit encode --stats data.json

  # the same to a file, its format named by the extension (.toon, .bin)
  toonkit encode data.json -o data.toon

  # one INSTRUCTION frame
  echo '{"instruction":"Write unit tests"}' | toonkit encode --to binary > msg.bin

  # NDJSON payloads to frames numbered from 100, with a fixed timestamp
  toonkit encode --to binary --seq 100 --timestamp 1735689600123 messages.ndjson -o out.bin

  # a payload whose type cannot be inferred
  echo '{"type":"file","path":"src/config.ts"}' | toonkit encode --to binary --type context_request -o req.bin

  # decode, edit the records, and encode them again
  toonkit decode capture.bin | sed 's/"analyzing"/"testing"/' | toonkit encode --to binary -o edited.bin

  # a JSON array of objects as a table, with token statistics
  echo '[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]' | toonkit encode --to tabular --stats`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if _, named := codec.FormatForExt(opts.Output); to == "" && !named {
				to = string(codec.TOON) // TOON is the default; -o FILE's extension may name another
			}
			to, err := toFromOutput("encode", to, opts.Output, "binary, tabular, toon", "toonkit encode users.json",
				codec.Binary, codec.Tabular, codec.TOON)
			if err != nil {
				return err
			}
			if opts.To, err = codec.Parse(to, codec.Binary, codec.Tabular, codec.TOON); err != nil {
				return cli.UsageErrorf("", "--to: %v", err)
			}
			if from != "" {
				if opts.From, err = codec.Parse(from, append([]codec.Format{codec.JSON}, inputOnlyFormats...)...); err != nil {
					return cli.UsageErrorf("", "--from: %v", err)
				}
				if opts.From == codec.JSON {
					opts.From = ""
				}
			}
			if err := checkCSVStrings(opts.CSVStrings, opts.From); err != nil {
				return err
			}
			if err := checkTOONFlags(&opts.TOON, c, opts.To == codec.TOON, false); err != nil {
				return err
			}
			if opts.To == codec.TOON && c.Flags().Changed("lossy") {
				return cli.UsageErrorf("", "--lossy applies to --to tabular only (TOON is lossless)")
			}
			if opts.To != codec.Binary {
				for _, name := range []string{"type", "seq", "timestamp", "compress", "skip-text"} {
					if c.Flags().Changed(name) {
						return cli.UsageErrorf("", "--%s applies to --to binary only", name)
					}
				}
			} else {
				if c.Flags().Changed("lossy") {
					return cli.UsageErrorf("", "--lossy applies to --to tabular only")
				}
				for _, name := range []string{"stats", "tokenizer"} {
					if c.Flags().Changed(name) {
						return cli.UsageErrorf("", "--%s applies to --to tabular and --to toon only", name)
					}
				}
			}
			if err := parseDuplicateKeys(c, dups, opts.To != codec.Binary, "--to toon and --to tabular only", &opts.DuplicateKeys); err != nil {
				return err
			}
			if c.Flags().Changed("tokenizer") && !opts.Stats && !opts.TOON.Auto {
				return cli.UsageErrorf("add --stats", "--tokenizer applies to --stats and --delimiter auto only")
			}
			if c.Flags().Changed("verbose") && !opts.TOON.Auto {
				return cli.UsageErrorf("", "--verbose applies to --delimiter auto only")
			}
			opts.TOON.Tokenizer = opts.Tokenizer
			if typ != "" {
				if opts.Type, err = kado.ParseMessageType(typ); err != nil {
					return cli.UsageErrorf("types: instruction, tool_call, tool_result, status, error, heartbeat, context_request, context_response (or 1-8)", "--type: %v", err)
				}
			}
			if opts.Seq, err = kado.ParseSequenceID(seq); err != nil {
				return cli.UsageErrorf("", "--seq: %v", err)
			}
			if ts != "" {
				t, err := kado.ParseTimestamp(ts)
				if err != nil {
					return cli.UsageErrorf("", "--timestamp: %v", err)
				}
				opts.Timestamp = &t
			}
			if err := sharedFlags(ios, c, args, maxSize, compress, opts.To == codec.Binary, opts.Output,
				&opts.MaxFrameSize, &opts.Compress, &opts.Inputs); err != nil {
				return err
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return convert.RunEncode(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&to, "to", "", "output format: toon (the default, unless -o FILE's extension names another), binary (aliases kado, frame) or tabular (alias a2a)")
	f.StringVar(&from, "from", "", "input format: json, yaml, csv or tsv (default: yaml, csv, tsv by the extension .yaml, .yml, .csv, .tsv, else json)")
	addCSVStringsFlag(f, &opts.CSVStrings)
	addTOONFlags(&opts.TOON, f, true, false)
	f.BoolVar(&opts.Lossy, "lossy", false, "--to tabular: write a table that does not read back exactly, listing each lossy cell")
	addStatsFlags(f, &opts.Stats, &opts.Tokenizer)
	f.BoolVar(&opts.TOON.Verbose, "verbose", false, "--delimiter auto: say which delimiter was chosen, and the tokens of each")
	f.StringVar(&typ, "type", "", "message type of bare payloads: a name (tool_call, Tool-Call, ...) or 1-8; inferred when absent")
	f.StringVar(&seq, "seq", "1", "sequence id of the first frame; +1 per frame")
	f.StringVar(&ts, "timestamp", "", "timestamp in Unix milliseconds (or RFC 3339) for bare payloads; default now")
	f.StringVar(&compress, "compress", "auto", "RLE compression: auto (payloads over 1024 bytes, when smaller), always or never")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when the run succeeds; without --to, its extension .toon or .bin names the format); - forces stdout")
	f.Var(maxSize, "max-frame-size", "largest JSON value accepted (--to binary, tabular), and the most read into memory for TOON (several inputs or values, --stats)")
	addDuplicateKeysFlag(c, &dups)
	addJobsFlag(f, &opts.Jobs, "--to binary")
	f.BoolVar(&opts.SkipText, "skip-text", false, "--to binary: leave out decode's records of WebSocket text messages ({\"capture\":...,\"text\":...}), which are not frames, with a note counting them")
	_ = c.RegisterFlagCompletionFunc("to", cobra.FixedCompletions(codec.Names(codec.Binary, codec.Tabular, codec.TOON), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"json", "yaml", "yml", "csv", "tsv"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("delimiter", cobra.FixedCompletions([]string{"comma", "tab", "pipe", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions(tokens.Encodings, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("compress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"instruction", "tool_call", "tool_result", "status", "error", "heartbeat", "context_request", "context_response"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}
