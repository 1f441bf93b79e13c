package cmd

import (
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/tokens"
)

// The encodings that convert reads and writes.
var convertFormats = []codec.Format{codec.JSON, codec.NDJSON, codec.Tabular, codec.Binary, codec.TOON, codec.Chiffon, codec.Trace, codec.Narratoria}

// addJobsFlag adds -j, --jobs: the number of workers of a command that
// spreads independent records over the CPUs (internal/pipeline). 0, the default,
// is the number of usable CPUs (GOMAXPROCS); 1 is the single-worker path.
// what names the work that is spread ("binary frames").
func addJobsFlag(f *pflag.FlagSet, jobs *int, what string) {
	f.IntVarP(jobs, "jobs", "j", 0, what+" on `N` workers, output byte-identical to -j 1 (default: the usable CPUs, GOMAXPROCS)")
}

// addStatsFlags adds --stats and --tokenizer.
func addStatsFlags(f *pflag.FlagSet, stats *bool, tokenizer *string) {
	f.BoolVar(stats, "stats", false, "print bytes, characters and tokens of the input (as compact JSON) and of the output on stderr")
	f.StringVar(tokenizer, "tokenizer", tokens.Encodings[0], "tokenizer for --stats and --delimiter auto: o200k_base or cl100k_base")
}

// CaptureFlags are --port and --conn, which select the TCP connections
// of a packet capture that a command reads. Embedded in a command's
// options, it is added by add and checked by check.
type CaptureFlags struct {
	Ports []int  // --port: only the connections on these ports
	Conn  string // --conn: only this connection

	conn capture.ConnID // Conn, checked
}

func (cf *CaptureFlags) add(f *pflag.FlagSet) {
	f.IntSliceVar(&cf.Ports, "port", nil, "captures: read only the TCP connections on port `N` (repeatable)")
	f.StringVar(&cf.Conn, "conn", "", "captures: read only the TCP connection `ADDR:PORT>ADDR:PORT`, as records name it (either end first; IPv6 in brackets)")
}

// check refuses a --port that is not a TCP port and a --conn that is not
// a connection's name.
func (cf *CaptureFlags) check() error {
	for _, p := range cf.Ports {
		if p < 1 || p > 65535 {
			return cli.UsageErrorf("", "--port %d: a TCP port is 1 to 65535", p)
		}
	}
	cf.conn = capture.ConnID{}
	if cf.Conn == "" {
		return nil
	}
	id, err := capture.ParseConn(cf.Conn)
	if err != nil {
		return cli.UsageErrorf("--conn '10.0.0.1:51234>10.0.0.2:7000' (quoted: > is a redirection in the shell)", "--conn: %v", err)
	}
	cf.conn = id
	return nil
}

// options are the capture.Options of the flags, with the largest frame.
func (cf *CaptureFlags) options(maxFrameSize int) capture.Options {
	return capture.Options{MaxFrameSize: maxFrameSize, Ports: cf.Ports, Conn: cf.conn}
}
