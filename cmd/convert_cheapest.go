package cmd

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	measure "github.com/toonkit/toonkit/internal/stats"
)

// cheapest is --to cheapest: the format, of those that read back without
// loss, with the fewest tokens by --tokenizer.
const cheapest codec.Format = "cheapest"

// runConvertCheapest reads the inputs as one document (as --to toon does),
// counts it in each format (internal/stats), says which is cheapest and why, and
// writes it in that one, all or nothing.
func runConvertCheapest(opts *ConvertOptions) error {
	doc, err := gatherTOON(opts, nil)
	if err != nil {
		return err
	}
	single := len(opts.Inputs) == 1 && len(doc.Value) > 0 && doc.Value[0] != '['
	mopts := measure.Options{Tokenizers: []string{opts.Tokenizer}, IndentSize: opts.TOON.Indent, Single: single, Workers: opts.Jobs}
	rep, err := measure.Measure(doc.Value, mopts)
	if err != nil {
		return cli.InvalidError(fmt.Errorf("%s: %w", doc.Name, err), "")
	}
	best := rep.Rows[rep.Cheapest(0)]
	cli.NewReporter(opts.IO).Notef("cheapest: %s", rep.WhyCheapest(0))
	out := cli.NewOutput(opts.IO, opts.Output)
	out.HoldAll()
	if _, err := measure.Encode(out, doc.Value, best.Format, mopts); err != nil {
		out.Abort()
		if out.Err() != nil {
			return out.Err()
		}
		return cli.InvalidError(fmt.Errorf("%s: %w", doc.Name, err), "")
	}
	if best.Format != measure.JSONIndent && best.Format != measure.Tabular {
		out.Write(newline) // TOON and compact JSON are counted without it
	}
	return out.Commit()
}
