package bridge

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/toonkit/toonkit/kado"
)

// gen makes random messages of every protocol and type, with every field
// the spec names (in the spec's order) or some of them, odd number
// literals, non-ASCII text, nested values and members the spec does not
// name, for the round-trip tests.
type gen struct {
	r    *rand.Rand
	seq  int64
	task string
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 7))} }

func (g *gen) maybe() bool { return g.r.IntN(2) == 0 }

func (g *gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g *gen) text() string {
	return g.pick("", "hello", "Ünïcødé ✓", "line 1\nline 2\t\"quoted\"", "emoji 🎉 here", "a/b\\c", "日本語のテキスト", strings.Repeat("x", g.r.IntN(300)))
}

func (g *gen) q(s string) string { return strconv.Quote(s) } // ASCII-safe JSON for these strings

func (g *gen) str() string {
	b, _ := strNode(g.text()).raw, 0
	return string(b)
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Uint64()&(1<<48-1))
}

func (g *gen) number() string {
	return g.pick("0", "-1", "42", "3.14", "1.50", "1e3", "-0", "12345678901234567890123", "0.1", "2.5E-3")
}

func (g *gen) value(depth int) string {
	switch n := g.r.IntN(7); {
	case n == 0 && depth < 3:
		return g.object(depth + 1)
	case n == 1 && depth < 3:
		return "[" + g.value(depth+1) + "," + g.number() + "]"
	case n == 2:
		return g.number()
	case n == 3:
		return g.pick("true", "false", "null")
	default:
		return g.str()
	}
}

func (g *gen) object(depth int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range g.r.IntN(4) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s":%s`, g.pick("k", "name", "x.y", "a/b", "~tilde", "ü", "nested", "list")+strconv.Itoa(i), g.value(depth))
	}
	b.WriteByte('}')
	return b.String()
}

// extra is members the spec does not name, or none.
func (g *gen) extra() string {
	if g.r.IntN(3) != 0 {
		return ""
	}
	return fmt.Sprintf(`,"x_extra":%s`, g.value(1))
}

func (g *gen) iso() string {
	t := time.UnixMilli(1700000000000 + g.r.Int64N(1e11)).UTC()
	switch g.r.IntN(4) {
	case 0:
		return t.Format("2006-01-02T15:04:05Z")
	case 1:
		return t.Format("2006-01-02T15:04:05.000Z")
	case 2:
		return t.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000000-07:00")
	}
	return t.Format(isoMillis)
}

// obj joins members, skipping empty ones.
func obj(members ...string) string {
	var kept []string
	for _, m := range members {
		if m != "" {
			kept = append(kept, m)
		}
	}
	return "{" + strings.Join(kept, ",") + "}"
}

func (g *gen) opt(name, value string) string {
	if g.maybe() {
		return ""
	}
	return fmt.Sprintf(`"%s":%s`, name, value)
}

func m(name, value string) string { return fmt.Sprintf(`"%s":%s`, name, value) }

// kado makes the JSON record of a frame of a type.
func (g *gen) kado(typ string) string {
	var payload string
	switch typ {
	case "INSTRUCTION":
		payload = obj(m("instruction", g.str())) + ""
	case "TOOL_CALL":
		payload = obj(m("toolName", g.q(g.pick("file_read", "grep", "run"))), m("args", g.object(1)))
	case "TOOL_RESULT":
		payload = obj(m("success", g.pick("true", "false")), m("data", g.value(0)), m("duration", g.pick("12", "0", "1000", "2500", "3.5")))
	case "STATUS":
		payload = obj(m("status", g.q(g.pick("analyzing", "writing", "running"))), m("progress", g.pick("0", "0.45", "1", "0.5", "0.456", "0.50")))
	case "CONTEXT_REQUEST":
		payload = obj(m("type", `"file"`), m("path", g.q("src/config.ts")))
	case "CONTEXT_RESPONSE":
		payload = obj(m("type", `"file"`), m("path", g.q("src/config.ts")), m("content", g.str()))
	case "ERROR":
		payload = obj(m("code", g.q(g.pick("TOOL_FAILED", "TIMEOUT", "RESOURCE_LIMIT_EXCEEDED"))), m("message", g.str()))
	}
	if extra := g.extra(); extra != "" {
		payload = payload[:len(payload)-1] + extra + "}"
	}
	t, _ := kado.ParseMessageType(typ)
	g.seq += 1 + int64(g.r.IntN(4)/3) // mostly consecutive, sometimes a gap
	return fmt.Sprintf(`{"header":{"version":1,"type":%d,"typeName":"%s","timestamp":%d,"sequenceId":%d},"payload":%s}`,
		t, typ, 1735689600000+g.r.Int64N(1e9), g.seq, payload)
}

func (g *gen) chiffon(typ string) string {
	agents := []string{"infra", "desktop", "code", "research"}
	from, to := "orchestrator", agents[g.r.IntN(4)]
	if typ != "work_request" && (typ != "error" || g.maybe()) {
		from, to = to, from
	}
	if typ == "work_request" || g.task == "" {
		g.task = g.uuid()
	}
	var payload string
	switch typ {
	case "work_request":
		payload = obj(m("task_id", g.q(g.task)), m("work_type", g.q(g.pick("run_playbook", "generate_code"))), m("parameters", g.object(1)),
			g.opt("hints", `{"max_duration_seconds":300,"max_memory_mb":512}`))
	case "work_status":
		step := ""
		if g.maybe() {
			step = obj(m("number", strconv.Itoa(1+g.r.IntN(5))), m("name", g.str()), g.opt("output", g.str()))
		}
		if step != "" {
			step = m("step", step)
		}
		payload = obj(m("task_id", g.q(g.task)), m("status", g.q(g.pick("running", "step_completed", "paused"))), m("progress_percent", strconv.Itoa(g.r.IntN(101))), step)
	case "work_result":
		status, code := "success", "0"
		if g.maybe() {
			status, code = "failed", strconv.Itoa(1+g.r.IntN(3))
		}
		payload = obj(m("task_id", g.q(g.task)), m("status", g.q(status)), m("exit_code", code), m("output", g.str()),
			g.opt("resources_used", `{"duration_seconds":87,"gpu_vram_mb":0,"cpu_time_ms":12450}`))
		g.task = ""
	case "error":
		payload = obj(m("error_code", strconv.Itoa(5001+g.r.IntN(6))), m("error_message", g.str()), g.opt("error_context", g.object(1)))
	}
	return obj(m("protocol_version", `"1.0"`), m("message_id", g.q(g.uuid())), m("from_agent", g.q(from)), m("to_agent", g.q(to)),
		m("timestamp", g.q(g.iso())), m("trace_id", g.q(g.uuid())), m("request_id", g.q(g.uuid())), m("type", g.q(typ)), m("payload", payload),
		g.opt("x_custom_fields", g.pick("{}", `{"team":"blue"}`)))
}

func (g *gen) narratoria(typ string) string {
	var body []string
	switch typ {
	case "log":
		body = []string{m("level", g.q(g.pick("debug", "info", "warn", "error"))), m("message", g.str()), g.opt("fields", g.object(1))}
	case "state_patch":
		body = []string{m("patch", g.object(1))}
	case "asset":
		body = []string{m("assetId", g.q("a"+strconv.Itoa(g.r.IntN(1e6)))), m("kind", g.q("image")), m("mediaType", g.q("image/png")), m("path", g.q("out/x.png")), g.opt("metadata", g.object(1))}
	case "ui_event":
		body = []string{m("event", g.q("show_toast")), g.opt("payload", g.object(1))}
	case "error":
		body = []string{m("errorCode", g.q("E_TOOL")), m("errorMessage", g.str()), g.opt("details", g.object(1))}
	case "done":
		body = []string{m("ok", g.pick("true", "false")), g.opt("summary", g.str())}
	}
	head := []string{m("version", `"0"`), m("type", g.q(typ)), g.opt("requestId", g.q(g.pick("req-1", g.uuid()))), g.opt("timestamp", g.q(g.iso()))}
	return obj(append(head, body...)...)
}

// trace makes an unsigned trace event of a type, in a run.
func (g *gen) trace(typ, run string) string {
	var payload string
	switch typ {
	case "reasoning":
		payload = obj(m("goal", g.str()), m("steps", `[{"step_id":"s1","description":"interpret query","confidence":0.82}]`), m("safety_checks", `[{"name":"policy_lookup","result":"passed"}]`), m("uncertainty", g.q(g.pick("low", "medium", "high"))))
	case "action_request":
		payload = obj(m("action", g.q("create_ticket")), m("params", g.object(1)), g.opt("context", g.object(1)))
	case "action_response":
		payload = obj(m("status", g.q(g.pick("ok", "error"))), m("data", g.object(1)), g.opt("meta", `{"latency_ms":120,"policy_flags":[],"retries":0}`))
	case "final_output":
		payload = obj(m("text", g.str()), g.opt("structured", g.object(1)))
	case "error":
		payload = obj(m("error_type", g.q("ValidationError")), m("message", g.str()), m("code", g.q("ERR_INVALID_INPUT")), m("details", g.object(1)), m("recoverable", g.pick("true", "false")))
	}
	g.seq++
	return obj(m("seq", strconv.FormatInt(g.seq, 10)), m("t", g.q(g.iso())), m("actor", g.q(g.pick("agent", "tool", "user", "system"))), m("type", g.q(typ)), m("payload", payload),
		m("meta", obj(m("run_id", g.q(run)), m("agent_id", "0"))))
}
