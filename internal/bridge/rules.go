package bridge

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/kado"
)

// A rule relates a field of one protocol's message to a field of the
// other's. Sides: 0 is the pair's first protocol, 1 its second.
type rule struct {
	path   [2]string   // dotted paths; "" when the side has no such field
	names  [2][]string // the same as their names
	ptr    [2]string   // the same as JSON pointers
	conv   [2]convFn   // conv[s] turns the other side's value into side s's; nil: the same value
	derive [2]deriveFn // derive[s] makes side s's value when the other side has none
	same   [2]bool     // derive[s] gives the same value whenever asked in a stream
}

// convFn converts a value; nil when it cannot.
type convFn func(x *ctx, v *node) *node

// deriveFn makes a value.
type deriveFn func(x *ctx) *node

// typeMap relates a message type of each side, with the rules of its
// fields. match, when set, must also hold for a message of side s to take
// this mapping (several mappings may share a type on one side).
type typeMap struct {
	typ   [2]string
	match [2]func(*node) bool
	rules []rule
}

type pair struct {
	side   [2]Protocol
	common []rule // the envelope: for every type
	types  []typeMap
}

const (
	A = 0
	B = 1
)

func f(a, b string) rule {
	r := rule{path: [2]string{a, b}}
	for s, p := range r.path {
		if p != "" {
			r.names[s], r.ptr[s] = strings.Split(p, "."), pointer(p)
		}
	}
	return r
}

// to sets the conversions into side A and into side B.
func (r rule) to(intoA, intoB convFn) rule { r.conv = [2]convFn{intoA, intoB}; return r }

// made sets how side s makes the field when the other side has none;
// same: the value is always the same within a stream.
func (r rule) made(s int, d deriveFn, same bool) rule {
	r.derive[s], r.same[s] = d, same
	return r
}

func convertValue(fn convFn, x *ctx, v *node) *node {
	if fn == nil {
		return v
	}
	return fn(x, v)
}

// Where each protocol keeps its type, its extension slot, and the fields a
// conversion never carries (they follow from the rest).
var (
	typePath = map[Protocol]string{Kado: "header.type", Chiffon: "type", Trace: "type", Narratoria: "type"}
	extSlot  = map[Protocol]string{Kado: "payload.x_source", Chiffon: "x_custom_fields.x_source", Trace: "meta.x_source", Narratoria: "x_source"}
	ignored  = map[Protocol][]string{Kado: {"header.version", "header.typeName", "header.payloadLength", "header.compressed"}}
)

// typeOf is a message's type: a frame's type name, or the type member.
func typeOf(p Protocol, n *node) string {
	if p == Kado {
		if s, ok := strOf(n.get("header.typeName")); ok {
			return s
		}
		if v := n.get("header.type"); v != nil {
			if t, err := strconv.ParseUint(string(v.raw), 10, 8); err == nil {
				return kado.MessageType(t).String()
			}
		}
		return ""
	}
	s, _ := strOf(n.get("type"))
	return s
}

func setType(p Protocol, n *node, typ string) {
	if p == Kado {
		t, _ := kado.ParseMessageType(typ)
		n.set("header.version", rawNode([]byte("1")))
		n.set("header.type", num(int64(t)))
		n.set("header.typeName", strNode(typ))
		return
	}
	n.set("type", strNode(typ))
}

func describeType(p Protocol, typ string) string {
	switch p {
	case Kado:
		return "frame type " + typ
	case Chiffon:
		return "message type " + typ
	}
	return "event type " + typ
}

func constant(raw string) deriveFn {
	v := rawNode([]byte(raw))
	return func(*ctx) *node { return v }
}

func constStr(s string) deriveFn {
	v := strNode(s)
	return func(*ctx) *node { return v }
}

// --- values ---

func isInt(v *node) (int64, bool) {
	if v == nil || v.raw == nil {
		return 0, false
	}
	i, err := strconv.ParseInt(string(v.raw), 10, 64)
	return i, err == nil
}

func isNum(v *node) (float64, bool) {
	if v == nil || len(v.raw) == 0 || !(v.raw[0] == '-' || v.raw[0] >= '0' && v.raw[0] <= '9') {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(v.raw), 64)
	return x, err == nil
}

func strOf(v *node) (string, bool) {
	b, ok := v.text()
	if !ok {
		return "", false
	}
	if s, known := names[string(b)]; known {
		return s, true
	}
	return string(b), true
}

const isoMillis = "2006-01-02T15:04:05.000Z07:00"

// msToISO: Unix milliseconds as ISO 8601 UTC with milliseconds.
func msToISO(_ *ctx, v *node) *node {
	ms, ok := isInt(v)
	if !ok || ms < 0 {
		return nil
	}
	return strNode(time.UnixMilli(ms).UTC().Format(isoMillis))
}

// isoToMs: an ISO 8601 time as Unix milliseconds.
func isoToMs(_ *ctx, v *node) *node {
	s, ok := strOf(v)
	if !ok {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.UnixMilli() < 0 {
		return nil
	}
	return num(t.UnixMilli())
}

// toPercent: progress 0..1 as a whole percentage.
func toPercent(_ *ctx, v *node) *node {
	p, ok := isNum(v)
	if !ok || p < 0 || p > 1 {
		return nil
	}
	return num(int64(math.Round(p * 100)))
}

// toProgress: a percentage 0..100 as progress 0..1.
func toProgress(_ *ctx, v *node) *node {
	p, ok := isNum(v)
	if !ok || p < 0 || p > 100 {
		return nil
	}
	return rawNode(strconv.AppendFloat(nil, p/100, 'f', -1, 64))
}

// boolTo maps true and false to two strings, and back.
func boolTo(t, f string) (toStr, toBool convFn) {
	toStr = func(_ *ctx, v *node) *node {
		switch string(v.raw) {
		case "true":
			return strNode(t)
		case "false":
			return strNode(f)
		}
		return nil
	}
	toBool = func(_ *ctx, v *node) *node {
		switch s, _ := strOf(v); s {
		case t:
			return rawNode([]byte("true"))
		case f:
			return rawNode([]byte("false"))
		}
		return nil
	}
	return
}

// strMap maps strings by a table, both ways.
func strMap(m map[string]string) (fwd, back convFn) {
	rev := map[string]string{}
	for k, v := range m {
		rev[v] = k
	}
	look := func(t map[string]string) convFn {
		return func(_ *ctx, v *node) *node {
			if s, ok := strOf(v); ok {
				if r, ok := t[s]; ok {
					return strNode(r)
				}
			}
			return nil
		}
	}
	return look(m), look(rev)
}

// asText: a string as it is, any other value as its JSON text.
func asText(_ *ctx, v *node) *node {
	if _, ok := strOf(v); ok {
		return v
	}
	return strNode(string(v.bytes()))
}

// wrapObject: an object as it is, any other value as {"value": v}.
func wrapObject(_ *ctx, v *node) *node {
	if v.isObject() {
		return v
	}
	return &node{m: []member{{"value", v}}}
}

// unwrapObject is the reverse of wrapObject.
func unwrapObject(_ *ctx, v *node) *node {
	if v.isObject() && len(v.obj().m) == 1 && v.m[0].k == "value" {
		return v.m[0].v
	}
	return v
}

func msToSeconds(_ *ctx, v *node) *node {
	ms, ok := isNum(v)
	if !ok || ms < 0 {
		return nil
	}
	return num(int64(math.Round(ms / 1000)))
}

func secondsToMs(_ *ctx, v *node) *node {
	s, ok := isInt(v)
	if !ok || s < 0 {
		return nil
	}
	return num(s * 1000)
}

// intToString and stringToInt: an integer and its decimal text.
func intToString(_ *ctx, v *node) *node {
	if _, ok := isInt(v); !ok {
		return nil
	}
	return strNode(string(v.raw))
}

func stringToInt(_ *ctx, v *node) *node {
	s, ok := strOf(v)
	if !ok {
		return nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(i, 10) != s {
		return nil
	}
	return num(i)
}

// Chiffon error codes, their names and whether they may be retried.
var chiffonErrors = map[int64]struct {
	kado, name string
	retry      bool
}{
	5001: {"TIMEOUT", "Timeout", true},
	5002: {"AGENT_UNAVAILABLE", "AgentUnavailable", true},
	5003: {"INVALID_MESSAGE", "InvalidMessage", false},
	5004: {"AUTHENTICATION_FAILED", "AuthenticationFailed", false},
	5005: {"RESOURCE_LIMIT_EXCEEDED", "ResourceLimitExceeded", true},
	5006: {"UNSUPPORTED_WORK_TYPE", "UnsupportedWorkType", false},
}

// unspecifiedError is the Chiffon code of an error no code of the spec names.
const unspecifiedError = 5999

// kadoCode names a Chiffon error's code for a Kado ERROR frame.
func kadoCode(x *ctx) *node {
	code := chiffonCode(x)
	if e, ok := chiffonErrors[code]; ok {
		return strNode(e.kado)
	}
	return strNode("E" + strconv.FormatInt(code, 10))
}

// agents and actors.
func agentToActor(_ *ctx, v *node) *node {
	switch s, _ := strOf(v); s {
	case "orchestrator":
		return strNode("system")
	case "infra", "desktop", "code", "research":
		return strNode("agent")
	}
	return nil
}

func actorToAgent(x *ctx, v *node) *node {
	switch s, _ := strOf(v); s {
	case "agent", "tool":
		return strNode(x.c.opts.Agent)
	case "system", "user", "redteam":
		return strNode("orchestrator")
	}
	return nil
}

// isUUID reports whether s is a UUID in any of the forms the schemas take.
func isUUID(s string) bool {
	if len(s) == 36 {
		canonical := true
		for i := 0; i < 36 && canonical; i++ {
			c := s[i]
			if i == 8 || i == 13 || i == 18 || i == 23 {
				canonical = c == '-'
			} else {
				canonical = c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
			}
		}
		if canonical {
			return true
		}
	}
	return uuidShape.MatchString(s)
}

var uuidShape = regexp.MustCompile(`^(urn:uuid:)?\{?[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}\}?$`)

// runOf: the run id a source's trace/request id gives (--run-id wins).
func runOf(x *ctx, v *node) *node {
	if x.c.opts.RunID != "" {
		return strNode(x.c.opts.RunID)
	}
	s, ok := strOf(v)
	if !ok {
		return nil
	}
	if isUUID(s) {
		return v
	}
	return strNode(x.c.nameID("request", s))
}

// --- derivations ---

func newID(purpose string) deriveFn {
	return func(x *ctx) *node { return strNode(x.c.id(purpose, x)) }
}

func runID(x *ctx) *node { return strNode(x.c.runID(x)) }

// nextSeq: the next seq of the trace event's run.
func nextSeq(x *ctx) *node {
	v := x.side(Trace).get("meta.run_id")
	run, ok := v.text()
	if !ok && v != nil {
		run = v.raw
	}
	if sp := x.c.spec; sp != nil {
		sp.seqRun = append(sp.seqRun[:0], run...)
		sp.seqs++
		return seqHole
	}
	return num(x.c.seqs.get(run) + 1)
}

// nextCount: the number of the message among those read.
func nextCount(x *ctx) *node {
	if sp := x.c.spec; sp != nil {
		sp.counts++
		return countHole
	}
	return num(int64(x.c.index))
}

func agentID(x *ctx) *node { return num(x.c.opts.AgentID) }

func agentType(x *ctx) *node { return strNode(x.c.opts.Agent) }

// counterpart: the other end of the Chiffon message's from_agent.
func counterpart(x *ctx) *node {
	if s, _ := x.side(Chiffon).str("from_agent"); s == "orchestrator" {
		return strNode(x.c.opts.Agent)
	}
	return strNode("orchestrator")
}

// openTask: the task of the stream's open work, or a new one.
func openTask(x *ctx) *node {
	if sp := x.c.spec; sp != nil {
		if !x.c.guess.task {
			sp.miss = true
		} else {
			sp.checks = append(sp.checks, check{kind: checkTask, value: []byte(x.c.task)})
		}
	}
	if x.c.task != "" {
		return strNode(x.c.task)
	}
	return newID("task")(x)
}

// nextStep: the number of a work_status's step among those of its task,
// when it has a step.
func nextStep(x *ctx) *node {
	m := x.side(Chiffon)
	if m.get("payload.step.name") == nil {
		return nil
	}
	if x.c.spec != nil {
		x.c.spec.miss = true
	}
	task, _ := m.str("payload.task_id")
	return num(x.c.steps[task] + 1)
}

// someTime: the time of the last message of the stream, or now (with
// Deterministic, the Unix epoch).
func someTime(x *ctx) *node {
	if sp := x.c.spec; sp != nil {
		if !x.c.guess.time {
			sp.miss = true // the time of the message before: the ordered pass's
			return strNode("")
		}
		sp.checks = append(sp.checks, check{kind: checkTime, value: x.c.lastT})
	}
	switch {
	case len(x.c.lastT) > 0:
		return strNode(x.c.lastT)
	case x.c.opts.Deterministic:
		return strNode(time.UnixMilli(0).UTC().Format(isoMillis))
	}
	return strNode(x.c.opts.Now().UTC().Format(isoMillis))
}

func someMs(x *ctx) *node {
	if v := isoToMs(x, someTime(x)); v != nil {
		return v
	}
	return num(0)
}

// from: a string of the other side's message.
func from(p Protocol, path, dflt string) deriveFn {
	return func(x *ctx) *node {
		if s, ok := x.side(p).str(path); ok {
			return strNode(s)
		}
		return strNode(dflt)
	}
}

func chiffonCode(x *ctx) int64 {
	code, _ := isInt(x.side(Chiffon).get("payload.error_code"))
	return code
}

func errorName(x *ctx) *node {
	if e, ok := chiffonErrors[chiffonCode(x)]; ok {
		return strNode(e.name)
	}
	return strNode("ChiffonError")
}

func retryable(x *ctx) *node {
	return rawNode([]byte(strconv.FormatBool(chiffonErrors[chiffonCode(x)].retry)))
}

func exitFromStatus(x *ctx) *node {
	if s, _ := x.side(Chiffon).str("payload.status"); s == "failed" {
		return num(1)
	}
	return num(0)
}

// goalOfStatus: a work_status's step name, or its status.
func goalOfStatus(x *ctx) *node {
	m := x.side(Chiffon)
	for _, p := range []string{"payload.step.name", "payload.status"} {
		if s, ok := m.str(p); ok {
			return strNode(s)
		}
	}
	return strNode("work_status")
}

func actionIs(name string) func(*node) bool {
	return func(n *node) bool { s, _ := n.str("payload.action"); return s == name }
}

var (
	successToStatus, statusToSuccess           = boolTo("success", "failed")
	okToStatus, statusToOk                     = boolTo("ok", "error")
	chiffonToTraceStatus, traceToChiffonStatus = strMap(map[string]string{"success": "ok", "failed": "error"})
)

// reasoningRest: what a reasoning event needs that a status has not.
func reasoningRest() []rule {
	return []rule{
		f("", "payload.steps").made(B, constant("[]"), true),
		f("", "payload.safety_checks").made(B, constant("[]"), true),
		f("", "payload.uncertainty").made(B, constStr("medium"), true),
	}
}

// The envelope of a trace event made from another protocol (side B is trace).
func traceEnvelope() []rule {
	return []rule{
		f("", "seq").made(B, nextSeq, true),
		f("", "meta.agent_id").made(B, agentID, true),
	}
}

func actor(name string) rule { return f("", "actor").made(B, constStr(name), true) }

var pairs = []*pair{
	{
		side: [2]Protocol{Kado, Chiffon},
		common: []rule{
			f("header.timestamp", "timestamp").to(isoToMs, msToISO).made(A, someMs, false).made(B, someTime, false),
			f("header.sequenceId", "").made(A, nextCount, true),
			f("", "protocol_version").made(B, constStr("1.0"), true),
			f("", "message_id").made(B, newID("message"), false),
			f("", "trace_id").made(B, runID, true),
			f("", "request_id").made(B, newID("request"), false),
		},
		types: []typeMap{
			{typ: [2]string{"INSTRUCTION", "work_request"}, rules: []rule{
				f("", "from_agent").made(B, constStr("orchestrator"), true),
				f("", "to_agent").made(B, counterpart, true),
				f("", "payload.task_id").made(B, newID("task"), false),
				f("", "payload.work_type").made(B, constStr("instruction"), true),
				f("payload.instruction", "payload.parameters.instruction").made(A, from(Chiffon, "payload.work_type", ""), false),
			}},
			{typ: [2]string{"STATUS", "work_status"}, rules: []rule{
				f("", "from_agent").made(B, agentType, true),
				f("", "to_agent").made(B, counterpart, true),
				f("", "payload.task_id").made(B, openTask, false),
				f("", "payload.status").made(B, constStr("running"), true),
				f("payload.progress", "payload.progress_percent").to(toProgress, toPercent),
				f("payload.status", "payload.step.name").made(A, from(Chiffon, "payload.status", "running"), false),
				f("", "payload.step.number").made(B, nextStep, true),
			}},
			{typ: [2]string{"TOOL_RESULT", "work_result"}, rules: []rule{
				f("", "from_agent").made(B, constStr("orchestrator"), true),
				f("", "to_agent").made(B, counterpart, true),
				f("", "payload.task_id").made(B, openTask, false),
				f("payload.success", "payload.status").to(statusToSuccess, successToStatus),
				f("", "payload.exit_code").made(B, exitFromStatus, true),
				f("payload.data", "payload.output").to(nil, asText),
				f("payload.duration", "payload.resources_used.duration_seconds").to(secondsToMs, msToSeconds),
			}},
			{typ: [2]string{"ERROR", "error"}, rules: []rule{
				f("", "from_agent").made(B, agentType, true),
				f("", "to_agent").made(B, counterpart, true),
				f("", "payload.error_code").made(B, constant(strconv.Itoa(unspecifiedError)), true),
				f("payload.message", "payload.error_message"),
				f("payload.code", "payload.error_context.code").made(A, kadoCode, false),
			}},
		},
	},
	{
		side: [2]Protocol{Kado, Trace},
		common: append([]rule{
			f("header.timestamp", "t").to(isoToMs, msToISO).made(A, someMs, false).made(B, someTime, false),
			f("header.sequenceId", "").made(A, nextCount, true),
			f("", "meta.run_id").made(B, runID, true),
		}, traceEnvelope()...),
		types: []typeMap{
			{typ: [2]string{"INSTRUCTION", "action_request"}, match: [2]func(*node) bool{B: actionIs("instruction")}, rules: []rule{
				actor("system"),
				f("", "payload.action").made(B, constStr("instruction"), true),
				f("payload.instruction", "payload.params.instruction"),
			}},
			{typ: [2]string{"TOOL_CALL", "action_request"}, rules: []rule{
				actor("agent"),
				f("payload.toolName", "payload.action"),
				f("payload.args", "payload.params"),
			}},
			{typ: [2]string{"TOOL_RESULT", "action_response"}, rules: []rule{
				actor("tool"),
				f("payload.success", "payload.status").to(statusToOk, okToStatus),
				f("payload.data", "payload.data").to(unwrapObject, wrapObject),
				f("payload.duration", "payload.meta.latency_ms"),
			}},
			{typ: [2]string{"ERROR", "error"}, rules: []rule{
				actor("agent"),
				f("", "payload.error_type").made(B, constStr("KadoError"), true),
				f("payload.message", "payload.message"),
				f("payload.code", "payload.code"),
				f("", "payload.details").made(B, constant("{}"), true),
				f("", "payload.recoverable").made(B, constant("false"), true),
			}},
			{typ: [2]string{"CONTEXT_REQUEST", "action_request"}, match: [2]func(*node) bool{B: actionIs("context")}, rules: []rule{
				actor("agent"),
				f("", "payload.action").made(B, constStr("context"), true),
				f("payload", "payload.params"),
			}},
			{typ: [2]string{"CONTEXT_RESPONSE", "action_response"}, rules: []rule{
				actor("system"),
				f("", "payload.status").made(B, constStr("ok"), true),
				f("payload", "payload.data"),
			}},
			{typ: [2]string{"STATUS", "reasoning"}, rules: append([]rule{
				actor("agent"),
				f("payload.status", "payload.goal"),
				f("payload.progress", "payload.context.progress"),
			}, reasoningRest()...)},
		},
	},
	{
		side: [2]Protocol{Chiffon, Trace},
		common: append([]rule{
			f("trace_id", "meta.run_id").to(nil, runOf).made(B, runID, true).made(A, runID, true),
			f("timestamp", "t").made(B, someTime, false).made(A, someTime, false),
			f("from_agent", "actor").to(actorToAgent, agentToActor).made(B, constStr("agent"), true),
			f("to_agent", "").made(A, counterpart, true),
			f("protocol_version", "").made(A, constStr("1.0"), true),
			f("message_id", "").made(A, newID("message"), false),
			f("request_id", "").made(A, newID("request"), false),
		}, traceEnvelope()...),
		types: []typeMap{
			{typ: [2]string{"work_request", "action_request"}, rules: []rule{
				f("payload.task_id", "payload.context.task_id").made(A, newID("task"), false),
				f("payload.work_type", "payload.action"),
				f("payload.parameters", "payload.params").made(A, constant("{}"), true),
				f("payload.hints", "payload.context.hints"),
			}},
			{typ: [2]string{"work_result", "action_response"}, rules: []rule{
				f("payload.task_id", "payload.context.task_id").made(A, openTask, false),
				f("payload.status", "payload.status").to(traceToChiffonStatus, chiffonToTraceStatus),
				f("payload.exit_code", "payload.data.exit_code").made(A, exitFromStatus, true),
				f("payload.output", "payload.data.output").made(A, constStr(""), true).made(B, constStr(""), true),
				f("payload.resources_used", "payload.meta.resources_used"),
			}},
			{typ: [2]string{"error", "error"}, rules: []rule{
				f("", "payload.error_type").made(B, errorName, true),
				f("payload.error_message", "payload.message"),
				f("payload.error_code", "payload.code").to(stringToInt, intToString).made(A, constant(strconv.Itoa(unspecifiedError)), true),
				f("payload.error_context", "payload.details").made(B, constant("{}"), true),
				f("", "payload.recoverable").made(B, retryable, true),
			}},
			{typ: [2]string{"work_status", "reasoning"}, rules: append([]rule{
				f("payload.task_id", "payload.context.task_id").made(A, openTask, false),
				f("payload.status", "payload.context.status").made(A, constStr("running"), true),
				f("payload.progress_percent", "payload.context.progress_percent").made(A, constant("0"), true),
				f("payload.step", "payload.context.step"),
				f("", "payload.goal").made(B, goalOfStatus, true),
			}, reasoningRest()...)},
		},
	},
	{
		side: [2]Protocol{Narratoria, Trace},
		common: append([]rule{
			f("version", "").made(A, constStr("0"), true),
			f("requestId", "meta.run_id").to(nil, runOf).made(B, runID, true),
			f("timestamp", "t").made(B, someTime, false),
			actor("tool"),
		}, traceEnvelope()...),
		types: []typeMap{
			{typ: [2]string{"log", "reasoning"}, rules: append([]rule{
				f("message", "payload.goal").made(A, constStr(""), true).made(B, constStr(""), true),
				f("level", "payload.context.level").made(A, constStr("info"), true),
				f("fields", "payload.context.fields"),
			}, reasoningRest()...)},
			{typ: [2]string{"error", "error"}, rules: []rule{
				f("", "payload.error_type").made(B, constStr("ToolError"), true),
				f("errorMessage", "payload.message").made(B, constStr(""), true),
				f("errorCode", "payload.code").made(B, constStr(""), true),
				f("details", "payload.details").made(B, constant("{}"), true),
				f("", "payload.recoverable").made(B, constant("true"), true),
			}},
			{typ: [2]string{"done", "final_output"}, rules: []rule{
				f("summary", "payload.text").made(B, constStr(""), true),
				f("ok", "payload.structured.ok").made(A, constant("true"), true),
			}},
			{typ: [2]string{"state_patch", "action_request"}, match: [2]func(*node) bool{B: actionIs("state_patch")}, rules: []rule{
				f("", "payload.action").made(B, constStr("state_patch"), true),
				f("patch", "payload.params").made(B, constant("{}"), true),
			}},
			{typ: [2]string{"asset", "action_request"}, match: [2]func(*node) bool{B: actionIs("asset")}, rules: []rule{
				f("", "payload.action").made(B, constStr("asset"), true),
				f("assetId", "payload.params.assetId"),
				f("kind", "payload.params.kind"),
				f("mediaType", "payload.params.mediaType"),
				f("path", "payload.params.path"),
				f("metadata", "payload.params.metadata"),
			}},
			{typ: [2]string{"ui_event", "action_request"}, match: [2]func(*node) bool{B: actionIs("ui_event")}, rules: []rule{
				f("", "payload.action").made(B, constStr("ui_event"), true),
				f("event", "payload.params.event"),
				f("payload", "payload.params.payload"),
			}},
		},
	},
}

// The order of each protocol's members, by the parent's dotted path:
// members a list names come first, in its order, the others after them
// in the order they have. The envelope protocols' lists are codec's;
// Kado's is the shape of toonkit decode's output.
var orders = map[Protocol]map[string][]string{
	Kado: {
		"":        {"header", "payload"},
		"header":  {"version", "type", "typeName", "payloadLength", "timestamp", "sequenceId", "compressed"},
		"payload": {"instruction", "toolName", "args", "success", "data", "duration", "status", "progress", "code", "message", "type", "path"},
	},
	Chiffon:    codec.Members[codec.Chiffon],
	Trace:      codec.Members[codec.Trace],
	Narratoria: codec.Members[codec.Narratoria],
}

// ranks is orders as the place of each name, per object.
var ranks = map[Protocol][]ranking{}

type ranking struct {
	path   []string // nil: the message itself
	places map[string]int
}

func init() {
	for p, o := range orders {
		for path, list := range o {
			r := ranking{places: map[string]int{}}
			if path != "" {
				r.path = strings.Split(path, ".")
			}
			for i, k := range list {
				r.places[k] = i
			}
			ranks[p] = append(ranks[p], r)
		}
	}
}

// order sorts the members of a protocol's message.
func order(p Protocol, n *node) {
	for _, r := range ranks[p] {
		o := n.getp(r.path)
		if !o.isObject() {
			continue
		}
		ms := o.obj().m
		// Each member's place, found once; most objects are small.
		var small [24]int
		rk := small[:0]
		sorted := true
		for i, m := range ms {
			p, ok := r.places[m.k]
			if !ok {
				p = len(r.places)
			}
			rk = append(rk, p)
			sorted = sorted && (i == 0 || rk[i-1] <= p)
		}
		if sorted {
			continue
		}
		if len(ms) > len(small) {
			// A large object (a frame's payload may be any object).
			type placed struct {
				p int
				m member
			}
			ps := make([]placed, len(ms))
			for i, m := range ms {
				ps[i] = placed{rk[i], m}
			}
			slices.SortStableFunc(ps, func(a, b placed) int { return a.p - b.p })
			for i := range ps {
				ms[i] = ps[i].m
			}
			continue
		}
		// A stable insertion sort, on the places and the members alike.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && rk[j-1] > rk[j]; j-- {
				rk[j-1], rk[j] = rk[j], rk[j-1]
				ms[j-1], ms[j] = ms[j], ms[j-1]
			}
		}
	}
}
