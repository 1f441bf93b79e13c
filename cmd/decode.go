package cmd

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/size"
	"github.com/toonkit/toonkit/internal/tokens"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec"
)

func newDecodeCmd(ios *cli.IOStreams, runF func(*convert.DecodeOptions) error) *cobra.Command {
	opts := &convert.DecodeOptions{IO: ios}
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "decode [FILE...|-]",
		Short: "Decode TOON text, binary TOON frames or a tabular TOON table to JSON",
		Long: `Decode reads Kado binary TOON frames, packet captures of them (pcap, pcapng),
Genesis A2A tables and TOON text, and writes JSON: one NDJSON line per frame
or row, and a TOON document as its JSON value. The format is detected, or
named with --from.

EXIT STATUS
  0  every frame decoded
  1  a frame broke a rule or its payload is not JSON; a TOON document is
     malformed
  2  usage error
  3  an input could not be read or the output could not be written

The full reference: docs/commands/decode.md, or man toonkit-decode.`,
		Example: `  # one NDJSON line per frame
  toonkit decode capture.bin

  # only the payloads, one JSON document per line
  toonkit decode --payload capture.bin > payloads.ndjson

  # the frames of a tcpdump capture, with their connection and time
  toonkit decode --port 7000 session.pcapng

  # the rows of a table, one object per line
  toonkit decode users.toon

  # TOON text back to indented JSON
  toonkit decode orders.toon -o orders.json

  # salvage what can be read from a damaged capture (exit status 1: it has bad frames)
  toonkit decode --keep-going damaged.bin -o frames.ndjson`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
				return err
			}
			if opts.From != "" {
				f, err := codec.Parse(opts.From, codec.Binary, codec.Tabular, codec.TOON, codec.Pcap)
				if err != nil {
					return cli.UsageErrorf("decode reads binary frames, tables, TOON text and packet captures: --from binary, tabular, toon or pcap", "--from: %v", err)
				}
				opts.From = string(f)
			}
			if err := checkTOONFlags(&opts.TOON, c, false, opts.From == "" || opts.From == string(codec.TOON)); err != nil {
				return err
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if err := opts.CaptureFlags.Check(); err != nil {
				return err
			}
			if err := cli.SizeOf(maxSize, &opts.MaxFrameSize); err != nil {
				return err
			}
			if c.Flags().Changed("tokenizer") && !opts.Stats {
				return cli.UsageErrorf("add --stats", "--tokenizer applies to --stats only")
			}
			if opts.As, err = decodeOutputFormat(opts.Output, opts.Inputs); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return convert.RunDecode(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.From, "from", "", "input format: binary (aliases kado, frame), tabular (alias a2a), toon or pcap (alias pcapng); detected when absent")
	addCaptureFlags(f, &opts.CaptureFlags)
	addTOONFlags(&opts.TOON, f, false, true)
	f.BoolVar(&opts.Payload, "payload", false, "write only the payloads, one per line")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when the run succeeds); - is stdout")
	f.BoolVarP(&opts.Compact, "compact", "c", false, "JSON on one line: TOON text's value, -o FILE.json's array (frames and rows are one a line already)")
	f.BoolVar(&opts.KeepGoing, "keep-going", false, "report bad frames, skip to the next plausible header and go on")
	f.Var(maxSize, "max-frame-size", "largest payload accepted, on the wire and decompressed")
	addJobsFlag(f, &opts.Jobs, "binary frames, packet captures and table rows")
	f.BoolVar(&opts.Stats, "stats", false, "TOON text: print bytes, characters and tokens of the TOON and of its JSON on stderr")
	f.StringVar(&opts.Tokenizer, "tokenizer", tokens.Encodings[0], "tokenizer for --stats: o200k_base or cl100k_base")
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions(codec.Names(codec.Binary, codec.Tabular, codec.TOON, codec.Pcap), cobra.ShellCompDirectiveNoFileComp))
	return c
}

// decodeOutputFormat is the JSON that -o FILE's extension asks decode for
// (see DecodeOptions.As); an extension of a format decode does not write
// is a usage error, whose hint is the convert command that writes it.
func decodeOutputFormat(output string, inputs []string) (codec.Format, error) {
	f, _ := codec.FormatForExt(output)
	if f != codec.TOON && f != codec.Binary {
		return f, nil
	}
	args := ""
	for _, in := range inputs {
		args += " " + cli.ShellArg(in)
	}
	return "", cli.UsageErrorf(fmt.Sprintf("to write %s: toonkit convert --to %s%s -o %s", f, f, args, cli.ShellArg(output)),
		"-o %s names %s, which decode does not write: it writes JSON (.json, .ndjson or .jsonl)", output, f)
}
