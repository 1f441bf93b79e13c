package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/toonkit/toonkit/internal/needs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// specDir finds ../shared/specs (or $TOONKIT_SPECS_DIR); the test skips
// when neither is there.
func specDir(t *testing.T) string {
	for _, d := range []string{os.Getenv("TOONKIT_SPECS_DIR"), "../../../shared/specs"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "chiffon-agent-protocol.md")); err == nil {
			return d
		}
	}
	needs.Missing(t, "the specs are not at ../shared/specs nor $TOONKIT_SPECS_DIR")
	return ""
}

// jsonBlocks returns the ```json blocks of a spec that are JSON (some are
// sketches with "{ ... }" in them).
func jsonBlocks(t *testing.T, file string) []map[string]any {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(b, -1) {
		var v map[string]any
		d := json.NewDecoder(bytes.NewReader(m[1]))
		d.UseNumber()
		if d.Decode(&v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// findings validates messages with a validator and returns its findings.
func findings(t *testing.T, check func(r *bytes.Reader, emit Emit) (int, error), msgs ...any) []string {
	t.Helper()
	var buf bytes.Buffer
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		buf.Write(append(b, '\n'))
	}
	var got []string
	if _, err := check(bytes.NewReader(buf.Bytes()), func(f Finding) bool { got = append(got, f.Text()); return true }); err != nil {
		t.Fatal(err)
	}
	return got
}

// The spec documents' own examples pass. Examples that show a payload alone
// are put in the spec's full example envelope; placeholders ("..." for a
// task id, "HMAC-SHA256-signature-here") are given real values.
func TestSpecExamplesPass(t *testing.T) {
	dir := specDir(t)
	const uuid = "550e8400-e29b-41d4-a716-446655440009"

	chiffon := jsonBlocks(t, filepath.Join(dir, "chiffon-agent-protocol.md"))
	if len(chiffon) < 8 {
		t.Fatalf("%d chiffon examples", len(chiffon))
	}
	envelope := chiffon[0]
	check := func(r *bytes.Reader, emit Emit) (int, error) { return Chiffon(r, "spec", Options{}, emit) }
	var chunks []any // the two chunk examples are one stream
	for i, ex := range chiffon {
		msg := ex
		if _, ok := ex["protocol_version"]; !ok {
			msg = map[string]any{}
			for k, v := range envelope {
				msg[k] = v
			}
			msg["message_id"] = fmt.Sprintf("550e8400-e29b-41d4-a716-%012x", i)
			msg["request_id"] = fmt.Sprintf("660e8400-e29b-41d4-a716-%012x", i)
			msg["type"], msg["payload"] = ex["type"], ex["payload"]
			if p, ok := ex["payload"].(map[string]any); ok && p["task_id"] == "..." {
				p["task_id"] = uuid
			}
		}
		if strings.Contains(fmt.Sprint(ex), "output_chunk") {
			chunks = append(chunks, msg)
			continue
		}
		if got := findings(t, check, msg); len(got) > 0 {
			t.Errorf("chiffon example %d: %v", i, got)
		}
	}
	if len(chunks) != 2 {
		t.Fatalf("%d chunk examples", len(chunks))
	}
	if got := findings(t, check, chunks...); len(got) > 0 {
		t.Errorf("chiffon chunk examples: %v", got)
	}

	trace := jsonBlocks(t, filepath.Join(dir, "trace-events-aop.md"))
	payloads := map[string]string{"goal": "reasoning", "action": "action_request", "status": "action_response", "text": "final_output", "error_type": "error"}
	checkTrace := func(r *bytes.Reader, emit Emit) (int, error) { return Trace(r, "spec", Options{}, emit) }
	seen := 0
	for i, ex := range trace {
		meta := map[string]any{"run_id": "550e8400-e29b-41d4-a716-446655440000", "agent_id": 123, "signature": strings.Repeat("ab", 32)}
		if _, ok := ex["run_id"]; ok { // the meta example
			ex["signature"] = strings.Repeat("ab", 32)
			meta = ex
		}
		typ := "final_output"
		payload := map[string]any{"text": "x"}
		for k, tp := range payloads {
			if _, ok := ex[k]; ok {
				typ, payload = tp, ex
			}
		}
		ev := map[string]any{"seq": 1, "t": "2025-12-05T10:30:00.000Z", "actor": "agent", "type": typ, "payload": payload, "meta": meta}
		if got := findings(t, checkTrace, ev); len(got) > 0 {
			t.Errorf("trace example %d: %v", i, got)
		}
		seen++
	}
	if seen < 7 {
		t.Fatalf("%d trace examples", seen)
	}

	b, err := os.ReadFile(filepath.Join(dir, "narratoria-tool-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## 9\\. Minimum Viable Tool Example.*?```\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("no minimal tool example in the Narratoria spec")
	}
	var got []string
	Narratoria(bytes.NewReader(m[1]), "spec", Options{}, func(f Finding) bool { got = append(got, f.Text()); return true })
	if len(got) > 0 {
		t.Errorf("narratoria example: %v", got)
	}
}
