package dissector

import (
	"bytes"

	"github.com/toonkit/toonkit/internal/cli"
)

// Command are the options of `toonkit dissector`.
type Command struct {
	IO     *cli.IOStreams
	Ports  []int
	Output string
	// MaxFrameSize bounds a payload in the dissector, as --max-frame-size
	// does in decode.
	MaxFrameSize int
}

// RunCommand writes the dissector of opts to its output: a port outside
// 1-65535 is a usage error.
func RunCommand(opts *Command) error {
	var lua bytes.Buffer
	if err := Write(&lua, Options{Ports: opts.Ports, MaxPayload: opts.MaxFrameSize}); err != nil {
		return cli.UsageErrorf("", "--port: %v", err)
	}
	out := cli.NewOutput(opts.IO, opts.Output)
	if _, err := out.Write(lua.Bytes()); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}
