// Package cmd is toonkit's command-line interface: a thin cobra layer over
// the libraries in internal/, toon/ and kado/.
package cmd

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/outfile"
	"github.com/toonkit/toonkit/internal/query"
	"github.com/toonkit/toonkit/internal/version"
	"github.com/toonkit/toonkit/toon"
)

// Main runs toonkit with the process's arguments and returns the exit code.
// SIGINT, SIGTERM and SIGHUP end the run without leaving a temporary output
// file behind, with the shell's exit status for the signal (128 + its number).
func Main() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for sig := range sigs {
			if interrupted(sig) {
				continue // the command ends its child and returns
			}
			outfile.RemoveTemps()
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		}
	}()
	return Run(System(), os.Args[1:])
}

// interruptHook, when set, is given the signals that end a run (SIGINT,
// SIGTERM, SIGHUP) before they do: a command that runs a child process
// (exec) ends the child first, reports, and returns the signal's exit
// status itself. It returns false to let the signal end the run at once.
var interruptHook struct {
	sync.Mutex
	f func(os.Signal) bool
}

// setInterruptHook sets the interrupt hook and returns the function that
// removes it.
func setInterruptHook(f func(os.Signal) bool) (restore func()) {
	interruptHook.Lock()
	interruptHook.f = f
	interruptHook.Unlock()
	return func() {
		interruptHook.Lock()
		interruptHook.f = nil
		interruptHook.Unlock()
	}
}

// interrupted hands a signal to the interrupt hook, if any, and reports
// whether it took it.
func interrupted(sig os.Signal) bool {
	interruptHook.Lock()
	f := interruptHook.f
	interruptHook.Unlock()
	return f != nil && f(sig)
}

// Run runs toonkit with the given streams and arguments and returns the exit code.
func Run(ios *cli.IOStreams, args []string) int {
	root := NewRootCmd(ios)
	root.SetArgs(query.Args(args))
	ran := false
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		ran = true
		switch ios.ColorMode {
		case "auto", "always", "never":
			return nil
		}
		return cli.UsageErrorf("", "invalid --color %q (want auto, always or never)", ios.ColorMode)
	}
	c, err := root.ExecuteC()
	if err == nil {
		return cli.ExitOK
	}
	r := cli.NewReporter(ios)
	code := cli.ExitCode(err, ran)
	if hint := unknownCommandPath(err, c, root); hint != "" {
		err = &cli.ExitError{Code: cli.ExitUsage, Err: err, Hint: hint}
	}
	var ee *cli.ExitError
	if code == cli.ExitUsage && !(errors.As(err, &ee) && (ee.Hint != "" || ee.NotUsage)) && c != nil {
		err = &cli.ExitError{Code: cli.ExitUsage, Err: err, Hint: fmt.Sprintf("run '%s --help' for usage", c.CommandPath())}
	}
	return r.Report(err, ran)
}

// unknownCommandPath is the hint for cobra's unknown command error when
// the name given is a file's path (cli.PathCommand), or "".
func unknownCommandPath(err error, c, root *cobra.Command) string {
	msg, ok := strings.CutPrefix(err.Error(), "unknown command ")
	if !ok || c != root {
		return ""
	}
	quoted, _, _ := strings.Cut(msg, " for ")
	name, uerr := strconv.Unquote(quoted)
	if uerr != nil {
		return ""
	}
	_, serr := os.Stat(name)
	return cli.PathCommand(name, serr == nil)
}

// NewRootCmd builds the whole command tree on the given streams.
func NewRootCmd(ios *cli.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "toonkit",
		Short: "Turn JSON into TOON to save tokens; read, check and convert agent message formats",
		Long: `toonkit turns JSON into TOON, the Token-Oriented Object Notation (spec v4.4)
that says the same in fewer LLM tokens, and reads, checks and converts the
other message formats of agent systems. It reads standard input or files and
writes standard output, so it fits in shell pipelines and CI steps.

  format                  name        commands
  TOON v4 (official)      toon        encode, decode, convert, stats
  Kado binary frames      binary      encode, decode, convert, inspect, validate
  Genesis A2A tabular     tabular     encode, decode, convert, validate, stats
  JSON, NDJSON            json ndjson encode, decode, convert, stats
  Chiffon envelopes       chiffon     convert, validate
  AOP trace events        trace       convert, validate, sign, verify
  Narratoria tool events  narratoria  convert, validate, exec
  YAML, CSV, TSV (read)   yaml csv    encode, convert, query, stats

encode writes JSON as TOON (or, with --to NAME, as binary frames or a
table), and decode reads them back as JSON. convert goes between the
encodings (toon, binary, tabular, json, ndjson) and between the protocols
(binary frames, chiffon, trace, narratoria), with --from (detected when
absent) and --to (or the extension of -o FILE); stats counts the tokens of
the data as JSON and TOON, to find the cheapest. validate checks every
format but TOON and JSON (--as NAME, detected when absent), inspect shows
frames byte by byte, sign and verify make and check the HMAC signatures of
AOP trace events, and exec runs a Narratoria tool, checking and applying
its events as they come.`,
		Example: `  # JSON to TOON, to save tokens: the TOON, and what it saves in real tokens
  toonkit encode --stats data.json

  # JSON to a TOON file named by its extension, and back to JSON
  toonkit convert data.json -o data.toon && toonkit decode data.toon

  # a capture of binary frames as NDJSON, and byte by byte
  toonkit decode capture.bin
  toonkit inspect capture.bin

  # a JSON array as an A2A table; a Chiffon log as AOP trace events
  toonkit convert --to tabular --stats users.json
  toonkit convert --to trace chiffon.ndjson

  # check a capture, a signed log, a Narratoria tool
  toonkit validate capture.bin
  toonkit verify --key-file audit.key audit.ndjson
  toonkit exec -- ./tool.sh`,
		Version:       version.String(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("toonkit {{.Version}} (TOON spec v" + toon.SpecVersion + ")\n")
	root.SetHelpTemplate(helpTemplate)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cli.UsageErrorf(fmt.Sprintf("run '%s --help' for usage", c.CommandPath()), "%s", err)
	})

	pf := root.PersistentFlags()
	pf.StringVar(&ios.ColorMode, "color", "auto", "when to use color: auto, always or never")
	pf.BoolVarP(&ios.Quiet, "quiet", "q", false, "print no warnings, notes or hints on stderr")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))

	root.AddCommand(
		newEncodeCmd(ios, nil),
		newDecodeCmd(ios, nil),
		newConvertCmd(ios, nil),
		newValidateCmd(ios, nil),
		newInspectCmd(ios, nil),
		newSignCmd(ios, nil),
		newSealCmd(ios, nil),
		newKeygenCmd(ios, nil),
		newVerifyCmd(ios, nil),
		newExecCmd(ios, nil),
		newQueryCmd(ios, nil),
		newDissectorCmd(ios, nil),
		newStatsCmd(ios, nil),
		newTapCmd(ios, nil),
		newFmtCmd(ios, nil),
		newLSPCmd(ios, nil),
		newMCPCmd(ios),
	)
	addCompletionCmd(root)
	return root
}

// helpTemplate is every command's --help, as gh's and jq's read: the usage
// line, the description, the commands, the flags, then the examples. The
// long reference is in docs/commands and the man pages.
const helpTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{with (or .Long .Short)}}

{{. | trimTrailingWhitespaces}}{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// addCompletionCmd adds cobra's completion command (bash, zsh, fish and
// powershell scripts) to the help, where cobra would add it only when run.
// An unknown shell is a usage error, not the help with exit status 0.
func addCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.RunE = func(c *cobra.Command, args []string) error {
				return c.Help()
			}
		}
	}
}
