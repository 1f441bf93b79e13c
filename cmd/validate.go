package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/toonkit/toonkit/pkg/records"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/fatih/color"
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/pkg/capture"
	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/validate"
)

// ValidateOptions are the options of `toonkit validate`.
type ValidateOptions struct {
	IO           *IOStreams
	Inputs       []string
	As           codec.Format // "": detected per file
	Report       string       // text, json or github
	Strict       bool
	MaxErrors    int // 0: no limit
	PrintSchema  string
	Schema       string // --schema FILE
	user         *validate.UserSchema
	MaxFrameSize int
	Jobs         int // workers; 0: the usable CPUs
	CaptureFlags     // --port, --conn
}

func newValidateCmd(ios *IOStreams, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: ios}
	var as, maxSize string
	c := &cobra.Command{
		Use:   "validate [--as FORMAT] [--schema FILE] [--report text|json|github] [--strict] [--max-errors N] [--port N] [-j N] FILE...|-",
		Short: "Check messages against the rules of their format, for CI",
		Long: `Validate checks every record of every file against the rules of its format
and reports each rule broken: where (file:line:column for text, frame and byte
offset for binary frames), the record, the JSON pointer of the field, a
stable code, a severity, and what was expected and what was found. A bad
record does not stop the check: the next one is read, and then the next file.

Formats (detected per file without --as; JSON messages by the fields of
the first one):
  binary      Kado frames: the spec's four rules per frame (BIN001-BIN006),
              each payload against its type's schema (BIN010-BIN023), and
              warnings: sequence ids that do not go up, timestamps that go
              back, RLE oddities, bytes after the last frame (BIN030-BIN034)
  pcap        packet captures (pcap, pcapng): each TCP connection's frames
              checked as binary frames are (per direction), each finding
              naming the connection and direction ("CONN DIR: frame N at
              byte X"); holes (CAP001), WebSocket errors (CAP002),
              connections not followed (CAP003), with --port a direction
              that is not frames (CAP004)
  tabular     Genesis A2A tables: header and version, cells per row, escapes,
              UTF-8, line length (TAB001-TAB005)
  chiffon     Chiffon envelopes and payloads (CHF001-CHF064), across the
              stream: repeated message_id, request_id reused with another
              payload, output chunks that do not tile, a second work_result,
              work_status after work_result (CHF050-CHF054)
  trace       AOP trace events (AOP001-AOP041); seq strictly increasing per
              run_id (a gap is a warning), signature equal to meta.signature
              (AOP050-AOP052)
  narratoria  Narratoria tool events, one per LF-ended line (NAR001-NAR003),
              per type (NAR010-NAR071), and across the stream: unique assetId,
              exactly one done, events after done, an error not followed by
              done with ok false, an unknown type (NAR080-NAR084)
--schema FILE checks each record against your JSON Schema instead (draft by
its $schema, 2020-12 by default, formats asserted, $refs to files beside it,
never fetched): each JSON value of JSON or NDJSON, a TOON document, a table's
rows, frame payloads (/payload/...), whatever protocol; SCH001 or the x-code
of the schema's node, SCH000 a record that is not JSON. With --as naming a
format with rules too, both run (the file is read twice: not stdin).
JSON, a JSON array of messages and NDJSON are all read for chiffon and
trace; narratoria is NDJSON by its spec. -j N checks binary frames and
chiffon, trace and narratoria messages on N workers, the rules across the
stream in input order: the report is that of -j 1, byte for byte. A
capture is checked on one worker, whatever -j says.

Reports (--report): text, one line per finding and a summary line, colored
on a terminal; json, one object {"ok","files","records","errors",
"warnings","findings"}; github, workflow commands that GitHub Actions turns
into annotations. --print-schema NAME prints a message schema (JSON Schema
2020-12, x-code and x-message as $comment: ajv --strict takes it).

EXIT STATUS
  0  no error (warnings alone pass, unless --strict)
  1  errors were found (or, with --strict, warnings)
  2  usage error
  3  a file could not be read (the others are still checked)`,
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

  # your own JSON Schema, on JSON, NDJSON, TOON or frames (exit status 1)
  toonkit validate --schema orders.schema.json orders.json orders.toon

  # the schema of STATUS payloads, and of Chiffon messages
  toonkit validate --print-schema binary-status
  toonkit validate --print-schema chiffon > chiffon.schema.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if err := checkReport(opts.Report); err != nil {
				return err
			}
			if as != "" {
				if opts.As, err = codec.Parse(as, validate.Formats(opts.Schema != "")...); err != nil {
					return usageErrorf("", "--as: %v", err)
				}
			}
			if opts.MaxErrors < 0 {
				return usageErrorf("", "--max-errors: want 0 (no limit) or more, found %d", opts.MaxErrors)
			}
			if opts.Jobs, err = workers(opts.Jobs); err != nil {
				return err
			}
			if err := opts.CaptureFlags.check(); err != nil {
				return err
			}
			if opts.MaxFrameSize, err = parseSize(maxSize); err != nil {
				return usageErrorf("", "--max-frame-size: %v", err)
			}
			if opts.PrintSchema == "" {
				if opts.Inputs, err = inputNames(ios, args, c.CommandPath()); err != nil {
					return err
				}
			} else if len(args) > 0 || opts.Schema != "" {
				return usageErrorf("", "--print-schema takes no FILE and no --schema")
			}
			if validate.HasRules(opts.As) && opts.Schema != "" && slices.Contains(opts.Inputs, "-") {
				return usageErrorf("save the input to a file", "--schema with --as %s reads each input twice: not standard input", opts.As)
			}
			if runF != nil {
				return runF(opts)
			}
			return runValidate(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&as, "as", "", "the format of every file: binary, tabular, chiffon, trace or narratoria; detected per file when absent")
	addReportFlag(c, &opts.Report)
	f.BoolVar(&opts.Strict, "strict", false, "warnings fail the check too")
	f.IntVar(&opts.MaxErrors, "max-errors", 0, "stop after `N` errors (0: no limit)")
	f.StringVar(&opts.PrintSchema, "print-schema", "", "print the message schema `NAME` and exit ("+strings.Join(validate.SchemaNames(), ", ")+")")
	f.StringVar(&opts.Schema, "schema", "", "check each record against the JSON Schema `FILE` (with --as a format with rules, as well)")
	f.StringVar(&maxSize, "max-frame-size", "64MiB", "largest frame, line or record accepted")
	addJobsFlag(f, &opts.Jobs, "check frames and messages")
	opts.CaptureFlags.add(f)
	_ = c.RegisterFlagCompletionFunc("as", cobra.FixedCompletions([]string{"binary", "tabular", "chiffon", "trace", "narratoria", "json", "ndjson", "toon"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("print-schema", cobra.FixedCompletions(validate.SchemaNames(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runValidate(opts *ValidateOptions) error {
	if opts.PrintSchema != "" {
		b, err := validate.ExportSchema(opts.PrintSchema)
		if err != nil {
			return usageErrorf("", "--print-schema: %v", err)
		}
		_, err = opts.IO.Out.Write(b)
		return err
	}
	if opts.Schema != "" && opts.user == nil {
		var err error
		if opts.user, err = loadSchema(opts.Schema); err != nil {
			return err
		}
	}
	rep := newReporter(opts.IO)
	out := bufio.NewWriter(opts.IO.Out)
	defer out.Flush()
	var paintFn validate.Paint
	if opts.Report == "text" && opts.IO.ColorStdout() {
		c := true
		roles := map[validate.Role]func(string) string{
			validate.RoleWhere:   paint(c, color.Bold),
			validate.RoleError:   paint(c, color.FgRed, color.Bold),
			validate.RoleWarning: paint(c, color.FgYellow, color.Bold),
			validate.RolePointer: paint(c, color.FgCyan),
			validate.RoleCode:    paint(c, color.Faint),
		}
		paintFn = func(r validate.Role, s string) string {
			if p := roles[r]; p != nil {
				return p(s)
			}
			return s
		}
	}
	sum := validate.Summary{Strict: opts.Strict}
	var findings []validate.Finding
	stopped := false
	emit := func(f validate.Finding) bool {
		sum.Add(f)
		switch opts.Report {
		case "text":
			validate.WriteText(out, f, paintFn)
		case "github":
			validate.WriteGitHub(out, f)
		default:
			findings = append(findings, f)
		}
		if opts.MaxErrors > 0 && sum.Errors >= opts.MaxErrors {
			stopped = true
			return false
		}
		return true
	}
	unreadable := 0
	for _, name := range opts.Inputs {
		if stopped {
			break
		}
		n, err := validateFile(opts, name, emit)
		sum.Records += n
		if err != nil && exitCode(err, true) == ExitIO {
			out.Flush()
			rep.report(err, true)
			unreadable++
			continue
		}
		if err != nil {
			// A file that is not a format validate can tell: a finding,
			// in every report, with the hint on stderr.
			msg := strings.TrimPrefix(err.Error(), name+": ")
			emit(validate.Finding{File: name, Frame: -1, Record: -1, Code: "TK001", Severity: validate.Error, Message: msg})
			var ee *ExitError
			if errors.As(err, &ee) {
				out.Flush()
				rep.hint(ee.Hint)
			}
		}
		sum.Files++
	}
	switch opts.Report {
	case "json":
		out.Write(validate.AppendJSON(nil, sum, findings))
	default:
		line := sum.Line()
		if stopped {
			line += fmt.Sprintf(" (stopped after %d errors: --max-errors)", opts.MaxErrors)
		}
		fmt.Fprintln(out, line)
	}
	if err := out.Flush(); err != nil {
		return ioErrorf("cannot write the report: %s", pathErrText(err))
	}
	switch {
	case unreadable > 0:
		return reported(ExitIO)
	case !sum.OK():
		return reported(ExitInvalid)
	}
	return nil
}

// validateFile checks one file and says how many records it holds.
func validateFile(opts *ValidateOptions, name string, emit validate.Emit) (int, error) {
	in, err := openInput(opts.IO, name)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	run := validate.Run{As: opts.As, User: opts.user, Options: validate.Options{MaxFrameSize: opts.MaxFrameSize, Workers: opts.Jobs}, Capture: opts.CaptureFlags.options(0)}
	n, err := run.File(validate.Input{Name: in.Name, R: bufio.NewReaderSize(in.R, 64<<10), Reopen: func() (io.ReadCloser, error) { return os.Open(name) }}, emit)
	var fe *capture.FormatError
	var re *records.Error
	var hinted interface{ Hint() string }
	switch {
	case err == nil:
		return n, nil
	case errors.As(err, &hinted):
		return n, invalidError(fmt.Errorf("%s: %w", in.Name, err), hinted.Hint())
	case errors.As(err, &re) && re.Kind != records.ReadFailed:
		return n, invalidError(err, "")
	case errors.As(err, &fe):
		return n, invalidError(fmt.Errorf("%s: %w", in.Name, err), "")
	}
	if cerr, ok := noConnError(in.Name, err); ok {
		return n, cerr
	}
	return n, readError(in.Name, err)
}

// loadSchema loads --schema: exit status 3 when a file cannot be read, 2
// for a schema not valid or not usable offline.
func loadSchema(path string) (*validate.UserSchema, error) {
	us, err := validate.LoadUserSchema(path)
	var se *validate.SchemaError
	if errors.As(err, &se) && se.Problem == validate.SchemaUnreadable {
		return nil, &ExitError{Code: ExitIO, Err: fmt.Errorf("--schema: %w", err)}
	} else if errors.As(err, &se) {
		return nil, usageErrorf(se.Hint(), "--schema: %v", err)
	}
	return us, err
}

// addReportFlag adds --report, the report format of validate and verify.
func addReportFlag(c *cobra.Command, report *string) {
	c.Flags().StringVar(report, "report", "text", "report format: text, json or github")
	_ = c.RegisterFlagCompletionFunc("report", cobra.FixedCompletions([]string{"text", "json", "github"}, cobra.ShellCompDirectiveNoFileComp))
}

// checkReport refuses a --report format that is not text, json or github.
func checkReport(report string) error {
	switch report {
	case "text", "json", "github":
		return nil
	}
	return usageErrorf("", "--report: want text, json or github, found %q", report)
}
