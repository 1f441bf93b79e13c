package cmd

import (
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/convert"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/toon"
)

// add adds --delimiter (when the command writes TOON), --indent, and
// --no-strict (when it reads TOON).
func addTOONFlags(t *convert.TOONOptions, f *pflag.FlagSet, writes, reads bool) {
	if writes {
		f.StringVar(&t.DelimiterName, "delimiter", "comma", "TOON: delimiter of inline arrays and table rows: comma (','), tab ('\\t'), pipe ('|'), or auto (the fewest tokens by --tokenizer)")
	}
	f.IntVar(&t.Indent, "indent", toon.DefaultIndentSize, "TOON: spaces per indentation level")
	if reads {
		f.BoolVar(&t.NoStrict, "no-strict", false, "TOON input: skip the strict checks (counts, indentation: a tab is one level, duplicate keys: the last wins); no line is skipped")
	}
}

// check parses the flags and refuses them where no TOON is written
// (--delimiter) or read (--no-strict), or neither (--indent). reads is
// true when the input format is not known yet.
func checkTOONFlags(t *convert.TOONOptions, c *cobra.Command, writes, reads bool) error {
	set := func(name string) bool { return c.Flags().Changed(name) }
	var err error
	switch {
	case set("delimiter") && !writes:
		return cli.UsageErrorf("", "--delimiter applies to --to toon only")
	case set("no-strict") && !reads:
		return cli.UsageErrorf("", "--no-strict applies to TOON input (--from toon) only")
	case set("indent") && !writes && !reads:
		return cli.UsageErrorf("", "--indent applies to TOON input or output only")
	}
	if err := checkIndent(t.Indent); err != nil {
		return err
	}
	if writes && t.AutoDelimiter() {
		t.Auto, t.Delimiter = true, toon.Comma
	} else if writes {
		if t.Delimiter, err = toon.ParseDelimiter(t.DelimiterName); err != nil {
			return cli.UsageErrorf("", "--delimiter: unknown delimiter %q (accepted: %s)", t.DelimiterName, convert.DelimiterSpellings)
		}
	}
	return nil
}

// checkIndent refuses an --indent of TOON outside 1 to 16 spaces.
func checkIndent(n int) error {
	if n < 1 || n > 16 {
		return cli.UsageErrorf("", "--indent: %d is out of range (1 to 16 spaces)", n)
	}
	return nil
}
