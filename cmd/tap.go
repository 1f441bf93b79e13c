package cmd

import (
	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/size"
	"github.com/toonkit/toonkit/internal/tap"
)

// TapOptions are the options of `toonkit tap` (tap.Command).
type TapOptions = tap.Command

func newTapCmd(ios *cli.IOStreams, runF func(*TapOptions) error) *cobra.Command {
	opts := &TapOptions{Interrupt: setInterruptHook}
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	maxMem := size.NewFlag("max-memory", "256MiB")
	c := &cobra.Command{
		Use:   "tap --listen ADDR --upstream ADDR",
		Short: "Forward a TCP connection and show its frames live, both ways",
		Long: `Tap sits between a client and its server: it listens on --listen, connects
each connection it accepts to --upstream, forwards the bytes of both
directions unchanged, and shows every Kado frame of both directions as it
passes. -w FILE also records the traffic as a pcapng capture.

EXIT STATUS
  0    --count frames were shown
  2    usage error
  3    --listen could not be opened, or an output could not be written
  130  ended by Ctrl-C (143 by SIGTERM, 129 by SIGHUP), the normal way to stop it

The full reference: docs/commands/tap.md, or man toonkit-tap.`,
		Example: `  # forward 127.0.0.1:7001 to a subagent on 127.0.0.1:7000 and watch; stop after 4 frames
  toonkit tap --listen 127.0.0.1:7001 --upstream 127.0.0.1:7000 --count 4

  # the frames as decode's NDJSON records, and a pcapng of the traffic for later
  toonkit tap --listen 127.0.0.1:7001 --upstream 127.0.0.1:7000 --json -w tap.pcapng --count 4

  # every frame in full: header table, hexdump, payload as JSON
  toonkit tap -v --listen 127.0.0.1:7001 --upstream 127.0.0.1:7000 --count 2

  # many clients with large frames: hold at most 64 MiB of their traffic
  toonkit tap --listen 127.0.0.1:7001 --upstream 127.0.0.1:7000 --max-memory 64MiB --count 4`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, a := range []struct{ flag, val string }{{"--listen", opts.Listen}, {"--upstream", opts.Upstream}} {
				if a.val == "" {
					return cli.UsageErrorf("tap forwards --listen ADDR to --upstream ADDR, e.g. --listen 127.0.0.1:7001 --upstream 127.0.0.1:7000", "%s is missing", a.flag)
				}
				if err := tap.CheckAddr(a.val, a.flag == "--listen"); err != nil {
					return cli.UsageErrorf("an address is HOST:PORT, the port from 1 to 65535 (0 for --listen: any free one), e.g. 127.0.0.1:7000 or [::1]:7000", "%s: invalid address %q: %v", a.flag, a.val, err)
				}
			}
			if opts.Verbose && opts.JSON {
				return cli.UsageErrorf("", "-v and --json are two views: give one")
			}
			if opts.Write == "-" {
				return cli.UsageErrorf("the view is on stdout; give -w a file name", "-w: cannot write the pcapng to stdout")
			}
			if opts.Count < 0 {
				return cli.UsageErrorf("", "--count: want a number of frames from 1, found %d", opts.Count)
			}
			if err := cli.SizeOf(maxSize, &opts.MaxFrameSize); err != nil {
				return err
			}
			if err := cli.SizeOf(maxMem, &opts.MaxMemory); err != nil {
				return err
			}
			if opts.MaxMemory < 1<<20 {
				return cli.UsageErrorf("", "--max-memory: want at least 1MiB, found %s", maxMem)
			}
			opts.Style = ios.StdoutPaint()
			if runF != nil {
				return runF(opts)
			}
			return tap.RunCommand(ios, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Listen, "listen", "", "accept connections on `HOST:PORT`")
	f.StringVar(&opts.Upstream, "upstream", "", "forward each connection to `HOST:PORT`")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "show each frame in full (the inspect view) instead of one line")
	f.BoolVar(&opts.JSON, "json", false, "write decode's NDJSON records (with their capture source) instead of the view")
	f.StringVarP(&opts.Write, "write", "w", "", "also write the traffic to `FILE` as pcapng")
	f.IntVarP(&opts.Count, "count", "c", 0, "stop after `N` frames (0: run until Ctrl-C)")
	f.Var(maxSize, "max-frame-size", "largest payload shown, on the wire and decompressed")
	f.Var(maxMem, "max-memory", "hold at most `SIZE` of traffic, all connections together")
	return c
}
