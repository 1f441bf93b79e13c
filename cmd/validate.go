package cmd

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/report"
	"github.com/toonkit/toonkit/internal/size"
	"github.com/toonkit/toonkit/internal/validate"
	"github.com/toonkit/toonkit/internal/version"
	"github.com/toonkit/toonkit/toon"
)

// ValidateOptions are the options of `toonkit validate`.
type ValidateOptions struct {
	IO               *cli.IOStreams
	Inputs           []string
	As               codec.Format // "": detected per file
	Strict           bool
	MaxErrors        int // 0: no limit
	PrintSchema      string
	Schema           string // --schema FILE
	MaxFrameSize     int
	Indent           int // --indent: spaces per level of TOON documents
	Jobs             int // workers; 0: the usable CPUs
	cli.CaptureFlags     // --port, --conn
	reportFlags          // --report, --junit-cases
}

func newValidateCmd(ios *cli.IOStreams, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: ios}
	var as string
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "validate [--as FORMAT] [--schema FILE] [--report text|json|github|junit|sarif] [--strict] [--max-errors N] [--port N] [-j N] FILE...|-",
		Short: "Check messages against the rules of their format, for CI",
		Long: `Validate checks every record of every file against the rules of its format
(binary, pcap, tabular, toon, chiffon, trace, narratoria; detected, or named
with --as) or against a JSON Schema (--schema), and reports each rule broken
with its place, its stable code and its severity. A bad record does not stop
the check. A TOON document is checked in strict mode (spec v4.4), every
problem found in one run (TOON001-TOON011).

EXIT STATUS
  0  no error (warnings alone pass, unless --strict)
  1  errors were found (or, with --strict, warnings)
  2  usage error
  3  a file could not be read (the others are still checked)

The full reference: docs/commands/validate.md, or man toonkit-validate.`,
		Example: `  # a capture of frames, in CI
  toonkit validate capture.bin

  # a capture's findings name the connection and direction (exit status 1)
  toonkit validate session.pcapng

  # a damaged capture: every bad frame is found (exit status 1)
  toonkit validate damaged.bin

  # annotations on a pull request, from a GitHub Actions step (exit status 1)
  toonkit validate --report github damaged.bin users.toon

  # the findings as data
  toonkit validate --report json capture.bin users.toon

  # test results for GitLab or Jenkins, and code scanning alerts for GitHub (exit status 1)
  toonkit validate --report junit damaged.bin users.toon > validate.xml
  toonkit validate --report sarif damaged.bin > validate.sarif

  # a TOON document: every problem, each with its line, column and code (exit status 1)
  printf 'a: 1\nb[3]: x,y\nc: "open\n' > bad.toon; toonkit validate bad.toon agent.toon

  # your own JSON Schema, on JSON, NDJSON, TOON or frames (exit status 1)
  toonkit validate --schema orders.schema.json orders.json orders.toon

  # the schema of STATUS payloads, and of Chiffon messages
  toonkit validate --print-schema binary-status
  toonkit validate --print-schema chiffon > chiffon.schema.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if err := opts.reportFlags.check(report.Formats); err != nil {
				return err
			}
			if as != "" {
				if opts.As, err = codec.Parse(as, validate.Formats(opts.Schema != "")...); err != nil {
					return cli.UsageErrorf("", "--as: %v", err)
				}
			}
			if opts.MaxErrors < 0 {
				return cli.UsageErrorf("", "--max-errors: want 0 (no limit) or more, found %d", opts.MaxErrors)
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
			if opts.PrintSchema == "" {
				if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
					return err
				}
			} else if len(args) > 0 || opts.Schema != "" {
				return cli.UsageErrorf("", "--print-schema takes no FILE and no --schema")
			}
			if err := checkIndent(opts.Indent); err != nil {
				return err
			}
			// TOON with a schema is read once, by the schema's pass.
			if validate.HasRules(opts.As) && opts.As != codec.TOON && opts.Schema != "" && slices.Contains(opts.Inputs, "-") {
				return cli.UsageErrorf("save the input to a file", "--schema with --as %s reads each input twice: not standard input", opts.As)
			}
			if runF != nil {
				return runF(opts)
			}
			return runValidate(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&as, "as", "", "the format of every file: binary, tabular, toon, chiffon, trace or narratoria; detected per file when absent")
	opts.reportFlags.add(c, report.Formats)
	f.BoolVar(&opts.Strict, "strict", false, "warnings fail the check too")
	f.IntVar(&opts.MaxErrors, "max-errors", 0, "stop after `N` errors (0: no limit)")
	f.StringVar(&opts.PrintSchema, "print-schema", "", "print the message schema `NAME` and exit ("+strings.Join(validate.SchemaNames(), ", ")+")")
	f.StringVar(&opts.Schema, "schema", "", "check each record against the JSON Schema `FILE` (with --as a format with rules, as well)")
	f.Var(maxSize, "max-frame-size", "largest frame, line or record accepted")
	f.IntVar(&opts.Indent, "indent", toon.DefaultIndentSize, "TOON: spaces per indentation level of the documents")
	addJobsFlag(f, &opts.Jobs, "check frames and messages")
	addCaptureFlags(f, &opts.CaptureFlags)
	_ = c.RegisterFlagCompletionFunc("as", cobra.FixedCompletions([]string{"binary", "tabular", "chiffon", "trace", "narratoria", "json", "ndjson", "toon"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("print-schema", cobra.FixedCompletions(validate.SchemaNames(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runValidate(opts *ValidateOptions) error {
	return validate.RunCommand(&validate.Command{IO: opts.IO, Inputs: opts.Inputs, As: opts.As, MaxErrors: opts.MaxErrors,
		PrintSchema: opts.PrintSchema, Schema: opts.Schema, MaxFrameSize: opts.MaxFrameSize, TOONIndent: opts.Indent, Jobs: opts.Jobs,
		Capture: opts.CaptureFlags.Options(0),
		NewReport: func(w io.Writer) (validate.Reporter, error) {
			ro, err := opts.reportOptions(opts.IO, opts.Strict)
			if err != nil {
				return nil, err
			}
			return report.NewValidate(w, ro), nil
		}})
}

// reportFlags are --report and --junit-cases, of validate and verify.
type reportFlags struct {
	Report     string
	JUnitCases int
}

func (rf *reportFlags) add(c *cobra.Command, formats []string) {
	c.Flags().StringVar(&rf.Report, "report", "text", "report format: "+report.Names(formats))
	c.Flags().IntVar(&rf.JUnitCases, "junit-cases", report.DefaultMaxCases, "junit report: list at most `N` records with findings per file, the rest counted in one test case (0: all)")
	_ = c.RegisterFlagCompletionFunc("report", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// check refuses a --report format not in formats.
func (rf *reportFlags) check(formats []string) error {
	if err := report.CheckFormat(rf.Report, formats); err != nil {
		return cli.UsageErrorf("", "--report: %v", err)
	}
	return nil
}

// reportOptions are the options of the report: colors on a terminal, the
// clock (stopped at SOURCE_DATE_EPOCH when it is set).
func (rf *reportFlags) reportOptions(ios *cli.IOStreams, strict bool) (report.Options, error) {
	now, err := cli.Clock()
	o := report.Options{Format: rf.Report, Strict: strict, Now: now, MaxCases: rf.JUnitCases, Version: version.String()}
	if o.MaxCases == 0 {
		o.MaxCases = -1
	}
	if rf.Report == report.Text {
		o.Paint = ios.StdoutPaint()
	}
	return o, err
}
