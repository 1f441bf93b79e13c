package cmd

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/records"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	measure "github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/toon"
)

// toonFlags are the flags of the official TOON encoding that encode,
// decode and convert share.
type toonFlags struct {
	delimiter string
	Delimiter toon.Delimiter
	Indent    int
	NoStrict  bool
	// Auto is --delimiter auto: the delimiter with the fewest tokens by
	// Tokenizer, said on stderr when Verbose.
	Auto      bool
	Tokenizer string
	Verbose   bool
}

// add adds --delimiter (when the command writes TOON), --indent, and
// --no-strict (when it reads TOON).
func (t *toonFlags) add(f *pflag.FlagSet, writes, reads bool) {
	if writes {
		f.StringVar(&t.delimiter, "delimiter", "comma", "TOON: delimiter of inline arrays and table rows: comma, tab, pipe, or auto (the fewest tokens by --tokenizer)")
	}
	f.IntVar(&t.Indent, "indent", toon.DefaultIndentSize, "TOON: spaces per indentation level")
	if reads {
		f.BoolVar(&t.NoStrict, "no-strict", false, "TOON input: skip the strict checks (counts, indentation: a tab is one level, duplicate keys: the last wins); no line is skipped")
	}
}

// check parses the flags and refuses them where no TOON is written
// (--delimiter) or read (--no-strict), or neither (--indent). reads is
// true when the input format is not known yet.
func (t *toonFlags) check(c *cobra.Command, writes, reads bool) error {
	set := func(name string) bool { return c.Flags().Changed(name) }
	var err error
	switch {
	case set("delimiter") && !writes:
		return cli.UsageErrorf("", "--delimiter applies to --to toon only")
	case set("no-strict") && !reads:
		return cli.UsageErrorf("", "--no-strict applies to TOON input (--from toon) only")
	case set("indent") && !writes && !reads:
		return cli.UsageErrorf("", "--indent applies to TOON input or output only")
	case t.Indent < 1 || t.Indent > 16:
		return cli.UsageErrorf("", "--indent: %d is out of range (1 to 16 spaces)", t.Indent)
	}
	if writes && t.auto() {
		t.Auto, t.Delimiter = true, toon.Comma
	} else if writes {
		if t.Delimiter, err = toon.ParseDelimiter(t.delimiter); err != nil {
			return cli.UsageErrorf("", "--delimiter: %v", err)
		}
	}
	return nil
}

// auto reports whether --delimiter is auto.
func (t *toonFlags) auto() bool { return strings.EqualFold(t.delimiter, "auto") }

// encodeOptionsFor is the encoder's options, with the delimiter of
// --delimiter auto chosen for doc (internal/stats.CheapestDelimiter), and said
// on stderr with --verbose. A document that is no JSON value keeps the
// comma: the encoder says what is wrong with it.
func (t *toonFlags) encodeOptionsFor(ios *cli.IOStreams, doc *cli.Document) toonx.EncodeOptions {
	opts := toonx.EncodeOptions{IndentSize: t.Indent, Delimiter: byte(t.Delimiter)}
	if !t.Auto {
		return opts
	}
	value := doc.Value
	if arr, err := doc.Array(); err == nil && arr != nil {
		value = arr.Value // several values make an array
	}
	d, rep, err := measure.CheapestDelimiter(jsonv.MaskNonFinite(nil, value), t.Tokenizer, t.Indent, 1) // NaN: a number
	if err != nil {
		return opts
	}
	opts.Delimiter = byte(d)
	if t.Verbose {
		var all []string
		for _, row := range rep.Rows {
			all = append(all, fmt.Sprintf("%s %d", strings.TrimPrefix(row.Format, "toon-"), row.Tokens[0]))
		}
		cli.NewReporter(ios).Notef("delimiter auto: %s: the fewest tokens by %s (%s)", d, t.Tokenizer, strings.Join(all, ", "))
	}
	return opts
}

func (t *toonFlags) decodeOptions(maxLine int) toonx.DecodeOptions {
	return toonx.DecodeOptions{IndentSize: t.Indent, NonStrict: t.NoStrict, MaxLineSize: maxLine}
}

// runEncodeTOON writes the inputs as one TOON document: the one JSON value
// of a single input, or an array of every value read (NDJSON, several
// files). The document is held in memory, since TOON declares every
// array's length before its items.
func runEncodeTOON(opts *EncodeOptions) error {
	var st *cli.Stats
	if opts.Stats {
		var err error
		if st, err = cli.NewStats(opts.Tokenizer); err != nil {
			return err
		}
	}
	doc, err := cli.ReadDocument(opts.IO, opts.Inputs, opts.MaxFrameSize, st == nil && !opts.TOON.Auto)
	if err != nil {
		return err
	}
	out := cli.NewOutput(opts.IO, opts.Output)
	return cli.WriteTOON(opts.IO, out, st, doc, opts.TOON.encodeOptionsFor(opts.IO, doc))
}

// decodeTOON writes one TOON document as JSON, indented as JSON.stringify
// does (on one line when compact), or as NDJSON records (the elements of a
// root array, or the root value), all or nothing.
func decodeTOON(in *cli.Input, br *bufio.Reader, out *cli.Output, t *toonFlags, maxLine int, records, compact bool) error {
	out.HoldAll()
	opts := t.decodeOptions(maxLine)
	if opts.Elements = records; !records && !compact {
		opts.JSONIndent = "  "
	}
	if err := toonx.ToJSON(out, br, opts); err != nil {
		return cli.TOONError(in.Name, out, err)
	}
	return out.Err()
}

// oneValue is records.Source.OneValue for one of convert's inputs.
func oneValue(opts *ConvertOptions, src *cli.Source) bool {
	return src.OneValue(len(opts.Inputs), opts.From != "")
}

// openConvertSource opens one of convert's inputs, a TOON one read with
// --indent and --no-strict whatever the output format.
func openConvertSource(opts *ConvertOptions, name string) (*cli.Source, error) {
	src, err := cli.OpenSource(opts.IO, name, opts.From, opts.MaxFrameSize, opts.CaptureFlags.options(0))
	if err != nil {
		return nil, err
	}
	src.TOON = opts.TOON.decodeOptions(opts.MaxFrameSize)
	return src, nil
}

// gatherTOON reads the records of convert's inputs as one document for
// TOON: the value itself when the only input is one JSON or TOON value that
// is not an array, an array of the records otherwise.
func gatherTOON(opts *ConvertOptions, st *cli.Stats) (*cli.Document, error) {
	var ds records.DocumentSink
	for _, n := range opts.Inputs {
		src, err := openConvertSource(opts, n)
		if err != nil {
			return nil, err
		}
		src.AllowNonFinite(opts.To == codec.TOON) // Python's NaN and Infinity become null
		ds.Name, ds.Single = src.Name(), oneValue(opts, src)
		err = src.EachRecord(func(rec []byte) error {
			st.Record(rec)
			return ds.Write(rec)
		})
		if err != nil {
			return nil, err
		}
	}
	return &cli.Document{Document: ds.Document(), Counted: true}, nil
}
