package validate

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// ruleSeeds are valid messages that hold every field of every schema.
var ruleSeeds = map[string][]string{
	"chiffon": append(fastSeeds["chiffon"],
		`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-446655440001","from_agent":"infra","to_agent":"orchestrator","timestamp":"2026-01-19T04:21:04Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","request_id":"550e8400-e29b-41d4-a716-446655440003","type":"error","payload":{"error_code":5001,"error_message":"m","error_context":{"attempted_retries":3,"last_attempt":"2026-01-19T04:21:04Z"}},"x_custom_fields":{"a":1}}`),
	"trace": append(fastSeeds["trace"],
		`{"seq":3,"t":"2025-12-05T10:30:00Z","actor":"user","type":"action_request","payload":{"action":"a","params":{},"context":{}},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":1,"signature":"`+strings.Repeat("ab", 32)+`","seed":4,"session_id":"s"},"signature":"`+strings.Repeat("ab", 32)+`"}`,
		`{"seq":4,"t":"2025-12-05T10:30:00Z","actor":"system","type":"action_response","payload":{"status":"ok","data":{},"meta":{}},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":1,"signature":"`+strings.Repeat("ab", 32)+`"}}`,
		`{"seq":5,"t":"2025-12-05T10:30:00Z","actor":"redteam","type":"final_output","payload":{"text":"t","structured":{}},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":1,"signature":"`+strings.Repeat("ab", 32)+`"}}`,
		`{"seq":6,"t":"2025-12-05T10:30:00Z","actor":"tool","type":"error","payload":{"error_type":"E","message":"m","code":"c","details":{},"recoverable":true,"timestamp":"2025-12-05T10:30:00Z"},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":1,"signature":"`+strings.Repeat("ab", 32)+`"}}`),
	"narratoria": {
		`{"version":"0","type":"log","level":"info","message":"m","fields":{},"requestId":"r","timestamp":"2025-12-05T10:30:00Z"}`,
		`{"version":"0","type":"state_patch","patch":{}}`,
		`{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"image/png","path":"a.png","metadata":{}}`,
		`{"version":"0","type":"ui_event","event":"e","payload":{}}`,
		`{"version":"0","type":"error","errorCode":"E","errorMessage":"m","details":{}}`,
		`{"version":"0","type":"done","ok":true,"summary":"s"}`,
	},
	"binary-instruction":      {`{"instruction":"i"}`},
	"binary-tool-call":        {`{"toolName":"t","args":{}}`},
	"binary-tool-result":      {`{"success":true,"data":null,"duration":0}`},
	"binary-status":           {`{"status":"s","progress":0.5}`},
	"binary-error":            {`{"code":"c","message":"m"}`},
	"binary-heartbeat":        {`{}`},
	"binary-context-request":  {`{"type":"file","path":"p"}`},
	"binary-context-response": {`{"type":"file","path":"p"}`},
}

// wrongValue is a JSON value of another kind than v.
func wrongValue(v []byte) string {
	switch v[0] {
	case '"':
		return "12345"
	case '{':
		return `"x"`
	}
	return `{"x":1}`
}

// Every rule of every schema (every x-code in its fields) is broken once by
// a message that is otherwise valid, and gives its code at the field's
// pointer; a missing required field gives the field's code too.
func TestEveryRuleGivesItsCode(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	hit := map[string]map[string]bool{}
	for name, seeds := range ruleSeeds {
		hit[name] = map[string]bool{}
		for _, seed := range seeds {
			v, _ := decodeAny([]byte(seed))
			if issues, _ := checkSchema(name, v); len(issues) > 0 {
				t.Fatalf("%s: the seed %s has issues %v", name, seed, issues)
			}
			for _, mu := range mutations(seed) {
				mv, err := decodeAny([]byte(mu.msg))
				if err != nil {
					t.Fatalf("%s: %s: %v", name, mu.msg, err)
				}
				issues, _ := checkSchema(name, mv)
				for _, it := range issues {
					if it.Pointer == mu.pointer || strings.HasPrefix(it.Pointer, mu.pointer+"/") {
						hit[name][it.Code] = true
					}
				}
			}
		}
	}
	for name := range ruleSeeds {
		b, _ := Schema(name)
		var codes []string
		for _, m := range strings.Split(string(b), `"x-code": "`)[1:] {
			codes = append(codes, m[:strings.IndexByte(m, '"')])
		}
		sort.Strings(codes)
		var missing []string
		for i, c := range codes {
			if i > 0 && codes[i-1] == c {
				continue
			}
			// Root codes (the message is not an object) and rules between
			// fields are checked by the stream scripts.
			if strings.HasSuffix(c, "000") || c == "BIN010" || c == "BIN021" || c == "CHF043" || c == "NAR002" {
				continue
			}
			if !hit[name][c] {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: no mutation gave %v", name, missing)
		}
	}
	// The one rule of a message with no fields.
	if issues, _ := checkSchema("binary-heartbeat", map[string]any{"a": true}); len(issues) != 1 || issues[0].Code != "BIN021" {
		t.Errorf("heartbeat with a member: %v", issues)
	}
}

// Rules lists every code validate can give: each x-code of the schemas and
// each code written in the package's Go source.
func TestRulesListEveryCode(t *testing.T) {
	have := map[string]Rule{}
	for i, r := range Rules() {
		if i > 0 && Rules()[i-1].Code >= r.Code {
			t.Errorf("Rules not sorted or repeated at %s", r.Code)
		}
		if r.Text == "" {
			t.Errorf("%s: no text", r.Code)
		}
		have[r.Code] = r
	}
	codeRE := regexp.MustCompile(`"((BIN|CAP|TAB|CHF|AOP|NAR|TK)[0-9]{3})"`)
	files, _ := filepath.Glob("*.go")
	files = append(files, "../../cmd/validate.go")
	schemaFiles, _ := filepath.Glob("schemas/*.json")
	for _, f := range append(files, schemaFiles...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range codeRE.FindAllStringSubmatch(string(b), -1) {
			if _, ok := have[m[1]]; !ok {
				t.Errorf("%s: code %s is not in Rules()", f, m[1])
			}
		}
	}
	if r := have["BIN018"]; r.Severity != Error || !strings.Contains(r.Text, "0 to 1") {
		t.Errorf("BIN018 = %+v, want the schema's x-message", r)
	}
	if r := have["AOP051"]; r.Severity != Warning {
		t.Errorf("AOP051 = %+v, want a warning", r)
	}
}
