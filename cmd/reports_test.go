package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/reporttest"
)

// The CI reports of the real commands, on real producers' output (the demo
// files: frames, a damaged capture, a pcapng capture, tables, Chiffon
// messages as python3's json.dumps writes them, indented, with CR LF line
// ends, and a tampered signed log), are valid by Jenkins' JUnit XSD and by
// the SARIF 2.1.0 schema.
func TestReportsValidByTheirSchemas(t *testing.T) {
	dir := t.TempDir()
	py := needs.Program(t, "python3", "the messages Python writes are part of the input")
	script := `import json, sys
msgs = [{"protocol_version": "1.0", "message_id": "550e8400-e29b-41d4-a716-44665544000%d" % i, "from_agent": "orchestrator",
         "to_agent": "nobody", "timestamp": "2026-01-19T04:21:04Z", "trace_id": "550e8400-e29b-41d4-a716-446655440009",
         "request_id": "550e8400-e29b-41d4-a716-446655440008", "type": "work_status", "payload": {"progress_percent": 120}} for i in range(3)]
sys.stdout.write("".join(json.dumps(m, indent=2) + "\n" for m in msgs).replace("\n", "\r\n"))`
	out, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	pyFile := filepath.Join(dir, "python.json")
	if err := os.WriteFile(pyFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
	demo := func(n string) string { return filepath.Join("..", "testdata", "demo", n) }
	inputs := []string{demo("capture.bin"), demo("damaged.bin"), demo("session.pcapng"), demo("users.toon"), demo("chiffon.ndjson"), demo("tool-events.ndjson"), pyFile, filepath.Join(dir, "missing.ndjson")}
	t.Setenv("SOURCE_DATE_EPOCH", "1764244800")

	for _, args := range [][]string{
		append([]string{"validate", "--report", "junit"}, inputs...),
		append([]string{"validate", "--report", "junit", "--strict", "--junit-cases", "1"}, inputs...),
		{"verify", "--key-file", demo("audit.key"), "--report", "junit", "--explain", demo("tampered.ndjson"), demo("audit.ndjson")},
	} {
		r := runJobs(t, nil, dir, args...)
		if r.code == 0 || !strings.HasPrefix(r.out, "<?xml") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, r.code, r.out, r.err)
		}
		if err := reporttest.CheckJUnit(t, []byte(r.out)); err != nil {
			t.Errorf("%v: the report does not validate: %v\n%s", args, err, r.out)
		}
	}

	r := runJobs(t, nil, dir, append([]string{"validate", "--report", "sarif"}, inputs...)...)
	if _, err := reporttest.CheckSARIF(t, []byte(r.out)); err != nil {
		t.Errorf("the sarif report does not validate: %v", err)
	}
	// The Python-written messages' findings are at their lines, CR LF or not.
	if !strings.Contains(r.out, `"artifactLocation":{"uri":"`+filepath.ToSlash(pyFile)+`"},"region":{"startLine":5,"startColumn":15}}`) {
		t.Errorf("no finding at line 5, column 15 of the Python-written messages:\n%s", r.out)
	}
}
