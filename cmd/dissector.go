package cmd

import (
	"bytes"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/dissector"
)

// DissectorOptions are the options of `toonkit dissector`.
type DissectorOptions struct {
	IO     *IOStreams
	Ports  []int
	Output string
	// MaxFrameSize bounds a payload in the dissector, as --max-frame-size
	// does in decode.
	MaxFrameSize int
}

func newDissectorCmd(ios *IOStreams, runF func(*DissectorOptions) error) *cobra.Command {
	opts := &DissectorOptions{IO: ios}
	var maxSize string
	c := &cobra.Command{
		Use:   "dissector [--port N]... [--max-frame-size SIZE] [-o FILE]",
		Short: "Write a Wireshark dissector (Lua) for Kado frames",
		Long: `Dissector writes a Wireshark plugin in Lua that shows Kado frames in
Wireshark and tshark: the header fields (kado.version, kado.type with its
name, kado.payload_length, kado.timestamp and kado.time, kado.sequence_id),
kado.compressed, the payload as JSON (kado.json, decompressed when it is
RLE-compressed, and dissected by Wireshark's JSON dissector).

The dissector is registered on the TCP port given with --port (repeatable;
default 7000), and as a heuristic dissector: on TCP, a connection whose
segment starts with a plausible frame header (version 1, a known type, a
length within --max-frame-size, a payload that can begin JSON or a
compressed body) is dissected as Kado frames; so are WebSocket binary
messages that start with such a header. Frames split across TCP segments
are reassembled.

Install it for Wireshark and tshark (both load the plugins in that folder at
start):
  mkdir -p ~/.local/lib/wireshark/plugins
  toonkit dissector -o ~/.local/lib/wireshark/plugins/kado.lua
or load it for one run:
  tshark -X lua_script:kado.lua -o tcp.reassemble_out_of_order:TRUE -r session.pcapng -Y kado
  tshark -X lua_script:kado.lua -r session.pcapng -Y kado -T fields -e kado.type_name -e kado.sequence_id -e kado.json
Segments that arrive out of order are put in place only with the TCP
preference tcp.reassemble_out_of_order (off by default in Wireshark 4.0).
The ports are the default of the plugin's preference kado.tcp_ports
(Preferences > Protocols > KADO; tshark -o kado.tcp_ports:7000,7443). A
connection on another port is found by the heuristic when a segment starts
with a whole header (18 bytes); -d tcp.port==N,kado names its port.

See docs/commands/dissector.md.

EXIT STATUS
  0  the dissector was written
  2  usage error (a port outside 1-65535)
  3  the output could not be written`,
		Example: `  # the plugin, registered on the default port 7000
  toonkit dissector -o kado.lua

  # frames on ports 7000 and 7443 (both also in WebSocket messages and
  # wherever the heuristic finds them)
  toonkit dissector --port 7000 --port 7443 -o kado.lua`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if opts.MaxFrameSize, err = parseSize(maxSize); err != nil {
				return usageErrorf("", "--max-frame-size: %v", err)
			}
			if runF != nil {
				return runF(opts)
			}
			return runDissector(opts)
		},
	}
	f := c.Flags()
	f.IntSliceVar(&opts.Ports, "port", nil, "TCP `PORT` of Kado connections (repeatable; default 7000)")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when the run succeeds); - is stdout")
	f.StringVar(&maxSize, "max-frame-size", "64MiB", "largest payload the dissector accepts, on the wire and decompressed")
	return c
}

func runDissector(opts *DissectorOptions) error {
	var lua bytes.Buffer
	if err := dissector.Write(&lua, dissector.Options{Ports: opts.Ports, MaxPayload: opts.MaxFrameSize}); err != nil {
		return usageErrorf("", "--port: %v", err)
	}
	out := newOutput(opts.IO, opts.Output)
	if _, err := out.Write(lua.Bytes()); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}
