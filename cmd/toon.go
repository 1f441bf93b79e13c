package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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
func (t *toonFlags) encodeOptionsFor(ios *cli.IOStreams, doc *document) toonx.EncodeOptions {
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
	doc, err := readDocument(opts.IO, opts.Inputs, opts.MaxFrameSize, st == nil && !opts.TOON.Auto)
	if err != nil {
		return err
	}
	out := cli.NewOutput(opts.IO, opts.Output)
	return writeTOON(opts.IO, out, st, doc, opts.TOON.encodeOptionsFor(opts.IO, doc))
}

// document is the JSON value to encode as TOON (records.Document).
type document struct {
	*records.Document
	counted bool // the statistics have counted the input already
}

// readDocument reads the inputs as one JSON value (records.ReadDocument);
// with mapOK, a single large regular file is mapped into memory.
func readDocument(ios *cli.IOStreams, names []string, limit int, mapOK bool) (*document, error) {
	d, err := records.ReadDocument(names, func(name string) (*records.Input, error) {
		in, err := cli.OpenInput(ios, name)
		if err != nil {
			return nil, err
		}
		return &records.Input{R: in.R, Name: in.Name, File: in.File, Close: in.Close}, nil
	}, limit, mapOK)
	if err != nil {
		return nil, cli.SourceError(err)
	}
	return &document{Document: d}, nil
}

// writeTOON encodes a document to out and commits it; nothing is written
// on failure. The document gets one final newline, as the reference CLI
// writes it (toon.FromJSON's text has none); the statistics count the
// document without it.
func writeTOON(ios *cli.IOStreams, out *cli.Output, st *cli.Stats, doc *document, opts toonx.EncodeOptions) error {
	var nonFinite int // NaN and Infinity, as Python writes them, become null
	opts.NonFinite = func(n int) { nonFinite = n }
	err := encodeTOON(out, st, doc, opts)
	var ee *cli.ExitError
	if err != nil && !doc.Many && !errors.As(err, &ee) {
		// The fast path failed: find out why with the JSON reader, which
		// gives positions; several values make an array.
		arr, verr := doc.Array()
		switch {
		case verr != nil:
			err = cli.SourceError(verr)
		case arr != nil:
			out.Abort()
			out = cli.NewOutput(ios, out.Path())
			err = encodeTOON(out, st, &document{Document: arr}, opts)
		}
	}
	if err != nil {
		out.Abort()
		if errors.As(err, &ee) {
			return err
		}
		return cli.InvalidError(fmt.Errorf("%s: %w", doc.Name, err), "")
	}
	out.Write(newline) // a failure is Commit's to report
	if err := out.Commit(); err != nil {
		return err
	}
	if nonFinite > 0 {
		where, in := doc.Name+": ", ""
		if doc.Inputs > 1 { // the count is theirs together
			where, in = "", fmt.Sprintf(" in the %d inputs", doc.Inputs)
		}
		cli.NewReporter(ios).Notef("note: %s%d non-finite %s (NaN/Infinity, as Python's json.dumps writes them)%s written as null (TOON §3)", where, nonFinite, cli.Plural(nonFinite, "number", "numbers"), in)
	}
	if st != nil {
		return st.Print(ios, codec.TOON)
	}
	return nil
}

func encodeTOON(out *cli.Output, st *cli.Stats, doc *document, opts toonx.EncodeOptions) error {
	var w io.Writer = out
	if st != nil {
		w = io.MultiWriter(out, st.Out)
	}
	if err := doc.EncodeTOON(w, opts); err != nil {
		if out.Err() != nil {
			return out.Err()
		}
		return cli.SourceError(err)
	}
	if st != nil && !doc.counted {
		compact, err := jsonv.AppendCompactNonFinite(nil, doc.Value)
		if err != nil {
			return err
		}
		st.Document(compact)
	}
	return out.Err()
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
func gatherTOON(opts *ConvertOptions, st *cli.Stats) (*document, error) {
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
	return &document{Document: ds.Document(), counted: true}, nil
}
