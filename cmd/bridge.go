package cmd

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/records"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/internal/bridge"
	"github.com/toonkit/toonkit/kado"
)

// bridgeFlags are convert's flags for converting between protocols.
type bridgeFlags struct {
	RunID         string
	AgentID       int64
	Agent         string
	Deterministic bool
	Strict        bool
	NoReassemble  bool
}

var bridgeFlagNames = []string{"run-id", "agent-id", "agent", "deterministic", "strict", "no-reassemble"}

func (b *bridgeFlags) add(f *pflag.FlagSet) {
	f.StringVar(&b.RunID, "run-id", "", "protocols: the trace run_id (and Chiffon trace_id) of every message, a UUID; default: the source's, or one new id")
	f.Int64Var(&b.AgentID, "agent-id", 0, "--to trace: meta.agent_id of every event")
	f.StringVar(&b.Agent, "agent", "code", "protocols: the Chiffon agent type (infra, desktop, code, research) of the agent side of frames and trace events")
	f.BoolVar(&b.Deterministic, "deterministic", false, "protocols: derive generated ids from the messages (UUID v5) and times from the stream, so that the output is the same every time")
	f.BoolVar(&b.Strict, "strict", false, "protocols: a message the target cannot hold is an error, not a warning")
	f.BoolVar(&b.NoReassemble, "no-reassemble", false, "--from chiffon: keep step output chunks as they are instead of joining them")
}

// check refuses protocol flags when no protocol conversion is asked for,
// and values that cannot be.
func (b *bridgeFlags) check(c *cobra.Command, bridging bool) error {
	for _, name := range bridgeFlagNames {
		if c.Flags().Changed(name) && !bridging {
			return cli.UsageErrorf("for example: toonkit convert --from chiffon --to trace log.ndjson", "--%s applies to conversions between protocols (chiffon, trace, narratoria, and binary frames as kado) only", name)
		}
	}
	if b.RunID != "" {
		if _, err := uuid.Parse(b.RunID); err != nil {
			return cli.UsageErrorf("", "--run-id: %q is not a UUID (a trace run_id is one)", b.RunID)
		}
	}
	if !slices.Contains([]string{"infra", "desktop", "code", "research"}, b.Agent) {
		return cli.UsageErrorf("", "--agent: %q is not a Chiffon agent type (infra, desktop, code, research)", b.Agent)
	}
	return nil
}

// convertBridge converts messages from one protocol to another
// (bridge.Inputs), a record at a time: NDJSON out, or binary frames for
// Kado.
func convertBridge(opts *ConvertOptions, out *cli.Output, w io.Writer, st *cli.Stats) error {
	to, _ := bridge.ProtocolOf(opts.To)
	rep := cli.NewReporter(opts.IO)
	var snk cli.Sink = &records.NDJSONSink{W: w}
	bs := &cli.BinarySink{BinarySink: records.BinarySink{Header: kado.EncodeStreamOptions{Now: opts.Now}, Seq: 1}}
	if to == bridge.Kado {
		bs.W = kado.NewWriter(w, opts.Compress)
		snk = bs
	}
	conv := &bridge.Inputs{From: opts.From, MaxSize: opts.MaxFrameSize, Options: bridge.Options{To: to, RunID: opts.Bridge.RunID,
		AgentID: opts.Bridge.AgentID, Agent: opts.Bridge.Agent, Deterministic: opts.Bridge.Deterministic, Now: opts.Now,
		NoReassemble: opts.Bridge.NoReassemble, MaxOutput: opts.MaxFrameSize, Strict: opts.Bridge.Strict, Checked: true,
		Warn: func(where, msg string) { rep.Warnf("%s: %s", where, msg) }}}
	for _, name := range opts.Inputs {
		src, err := openConvertSource(opts, name)
		if err != nil {
			return err
		}
		bs.Src = src.Source
		err = conv.Copy(context.Background(), src.Source, snk, cli.CopyOptions(opts.Jobs, out, st))
		src.In.Close()
		var se *bridge.SourceError
		var pe *bridge.PairError
		var be *bridge.Error
		switch err = cli.Failure(out, cli.SourceError(err)); {
		case errors.As(err, &se) && se.Format == "":
			return cli.InvalidError(se, "name it with --from (chiffon, trace, narratoria, binary)")
		case se != nil:
			return cli.InvalidError(err, "name the protocol with --from (chiffon, trace, narratoria, binary)")
		case errors.As(err, &pe) && pe.From == pe.To:
			return cli.UsageErrorf("", "%s; --to %s converts from another protocol", pe, opts.To)
		case pe != nil:
			return cli.UsageErrorf("", "%v", pe)
		case errors.As(err, &be):
			return cli.InvalidError(be, "")
		case err != nil:
			return err
		}
	}
	return cli.Failure(out, snk.End())
}
