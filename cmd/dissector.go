package cmd

import (
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/dissector"
)

// DissectorOptions are the options of `toonkit dissector`.
type DissectorOptions = dissector.Command

func newDissectorCmd(ios *cli.IOStreams, runF func(*DissectorOptions) error) *cobra.Command {
	opts := &DissectorOptions{IO: ios}
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "dissector [--port N]... [--max-frame-size SIZE] [-o FILE]",
		Short: "Write a Wireshark dissector (Lua) for Kado frames",
		Long: `Dissector writes a Wireshark plugin in Lua that shows Kado frames in
Wireshark and tshark: the header fields and the payload as JSON, on the TCP
ports given with --port and on connections a heuristic finds.

EXIT STATUS
  0  the dissector was written
  2  usage error (a port outside 1-65535)
  3  the output could not be written

The full reference: docs/commands/dissector.md, or man toonkit-dissector.`,
		Example: `  # the plugin, registered on the default port 7000
  toonkit dissector -o kado.lua

  # frames on ports 7000 and 7443 (both also in WebSocket messages and
  # wherever the heuristic finds them)
  toonkit dissector --port 7000 --port 7443 -o kado.lua`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := cli.SizeOf(maxSize, &opts.MaxFrameSize); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return dissector.RunCommand(opts)
		},
	}
	f := c.Flags()
	f.IntSliceVar(&opts.Ports, "port", nil, "TCP `PORT` of Kado connections (repeatable; default 7000)")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when the run succeeds); - is stdout")
	f.Var(maxSize, "max-frame-size", "largest payload the dissector accepts, on the wire and decompressed")
	return c
}
