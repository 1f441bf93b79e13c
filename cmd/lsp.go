package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/lsp"
	"github.com/toonkit/toonkit/internal/version"
)

// lspOptions are `toonkit lsp`'s flags.
type lspOptions struct {
	IO     *cli.IOStreams
	Indent int
	Stdio  bool
}

func newLSPCmd(ios *cli.IOStreams, runF func(*lspOptions) error) *cobra.Command {
	opts := &lspOptions{IO: ios}
	c := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server for TOON files (LSP over stdio)",
		Long: `Lsp is a language server (LSP 3.17) for TOON documents, speaking on
standard input and output: an editor starts it and talks to it. It gives
diagnostics as you type (every TOON problem in strict mode, with its
code, and the findings of the schema a #:schema comment or .toonkit.yaml
names), formatting of the document or of a range as toonkit fmt writes it,
hover (a key's JSON path and type, an array's declared and actual length,
a cell's field and row), the key outline, folding and selection ranges,
code actions (set a wrong [N], quote a value, a list as a table and back)
and the command toonkit.showJSON.

Documents are read with their own indent (as fmt finds it), unless --indent
or the client's initializationOptions {"indent": N} say otherwise.

Setups for Neovim, Helix, Zed and VS Code: docs/editors.md.

EXIT STATUS
  0  the client sent shutdown, then exit
  1  the client left without shutdown (LSP asks for 1 then), or sent a
     message over 256 MiB
  2  usage error

The full reference: docs/commands/lsp.md, or man toonkit-lsp.`,
		Example: `  # what an editor does: a session on standard input (initialize, a broken
  # document opened, shutdown, exit), the server's messages on standard output
  toonkit lsp < session.lsp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("indent") {
				if err := checkIndent(opts.Indent); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return runLSP(opts)
		},
	}
	f := c.Flags()
	f.IntVar(&opts.Indent, "indent", 0, "spaces per indentation level documents are read with (default: each document's own)")
	f.BoolVar(&opts.Stdio, "stdio", true, "speak on standard input and output (the only transport; accepted because clients pass it)")
	return c
}

// stdio is the editor's end of the connection: our stdin and stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

func runLSP(opts *lspOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := lsp.Serve(ctx, stdio{opts.IO.In, opts.IO.Out}, lsp.Options{Version: version.String(), Indent: opts.Indent})
	if errors.Is(err, lsp.ErrNoShutdown) {
		return &cli.ExitError{Code: 1, Err: err}
	}
	return err
}
