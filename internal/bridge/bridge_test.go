package bridge

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/validate"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }

// convertAll converts a stream of messages with one Converter.
func convertAll(t *testing.T, opts Options, msgs []string) []string {
	t.Helper()
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	var warnings []string
	opts.Warn = func(where, msg string) { warnings = append(warnings, where+": "+msg) }
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, msg := range msgs {
		err := c.Convert([]byte(msg), func() string { return fmt.Sprintf("message %d", i+1) }, func(b []byte) error {
			out = append(out, string(b))
			return nil
		})
		if err != nil {
			t.Fatalf("%s -> %s: %v\nmessage: %s", opts.From, opts.To, err, msg)
		}
	}
	if err := c.End(); err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("%s -> %s: warnings: %s", opts.From, opts.To, strings.Join(warnings, "\n"))
	}
	return out
}

// types each protocol's generator makes that have a counterpart in another.
var roundTrips = []struct {
	a, b  Protocol
	types []string
}{
	{Kado, Chiffon, []string{"INSTRUCTION", "STATUS", "TOOL_RESULT", "ERROR"}},
	{Chiffon, Kado, []string{"work_request", "work_status", "work_result", "error"}},
	{Kado, Trace, []string{"INSTRUCTION", "TOOL_CALL", "TOOL_RESULT", "ERROR", "STATUS", "CONTEXT_REQUEST", "CONTEXT_RESPONSE"}},
	{Chiffon, Trace, []string{"work_request", "work_status", "work_result", "error"}},
	{Narratoria, Trace, []string{"log", "state_patch", "asset", "ui_event", "error", "done"}},
	{Trace, Chiffon, []string{"action_request", "action_response", "error"}},
	{Trace, Narratoria, []string{"error"}},
}

func (g *gen) message(p Protocol, typ, run string) string {
	switch p {
	case Kado:
		return g.kado(typ)
	case Chiffon:
		return g.chiffon(typ)
	case Narratoria:
		return g.narratoria(typ)
	}
	return g.trace(typ, run)
}

// TestRoundTrip: A -> B -> A gives A back, byte for byte, on generated
// streams of messages of every type of each pair, and what B holds is a
// valid message of its protocol.
func TestRoundTrip(t *testing.T) {
	for _, rt := range roundTrips {
		for _, deterministic := range []bool{false, true} {
			name := fmt.Sprintf("%s-%s-deterministic=%v", rt.a, rt.b, deterministic)
			t.Run(name, func(t *testing.T) {
				for seed := range uint64(40) {
					g := newGen(seed)
					run := g.uuid()
					var msgs []string
					for range 25 {
						msgs = append(msgs, g.message(rt.a, rt.types[g.r.IntN(len(rt.types))], run))
					}
					switch {
					case rt.a == Narratoria:
						msgs = append(msgs, g.narratoria("done"))
					case rt.a == Trace && rt.b == Narratoria:
						msgs = append(msgs, fmt.Sprintf(`{"seq":%d,"t":"2026-01-19T04:21:04.000Z","actor":"tool","type":"final_output","payload":{"text":"failed","structured":{"ok":false}},"meta":{"run_id":%q,"agent_id":0}}`, g.seq+1, run))
					}
					there := convertAll(t, Options{From: rt.a, To: rt.b, Deterministic: deterministic}, msgs)
					if len(there) != len(msgs) {
						t.Fatalf("seed %d: %d messages became %d", seed, len(msgs), len(there))
					}
					checkValid(t, rt.b, there)
					back := convertAll(t, Options{From: rt.b, To: rt.a, Deterministic: deterministic}, there)
					for i := range msgs {
						if back[i] != msgs[i] {
							t.Fatalf("seed %d, message %d:\n  in:   %s\n  %s: %s\n  back: %s", seed, i+1, msgs[i], rt.b, there[i], back[i])
						}
					}
				}
			})
		}
	}
}

// checkValid runs toonkit validate's rules on messages of a protocol
// (trace events get a made-up signature first: the signature is sign's
// business, and its pattern is all validate can check without the key).
func checkValid(t *testing.T, p Protocol, msgs []string) {
	t.Helper()
	var in bytes.Buffer
	for _, m := range msgs {
		if p == Trace {
			n, err := parse([]byte(m))
			if err != nil {
				t.Fatal(err)
			}
			sig := strNode(strings.Repeat("ab", 32))
			n.set("meta.signature", sig)
			n.set1("signature", sig)
			m = string(n.bytes())
		}
		in.WriteString(m + "\n")
	}
	var findings []string
	emit := func(f validate.Finding) bool {
		if f.Severity == validate.Error || p != Chiffon || f.Code != "CHF064" {
			findings = append(findings, f.Text())
		}
		return true
	}
	var err error
	switch p {
	case Chiffon:
		_, err = validate.Chiffon(&in, "out", validate.Options{}, emit)
	case Trace:
		_, err = validate.Trace(&in, "out", validate.Options{}, emit)
	case Narratoria:
		_, err = validate.Narratoria(&in, "out", validate.Options{}, emit)
	default:
		return // frames: checked by the CLI tests, which write them
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) > 0 {
		t.Fatalf("the %s output does not validate:\n%s\n%s", p, strings.Join(findings, "\n"), in.String())
	}
}

// TestOrder: the members a protocol names come first, in its order; the
// others keep their order after them, in small and large objects alike.
func TestOrder(t *testing.T) {
	for _, extra := range []int{0, 3, 23, 24, 25, 200} {
		var in, want []string
		for i := range extra {
			in = append(in, fmt.Sprintf(`"x%d":%d`, i, i))
		}
		in = append(in, `"message":"m"`, `"code":"c"`, `"instruction":"i"`)
		want = append([]string{`"instruction":"i"`, `"code":"c"`, `"message":"m"`}, in[:extra]...)
		n, err := parse([]byte(`{"payload":{` + strings.Join(in, ",") + `},"header":{"type":1,"version":1}}`))
		if err != nil {
			t.Fatal(err)
		}
		order(Kado, n)
		got := string(n.bytes())
		if exp := `{"header":{"version":1,"type":1},"payload":{` + strings.Join(want, ",") + `}}`; got != exp {
			t.Errorf("%d other members:\n got %s\nwant %s", extra, got, exp)
		}
	}
}
