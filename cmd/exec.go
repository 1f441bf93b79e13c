package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/fatih/color"
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/narratoria/host"
	"github.com/toonkit/toonkit/internal/toolproc"
)

// ExecOptions are the options of `toonkit exec`.
type ExecOptions struct {
	IO          *cli.IOStreams
	Tool        string
	Args        []string
	Input       string // the --input value: JSON, or @FILE (@- is stdin); "": no stdin object
	RequestID   string // "": a random UUID
	Operation   string
	ToolName    string // the stdin object's "tool"; "": TOOL's base name
	Timeout     time.Duration
	KillAfter   time.Duration
	StateFile   string
	Report      string // text or json
	MaxLineSize int
}

func newExecCmd(ios *cli.IOStreams, runF func(*ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: ios}
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "exec [--input JSON|@FILE] [--request-id ID] [--timeout 30s] [--state FILE] [--report text|json] -- TOOL [ARGS...]",
		Short: "Run a Narratoria tool and see its protocol live, for tool authors and CI",
		Long: `Exec runs a Narratoria tool as the Narratoria application would: it starts
TOOL with ARGS, reads the events it writes on stdout as they come, checks
each one with validate's Narratoria rules and applies it (state patches,
assets, done), then reports how the tool ended.

EXIT STATUS
  0  the tool exited 0 and its one done event has ok true (warnings
     alone pass: done ok true after an error event is NAR083, a warning,
     as the spec has done.ok decide, 5.3)
  1  done.ok is false, done is missing, a protocol rule is broken, the tool
     exited non-zero or was killed (spec 5.3), or it ran past --timeout
  2  usage error, an --input or --state that is not one JSON object included
  3  the tool could not be started, or --input @FILE or --state could not
     be read
  130 (128 + the signal) the run was interrupted: the tool was ended

The full reference: docs/commands/exec.md, or man toonkit-exec.`,
		Example: `  # the spec's minimum viable tool, with an asset
  toonkit exec -- ./tool.sh

  # its input on stdin, a state to start from, a time limit
  toonkit exec --input '{"room":"cellar"}' --state state.json --timeout 10s -- ./tool.sh

  # a tool that breaks the protocol: reading stops, the tool is ended (exit status 1)
  toonkit exec -- ./tool.sh --sparkle

  # for CI: the NDJSON report, its last line the summary
  toonkit exec --report json -- ./tool.sh | tail -n 1

  # any interpreter, any language
  toonkit exec --timeout 1m -- sh tool.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.UsageErrorf("run 'toonkit exec --help' for usage", "no TOOL to run: toonkit exec [flags] -- TOOL [ARGS...]")
			}
			opts.Tool, opts.Args = args[0], args[1:]
			switch opts.Report {
			case "text", "json":
			default:
				return cli.UsageErrorf("", "--report: want text or json, found %q", opts.Report)
			}
			if opts.Timeout < 0 || opts.KillAfter < 0 {
				return cli.UsageErrorf("", "--timeout and --kill-after: want 0 or more")
			}
			if opts.Input == "" && (c.Flags().Changed("request-id") || c.Flags().Changed("operation") || c.Flags().Changed("tool")) {
				return cli.UsageErrorf("the stdin object is sent only with --input: add --input '{}'", "--request-id, --operation and --tool go in the stdin object")
			}
			if err := cli.SizeOf(maxSize, &opts.MaxLineSize); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runExec(opts)
		},
	}
	f := c.Flags()
	// Flags after TOOL are the tool's.
	f.SetInterspersed(false)
	f.StringVar(&opts.Input, "input", "", "send the spec's stdin object with this `JSON` object as input (@FILE: from a file, @-: from stdin)")
	f.StringVar(&opts.RequestID, "request-id", "", "the stdin object's requestId (default: a random UUID)")
	f.StringVar(&opts.Operation, "operation", "run", "the stdin object's operation")
	f.StringVar(&opts.ToolName, "tool", "", "the stdin object's tool `NAME` (default: TOOL's base name)")
	f.DurationVar(&opts.Timeout, "timeout", 30*time.Second, "end the tool after this long (0: no limit)")
	f.DurationVar(&opts.KillAfter, "kill-after", 5*time.Second, "time the tool has to end after SIGTERM before SIGKILL")
	f.StringVar(&opts.StateFile, "state", "", "the session state to start from: a JSON object in `FILE`")
	f.StringVar(&opts.Report, "report", "text", "report format: text, or json (NDJSON)")
	f.Var(maxSize, "max-frame-size", "longest line accepted from the tool")
	_ = c.RegisterFlagCompletionFunc("report", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("state", cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault))
	return c
}

func runExec(opts *ExecOptions) error {
	rep := cli.NewReporter(opts.IO)
	state, err := execState(opts)
	if err != nil {
		return err
	}
	stdin, requestID, err := execStdin(opts)
	if err != nil {
		return err
	}
	pr := newExecPrinter(opts)
	h := host.New(host.Options{MaxLineSize: opts.MaxLineSize, RequestID: requestID}, state)
	h.OnEvent, h.OnViolation = pr.Event, pr.Violation

	p := toolproc.New(opts.Tool, opts.Args, toolproc.Options{KillAfter: opts.KillAfter, TimeLimit: opts.Timeout, Stderr: pr.Stderr})
	restore := setInterruptHook(p.Interrupt)
	defer restore()
	err = p.Start(stdin)
	var ie *toolproc.InterruptedError
	var pe *toolproc.PipeError
	switch {
	case errors.As(err, &ie):
		return cli.Reported(ie.Code)
	case errors.As(err, &pe):
		return cli.IOErrorf("%v", pe)
	case err != nil:
		if opts.Report == "json" {
			pr.Summary(h.Result(host.Exit{StartError: toolproc.StartFailure(err)}))
			pr.Close()
		}
		return startError(opts.Tool, err)
	}
	if opts.Timeout > 0 {
		t := time.AfterFunc(opts.Timeout, p.Timeout)
		defer t.Stop()
	}

	end, readErr := h.Read(pr.Reader(p.Stdout()))
	p.DoneReading()
	if !end || readErr != nil {
		// The protocol stopped the reading (or it failed): the tool is
		// ended, and what it still writes is not read.
		p.Stdout().Close()
		p.Abort()
	}
	exit := p.Wait()
	switch {
	case errors.Is(readErr, os.ErrClosed):
		// closeAfter closed it: the group was killed, yet the pipe held.
		pr.Flush()
		rep.Warnf("stopped reading the tool's stdout: a process outside its process group still held it open")
	case readErr != nil:
		pr.Flush()
		rep.Errorf("cannot read the tool's stdout: %s", cli.PathErrText(readErr))
	}
	res := h.Result(exit)
	pr.Summary(res)
	if err := pr.Close(); err != nil {
		return cli.IOErrorf("cannot write the report: %s", cli.PathErrText(err))
	}
	if res.ExitCode != 0 {
		return cli.Reported(res.ExitCode)
	}
	return nil
}

// execState reads --state: the session state to start from.
func execState(opts *ExecOptions) (*host.State, error) {
	if opts.StateFile == "" {
		return nil, nil
	}
	b, name, err := readArgFile(opts, opts.StateFile, "--state")
	if err != nil {
		return nil, err
	}
	obj, err := jsonObject("--state "+name, b, opts.MaxLineSize)
	if err != nil {
		return nil, err
	}
	return host.NewState(obj)
}

// execStdin is the stdin object --input asks for, and its requestId; nil
// without --input.
func execStdin(opts *ExecOptions) ([]byte, string, error) {
	if opts.Input == "" {
		return nil, "", nil
	}
	b, what := []byte(opts.Input), "--input"
	if name, ok := strings.CutPrefix(opts.Input, "@"); ok {
		var err error
		if b, name, err = readArgFile(opts, name, "--input"); err != nil {
			return nil, "", err
		}
		what = "--input " + name
	}
	input, err := jsonObject(what, b, opts.MaxLineSize)
	if err != nil {
		return nil, "", err
	}
	tool := opts.ToolName
	if tool == "" {
		tool = filepath.Base(opts.Tool)
	}
	obj, id := host.StdinObject(opts.RequestID, tool, opts.Operation, input)
	return obj, id, nil
}

// readArgFile reads the file a flag names ("-": stdin), up to the line
// limit.
func readArgFile(opts *ExecOptions, name, flag string) ([]byte, string, error) {
	in, err := cli.OpenInput(opts.IO, name)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	b, err := io.ReadAll(io.LimitReader(in.R, int64(opts.MaxLineSize)+1))
	if err != nil {
		return nil, "", cli.ReadError(in.Name, err)
	}
	if len(b) > opts.MaxLineSize {
		return nil, "", cli.UsageErrorf("", "%s %s: larger than --max-frame-size (%d bytes)", flag, in.Name, opts.MaxLineSize)
	}
	return b, in.Name, nil
}

// jsonObject is the one JSON object of b, compact; anything else is a usage
// error, with its place.
func jsonObject(what string, b []byte, max int) ([]byte, error) {
	hint := "--input takes one JSON object, such as '{\"room\":\"cellar\"}', or @FILE"
	if strings.HasPrefix(what, "--state") {
		hint = `a state is one JSON object, such as {"flags":{"torchLit":false}}`
	}
	obj, err := host.ParseObject(b, max)
	var se *jsonv.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("%s:%w", what, se), Excerpt: se, Hint: hint}
	case err != nil:
		return nil, cli.UsageErrorf(hint, "%s: %v", what, err)
	}
	return obj, nil
}

// newExecPrinter is the report's printer (host.Printer), with toonkit's
// colors where they are on.
func newExecPrinter(opts *ExecOptions) *host.Printer {
	po := host.PrinterOptions{JSON: opts.Report == "json", Dim: paint(opts.IO.ColorStderr(), color.Faint)}
	if !po.JSON && opts.IO.ColorStdout() {
		roles := map[host.Role]func(string) string{
			host.RoleLine:    paint(true, color.Faint),
			host.RoleType:    paint(true, color.Bold),
			host.RoleDebug:   paint(true, color.Faint),
			host.RoleInfo:    paint(true, color.FgCyan),
			host.RoleWarn:    paint(true, color.FgYellow, color.Bold),
			host.RoleError:   paint(true, color.FgRed, color.Bold),
			host.RoleOK:      paint(true, color.FgGreen, color.Bold),
			host.RoleFail:    paint(true, color.FgRed, color.Bold),
			host.RoleDim:     paint(true, color.Faint),
			host.RoleLabel:   paint(true, color.Bold),
			host.RoleWhere:   paint(true, color.Bold),
			host.RolePointer: paint(true, color.FgCyan),
		}
		po.Paint = func(r host.Role, s string) string {
			if f := roles[r]; f != nil {
				return f(s)
			}
			return s
		}
	}
	return host.NewPrinter(opts.IO.Out, opts.IO.ErrOut, po)
}

// startError is the error of a tool that cannot be started, with a hint.
func startError(tool string, err error) error {
	msg := toolproc.StartFailure(err)
	hint := ""
	switch {
	case errors.Is(err, exec.ErrNotFound) && !strings.ContainsRune(tool, filepath.Separator):
		if _, serr := os.Stat(tool); serr == nil {
			hint = fmt.Sprintf("a tool in this folder is named with its path: toonkit exec -- ./%s", tool)
		}
	case errors.Is(err, syscall.EACCES):
		hint = fmt.Sprintf("make it executable (chmod +x %s), or name its interpreter: toonkit exec -- sh %s", tool, tool)
	case errors.Is(err, syscall.ENOEXEC):
		hint = fmt.Sprintf("a script starts with a #! line, or name its interpreter: toonkit exec -- sh %s", tool)
	}
	return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("cannot start %s: %s", tool, msg), Hint: hint}
}
