package convert

import (
	"context"
	"errors"
	"fmt"
	"io"

	measure "github.com/toonkit/toonkit/internal/stats"

	"github.com/toonkit/toonkit/internal/bridge"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// Run runs convert: the inputs, of opts.From or detected, written --to a
// format or another protocol; all or nothing for JSON, TOON, tables and
// --to auto, whose output is committed only when the run succeeds.
func Run(opts *Options) error {
	err := run(opts)
	if bridge.Applies(opts.From, opts.To) {
		return err // messages: --duplicate-keys does not apply
	}
	return cli.DuplicateKeys(err)
}

func run(opts *Options) error {
	if opts.To == codec.TOON && oneJSONFile(opts) {
		// One JSON document: encode's path, in bounded memory whatever
		// its size, not records gathered into memory.
		err := encodeTOONDocument(opts.IO, opts.Inputs, opts.Output, opts.MaxFrameSize, opts.DuplicateKeys, opts.Stats, opts.Tokenizer, &opts.TOON, true)
		if !errors.Is(err, cli.ErrSeveralValues) {
			return err
		}
	}
	if opts.DuplicateKeys != jsonv.DuplicatesError {
		opts.Jobs = 1 // the records come deduped from the single-worker loop (records.Source.KeepDuplicates)
	}
	var st *cli.Stats
	if opts.Stats {
		var err error
		if st, err = cli.NewStats(opts.Tokenizer); err != nil {
			return err
		}
		st.CountGiven(opts.IO)
	}
	out := cli.NewOutput(opts.IO, opts.Output)
	if opts.To == codec.JSON {
		// One document, all or nothing even on standard output: an array
		// cut short by a bad record is no JSON. (TOON, tables and --to
		// auto are written once the input has been read whole; NDJSON,
		// frames and messages stream, a whole line or frame at a time.)
		out.HoldAll()
	}
	if opts.To == Cheapest {
		return runConvertCheapest(opts)
	}
	if opts.To == codec.TOON {
		doc, err := gatherTOON(opts, st, nil)
		if err != nil {
			return err
		}
		return cli.WriteTOON(opts.IO, out, st, doc, opts.TOON.EncoderOptions(opts.IO, doc))
	}
	var w io.Writer = out
	if st != nil {
		w = io.MultiWriter(out, st.Out)
	}
	var err error
	switch {
	case bridge.Applies(opts.From, opts.To):
		err = convertBridge(opts, out, w, st)
	case opts.To == codec.Tabular || opts.To == Auto:
		err = convertTable(opts, out, w, st)
	default:
		err = convertStream(opts, out, w, st)
	}
	if err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if st != nil {
		return st.Print(opts.IO, opts.To)
	}
	return nil
}

// convertStream converts record by record, flushing the output whenever the
// input has nothing more buffered (a live stream).
func convertStream(opts *Options, out *cli.Output, w io.Writer, st *cli.Stats) error {
	var snk cli.Sink
	bs := &cli.BinarySink{BinarySink: records.BinarySink{Header: kado.EncodeStreamOptions{Now: opts.Now}, Seq: 1}}
	switch opts.To {
	case codec.JSON:
		snk = &records.JSONSink{W: w, Compact: opts.Compact}
	case codec.NDJSON:
		snk = &records.NDJSONSink{W: w}
	case codec.Binary:
		bs.W = kado.NewWriter(w, opts.Compress)
		snk = bs
	}
	for _, name := range opts.Inputs {
		src, err := openConvertSource(opts, name)
		if err != nil {
			return err
		}
		bs.Src = src.Source
		if js, ok := snk.(*records.JSONSink); ok {
			js.Single = oneValue(opts, src)
		}
		if _, err := src.Copy(snk, opts.Jobs, out, st); err != nil {
			return err
		}
	}
	return cli.Failure(out, snk.End())
}

// convertTable writes a table (or, --to auto, the table or compact JSON) in
// one pass over the input: the rows go to a temporary file as they come,
// with a cell for every key seen so far, and every cell is checked; at the
// end, unless the table would be lossy, the header is written and the rows
// copied after it (rows written before a key appeared get its empty cell
// then). So nothing is written when the table is refused, and memory stays
// bounded by the largest record and the number of keys.
func convertTable(opts *Options, out *cli.Output, w io.Writer, st *cli.Stats) error {
	rep := cli.NewReporter(opts.IO)
	ts, err := records.NewSpooledTable(&records.TableSink{Max: 5}, cli.IOError)
	if err != nil {
		return err
	}
	defer ts.Remove()
	if opts.Lossy {
		ts.Lossy = func(l tabular.NamedLossy) { rep.Warnf("%s: %s", l.Input, l.Lossy) }
	}
	var snk cli.Sink = ts
	var both *records.AutoSink // --to auto: the compact JSON too, should the table not pay
	var jsonSpool *cli.Spool
	if opts.To == Auto {
		if jsonSpool, err = cli.NewSpool("json"); err != nil {
			return err
		}
		defer jsonSpool.Remove()
		both = &records.AutoSink{Table: ts.TableSink, JSON: &records.JSONSink{W: jsonSpool, Compact: true}}
		snk = both
	}
	for _, name := range opts.Inputs {
		src, err := openConvertSource(opts, name)
		if err != nil {
			return err
		}
		// The rows need not be compact (the table's cells are); the
		// statistics and --to auto's JSON need them so.
		src.Flat, src.Raw = true, st == nil && both == nil
		if both != nil {
			both.JSON.Single = oneValue(opts, src)
		}
		ts.Src = src.Source
		if _, err := src.Copy(snk, opts.Jobs, out, st); err != nil {
			return cli.RowError(err, "a table holds an array of objects; --to json or --to ndjson take any records")
		}
	}
	r := ts.Report()
	table := opts.To == codec.Tabular
	if both != nil {
		var why string
		if table, why = both.Choose(); opts.Verbose {
			rep.Notef("auto: %s: %s", map[bool]string{true: "tabular", false: "JSON"}[table], why)
		}
	} else if lossy := ts.Check(); lossy != nil && !opts.Lossy {
		return cli.RefuseLossy(rep, lossy, "--lossy writes it all the same, listing every lossy cell")
	}
	if !table {
		if err := both.End(); err != nil {
			return err
		}
		return jsonSpool.CopyTo(w, out)
	}
	if r.Deep > 0 {
		more := ""
		if r.Deep > 1 {
			more = fmt.Sprintf(" (and %d more such %s)", r.Deep-1, cli.Plural(int(r.Deep-1), "cell", "cells"))
		}
		rep.Warnf("%s: %s%s", ts.InputOf(r.FirstDeep.Row), *r.FirstDeep, more)
	}
	if err := ts.WriteTable(w, func(l tabular.NamedLossy) { rep.Warnf("%s: %s", l.Input, l.Lossy) }); err != nil {
		return cli.Failure(out, err)
	}
	if r.Lossy > 0 {
		rep.Warnf("%d %s will not read back as written (--lossy)", r.Lossy, cli.Plural(int(r.Lossy), "cell", "cells"))
	}
	return nil
}

// convertBridge converts messages from one protocol to another
// (bridge.Inputs), a record at a time: NDJSON out, or binary frames for
// Kado.
func convertBridge(opts *Options, out *cli.Output, w io.Writer, st *cli.Stats) error {
	to, _ := bridge.ProtocolOf(opts.To)
	rep := cli.NewReporter(opts.IO)
	var snk cli.Sink = &records.NDJSONSink{W: w}
	bs := &cli.BinarySink{BinarySink: records.BinarySink{Header: kado.EncodeStreamOptions{Now: opts.Now}, Seq: 1}}
	if to == bridge.Kado {
		bs.W = kado.NewWriter(w, opts.Compress)
		snk = bs
	}
	conv := &bridge.Inputs{From: opts.From, MaxSize: opts.MaxFrameSize, Options: bridge.Options{To: to, RunID: opts.Bridge.RunID,
		AgentID: opts.Bridge.AgentID, Agent: opts.Bridge.Agent, Deterministic: opts.Bridge.Deterministic, Now: opts.Now,
		NoReassemble: opts.Bridge.NoReassemble, MaxOutput: opts.MaxFrameSize, Strict: opts.Bridge.Strict, Checked: true,
		Warn: func(where, msg string) { rep.Warnf("%s: %s", where, msg) }}}
	for _, name := range opts.Inputs {
		src, err := openConvertSource(opts, name)
		if err != nil {
			return err
		}
		bs.Src = src.Source
		err = conv.Copy(context.Background(), src.Source, snk, cli.CopyOptions(opts.Jobs, out, st))
		src.In.Close()
		var se *bridge.SourceError
		var pe *bridge.PairError
		var be *bridge.Error
		switch err = cli.Failure(out, cli.SourceError(err)); {
		case errors.As(err, &se) && se.Format == "":
			return cli.InvalidError(se, "name it with --from (chiffon, trace, narratoria, binary)")
		case se != nil:
			return cli.InvalidError(err, "name the protocol with --from (chiffon, trace, narratoria, binary)")
		case errors.As(err, &pe) && pe.From == pe.To:
			return cli.UsageErrorf("", "%s; --to %s converts from another protocol", pe, opts.To)
		case pe != nil:
			return cli.UsageErrorf("", "%v", pe)
		case errors.As(err, &be):
			return cli.InvalidError(be, "")
		case err != nil:
			return err
		}
	}
	return cli.Failure(out, snk.End())
}

// runConvertCheapest reads the inputs as one document (as --to toon does),
// counts it in each format (internal/stats), says which is cheapest and why, and
// writes it in that one, all or nothing.
func runConvertCheapest(opts *Options) error {
	var table bool
	doc, err := gatherTOON(opts, nil, &table)
	if err != nil {
		return err
	}
	single := len(opts.Inputs) == 1 && len(doc.Value) > 0 && doc.Value[0] != '['
	mopts := measure.Options{Tokenizers: []string{opts.Tokenizer}, IndentSize: opts.TOON.Indent, Single: single, Workers: opts.Jobs,
		Formats: measure.Among(opts.Among, table)}
	rep, err := measure.Measure(doc.Value, mopts)
	if err != nil {
		return cli.InvalidError(fmt.Errorf("%s: %w", doc.Name, err), "")
	}
	best := rep.Rows[rep.Cheapest(0)]
	cli.NewReporter(opts.IO).Notef("cheapest: %s", rep.WhyCheapest(0))
	out := cli.NewOutput(opts.IO, opts.Output)
	out.HoldAll()
	if _, err := measure.Encode(out, doc.Value, best.Format, mopts); err != nil {
		out.Abort()
		if out.Err() != nil {
			return out.Err()
		}
		return cli.InvalidError(fmt.Errorf("%s: %w", doc.Name, err), "")
	}
	if best.Format != measure.JSONIndent && best.Format != measure.Tabular {
		out.Write([]byte("\n")) // TOON and compact JSON are counted without it
	}
	return out.Commit()
}

// gatherTOON reads the records of convert's inputs as one document for
// TOON: the value itself when the only input is one JSON or TOON value that
// is not an array, an array of the records otherwise. table, when not nil,
// is set when an input is a Genesis table.
func gatherTOON(opts *Options, st *cli.Stats, table *bool) (*cli.Document, error) {
	var ds records.DocumentSink
	for _, n := range opts.Inputs {
		src, err := openConvertSource(opts, n)
		if err != nil {
			return nil, err
		}
		src.AllowNonFinite(opts.To == codec.TOON) // Python's NaN and Infinity become null
		if table != nil && src.Format() == codec.Tabular {
			*table = true
		}
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

// openConvertSource opens one of convert's inputs, a TOON one read with
// --indent and --no-strict whatever the output format.
func openConvertSource(opts *Options, name string) (*cli.Source, error) {
	src, err := cli.OpenSource(opts.IO, name, opts.From, opts.MaxFrameSize, opts.CaptureFlags.Options(0))
	if err != nil {
		return nil, err
	}
	src.TOON = opts.TOON.DecoderOptions(opts.MaxFrameSize)
	src.CSVStrings = opts.CSVStrings
	src.KeepDuplicates(opts.DuplicateKeys)
	return src, nil
}

// oneValue is records.Source.OneValue for one of convert's inputs.
func oneValue(opts *Options, src *cli.Source) bool {
	return src.OneValue(len(opts.Inputs), opts.From != "")
}
