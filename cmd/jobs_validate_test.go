package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// validateStreams are generated Chiffon, trace and Narratoria streams of
// several chunks each, good and broken in the ways the rules across the
// stream look for (a message_id again, output chunks with a gap, a seq
// gap, a step back, a second done), with the breaks far apart.
func validateStreams(t *testing.T) map[string][]byte {
	var ch, tr, na []string
	for i := range 4000 {
		task := fmt.Sprintf("880e8400-e29b-41d4-a716-%012x", i/4)
		env := fmt.Sprintf(`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-%012x","from_agent":"orchestrator","to_agent":"infra","timestamp":"2026-01-19T04:21:%02dZ","trace_id":"660e8400-e29b-41d4-a716-%012x","request_id":"770e8400-e29b-41d4-a716-%012x","type":`, i, i%60, i/4, i)
		switch i % 4 {
		case 0:
			ch = append(ch, env+`"work_request","payload":{"task_id":"`+task+`","work_type":"run_playbook","parameters":{"playbook":"deploy.yml"}}}`)
		case 1, 2:
			chunk := []string{"", "bytes 0-50 of 100", "bytes 50-100 of 100"}[i%4]
			ch = append(ch, env+`"work_status","payload":{"task_id":"`+task+`","status":"running","progress_percent":50,"step":{"number":5,"name":"logs","output":"ok\n","output_chunk":"`+chunk+`"}}}`)
		default:
			ch = append(ch, env+`"work_result","payload":{"task_id":"`+task+`","status":"success","exit_code":0,"output":"done é"}}`)
		}
		tr = append(tr, fmt.Sprintf(`{"seq":%d,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"final_output","payload":{"text":"step %d"},"meta":{"seed":42,"run_id":"550e8400-e29b-41d4-a716-%012x"}}`, i%700, i, i/700))
		na = append(na, fmt.Sprintf(`{"version":"0","type":"asset","assetId":"a-%d","kind":"image","mediaType":"image/png","path":"p.png"}`, i))
	}
	na = append(na, `{"version":"0","type":"done","ok":true}`)
	nd := func(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
	edit := func(lines []string, i int, old, new string) []string {
		lines = append([]string(nil), lines...)
		lines[i] = strings.Replace(lines[i], old, new, 1)
		return lines
	}
	chBad := edit(ch, 2801, "00000000af1", "0000000000a")       // message_id of record 10
	chBad = edit(chBad, 2002, "bytes 50-100", "bytes 60-100")   // a gap in task 500's output
	chBad = edit(chBad, 3799, `"work_result"`, `"work_status"`) // a task without result
	chBad = edit(chBad, 1234, `"progress_percent":50`, `"progress_percent":"half"`)
	trBad := edit(tr, 1300, `"seq":600`, `"seq":604`)
	trBad = edit(trBad, 3000, `"seq":200`, `"seq":190`)
	trBad = edit(trBad, 3500, `"actor":"agent"`, `"actor":1`)
	naBad := edit(na, 2500, `"assetId":"a-2500"`, `"assetId":"a-17"`)
	naBad[3000] = `{"version":"0","type":"done","ok":true}`
	naBad = append(naBad, `{"version":"0","type":"done","ok":true}`+"\r")
	streams := map[string][]byte{
		"chiffon.ndjson": nd(ch), "chiffon-bad.ndjson": nd(chBad),
		"trace.ndjson": nd(tr), "trace-bad.ndjson": nd(trBad),
		"tool.ndjson": nd(na), "tool-bad.ndjson": nd(naBad),
	}
	if len(streams["trace.ndjson"]) < 2*256<<10 {
		t.Fatalf("the trace stream is %d bytes: not several chunks", len(streams["trace.ndjson"]))
	}
	for _, name := range []string{"chiffon-bad.ndjson", "trace-bad.ndjson"} {
		d := streams[name]
		base := strings.TrimSuffix(name, ".ndjson")
		streams[base+"-crlf.ndjson"] = bytes.ReplaceAll(d, []byte("\n"), []byte("\r\n"))
		streams[base+"-array.json"] = append(append([]byte("["), bytes.ReplaceAll(bytes.TrimSuffix(d, []byte("\n")), []byte("\n"), []byte(",\n"))...), "]\n"...)
		late := len(d) * 3 / 4
		late += bytes.IndexByte(d[late:], '\n') + 1
		streams[base+"-syntax.ndjson"] = append(append(bytes.Clone(d[:late]), `{"seq": 1,`+"\n"...), d[late:]...)
		streams[base+"-truncated.ndjson"] = d[:len(d)-30]
		for _, style := range pyjson.Styles[:2] {
			streams[base+"-"+style.Name+".ndjson"] = pyjson.Dumps(t, d, style.Flags...)
		}
	}
	return streams
}

// validate -j 4 prints what -j 1 prints, byte for byte, and exits alike:
// on the demo files, on generated streams good and broken and on frame
// captures good and damaged (decode's), every
// report, --max-errors, --strict, from files and from standard input.
func TestValidateJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs validate -j 1 and -j 4 over every input and flag set")
	dir := t.TempDir()
	var names []string
	for name, data := range validateStreams(t) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	for _, d := range []string{"chiffon.ndjson", "messages.ndjson", "events.ndjson", "session.ndjson", "tampered.ndjson", "tool-events.ndjson", "users.toon"} {
		names = append(names, filepath.Join("..", "testdata", "demo", d))
	}
	names = append(names, jobsCaptures(t)...) // frames: good, damaged, large

	flagSets := [][]string{nil, {"--report", "json"}, {"--report", "github", "--strict"}, {"--max-errors", "1"}, {"--max-errors", "3", "--report", "json"}, {"--max-frame-size", "1KiB"}}
	if raceflag.Enabled {
		// The race run is kept short: the broken streams, with a report
		// and a stop.
		names = slices.DeleteFunc(names, func(n string) bool {
			return !strings.HasSuffix(n, "-bad.ndjson") && !strings.HasSuffix(n, "flipped.bin")
		})
		flagSets = flagSets[3:5]
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, flags := range flagSets {
			for _, src := range []string{name, "-"} {
				if src == "-" && len(flags) > 0 && flags[0] != "--max-errors" {
					continue // standard input: with the report and a stop
				}
				args := append(append([]string{"validate"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %.400q %.300q\n-j 4: %d %.400q %.300q", args,
						one.code, one.out, one.err, four.code, four.out, four.err)
				}
			}
		}
	}
	// All the files in one run: the counts and the stop go on across them.
	// The CI reports too, their clock stopped (SOURCE_DATE_EPOCH).
	t.Setenv("SOURCE_DATE_EPOCH", "0")
	ci := [][]string{{"--report", "junit", "--junit-cases", "5"}, {"--report", "sarif", "--strict"}}
	for _, flags := range append(flagSets[len(flagSets)-2:], ci...) {
		args := append(append([]string{"validate"}, flags...), names...)
		one := runJobs(t, nil, dir, append(args, "-j", "1")...)
		four := runJobs(t, nil, dir, append(args, "-j", "4")...)
		if one != four || one.code != cli.ExitInvalid {
			t.Errorf("%v: -j 4 differs from -j 1 (exit %d, %d):\n%.300q\n%.300q", flags, one.code, four.code, one.out, four.out)
		}
	}
}

// The broken streams are broken where they should be: the identity above
// is not that of two empty reports.
func TestValidateJobsStreamsFindings(t *testing.T) {
	needs.Slow(t, "validates big streams at -j 2")
	dir := t.TempDir()
	for name, want := range map[string][]string{
		"chiffon-bad.ndjson": {"repeats the message_id of record 10 [CHF050]", "bytes 50-60 of the output are in no chunk", "found \"half\" [CHF031]"},
		"trace-bad.ndjson":   {"skips 604 after 599", "steps back: 190 after 199", "[AOP"},
		"tool-bad.ndjson":    {"repeats the assetId of record 17 [NAR046]", "[NAR081]", "[NAR001]"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, validateStreams(t)[name], 0o644)
		r := runJobs(t, nil, dir, "validate", "-j", "4", p)
		for _, w := range want {
			if !strings.Contains(r.out, w) {
				t.Errorf("%s: no %q in\n%s", name, w, r.out)
			}
		}
	}
}
