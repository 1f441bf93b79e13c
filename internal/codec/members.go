package codec

// Members lists, for each JSON envelope protocol, the member names its
// specification gives each object, in the order it gives them, by the
// object's dotted path from the message ("" is the message itself). They
// exist here once: bridge writes the messages it makes in this order, and
// validate warns of a Chiffon message's top-level members that its
// envelope does not list. DetectProtocol's keys are among them.
var Members = map[Format]map[string][]string{
	Chiffon: {
		"":                       {"protocol_version", "message_id", "from_agent", "to_agent", "timestamp", "trace_id", "request_id", "type", "payload", "x_custom_fields"},
		"payload":                {"task_id", "work_type", "parameters", "hints", "status", "progress_percent", "exit_code", "step", "output", "resources_used", "error_code", "error_message", "error_context"},
		"payload.step":           {"number", "name", "output", "output_chunk"},
		"payload.resources_used": {"duration_seconds", "gpu_vram_mb", "cpu_time_ms"},
	},
	Trace: {
		"":             {"seq", "t", "actor", "type", "payload", "meta", "signature"},
		"payload":      {"goal", "steps", "safety_checks", "uncertainty", "action", "params", "status", "data", "meta", "text", "structured", "error_type", "message", "code", "details", "recoverable", "timestamp", "context"},
		"payload.meta": {"latency_ms", "policy_flags", "retries", "resources_used"},
		"payload.data": {"output", "exit_code"},
		"meta":         {"seed", "run_id", "agent_id", "session_id", "signature"},
	},
	Narratoria: {
		"": {"version", "type", "requestId", "timestamp", "level", "message", "fields", "patch", "assetId", "kind", "mediaType", "path", "metadata", "event", "payload", "errorCode", "errorMessage", "details", "ok", "summary"},
	},
}
