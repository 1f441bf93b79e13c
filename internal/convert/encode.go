package convert

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// RunEncode runs encode: JSON or NDJSON as binary frames (streamed, on
// opts.Jobs workers), as one TOON document, or as a table.
func RunEncode(opts *EncodeOptions) error {
	return notJSONHint(runEncode(opts), opts.Inputs)
}

// notJSONHint gives err, the error of input that is no JSON from its first
// byte on, when its first line is TOON or a table (codec.DetectWhole), the
// hint of the command that reads it: encode reads JSON, decode TOON.
func notJSONHint(err error, inputs []string) error {
	var ee *cli.ExitError
	var se *jsonv.SyntaxError
	if !errors.As(err, &ee) || ee.Hint != "" || !errors.As(err, &se) || se.Pos.Line != 1 || se.Pos.Column != 1 {
		return err
	}
	switch f := codec.DetectWhole([]byte(se.Excerpt)).Format; {
	case f == codec.Tabular, f == codec.TOON && strings.ContainsAny(se.Excerpt, ":["): // a key or an array's header, not a stray word
		name := "FILE"
		if len(inputs) == 1 {
			name = cli.ShellArg(inputs[0])
		}
		ee.Hint = fmt.Sprintf("this looks like %s, which encode does not read (it reads JSON); to write it as JSON: toonkit decode %s", map[codec.Format]string{codec.TOON: "TOON", codec.Tabular: "a Genesis table"}[f], name)
	}
	return err
}

func runEncode(opts *EncodeOptions) error {
	if from, ok := opts.inputOnly(); ok {
		return encodeInputOnly(opts, from)
	}
	switch opts.To {
	case codec.TOON:
		return cli.DuplicateKeys(runEncodeTOON(opts))
	case codec.Tabular:
		return Run(&Options{IO: opts.IO, Inputs: opts.Inputs, From: codec.JSON, To: codec.Tabular, Lossy: opts.Lossy,
			Stats: opts.Stats, Tokenizer: opts.Tokenizer, Output: opts.Output, MaxFrameSize: opts.MaxFrameSize, Now: opts.Now,
			DuplicateKeys: opts.DuplicateKeys})
	}
	out := cli.NewOutput(opts.IO, opts.Output)
	rep := cli.NewReporter(opts.IO)
	sopts := opts.StreamOptions()
	for _, name := range opts.Inputs {
		in, err := cli.OpenInput(opts.IO, name)
		if err != nil {
			out.Abort()
			return err
		}
		h := kado.EncodeHandler{
			Write: func(p []byte) error {
				_, err := out.Write(p) // an *ExitError naming the output
				return err
			},
			Idle: out.Flush,
		}
		skipped := 0
		h.Skipped = func(n int) error { skipped += n; return nil }
		sopts.Seq, err = kado.EncodeStream(context.Background(), in.R, sopts, h)
		in.Close()
		if err != nil {
			out.Abort()
			return cli.EncodeError(in.Name, err)
		}
		if skipped > 0 {
			rep.Notef("%s: left out %d WebSocket text %s (--skip-text): no frame carries %s", in.Name, skipped, cli.Plural(skipped, "message", "messages"), cli.Plural(skipped, "it", "them"))
		}
	}
	return out.Commit()
}

// inputOnly tells whether the inputs are read as convert reads them:
// --from yaml, csv or tsv, or an input named .yaml, .yml, .csv or .tsv
// (the format then taken from each input's name, or detected). from is
// the format convert is given.
func (opts *EncodeOptions) inputOnly() (from codec.Format, ok bool) {
	if opts.From != "" {
		return opts.From, codec.InputOnly(opts.From)
	}
	for _, name := range opts.Inputs {
		if _, ok := codec.InputFormatForExt(name); ok {
			return "", true
		}
	}
	return "", false
}

// encodeInputOnly encodes YAML, CSV or TSV input as TOON or a table, by
// convert's records (records.Source reads them). Frames are made of JSON
// only, so that their errors can name the place in the input.
func encodeInputOnly(opts *EncodeOptions, from codec.Format) error {
	if opts.To == codec.Binary {
		name := "yaml"
		if from != "" {
			name = string(from)
		} else {
			for _, n := range opts.Inputs {
				if f, ok := codec.InputFormatForExt(n); ok {
					name = string(f)
					break
				}
			}
		}
		return cli.UsageErrorf("make NDJSON of it first: toonkit convert --to ndjson FILE | toonkit encode --to binary",
			"encode --to binary reads JSON, not %s", name)
	}
	return Run(&Options{IO: opts.IO, Inputs: opts.Inputs, From: from, To: opts.To, Lossy: opts.Lossy, Stats: opts.Stats,
		Tokenizer: opts.Tokenizer, Output: opts.Output, MaxFrameSize: opts.MaxFrameSize, Now: opts.Now, TOON: opts.TOON,
		CSVStrings: opts.CSVStrings, Jobs: 1})
}

// StreamOptions are the options of kado.EncodeStream that opts ask for.
func (opts *EncodeOptions) StreamOptions() kado.EncodeStreamOptions {
	return kado.EncodeStreamOptions{MaxValueSize: opts.MaxFrameSize, Workers: opts.Jobs, Compress: opts.Compress,
		Seq: uint64(opts.Seq), Type: opts.Type, Timestamp: opts.Timestamp, Now: opts.Now, ChunkBytes: EncodeChunk, LeaveRead: true, SkipText: opts.SkipText}
}

// runEncodeTOON writes the inputs as one TOON document: the one JSON value
// of a single input, or an array of every value read (NDJSON, several
// files).
func runEncodeTOON(opts *EncodeOptions) error {
	return encodeTOONDocument(opts.IO, opts.Inputs, opts.Output, opts.MaxFrameSize, opts.DuplicateKeys, opts.Stats, opts.Tokenizer, &opts.TOON, false)
}

// encodeTOONDocument is encode's TOON path, which convert takes too for
// one JSON file: a regular file is mapped and gone through twice, in
// bounded memory (cli.ReadDocument), so that its size needs no limit.
// oneValue makes an input of several values cli.ErrSeveralValues, with
// nothing written (convert reads those as records).
func encodeTOONDocument(ios *cli.IOStreams, inputs []string, output string, maxFrameSize int, dups jsonv.Duplicates, stats bool, tokenizer string, t *TOONOptions, oneValue bool) error {
	var st *cli.Stats
	if stats {
		var err error
		if st, err = cli.NewStats(tokenizer); err != nil {
			return err
		}
		st.CountGiven(ios)
	}
	var doc *cli.Document
	var err error
	if dups != jsonv.DuplicatesError {
		doc, err = cli.ReadDocumentKeeping(ios, inputs, maxFrameSize, dups)
	} else {
		doc, err = cli.ReadDocument(ios, inputs, maxFrameSize, st == nil && !t.Auto)
	}
	if err != nil {
		return err
	}
	doc.OneValue = oneValue
	out := cli.NewOutput(ios, output)
	return cli.WriteTOON(ios, out, st, doc, t.EncoderOptions(ios, doc))
}

// oneJSONFile reports whether convert's inputs are one regular file read
// as JSON (--from json, or its extension and its content say so), which
// encode's TOON path writes as convert's records would, in bounded memory,
// when it holds one value (several are cli.ErrSeveralValues: convert reads
// them as records). With --duplicate-keys it does not; with --stats or
// --delimiter auto, which read the document into memory, a file larger
// than --max-frame-size stays on the records' path.
func oneJSONFile(opts *Options) bool {
	if len(opts.Inputs) != 1 || opts.Inputs[0] == "-" || opts.From != "" && opts.From != codec.JSON || opts.DuplicateKeys != jsonv.DuplicatesError {
		return false // --duplicate-keys: records, whose values stay apart
	}
	name := opts.Inputs[0]
	if f, ok := codec.FormatForExt(name); ok && f != codec.JSON {
		return false
	}
	if _, ok := codec.InputFormatForExt(name); ok {
		return false
	}
	f, err := os.Open(name)
	if err != nil {
		return false // convert's own path says why
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if (opts.Stats || opts.TOON.AutoDelimiter()) && st.Size() > int64(opts.MaxFrameSize) {
		// These read the document into memory, within --max-frame-size;
		// records need each record within it only.
		return false
	}
	d, err := records.Sniff(bufio.NewReaderSize(f, 64<<10))
	return err == nil && d.Format == codec.JSON
}
