package validate

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// fastSeeds are valid messages of each schema.
var fastSeeds = map[string][]string{
	"chiffon": {
		`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-446655440001","from_agent":"orchestrator","to_agent":"infra","timestamp":"2026-01-19T04:21:04Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","request_id":"550e8400-e29b-41d4-a716-446655440003","type":"work_request","payload":{"task_id":"550e8400-e29b-41d4-a716-446655440004","work_type":"run_playbook","parameters":{"playbook":"deploy_kuma.yml"},"hints":{"max_duration_seconds":300,"max_memory_mb":512}},"x_custom_fields":{}}`,
		`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-446655440001","from_agent":"infra","to_agent":"orchestrator","timestamp":"2026-01-19T04:21:04.5+02:00","trace_id":"550e8400-e29b-41d4-a716-446655440002","request_id":"550e8400-e29b-41d4-a716-446655440003","type":"work_status","payload":{"task_id":"550e8400-e29b-41d4-a716-446655440004","status":"running","progress_percent":50,"step":{"number":2,"name":"n","output":"o","output_chunk":"bytes 0-10 of 20"}}}`,
		`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-446655440001","from_agent":"infra","to_agent":"orchestrator","timestamp":"2026-01-19T04:21:04Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","request_id":"550e8400-e29b-41d4-a716-446655440003","type":"work_result","payload":{"task_id":"550e8400-e29b-41d4-a716-446655440004","status":"failed","exit_code":1,"output":"x","resources_used":{"duration_seconds":1,"gpu_vram_mb":0,"cpu_time_ms":2}}}`,
		`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-446655440001","from_agent":"infra","to_agent":"orchestrator","timestamp":"2026-01-19T04:21:04Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","request_id":"550e8400-e29b-41d4-a716-446655440003","type":"error","payload":{"error_code":5006,"error_message":"m","error_context":{"work_type_requested":"x","supported_types":["a"]}}}`,
	},
	"trace": {
		`{"seq":1,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"reasoning","payload":{"goal":"g","steps":[{"step_id":"s1","description":"d","confidence":0.5}],"safety_checks":[{"name":"n","result":"r"}],"uncertainty":"low"},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":1,"signature":"` + fmt.Sprintf("%064x", 1) + `"}}`,
		`{"seq":2,"t":"2025-12-05T10:30:00Z","actor":"tool","type":"error","payload":{"error_type":"E","message":"m","code":"c","details":{},"recoverable":false},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":1,"signature":"` + fmt.Sprintf("%064x", 2) + `"}}`,
	},
	"narratoria": {
		`{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"image/png","path":"a.png","metadata":{}}`,
		`{"version":"0","type":"done","ok":true,"summary":"s"}`,
	},
	"binary-status":      {`{"status":"s","progress":0.5}`},
	"binary-heartbeat":   {`{}`},
	"binary-tool-result": {`{"success":true,"data":null,"duration":0}`},
}

// The seeds pass the fast path (else it would be no faster).
func TestFastPathTakesValidMessages(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	for name, msgs := range fastSeeds {
		for _, m := range msgs {
			if !fastValid(&splitCache{}, name, []byte(m)) {
				t.Errorf("%s: the fast path does not take %s", name, m)
			}
			v, _ := decodeAny([]byte(m))
			if issues, _ := checkSchema(name, v); len(issues) > 0 {
				t.Errorf("%s: %s has issues %v", name, m, issues)
			}
		}
	}
}

// FuzzFastPathIsSound: whenever the fast path says valid, the schema
// library agrees. Fields of valid messages are replaced by any JSON value.
func FuzzFastPathIsSound(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte(`150`))
	f.Add(uint8(1), uint8(3), []byte(`"2026-02-30T04:21:04Z"`))
	f.Add(uint8(2), uint8(5), []byte(`1.0`))
	f.Add(uint8(3), uint8(2), []byte(`"\u0030"`))
	f.Add(uint8(4), uint8(7), []byte(`{"a":[1,{}]}`))
	var names []string
	for n := range fastSeeds {
		names = append(names, n)
	}
	f.Fuzz(func(t *testing.T, which, field uint8, val []byte) {
		if err := loadSchemas(); err != nil {
			t.Fatal(err)
		}
		c, err := jsonv.AppendCompact(nil, val)
		if err != nil {
			return
		}
		var all []struct{ name, msg string }
		for _, n := range names {
			for _, m := range fastSeeds[n] {
				all = append(all, struct{ name, msg string }{n, m})
			}
		}
		seed := all[int(which)%len(all)]
		// Replace the value of the field-th member found at any depth.
		msg := []byte(seed.msg)
		var spans [][2]int
		var walk func(off int, v []byte)
		walk = func(off int, v []byte) {
			jsonv.Members(v, func(name []byte, _ bool, val []byte) {
				at := off + bytes.Index(v, val) // first occurrence: good enough for seeds
				spans = append(spans, [2]int{at, at + len(val)})
				if len(val) > 0 && val[0] == '{' {
					walk(at, val)
				}
			})
		}
		walk(0, msg)
		if len(spans) == 0 {
			return
		}
		sp := spans[int(field)%len(spans)]
		mut := append(append(append([]byte{}, msg[:sp[0]]...), c...), msg[sp[1]:]...)
		if !jsonv.Valid(mut) || !fastValid(&splitCache{}, seed.name, mut) {
			return
		}
		v, err := decodeAny(mut)
		if err != nil {
			t.Fatalf("%s: the fast path took %s, which does not decode: %v", seed.name, mut, err)
		}
		if issues, _ := checkSchema(seed.name, v); len(issues) > 0 {
			t.Fatalf("%s: the fast path took %s, but the schema finds %v", seed.name, mut, issues)
		}
	})
}

func TestChunkRange(t *testing.T) {
	for _, c := range []struct {
		in      string
		a, b, n int64
		ok      bool
	}{
		{"bytes 0-49 of 98", 0, 49, 98, true},
		{"bytes 262144-524288 of 5000000", 262144, 524288, 5000000, true},
		{"bytes 9223372036854775807-1 of 2", 9223372036854775807, 1, 2, true},
		{"bytes 9223372036854775808-1 of 2", 0, 0, 0, false}, // past int64
		{"bytes 0-49 of 98 ", 0, 0, 0, false},
		{"bytes 0-49 of ", 0, 0, 0, false},
		{"bytes -1-49 of 98", 0, 0, 0, false},
		{"bytes 0 - 49 of 98", 0, 0, 0, false},
		{"Bytes 0-49 of 98", 0, 0, 0, false},
		{"bytes 0-49/98", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	} {
		a, b, n, ok := ChunkRange(c.in)
		if ok != c.ok || ok && (a != c.a || b != c.b || n != c.n) {
			t.Errorf("ChunkRange(%q) = %d, %d, %d, %v; want %d, %d, %d, %v", c.in, a, b, n, ok, c.a, c.b, c.n, c.ok)
		}
	}
}
