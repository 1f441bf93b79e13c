package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/membound"
	"github.com/toonkit/toonkit/internal/query"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
	"github.com/toonkit/toonkit/toon"
)

// QueryOptions are query's flags and arguments.
type QueryOptions struct {
	IO     *cli.IOStreams
	Filter string
	Inputs []string

	Compact, Raw, Join, Sort, Tab, ASCII bool
	Indent                               int
	NullInput, Slurp, ExitStatus         bool
	RawInput, Payload, KeepGoing         bool
	Args, ArgJSON, SlurpFile, RawFile    []string // NAME=VALUE (or FILE)
	PosArgs, PosJSON                     bool     // --args, --jsonargs
	Positional                           []string // "s:" or "j:" and the value (query.Args)
	From, To                             string
	FromFile                             string // -f: the filter's file
	Timeout                              time.Duration
	MaxSize                              int
	MaxMemory                            string // "auto", 0 or a size
	Jobs                                 int
	cli.CaptureFlags                     // --port, --conn

	from      codec.Format
	to        codec.Format
	maxMemory int64 // 0: no bound
	maxSize   *size.Flag
}

func newQueryCmd(ios *cli.IOStreams, runF func(*QueryOptions) error) *cobra.Command {
	opts := &QueryOptions{IO: ios, maxSize: size.NewBytesFlag("max-size", 1<<30)}
	c := &cobra.Command{
		Use:   "query FILTER [FILE...|-]",
		Short: "Run a jq filter over JSON, NDJSON, TOON, tables or binary frames",
		Long: `Query runs FILTER, in jq's language (the gojq implementation), over every
input: each JSON value of a JSON or NDJSON input, a TOON document, each row
of a Genesis table, each Kado binary frame as decode's record (or its payload
alone with --payload). Its flags are jq's; -j is jq's
--join-output, and the worker count is --jobs N.

EXIT STATUS
  0  success
  1  with -e: the last output was false or null
  2  usage and input errors (bad flags, unreadable or malformed input,
     with toonkit's positioned message; results before the bad record
     stay written)
  3  the filter does not compile (the filter is shown with a caret), or
     the output cannot be written (as for every toonkit command)
  4  with -e: there was no output
  5  a runtime error (the run goes on with the next input; the last
     error's status), --timeout or --max-memory
  halt_error sets its own status.

The full reference: docs/commands/query.md, or man toonkit-query.`,
		Example: `  # a field of every record, as raw strings
  toonkit query -r '.[].name' users.json

  # NDJSON in, compact JSON out, selected records
  toonkit query -c 'select(.status == "analyzing")' messages.ndjson

  # TOON in, integers exact
  toonkit query -c '.orders[] | {id, total}' orders.toon

  # the INSTRUCTION frames of a capture, written back as frames
  toonkit query 'select(.header.typeName == "INSTRUCTION")' capture.bin --to binary > kept.bin

  # a value as TOON; the rows of a table
  toonkit query '.results' data.json --to toon
  toonkit query -c 'select(.active) | .name' users.toon

  # variables, jq's way; -n reads no input
  toonkit query -n --arg who ada --argjson n 3 '{who: $who, n: $n}'

  # -e: exit status 1 when the last output is false or null
  # exit status 1
  toonkit query -e '.[0].missing' users.json

  # a filter that does not compile: exit status 3, with a caret
  # exit status 3
  toonkit query '.users[' users.json`,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.FromFile != "" {
				b, err := os.ReadFile(opts.FromFile)
				if err != nil {
					return cli.UsageErrorf("", "--from-file: cannot read %s: %s", opts.FromFile, cli.PathErrText(err))
				}
				opts.Filter, opts.Inputs = string(b), args
			} else if len(args) == 0 {
				return cli.UsageErrorf(fmt.Sprintf("run '%s --help' for usage", c.CommandPath()), "no FILTER: give one, as jq takes it ('.' passes the input through)")
			} else {
				opts.Filter, opts.Inputs = args[0], args[1:]
			}
			if err := checkQueryFlags(opts, c); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return jqStatus(runQuery(opts))
		},
	}
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cli.UsageErrorf(fmt.Sprintf("run '%s --help' for usage", c.CommandPath()), "%s", err)
	})
	f := c.Flags()
	f.SortFlags = false
	f.BoolVarP(&opts.Compact, "compact-output", "c", false, "compact output, one result per line")
	f.BoolVarP(&opts.Raw, "raw-output", "r", false, "write strings raw, not as JSON")
	f.BoolVarP(&opts.Join, "join-output", "j", false, "like -r, with no newline after each result")
	f.BoolVarP(&opts.ASCII, "ascii-output", "a", false, "write non-ASCII characters as \\uXXXX escapes")
	f.BoolVarP(&opts.Sort, "sort-keys", "S", false, "write object keys sorted")
	f.BoolVar(&opts.Tab, "tab", false, "indent with a tab per level")
	var mono bool
	f.BoolVarP(&mono, "monochrome-output", "M", false, "accepted for jq's sake: the output is never colored")
	f.IntVar(&opts.Indent, "indent", 2, "indent by `N` spaces (0..7; 0 is compact)")
	f.BoolVarP(&opts.NullInput, "null-input", "n", false, "run the filter once, on null (input and inputs read the inputs)")
	f.BoolVarP(&opts.Slurp, "slurp", "s", false, "run the filter once, on an array of all the inputs")
	f.BoolVarP(&opts.ExitStatus, "exit-status", "e", false, "exit status 1 when the last output is false or null, 4 when there is none")
	f.BoolVarP(&opts.RawInput, "raw-input", "R", false, "read lines of text, each a string (with -s: the whole text)")
	f.StringArrayVar(&opts.Args, "arg", nil, "`NAME VALUE`: $NAME is the string VALUE")
	f.StringArrayVar(&opts.ArgJSON, "argjson", nil, "`NAME JSON`: $NAME is the JSON value")
	f.StringArrayVar(&opts.SlurpFile, "slurpfile", nil, "`NAME FILE`: $NAME is the array of the JSON values in FILE")
	f.StringArrayVar(&opts.RawFile, "rawfile", nil, "`NAME FILE`: $NAME is the text of FILE")
	f.BoolVar(&opts.PosArgs, "args", false, "the arguments after it (and after FILTER) are strings in $ARGS.positional, not files")
	f.BoolVar(&opts.PosJSON, "jsonargs", false, "the arguments after it (and after FILTER) are JSON values in $ARGS.positional, not files")
	f.StringArrayVar(&opts.Positional, "positional", nil, "")
	_ = f.MarkHidden("positional")
	f.StringVarP(&opts.FromFile, "from-file", "f", "", "read the filter from `FILE` (every argument is then an input)")
	f.StringVar(&opts.From, "from", "", "the input format: json, ndjson, toon, tabular, binary (detected when absent)")
	addCaptureFlags(f, &opts.CaptureFlags)
	f.BoolVar(&opts.Payload, "payload", false, "binary frames: the payloads alone, not decode's records")
	f.BoolVar(&opts.KeepGoing, "keep-going", false, "binary frames and captures: report bad frames and holes, skip them and go on (exit status 1 at the end), as decode does")
	f.StringVar(&opts.To, "to", "", "write the results as ndjson, toon, tabular or binary instead of jq's JSON")
	f.DurationVar(&opts.Timeout, "timeout", 0, "end the run with exit status 5 after `DURATION` (e.g. 10s; 0: no limit)")
	f.Var(opts.maxSize, "max-size", "the largest input value, frame or line (-R), and the largest text of -R -s (all the inputs together) and of a --rawfile FILE, in `BYTES`")
	f.StringVar(&opts.MaxMemory, "max-memory", "auto", "end the run with exit status 5 when the filter's heap passes `SIZE` (e.g. 512MiB, 8GiB; 0: no bound; auto: half of the system's memory)")
	f.IntVar(&opts.Jobs, "jobs", 0, "run the filter on `N` workers (JSON and NDJSON inputs; see above), output byte-identical to --jobs 1 (default: the usable CPUs, GOMAXPROCS)")
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"json", "ndjson", "toon", "tabular", "binary"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("to", cobra.FixedCompletions([]string{"ndjson", "toon", "tabular", "binary"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func checkQueryFlags(opts *QueryOptions, c *cobra.Command) error {
	hint := fmt.Sprintf("run '%s --help' for usage", c.CommandPath())
	if opts.Indent < 0 || opts.Indent > 7 {
		return cli.UsageErrorf(hint, "--indent: want 0 to 7 spaces, found %d", opts.Indent)
	}
	if err := opts.maxSize.Err(); err != nil {
		return cli.UsageErrorf(hint, "%v", err)
	}
	opts.MaxSize = opts.maxSize.N()
	if opts.MaxMemory == "auto" {
		opts.maxMemory = membound.Default()
	} else if n, err := query.ParseMemory(opts.MaxMemory); err != nil {
		return cli.UsageErrorf(hint, "--max-memory: %s", err)
	} else if n > 0 && n < query.MinMemory {
		return cli.UsageErrorf(hint, "--max-memory: want 0 (no bound) or at least %s, found %s", membound.Format(query.MinMemory), membound.Format(n))
	} else {
		opts.maxMemory = n
	}
	if opts.Timeout < 0 {
		return cli.UsageErrorf(hint, "--timeout: want a duration of 0 or more, found %s", opts.Timeout)
	}
	if opts.From != "" {
		f, err := codec.Parse(opts.From, codec.JSON, codec.NDJSON, codec.TOON, codec.Tabular, codec.Binary)
		if err != nil {
			return cli.UsageErrorf(hint, "--from: %s", err)
		}
		opts.from = f
	}
	if err := opts.CaptureFlags.Check(); err != nil {
		return err
	}
	if opts.To != "" {
		f, err := codec.Parse(opts.To, codec.NDJSON, codec.TOON, codec.Tabular, codec.Binary)
		if err != nil {
			return cli.UsageErrorf("without --to, query writes jq's JSON", "--to: %s", err)
		}
		opts.to = f
	}
	return nil
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
	var qe *queryExit
	if errors.As(err, &qe) {
		return &cli.ExitError{Code: qe.code, Err: qe.err, Reported: qe.err == nil, Excerpt: qe.excerpt, Hint: qe.hint}
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		c := *ee
		c.NotUsage = c.NotUsage || c.Code != cli.ExitUsage
		c.Hint = query.Hint(c.Hint)
		c.Code = query.ExitUsage
		return &c
	}
	return &cli.ExitError{Code: query.ExitUsage, Err: err, NotUsage: true}
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

// queryExit is an outcome of query with jq's exit status.
type queryExit struct {
	code    int
	err     error // nil: reported already, or no message (-e)
	excerpt *jsonv.SyntaxError
	hint    string
}

func (e *queryExit) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// compileFailure renders a filter that does not compile: the filter's line
// with a caret under the place.
func compileFailure(ce *query.CompileError) error {
	se := ce.Syntax()
	return &queryExit{code: query.ExitCompile, err: fmt.Errorf("the filter does not compile: %s: %s", se.Pos, ce.Msg), excerpt: se,
		hint: "see jq's manual for the language: https://jqlang.org/manual/"}
}

// queryVariables returns the names and values of the filter's variables
// (query.Vars.Parse): --arg, --argjson, --slurpfile, --rawfile, and $ARGS.
func queryVariables(opts *QueryOptions, positional []string) ([]string, []any, error) {
	var vs query.Vars
	err := vs.Parse(query.VarFlags{Arg: opts.Args, ArgJSON: opts.ArgJSON, SlurpFile: opts.SlurpFile, RawFile: opts.RawFile,
		Positional: positional, OpenFile: func(name string) (io.ReadCloser, error) { return os.Open(name) }, Open: queryOpen(opts.IO), MaxSize: opts.MaxSize})
	var ve *query.VarError
	var tl *query.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, nil, cli.InvalidError(err, "raise --max-size if such files are expected")
	case errors.As(err, &ve) && ve.Err == query.ErrNoName:
		return nil, nil, cli.UsageErrorf(fmt.Sprintf("give --%s NAME VALUE, or --%s=NAME=VALUE", ve.Flag, ve.Flag), "%s", err)
	case ve != nil && ve.Err == query.ErrNotJSON:
		return nil, nil, cli.UsageErrorf("", "%s", err)
	case ve != nil:
		return nil, nil, cli.IOErrorf("%s", err)
	case err != nil:
		return nil, nil, cli.SourceError(err)
	}
	names, values := vs.Bind()
	return names, values, nil
}

// queryOpen opens query's inputs and --slurpfile's files.
func queryOpen(ios *cli.IOStreams) func(name string) (*query.Opened, error) {
	return func(name string) (*query.Opened, error) {
		in, err := cli.OpenInput(ios, name)
		if err != nil {
			return nil, err
		}
		return &query.Opened{R: in.R, Name: in.Name, Regular: in.Regular(), Close: in.Close}, nil
	}
}

func runQuery(opts *QueryOptions) error {
	ios := opts.IO
	names := opts.Inputs
	positional := opts.Positional
	if len(names) == 0 {
		if !opts.NullInput && ios.IsStdinTTY() {
			return cli.UsageErrorf("give a FILE, or pipe data in: cat data.json | toonkit query FILTER", "no input: standard input is a terminal")
		}
		names = []string{"-"}
	}
	varNames, varValues, err := queryVariables(opts, positional)
	if err != nil {
		return err
	}
	rep := cli.NewReporter(ios)
	var skipped keptGoing
	iopts := query.InputOptions{Names: names, From: opts.from, MaxSize: opts.MaxSize, Payload: opts.Payload, Raw: opts.RawInput, KeepFrames: opts.to == codec.Binary,
		Capture: opts.CaptureFlags.Options(0), Open: queryOpen(ios)}
	if opts.KeepGoing {
		iopts.Skip = skipped.skip(rep)
		iopts.Note = func(name string, err error) { rep.Notef("%s: %v", name, err) } // as decode's
	}
	qi := query.NewInputs(iopts)
	defer qi.Close()
	q, err := query.Compile(opts.Filter, query.Options{
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
		var ce *query.CompileError
		if errors.As(err, &ce) {
			return compileFailure(ce)
		}
		return &queryExit{code: query.ExitCompile, err: err}
	}
	ctx := context.Background()
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	ctx, stop := membound.Watch(ctx, opts.maxMemory)
	defer stop()
	out := cli.NewOutput(ios, "")
	w, err := newQueryWriter(opts, out)
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
	defer query.TuneGC(jobs, opts.Slurp, ios.Getenv("GOGC") != "")()
	var writeFrame func([]byte) error
	if bs, ok := w.snk.(*cli.BinarySink); ok { // a frame kept is written as read
		writeFrame = func(frame []byte) error {
			if err := bs.WriteFrame(frame); err != nil {
				return cli.Failure(out, err)
			}
			return nil
		}
	}
	res, runErr := q.RunInputs(ctx, qi, query.RunOptions{Vars: varValues, NullInput: opts.NullInput, Slurp: opts.Slurp, WriteFrame: writeFrame,
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
			rep.Errorf("%s%s", prefix, query.Message(err))
			return nil // jq goes on with the next input
		}})
	var exceeded *membound.ExceededError
	switch {
	case runErr != nil && runErr == ctx.Err() && errors.As(context.Cause(ctx), &exceeded):
		runErr = &queryExit{code: query.ExitRuntime, err: fmt.Errorf("query %s", exceeded),
			hint: "a filter that recurses or collects without end (def f: 1+f; f) never ends; a larger --max-memory lets one that does end use more"}
	case runErr != nil && runErr == ctx.Err():
		runErr = &queryExit{code: query.ExitRuntime, err: fmt.Errorf("the filter ran longer than --timeout %s", opts.Timeout),
			hint: "a longer --timeout gives it more time"}
	}
	var tl *query.TooLargeError
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
	if opts.to != codec.TOON { // writeTOON has committed it
		if err := out.Commit(); err != nil {
			return outputFailed(err)
		}
	}
	code := res.ExitStatus(opts.ExitStatus)
	if skipped.bad > 0 {
		// as decode --keep-going ends: 1 when a frame was skipped, unless
		// the filter failed (5)
		rep.Errorf("%d bad %s skipped", skipped.bad, cli.Plural(skipped.bad, "frame", "frames"))
		if code != query.ExitRuntime {
			code = cli.ExitInvalid
		}
	}
	if code != 0 {
		return &queryExit{code: code}
	}
	return nil
}

// keptGoing counts the bad frames and capture problems that --keep-going
// passed over.
type keptGoing struct{ bad int }

// skip is query.InputOptions.Skip for --keep-going: each bad frame or
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

// queryWriter writes query's results: jq's JSON, or --to a format.
type queryWriter struct {
	format query.Format
	snk    cli.Sink
	jq     bool // the results are written as jq writes them
}

func newQueryWriter(opts *QueryOptions, out *cli.Output) (*queryWriter, error) {
	w := &queryWriter{jq: opts.to == ""}
	w.format = query.Format{Indent: opts.Indent, Tab: opts.Tab, Sort: opts.Sort, ASCII: opts.ASCII, Raw: opts.Raw, Join: opts.Join}
	if opts.Compact || opts.to != "" {
		w.format.Indent, w.format.Tab = 0, false
	}
	switch opts.to {
	case "":
		w.snk = records.SinkFunc(func(b []byte) error { _, err := out.Write(b); return err })
	case codec.NDJSON:
		w.snk = &records.NDJSONSink{W: out}
	case codec.Binary:
		if err := cli.RefuseBinaryTTY(opts.IO, ""); err != nil {
			return nil, err
		}
		w.snk = &cli.BinarySink{BinarySink: records.BinarySink{W: kado.NewWriter(out, kado.CompressAuto), Header: kado.EncodeStreamOptions{Now: time.Now}, Seq: 1, What: "result"}}
	case codec.TOON:
		w.snk = &toonResults{DocumentSink: records.DocumentSink{Name: "the results", Single: true}, ios: opts.IO, out: out}
	case codec.Tabular:
		ts, err := records.NewSpooledTable(&records.TableSink{What: "result", Name: "the results", Max: 5}, cli.IOError)
		if err != nil {
			return nil, err
		}
		w.snk = &tableResults{SpooledTable: ts, rep: cli.NewReporter(opts.IO), out: out}
	}
	return w, nil
}

// appendResult appends what the result v is written as, with enc: as jq
// writes it (query.Encoder.AppendResult), or its JSON for a format's sink.
func (w *queryWriter) appendResult(enc *query.Encoder, dst []byte, v any) []byte {
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
	// writeTOON commits the output itself
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
