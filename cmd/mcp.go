package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/mcpproxy"
	"github.com/toonkit/toonkit/internal/mcpserve"
	"github.com/toonkit/toonkit/internal/size"
	"github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/internal/version"
)

func newMCPCmd(ios *cli.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "TOON for agents' tools: an MCP proxy that rewrites JSON results, and an MCP server",
		Long: `Mcp puts TOON where agents meet their tools, the Model Context Protocol.

  toonkit mcp proxy -- SERVER [ARGS...]   wraps an MCP server: its tools' JSON
                                          results reach the model as TOON
  toonkit mcp serve                       an MCP server whose tools are
                                          toonkit's (encode, decode, stats,
                                          query, validate)

Configurations for the common MCP clients: docs/commands/mcp.md, or man
toonkit-mcp.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newMCPProxyCmd(ios, nil), newMCPServeCmd(ios, nil))
	return c
}

// MCPProxyOptions are `toonkit mcp proxy`'s.
type MCPProxyOptions struct {
	IO *cli.IOStreams
	mcpproxy.Command
	To    string
	Among []string
}

func newMCPProxyCmd(ios *cli.IOStreams, runF func(*MCPProxyOptions) error) *cobra.Command {
	opts := &MCPProxyOptions{IO: ios}
	opts.Interrupt = setInterruptHook
	c := &cobra.Command{
		Use:   "proxy [--tokenizer NAME] [--min-saving PCT] [--to toon|cheapest] [--describe] [--log FILE] -- SERVER [ARGS...]",
		Short: "Run an MCP server behind a proxy that gives its tools' JSON results as TOON",
		Long: `Proxy runs SERVER, an MCP server that speaks on stdio, as its child, and
speaks MCP on its own stdin and stdout to the client (the agent): every
message goes on as it came, in order, but for the results of tools/call.

In a result, each text block whose text is a JSON object or array becomes
TOON when that takes fewer tokens on --tokenizer, by at least --min-saving
percent of them. With --to cheapest, the form is the cheapest of those
convert --to cheapest chooses from (compact and indented JSON, TOON with
each delimiter), or of --among's (tabular is Genesis A2A's table, offered
only where it reads back exactly). The value stays exact. Left alone:
structuredContent, results with isError, text that is not JSON, images,
resources, and every other message (progress, cancellation, pings, and the
server's own requests: sampling, elicitation, roots).

Each tools/call is logged as one JSON line (on stderr, or appended to --log
FILE; --log - for none): the tool, its bytes and tokens before and after,
the form chosen. The totals come in a last line when the session ends.

The proxy ends when the server does, with the server's exit status. When the
client closes stdin, the server's stdin is closed, and the server has
--kill-after to exit before its process group is ended. A signal (Ctrl-C)
ends the server's process group first.

A server on streamable HTTP is run through a stdio bridge:
toonkit mcp proxy -- npx -y mcp-remote https://example.com/mcp

EXIT STATUS
  the server's exit status (0 when it exited cleanly)
  1  the server was killed by a signal
  2  usage error
  3  the server could not be started, the client stopped reading, or the
     session's streams failed: the server was ended
  130 (128 + the signal) the run was interrupted: the server was ended

The full reference: docs/commands/mcp.md, or man toonkit-mcp-proxy.`,
		Example: `  # a session on stdin, as a client sends it: the server's messages on
  # stdout, its JSON results as TOON; the log on stderr
  toonkit mcp proxy -- python3 mcp_server.py < session.mcp

  # rewrite only where it saves a fifth of the tokens; the log in a file
  toonkit mcp proxy --min-saving 20 --log proxy.log -- python3 mcp_server.py < session.mcp

  # the cheapest form per result; each tool's description says so
  toonkit mcp proxy --to cheapest --describe -- python3 mcp_server.py < session.mcp

  # the server's own exit status is the proxy's (exit status 3)
  toonkit mcp proxy -- sh -c 'exit 3' < session.mcp`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("indent") {
				if err := checkIndent(opts.IndentSize); err != nil {
					return err
				}
			}
			if len(args) == 0 || c.ArgsLenAtDash() != 0 {
				return cli.UsageErrorf("run 'toonkit mcp proxy --help' for usage", "no SERVER to run: toonkit mcp proxy [flags] -- SERVER [ARGS...]")
			}
			opts.Server = args
			switch opts.To {
			case "toon":
				if len(opts.Among) > 0 {
					return cli.UsageErrorf("", "--among goes with --to cheapest")
				}
				opts.Options.Among = nil
			case "cheapest":
				among, err := stats.ParseAmong(opts.Among)
				if err != nil {
					return cli.UsageErrorf("", "--among: %v", err)
				}
				opts.Options.Among = stats.Among(among, false)
			default:
				return cli.UsageErrorf("", "--to: unknown form %q (supported: toon, cheapest)", opts.To)
			}
			if runF != nil {
				return runF(opts)
			}
			// A client that stops reading makes a write fail (EPIPE),
			// and the server is ended, where SIGPIPE would end the proxy
			// alone. (A signal caught, unlike one ignored, is not passed
			// on to the server.)
			pipe := make(chan os.Signal, 1)
			signal.Notify(pipe, syscall.SIGPIPE)
			defer signal.Stop(pipe)
			return opts.Command.Run(opts.IO)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Tokenizer, "tokenizer", tokens.Encodings[0], "tokenizer that decides a rewrite: o200k_base or cl100k_base")
	f.Float64Var(&opts.MinSaving, "min-saving", 0, "rewrite only when it saves at least this percentage of the tokens")
	f.StringVar(&opts.To, "to", "toon", "form of the JSON results: toon, or cheapest")
	f.StringSliceVar(&opts.Among, "among", nil, "with --to cheapest, the forms to choose from: "+stats.JSON+", toon, "+stats.TOONComma+", ...")
	f.IntVar(&opts.IndentSize, "indent", 2, "TOON's spaces per indentation level")
	f.BoolVar(&opts.Describe, "describe", false, "add a line to each tool's description saying that its results come as TOON")
	f.StringVar(&opts.LogFile, "log", "", "append the log to FILE (default: stderr; - for none)")
	f.DurationVar(&opts.KillAfter, "kill-after", 5*time.Second, "time the server has to exit once the client has gone, and between SIGTERM and SIGKILL")
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions(tokens.Encodings, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("to", cobra.FixedCompletions([]string{"toon", "cheapest"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// MCPServeOptions are `toonkit mcp serve`'s.
type MCPServeOptions struct {
	IO                  *cli.IOStreams
	MaxInput, MaxOutput int
}

func newMCPServeCmd(ios *cli.IOStreams, runF func(*MCPServeOptions) error) *cobra.Command {
	opts := &MCPServeOptions{IO: ios}
	maxIn, maxOut := size.NewFlag("max-input", "8MiB"), size.NewFlag("max-output", "8MiB")
	c := &cobra.Command{
		Use:   "serve [--max-input SIZE] [--max-output SIZE]",
		Short: "Run an MCP server (stdio) whose tools are toonkit's: encode, decode, stats, query, validate",
		Long: `Serve is an MCP server on stdin and stdout whose tools are toonkit's own:

  encode    {json, delimiter?, indent?}         JSON to TOON
  decode    {toon, indent?, strict?}            TOON to compact JSON
  stats     {json, tokenizer?}                  bytes and tokens in each format,
                                                and the cheapest
  query     {filter, input, input_format?}      a jq filter over JSON or TOON
  validate  {input, as?, schema?}               TOON's strict rules, a protocol's
                                                (chiffon, trace, narratoria,
                                                tabular), or a JSON Schema

Each answers with text. Bad input (invalid JSON, a TOON error, a filter that
does not compile) comes back as a tool error with toonkit's message and its
position. Each string argument is bounded by --max-input, each result by
--max-output.

EXIT STATUS
  0  the client closed the session
  2  usage error
  3  the session's streams failed
  130 (128 + the signal) the run was interrupted

The full reference: docs/commands/mcp.md, or man toonkit-mcp-serve.`,
		Example: `  # what an MCP client runs (its configuration's "command" and "args"); here
  # a session on stdin: the answers on stdout
  toonkit mcp serve < serve.mcp

  # larger documents
  toonkit mcp serve --max-input 64MiB --max-output 64MiB < serve.mcp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := cli.SizeOf(maxIn, &opts.MaxInput); err != nil {
				return err
			}
			if err := cli.SizeOf(maxOut, &opts.MaxOutput); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runMCPServe(opts)
		},
	}
	f := c.Flags()
	f.Var(maxIn, "max-input", "largest string argument a tool takes")
	f.Var(maxOut, "max-output", "largest text a tool answers with")
	return c
}

func runMCPServe(opts *MCPServeOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := mcpserve.NewServer(mcpserve.Options{Version: version.String(), MaxInput: opts.MaxInput, MaxOutput: opts.MaxOutput})
	// A message holds its arguments, JSON-quoted: room for them, and more.
	if err := s.Run(ctx, mcpserve.Transport(opts.IO.In, opts.IO.Out, 2*opts.MaxInput+1<<20)); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return cli.IOErrorf("the session broke off: %v", err)
	}
	return nil
}
