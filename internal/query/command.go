package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/membound"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
	"github.com/toonkit/toonkit/toon"
)

// This file is toonkit query's run, below its flags: the inputs opened,
// the filter compiled and run over them, the results written as jq writes
// them or --to a format, and the outcome given jq's exit statuses.

// Command is the options of `toonkit query`: its flags and arguments,
// checked.
type Command struct {
	Filter string
	Inputs []string

	Compact, Raw, Join, Sort, Tab, ASCII bool
	Indent                               int
	NullInput, Slurp, ExitStatus         bool
	RawInput, Payload, KeepGoing         bool
	Args, ArgJSON, SlurpFile, RawFile    []string     // NAME=VALUE (or FILE)
	Positional                           []string     // "s:" or "j:" and the value (Args)
	From                                 codec.Format // "": detected
	To                                   codec.Format // "": jq's JSON
	Timeout                              time.Duration
	MaxSize                              int
	MaxMemory                            int64 // 0: no bound
	Jobs                                 int
	Capture                              capture.Options // --port, --conn
	CSVStrings                           bool            // --csv-strings
}

// RunCommand runs toonkit query: the filter over the inputs, the results
// on ios's stdout. Its error carries jq's exit status (a *cli.ExitError).
func RunCommand(ios *cli.IOStreams, opts *Command) error {
	return jqStatus(runCommand(ios, opts))
}

// jqStatus gives an error of query jq's exit status: the statuses query
// sets itself stand, and an output that cannot be written is 3, as for
// every command; any other error (an input that cannot be read or is
// malformed) is 2, as in jq.
func jqStatus(err error) error {
	if err == nil {
		return nil
	}
	var of outputFailure
	if errors.As(err, &of) {
		return of.error
	}
	var qe *commandExit
	if errors.As(err, &qe) {
		return &cli.ExitError{Code: qe.code, Err: qe.err, Reported: qe.err == nil, Excerpt: qe.excerpt, Hint: qe.hint}
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		c := *ee
		c.NotUsage = c.NotUsage || c.Code != cli.ExitUsage
		c.Hint = Hint(c.Hint)
		c.Code = ExitUsage
		return &c
	}
	return &cli.ExitError{Code: ExitUsage, Err: err, NotUsage: true}
}

// outputFailure is an output that could not be written: exit status 3,
// as for every command (jqStatus leaves it), though jq's is 2.
type outputFailure struct{ error }

func (e outputFailure) Unwrap() error { return e.error }

// outputFailed marks err, an error of writing or committing the output,
// as an outputFailure when it is an I/O error (a result --to a format
// refuses is not).
func outputFailed(err error) error {
	var ee *cli.ExitError
	if errors.As(err, &ee) && ee.Code == cli.ExitIO {
		return outputFailure{err}
	}
	return err
}

// commandExit is an outcome of query with jq's exit status.
type commandExit struct {
	code    int
	err     error // nil: reported already, or no message (-e)
	excerpt *jsonv.SyntaxError
	hint    string
}

func (e *commandExit) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// compileFailure renders a filter that does not compile: the filter's line
// with a caret under the place.
func compileFailure(ce *CompileError) error {
	se := ce.Syntax()
	return &commandExit{code: ExitCompile, err: fmt.Errorf("the filter does not compile: %s: %s", se.Pos, ce.Msg), excerpt: se,
		hint: "see jq's manual for the language: https://jqlang.org/manual/"}
}

// variables returns the names and values of the filter's variables
// (Vars.Parse): --arg, --argjson, --slurpfile, --rawfile, and $ARGS.
func variables(ios *cli.IOStreams, opts *Command, positional []string) ([]string, []any, error) {
	var vs Vars
	err := vs.Parse(VarFlags{Arg: opts.Args, ArgJSON: opts.ArgJSON, SlurpFile: opts.SlurpFile, RawFile: opts.RawFile,
		Positional: positional, OpenFile: func(name string) (io.ReadCloser, error) { return os.Open(name) }, Open: opener(ios), MaxSize: opts.MaxSize})
	var ve *VarError
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, nil, cli.InvalidError(err, "raise --max-size if such files are expected")
	case errors.As(err, &ve) && ve.Err == ErrNoName:
		return nil, nil, cli.UsageErrorf(fmt.Sprintf("give --%s NAME VALUE, or --%s=NAME=VALUE", ve.Flag, ve.Flag), "%s", err)
	case ve != nil && ve.Err == ErrNotJSON:
		return nil, nil, cli.UsageErrorf("", "%s", err)
	case ve != nil:
		return nil, nil, cli.IOErrorf("%s", err)
	case err != nil:
		return nil, nil, cli.SourceError(err)
	}
	names, values := vs.Bind()
	return names, values, nil
}

// opener opens query's inputs and --slurpfile's files.
func opener(ios *cli.IOStreams) func(name string) (*Opened, error) {
	return func(name string) (*Opened, error) {
		in, err := cli.OpenInput(ios, name)
		if err != nil {
			return nil, err
		}
		return &Opened{R: in.R, Name: in.Name, Regular: in.Regular(), Close: in.Close}, nil
	}
}

func runCommand(ios *cli.IOStreams, opts *Command) error {
	names := opts.Inputs
	positional := opts.Positional
	if len(names) == 0 {
		if !opts.NullInput && ios.IsStdinTTY() {
			return cli.UsageErrorf("give a FILE, or pipe data in: cat data.json | toonkit query FILTER", "no input: standard input is a terminal")
		}
		names = []string{"-"}
	}
	varNames, varValues, err := variables(ios, opts, positional)
	if err != nil {
		return err
	}
	rep := cli.NewReporter(ios)
	var skipped keptGoing
	iopts := InputOptions{Names: names, From: opts.From, MaxSize: opts.MaxSize, Payload: opts.Payload, Raw: opts.RawInput, KeepFrames: opts.To == codec.Binary,
		Capture: opts.Capture, Open: opener(ios), CSVStrings: opts.CSVStrings}
	if opts.KeepGoing {
		iopts.Skip = skipped.skip(rep)
		iopts.Note = func(name string, err error) { rep.Notef("%s: %v", name, err) } // as decode's
	}
	qi := NewInputs(iopts)
	defer qi.Close()
	q, err := Compile(opts.Filter, Options{
		Variables: varNames,
		Inputs:    qi,
		Stderr:    ios.ErrOut,
		Environ:   os.Environ,
		Filename: func() any {
			if qi.Name() == "" || qi.Name() == cli.StdinName {
				return nil
			}
			return qi.Name()
		},
	})
	if err != nil {
		var ce *CompileError
		if errors.As(err, &ce) {
			return compileFailure(ce)
		}
		return &commandExit{code: ExitCompile, err: err}
	}
	ctx := context.Background()
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	ctx, stop := membound.Watch(ctx, opts.MaxMemory)
	defer stop()
	out := cli.NewOutput(ios, "")
	w, err := newResultWriter(ios, opts, out)
	if err != nil {
		return err
	}
	jobs, err := cli.Workers(opts.Jobs)
	if err != nil {
		return err
	}
	if opts.NullInput || opts.Slurp || opts.RawInput || !q.Parallel() {
		jobs = 1 // one worker, silently (see --help)
	}
	defer TuneGC(jobs, opts.Slurp, ios.Getenv("GOGC") != "")()
	var writeFrame func([]byte) error
	if bs, ok := w.snk.(*cli.BinarySink); ok { // a frame kept is written as read
		writeFrame = func(frame []byte) error {
			if err := bs.WriteFrame(frame); err != nil {
				return cli.Failure(out, err)
			}
			return nil
		}
	}
	res, runErr := q.RunInputs(ctx, qi, RunOptions{Vars: varValues, NullInput: opts.NullInput, Slurp: opts.Slurp, WriteFrame: writeFrame,
		Workers: jobs, MaxSize: opts.MaxSize, Format: w.format, Encode: w.appendResult, Stderr: ios.ErrOut, Idle: out.Flush,
		Write: func(b []byte) error {
			if err := w.snk.Write(b); err != nil {
				return cli.Failure(out, err)
			}
			return nil
		},
		Fail: func(err error, where func() string) error {
			if werr := cli.Failure(out, nil); werr != nil {
				return werr
			}
			if err := out.Flush(); err != nil {
				return err
			}
			prefix := ""
			if !opts.NullInput {
				prefix = where() + ": "
			}
			rep.Errorf("%s%s", prefix, Message(err))
			return nil // jq goes on with the next input
		}})
	var exceeded *membound.ExceededError
	switch {
	case runErr != nil && runErr == ctx.Err() && errors.As(context.Cause(ctx), &exceeded):
		runErr = &commandExit{code: ExitRuntime, err: fmt.Errorf("query %s", exceeded),
			hint: "a filter that recurses or collects without end (def f: 1+f; f) never ends; a larger --max-memory lets one that does end use more"}
	case runErr != nil && runErr == ctx.Err():
		runErr = &commandExit{code: ExitRuntime, err: fmt.Errorf("the filter ran longer than --timeout %s", opts.Timeout),
			hint: "a longer --timeout gives it more time"}
	}
	var tl *TooLargeError
	if errors.As(runErr, &tl) {
		runErr = cli.InvalidError(tl, "raise --max-size if such text is expected")
	}
	if re, ok := runErr.(*records.Error); ok && re.Kind == records.BadFrame {
		runErr = cli.FrameError(re.Name, re.Err, false) // the hint names query's --keep-going
	}
	runErr = cli.SourceError(runErr)
	if runErr != nil && out.Err() != nil {
		runErr = outputFailure{out.Err()}
	}
	if runErr == nil {
		runErr = outputFailed(w.snk.End())
	}
	if runErr != nil {
		out.Abort()
		return runErr
	}
	if opts.To != codec.TOON { // cli.WriteTOON has committed it
		if err := out.Commit(); err != nil {
			return outputFailed(err)
		}
	}
	code := res.ExitStatus(opts.ExitStatus)
	if skipped.bad > 0 {
		// as decode --keep-going ends: 1 when a frame was skipped, unless
		// the filter failed (5)
		rep.Errorf("%d bad %s skipped", skipped.bad, cli.Plural(skipped.bad, "frame", "frames"))
		if code != ExitRuntime {
			code = cli.ExitInvalid
		}
	}
	if code != 0 {
		return &commandExit{code: code}
	}
	return nil
}

// keptGoing counts the bad frames and capture problems that --keep-going
// passed over.
type keptGoing struct{ bad int }

// skip is InputOptions.Skip for --keep-going: each bad frame or
// capture problem reported as decode --keep-going reports it, with how
// the reader moved on.
func (k *keptGoing) skip(rep *cli.Reporter) func(*records.Error, *kado.Moved) {
	return func(e *records.Error, moved *kado.Moved) {
		k.bad++
		if e.Kind == records.BadFrame {
			rep.Report(cli.FrameError(e.Name, e.Err, true), true)
		} else {
			rep.Report(cli.CaptureError(e.Name, e.Err, true), true)
		}
		if moved != nil {
			cli.MoveNotes(rep.Notef, e.Err, *moved)
		}
	}
}

// resultWriter writes query's results: jq's JSON, or --to a format.
type resultWriter struct {
	format Format
	snk    cli.Sink
	jq     bool // the results are written as jq writes them
}

func newResultWriter(ios *cli.IOStreams, opts *Command, out *cli.Output) (*resultWriter, error) {
	w := &resultWriter{jq: opts.To == ""}
	w.format = Format{Indent: opts.Indent, Tab: opts.Tab, Sort: opts.Sort, ASCII: opts.ASCII, Raw: opts.Raw, Join: opts.Join}
	if opts.Compact || opts.To != "" {
		w.format.Indent, w.format.Tab = 0, false
	}
	switch opts.To {
	case "":
		w.snk = records.SinkFunc(func(b []byte) error { _, err := out.Write(b); return err })
	case codec.NDJSON:
		w.snk = &records.NDJSONSink{W: out}
	case codec.Binary:
		if err := cli.RefuseBinaryTTY(ios, ""); err != nil {
			return nil, err
		}
		w.snk = &cli.BinarySink{BinarySink: records.BinarySink{W: kado.NewWriter(out, kado.CompressAuto), Header: kado.EncodeStreamOptions{Now: time.Now}, Seq: 1, What: "result"}}
	case codec.TOON:
		w.snk = &toonResults{DocumentSink: records.DocumentSink{Name: "the results", Single: true}, ios: ios, out: out}
	case codec.Tabular:
		ts, err := records.NewSpooledTable(&records.TableSink{What: "result", Name: "the results", Max: 5}, cli.IOError)
		if err != nil {
			return nil, err
		}
		w.snk = &tableResults{SpooledTable: ts, rep: cli.NewReporter(ios), out: out}
	}
	return w, nil
}

// appendResult appends what the result v is written as, with enc: as jq
// writes it (Encoder.AppendResult), or its JSON for a format's sink.
func (w *resultWriter) appendResult(enc *Encoder, dst []byte, v any) []byte {
	if w.jq {
		return enc.AppendResult(dst, v)
	}
	return enc.Append(dst, v)
}

// toonResults writes the results as one TOON document, as encode --to
// toon writes its input: one result as itself, several (or none) as an
// array of them. They are held until the end, since TOON declares every
// array's length before its items.
type toonResults struct {
	records.DocumentSink
	ios *cli.IOStreams
	out *cli.Output
}

func (t *toonResults) End() error {
	// cli.WriteTOON commits the output itself
	return cli.WriteTOON(t.ios, t.out, nil, &cli.Document{Document: t.Document()}, toonx.EncodeOptions{IndentSize: toon.DefaultIndentSize, Delimiter: byte(toon.Comma)})
}

// tableResults writes the results, objects, as a Genesis table, as convert
// --to tabular writes records (records.TableSink): the rows go to a
// temporary file as they come, the header is written at the end, and a
// table that would not read back as written is refused.
type tableResults struct {
	*records.SpooledTable
	rep *cli.Reporter
	out *cli.Output
}

func (t *tableResults) Write(rec []byte) error {
	return cli.RowError(t.SpooledTable.Write(rec), "a table holds objects: --to ndjson takes any results")
}

func (t *tableResults) End() error {
	defer t.Remove()
	if lossy := t.Check(); lossy != nil {
		return cli.RefuseLossy(t.rep, lossy, "--to ndjson writes them as they are")
	}
	r := t.Report()
	if r.Deep > 0 {
		t.rep.Warnf("the results: %s", *r.FirstDeep)
	}
	if err := t.WriteTable(t.out, nil); err != nil {
		return cli.Failure(t.out, err)
	}
	return nil
}
