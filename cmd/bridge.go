package cmd

import (
	"slices"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/convert"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func addBridgeFlags(b *convert.BridgeOptions, f *pflag.FlagSet) {
	f.StringVar(&b.RunID, "run-id", "", "protocols: the trace run_id (and Chiffon trace_id) of every message, a UUID; default: the source's, or one new id")
	f.Int64Var(&b.AgentID, "agent-id", 0, "--to trace: meta.agent_id of every event")
	f.StringVar(&b.Agent, "agent", "code", "protocols: the Chiffon agent type (infra, desktop, code, research) of the agent side of frames and trace events")
	f.BoolVar(&b.Deterministic, "deterministic", false, "protocols: derive generated ids from the messages (UUID v5) and times from the stream, so that the output is the same every time")
	f.BoolVar(&b.Strict, "strict", false, "protocols: a message the target cannot hold is an error, not a warning")
	f.BoolVar(&b.NoReassemble, "no-reassemble", false, "--from chiffon: keep step output chunks as they are instead of joining them")
}

// check refuses protocol flags when no protocol conversion is asked for,
// and values that cannot be.
func checkBridgeFlags(b *convert.BridgeOptions, c *cobra.Command, bridging bool) error {
	for _, name := range convert.BridgeFlagNames {
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
