package cmd

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/inspect"
	"github.com/toonkit/toonkit/internal/size"
)

// InspectOptions are inspect's options (inspect.Command) and the flags
// cmd turns into them.
type InspectOptions struct {
	inspect.Command
	cli.CaptureFlags // --port, --conn
}

func newInspectCmd(ios *cli.IOStreams, runF func(*InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{Command: inspect.Command{IO: ios, Frame: -1}}
	var frame, skip, length string
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "inspect [FILE...|-]",
		Short: "Show binary TOON frames byte by byte, with every check",
		Long: `Inspect shows Kado binary TOON frames byte by byte: each header field with
its check, the payload as a hexdump, its RLE compression and its JSON. It
reads files of frames and packet captures of them.

EXIT STATUS
  0  every frame is valid
  1  a frame broke a rule, a payload is not JSON, a capture has a hole or
     cannot be read, or --frame is not there (the view is printed in full
     all the same)
  2  usage error
  3  an input could not be read or the output could not be written

The full reference: docs/commands/inspect.md, or man toonkit-inspect.`,
		Example: `  # every frame of a capture
  toonkit inspect capture.bin

  # a damaged capture: the bad frames marked, and exit status 1
  toonkit inspect damaged.bin

  # only the frame that decode complained about (exit status 1: it is bad)
  toonkit inspect --frame 3 damaged.bin

  # 300 bytes from byte 0x587 on; offsets agree with xxd -s 0x587 -l 300
  toonkit inspect --skip 0x587 --length 300 capture.bin

  # the facts as NDJSON, for jq: here the lines of the bad frames (exit status 1)
  toonkit inspect --json damaged.bin | grep '"status":"invalid"'

  # in color, kept for a pager (less -R view.txt)
  toonkit inspect --color always capture.bin > view.txt

  # every frame of every connection of a packet capture, one line each
  toonkit inspect -1 session.pcapng

  # only the counts: per type, per connection, per check, and the time span
  toonkit inspect --summary session.pcapng

  # a frame made on the spot
  echo '{"instruction":"ping"}' | toonkit encode --to binary | toonkit inspect`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if c.Flags().Changed("frame") {
				n, err := strconv.Atoi(strings.TrimSpace(frame))
				if err != nil || n < 0 {
					return cli.UsageErrorf("frames are numbered from 0, as in decode's messages", "--frame: want a frame number from 0, found %q", frame)
				}
				opts.Frame = n
			}
			if opts.Skip, err = size.ParseOffset(skip); err != nil {
				return cli.UsageErrorf("", "--skip: %v", err)
			}
			if c.Flags().Changed("length") {
				if opts.Length, err = size.ParseOffset(length); err != nil {
					return cli.UsageErrorf("", "--length: %v", err)
				}
				if opts.Length == 0 {
					return cli.UsageErrorf("leave --length out to read to the end", "--length: want at least 1 byte, found %q", length)
				}
			}
			if err := cli.SizeOf(maxSize, &opts.MaxFrameSize); err != nil {
				return err
			}
			if opts.OneLine && opts.JSON {
				return cli.UsageErrorf("", "--oneline and --json are two views: give one")
			}
			if opts.OneLine && opts.Summary {
				return cli.UsageErrorf("", "--oneline and --summary are two views: give one")
			}
			if err := opts.CaptureFlags.Check(); err != nil {
				return err
			}
			if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
				return err
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runInspect(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&frame, "frame", "", "show only frame `N` (from 0, as in decode's messages)")
	f.StringVarP(&skip, "skip", "s", "0", "start `N` bytes into the input (decimal, 0x hex, or 4KiB); offsets stay those of the input")
	f.StringVarP(&length, "length", "n", "", "read only `N` bytes from there (decimal, 0x hex, or 4KiB)")
	f.BoolVarP(&opts.OneLine, "oneline", "1", false, "one line per frame (index, offset, type, seq, length, compression, the start of the payload)")
	f.BoolVar(&opts.JSON, "json", false, "write NDJSON facts (one object per frame and skip, and a summary) instead of the view")
	f.BoolVar(&opts.Summary, "summary", false, "write only the summary: counts per type, per connection and per check, and a capture's time span")
	addCaptureFlags(f, &opts.CaptureFlags)
	f.Var(maxSize, "max-frame-size", "largest payload accepted, on the wire and decompressed")
	addJobsFlag(f, &opts.Jobs, "--json frames and the entries of captures")
	return c
}

func runInspect(opts *InspectOptions) error {
	run := opts.Command
	run.Capture, run.Style = opts.CaptureFlags.Options(0), opts.IO.StdoutPaint()
	return inspect.RunCommand(&run)
}
