package cmd

import (
	"fmt"
	"os"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/membound"
	"github.com/toonkit/toonkit/internal/query"
)

// queryFlags are query's flags that its checks turn into query.Command's
// fields.
type queryFlags struct {
	from, to  string
	fromFile  string // -f: the filter's file
	maxMemory string // "auto", 0 or a size
	maxSize   *size.Flag
	capture   cli.CaptureFlags // --port, --conn
}

func newQueryCmd(ios *cli.IOStreams, runF func(*query.Command) error) *cobra.Command {
	opts := &query.Command{}
	flags := &queryFlags{maxSize: size.NewBytesFlag("max-size", 1<<30)}
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
			if flags.fromFile != "" {
				b, err := os.ReadFile(flags.fromFile)
				if err != nil {
					return cli.UsageErrorf("", "--from-file: cannot read %s: %s", flags.fromFile, cli.PathErrText(err))
				}
				opts.Filter, opts.Inputs = string(b), args
			} else if len(args) == 0 {
				return cli.UsageErrorf(fmt.Sprintf("run '%s --help' for usage", c.CommandPath()), "no FILTER: give one, as jq takes it ('.' passes the input through)")
			} else {
				opts.Filter, opts.Inputs = args[0], args[1:]
			}
			if err := checkQueryFlags(opts, flags, c); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return query.RunCommand(ios, opts)
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
	var posArgs, posJSON bool // query.Args has moved the values to --positional
	f.BoolVar(&posArgs, "args", false, "the arguments after it (and after FILTER) are strings in $ARGS.positional, not files")
	f.BoolVar(&posJSON, "jsonargs", false, "the arguments after it (and after FILTER) are JSON values in $ARGS.positional, not files")
	f.StringArrayVar(&opts.Positional, "positional", nil, "")
	_ = f.MarkHidden("positional")
	f.StringVarP(&flags.fromFile, "from-file", "f", "", "read the filter from `FILE` (every argument is then an input)")
	f.StringVar(&flags.from, "from", "", "the input format: json, ndjson, toon, tabular, binary, yaml, csv, tsv (detected when absent; yaml, csv, tsv by the extension .yaml, .yml, .csv, .tsv)")
	addCSVStringsFlag(f, &opts.CSVStrings)
	addCaptureFlags(f, &flags.capture)
	f.BoolVar(&opts.Payload, "payload", false, "binary frames: the payloads alone, not decode's records")
	f.BoolVar(&opts.KeepGoing, "keep-going", false, "binary frames and captures: report bad frames and holes, skip them and go on (exit status 1 at the end), as decode does")
	f.StringVar(&flags.to, "to", "", "write the results as ndjson, toon, tabular or binary instead of jq's JSON")
	f.DurationVar(&opts.Timeout, "timeout", 0, "end the run with exit status 5 after `DURATION` (e.g. 10s; 0: no limit)")
	f.Var(flags.maxSize, "max-size", "the largest input value, frame or line (-R), and the largest text of -R -s (all the inputs together) and of a --rawfile FILE, in `BYTES`")
	f.StringVar(&flags.maxMemory, "max-memory", "auto", "end the run with exit status 5 when the filter's heap passes `SIZE` (e.g. 512MiB, 8GiB; 0: no bound; auto: half of the system's memory)")
	f.IntVar(&opts.Jobs, "jobs", 0, "run the filter on `N` workers (JSON and NDJSON inputs; see above), output byte-identical to --jobs 1 (default: the usable CPUs, GOMAXPROCS)")
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"json", "ndjson", "toon", "tabular", "binary", "yaml", "csv", "tsv"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("to", cobra.FixedCompletions([]string{"ndjson", "toon", "tabular", "binary"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func checkQueryFlags(opts *query.Command, flags *queryFlags, c *cobra.Command) error {
	hint := fmt.Sprintf("run '%s --help' for usage", c.CommandPath())
	if opts.Indent < 0 || opts.Indent > 7 {
		return cli.UsageErrorf(hint, "--indent: want 0 to 7 spaces, found %d", opts.Indent)
	}
	if err := flags.maxSize.Err(); err != nil {
		return cli.UsageErrorf(hint, "%v", err)
	}
	opts.MaxSize = flags.maxSize.N()
	if flags.maxMemory == "auto" {
		opts.MaxMemory = membound.Default()
	} else if n, err := query.ParseMemory(flags.maxMemory); err != nil {
		return cli.UsageErrorf(hint, "--max-memory: %s", err)
	} else if n > 0 && n < query.MinMemory {
		return cli.UsageErrorf(hint, "--max-memory: want 0 (no bound) or at least %s, found %s", membound.Format(query.MinMemory), membound.Format(n))
	} else {
		opts.MaxMemory = n
	}
	if opts.Timeout < 0 {
		return cli.UsageErrorf(hint, "--timeout: want a duration of 0 or more, found %s", opts.Timeout)
	}
	if flags.from != "" {
		f, err := codec.Parse(flags.from, codec.JSON, codec.NDJSON, codec.TOON, codec.Tabular, codec.Binary, codec.YAML, codec.CSV, codec.TSV)
		if err != nil {
			return cli.UsageErrorf(hint, "--from: %s", err)
		}
		opts.From = f
	}
	if err := checkCSVStrings(opts.CSVStrings, opts.From); err != nil {
		return err
	}
	if err := flags.capture.Check(); err != nil {
		return err
	}
	opts.Capture = flags.capture.Options(0)
	if flags.to != "" {
		f, err := codec.Parse(flags.to, codec.NDJSON, codec.TOON, codec.Tabular, codec.Binary)
		if err != nil {
			return cli.UsageErrorf("without --to, query writes jq's JSON", "--to: %s", err)
		}
		opts.To = f
	}
	return nil
}
