package cmd

import (
	"errors"
	"github.com/toonkit/toonkit/pkg/records"
	"io"
	"slices"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/pkg/bridge"
	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/binary"
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
			return usageErrorf("for example: toonkit convert --from chiffon --to trace log.ndjson", "--%s applies to conversions between protocols (chiffon, trace, narratoria, and binary frames as kado) only", name)
		}
	}
	if b.RunID != "" {
		if _, err := uuid.Parse(b.RunID); err != nil {
			return usageErrorf("", "--run-id: %q is not a UUID (a trace run_id is one)", b.RunID)
		}
	}
	if !slices.Contains([]string{"infra", "desktop", "code", "research"}, b.Agent) {
		return usageErrorf("", "--agent: %q is not a Chiffon agent type (infra, desktop, code, research)", b.Agent)
	}
	return nil
}

// bridging reports whether convert may map messages between protocols:
// the target is a protocol, or binary frames from a protocol (named, or
// detected: an input that holds no protocol's messages then gives its
// records to the frames as they are).
func bridging(from, to codec.Format) bool {
	if to == codec.Binary {
		return from == "" || from == codec.Chiffon || from == codec.Trace || from == codec.Narratoria
	}
	return to == codec.Chiffon || to == codec.Trace || to == codec.Narratoria
}

// convertBridge converts messages from one protocol to another, a record
// at a time: NDJSON out, or binary frames for Kado.
func convertBridge(opts *ConvertOptions, out *output, w io.Writer, st *stats) error {
	to, _ := bridge.ProtocolOf(opts.To)
	rep := newReporter(opts.IO)
	var snk sink = &records.NDJSONSink{W: w}
	bs := &binarySink{records.BinarySink{Header: binary.EncodeStreamOptions{Now: opts.Now}, Seq: 1}}
	if to == bridge.Kado {
		bs.W = binary.NewWriter(w, opts.Compress)
		snk = bs
	}
	var conv *bridge.Converter
	var convFrom bridge.Protocol
	for _, name := range opts.Inputs {
		src, err := openConvertSource(opts, name)
		if err != nil {
			return err
		}
		from, err := sourceProtocol(src, opts.From, to == bridge.Kado)
		if err != nil {
			src.close()
			return err
		}
		bs.Src = src.Source
		if to == bridge.Kado && (from == "" || from == bridge.Kado) {
			// Records for frames, as convert --to binary takes them.
			if err := pump(src, out, st, snk.Write); err != nil {
				return err
			}
			continue
		}
		if from == to {
			src.close()
			return usageErrorf("", "%s: the input is %s already; --to %s converts from another protocol", src.Name(), from, opts.To)
		}
		if conv == nil || from != convFrom {
			// One run for all the inputs of a protocol.
			conv, err = bridge.New(bridge.Options{From: from, To: to, RunID: opts.Bridge.RunID, AgentID: opts.Bridge.AgentID,
				Agent: opts.Bridge.Agent, Deterministic: opts.Bridge.Deterministic, Now: opts.Now, NoReassemble: opts.Bridge.NoReassemble,
				MaxOutput: opts.MaxFrameSize, Strict: opts.Bridge.Strict, Checked: true,
				Warn: func(where, msg string) { rep.warnf("%s: %s", where, msg) }})
			if err != nil {
				src.close()
				return usageErrorf("", "%s: %v", src.Name(), err)
			}
			convFrom = from
		}
		if opts.Jobs > 1 && st == nil && to != bridge.Kado && (src.Format() == codec.JSON || src.Format() == codec.NDJSON) {
			err = bridgeJobs(opts, src, out, conv, snk)
		} else {
			err = pump(src, out, st, func(rec []byte) error { return bridgeError(conv.Convert(rec, src.Where, snk.Write)) })
		}
		if err != nil {
			return err
		}
		if err := conv.End(); err != nil {
			return bridgeError(err)
		}
	}
	return failure(out, snk.End())
}

// sourceProtocol is the protocol of an input (bridge.SourceProtocol).
func sourceProtocol(src *source, from codec.Format, records bool) (bridge.Protocol, error) {
	p, err := bridge.SourceProtocol(src.Source, from, records)
	var se *bridge.SourceError
	switch {
	case errors.As(err, &se) && se.Format == "":
		return "", invalidError(se, "name it with --from (chiffon, trace, narratoria, binary)")
	case err != nil:
		return "", invalidError(err, "name the protocol with --from (chiffon, trace, narratoria, binary)")
	}
	return p, nil
}

func bridgeError(err error) error {
	var be *bridge.Error
	if errors.As(err, &be) {
		return invalidError(be, "")
	}
	return err
}
