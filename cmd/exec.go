package cmd

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/narratoria/host"
	"github.com/toonkit/toonkit/internal/size"
)

// ExecOptions are the options of `toonkit exec` (host.Exec).
type ExecOptions = host.Exec

func newExecCmd(ios *cli.IOStreams, runF func(*ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{Interrupt: setInterruptHook}
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
			return host.RunExec(ios, opts)
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
