package cmd

import (
	"github.com/spf13/cobra"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"
	"github.com/toonkit/toonkit/internal/toonfmt"
	"github.com/toonkit/toonkit/toon"
)

func newFmtCmd(ios *cli.IOStreams, runF func(*toonfmt.RunOptions) error) *cobra.Command {
	opts := &toonfmt.RunOptions{IO: ios}
	maxSize := size.NewFlag("max-size", "64MiB")
	var delimiter string
	c := &cobra.Command{
		Use:   "fmt [FILE|DIR...|-]",
		Short: "Rewrite TOON documents in canonical form",
		Long: `Fmt writes each TOON document as encode writes its value: canonical
quoting, numbers, key order kept, tables wherever TOON has them. The
document's indent and delimiter are kept unless --indent or --delimiter
say otherwise, and so is every full-line comment, before the line it came
before. The value never changes: fmt decodes what it wrote and compares.

With no argument (or -), standard input goes to standard output. A
directory stands for every *.toon file under it (dot-directories left
out). Without --check, --diff or -w, the formatted documents go to
standard output.

EXIT STATUS
  0  every document formatted (with --check: none would change)
  1  a document is malformed (reported with its position, left as it is;
     the others are still formatted), or, with --check, one would change
  2  usage error
  3  an input could not be read or a file could not be written

The full reference: docs/commands/fmt.md, or man toonkit-fmt.`,
		Example: `  # the canonical form on standard output
  toonkit fmt agent.toon

  # rewrite every .toon file under the current directory in place
  toonkit fmt -w .

  # in CI: list the files that are not formatted (here exit status 1: agent.toon is not)
  toonkit fmt --check .

  # what would change, as a unified diff
  toonkit fmt --diff agent.toon

  # from a pipe, as tab-delimited TOON
  toonkit encode users.json | toonkit fmt --delimiter tab`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
				return err
			}
			switch {
			case opts.Write && opts.Check:
				return cli.UsageErrorf("", "-w and --check do not go together: --check writes nothing")
			case opts.Write && opts.Diff:
				return cli.UsageErrorf("", "-w and --diff do not go together: --diff writes nothing")
			}
			if opts.Write {
				for _, in := range opts.Inputs {
					if in == "-" {
						return cli.UsageErrorf("name the files to rewrite, or leave out -w to write to standard output", "-w rewrites files; standard input has none")
					}
				}
			}
			if c.Flags().Changed("indent") {
				if err := checkIndent(opts.Format.Indent); err != nil {
					return err
				}
			}
			if c.Flags().Changed("delimiter") {
				d, err := toon.ParseDelimiter(delimiter)
				if err != nil {
					return cli.UsageErrorf("", "--delimiter: unknown delimiter %q (accepted: comma or ',', tab or '\\t', pipe or '|')", delimiter)
				}
				opts.Format.Delimiter = byte(d)
			}
			if err := cli.SizeOf(maxSize, &opts.MaxSize); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return toonfmt.Run(opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.Check, "check", false, "list the files that would change, write nothing; exit status 1 if any")
	f.BoolVar(&opts.Diff, "diff", false, "write a unified diff of each change, write no file")
	f.BoolVarP(&opts.Write, "write", "w", false, "rewrite the files in place (atomically, mode kept)")
	f.IntVar(&opts.Format.Indent, "indent", 0, "spaces per indentation level of the output (default: the document's own)")
	f.StringVar(&delimiter, "delimiter", "", "delimiter of the output's inline arrays and tables: comma (','), tab ('\\t') or pipe ('|') (default: the document's own)")
	f.BoolVar(&opts.Format.NonStrict, "no-strict", false, "read with the non-strict rules (counts, indentation, duplicate keys: the last wins)")
	f.Var(maxSize, "max-size", "largest document read")
	return c
}
