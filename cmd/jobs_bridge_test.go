package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// bridgeMessages makes n messages of a protocol as NDJSON, several
// batches long, in a few runs and tasks; bad puts in, late, messages that
// do not convert as they are: of a type the target has no counterpart
// for (a warning, with --strict an error), without their time, with a
// seq out of turn, Chiffon output chunks.
func bridgeMessages(from string, n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	runs := []string{"550e8400-e29b-41d4-a716-446655440000", "6ba7b810-9dad-41d1-80b4-00c04fd430c8", "run-1"}
	text := func(i int) string {
		return []string{"step, one", "Ünïcødé ✓", "line 1\nline 2", strings.Repeat("x", rng.IntN(300)), "emoji 🎉"}[i%5]
	}
	ts := func(i int) string { return fmt.Sprintf("2026-01-19T04:%02d:%02d.%03dZ", i/60%60, i%60, i%1000) }
	seq := map[string]int{}
	var b bytes.Buffer
	for i := range n {
		var msg string
		switch from {
		case "chiffon":
			task := fmt.Sprintf("00000000-0000-4000-8000-%012d", i/5)
			run := runs[i/50%2]
			switch i % 5 {
			case 0:
				msg = fmt.Sprintf(`{"protocol_version": "1.0", "message_id": "m%d", "from_agent": "orchestrator", "to_agent": "code", "timestamp": %q, "trace_id": %q, "request_id": "r%d", "type": "work_request", "payload": {"task_id": %q, "work_type": "run_playbook", "parameters": {"n": %d, "s": %q}}}`, i, ts(i), run, i, task, i, text(i))
			case 1, 2:
				msg = fmt.Sprintf(`{"protocol_version": "1.0", "message_id": "m%d", "from_agent": "code", "to_agent": "orchestrator", "timestamp": %q, "trace_id": %q, "request_id": "r%d", "type": "work_status", "payload": {"task_id": %q, "status": "running", "progress_percent": %d, "step": {"number": %d, "name": %q, "output": %q}}}`, i, ts(i), run, i, task, i%101, i%5, text(i), text(i+1))
			case 3:
				msg = fmt.Sprintf(`{"protocol_version": "1.0", "message_id": "m%d", "from_agent": "code", "to_agent": "orchestrator", "timestamp": %q, "trace_id": %q, "request_id": "r%d", "type": "work_result", "payload": {"task_id": %q, "status": "success", "exit_code": 0, "output": %q}}`, i, ts(i), run, i, task, text(i))
			case 4:
				msg = fmt.Sprintf(`{"protocol_version": "1.0", "message_id": "m%d", "from_agent": "code", "to_agent": "orchestrator", "timestamp": %q, "trace_id": %q, "request_id": "r%d", "type": "error", "payload": {"error_code": %d, "error_message": %q}}`, i, ts(i), run, i, 5001+i%6, text(i))
			}
		case "narratoria":
			req := []string{`"requestId": "req-1", `, `"requestId": "550e8400-e29b-41d4-a716-446655440000", `}[i/40%2]
			head := fmt.Sprintf(`{"version": "0", %s"timestamp": %q, `, req, ts(i))
			msg = head + []string{
				fmt.Sprintf(`"type": "log", "level": "info", "message": %q}`, text(i)),
				fmt.Sprintf(`"type": "state_patch", "patch": {"n": %d}}`, i),
				fmt.Sprintf(`"type": "asset", "assetId": "a%d", "kind": "image", "mediaType": "image/png", "path": "out/x.png"}`, i),
				fmt.Sprintf(`"type": "error", "errorCode": "E_TOOL", "errorMessage": %q}`, text(i)),
				`"type": "done", "ok": true, "summary": "fine"}`,
			}[i%5]
		case "trace":
			run := runs[i/30%3]
			seq[run]++
			body := []string{
				fmt.Sprintf(`"type": "reasoning", "payload": {"goal": %q, "steps": [], "safety_checks": [], "uncertainty": "low"}`, text(i)),
				fmt.Sprintf(`"type": "error", "payload": {"error_type": "ToolError", "message": %q, "code": "E1", "details": {}, "recoverable": true}`, text(i)),
				fmt.Sprintf(`"type": "final_output", "payload": {"text": %q}`, text(i)),
				fmt.Sprintf(`"type": "action_request", "payload": {"action": "state_patch", "params": {"n": %d}}`, i),
			}[i%4]
			msg = fmt.Sprintf(`{"seq": %d, "t": %q, "actor": "tool", %s, "meta": {"run_id": %q, "agent_id": 0}}`, seq[run], ts(i), body, run)
		}
		if b.Len() > 0 && n > 100 && i == n*3/4 {
			msg = "" // a gap: the bad messages come here
		}
		b.WriteString(msg)
		if msg != "" {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// bridgeJobsInputs are the inputs of each protocol: the examples,
// generated streams, good and bad, compact, as Python writes them (a JSON
// array indented with CRLF, NDJSON with ", "), with CRLF line ends.
func bridgeJobsInputs(t *testing.T) map[string]map[string][]byte {
	n := 1500 // (a few batches of 256 KiB)
	if raceflag.Enabled {
		n = 400 // the race detector is slow: a batch or two
	}
	late := func(good []byte, bad string) []byte {
		lines := bytes.SplitAfter(good, []byte("\n"))
		k := len(lines) * 3 / 4
		return bytes.Join(append(append(append([][]byte{}, lines[:k]...), []byte(bad+"\n")), lines[k:]...), nil)
	}
	all := map[string]map[string][]byte{}
	for _, from := range []string{"chiffon", "narratoria", "trace"} {
		good := bridgeMessages(from, n, 7)
		in := map[string][]byte{
			"good.ndjson":      good,
			"crlf.ndjson":      bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")),
			"unknown.ndjson":   late(good, `{"type": "no_such_type", "payload": {}}`),
			"nonobject.ndjson": late(good, `[1, 2]`),
			"syntax.ndjson":    late(good, `{"type": tru}`),
			"notime.ndjson":    late(good, strings.NewReplacer(`"timestamp"`, `"when"`, `"t":`, `"when":`).Replace(string(bridgeMessages(from, 3, 9)))),
			"python.ndjson":    pyjson.Dumps(t, good),
		}
		arr := append([]byte("["), bytes.ReplaceAll(bytes.TrimSuffix(good, []byte("\n")), []byte("\n"), []byte(",\n"))...)
		arr = append(arr, "]\n"...)
		in["python-indent-crlf.json"] = pyjson.Dumps(t, arr, "--indent", "2", "--crlf")
		in["truncated.json"] = arr[:len(arr)*2/3]
		switch from {
		case "chiffon":
			chunk := func(a, b, total int) string {
				return fmt.Sprintf(`{"type": "work_status", "timestamp": "2026-01-19T04:22:10Z", "trace_id": "550e8400-e29b-41d4-a716-446655440000", "payload": {"task_id": "t9", "status": "running", "step": {"number": 5, "name": "logs", "output": %q, "output_chunk": "bytes %d-%d of %d"}}}`, strings.Repeat("k", b-a), a, b, total)
			}
			in["chunks.ndjson"] = late(good, chunk(0, 10, 15)+"\n"+chunk(10, 15, 15))
			in["unfinished.ndjson"] = late(good, chunk(0, 10, 20))
			in["badchunk.ndjson"] = late(good, chunk(5, 10, 20))
		case "trace":
			in["seqgap.ndjson"] = late(good, `{"seq": 99, "t": "2026-01-19T04:22:10Z", "actor": "tool", "type": "final_output", "payload": {"text": "x"}, "meta": {"run_id": "run-1", "agent_id": 0}}`)
		}
		if !raceflag.Enabled {
			demo := map[string]string{"chiffon": "../testdata/demo/chiffon.ndjson", "narratoria": "../testdata/demo/tool-events.ndjson", "trace": "../internal/bridge/testdata/trace.ndjson"}[from]
			b, err := os.ReadFile(demo)
			if err != nil {
				t.Fatal(err)
			}
			in["demo.ndjson"] = b
		} else {
			for name := range in {
				switch name {
				case "good.ndjson", "unknown.ndjson", "python-indent-crlf.json", "chunks.ndjson", "seqgap.ndjson":
				default:
					delete(in, name)
				}
			}
		}
		all[from] = in
	}
	return all
}

// convert between protocols -j 4 writes what -j 1 writes, byte for byte:
// stdout, stderr (the warnings and errors, in order, with their places),
// -o FILE (not made on failure) and the exit status, from files and from
// standard input, for every direction of each protocol, with and without
// --strict, --run-id and --no-reassemble.
func TestConvertBridgeJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs convert -j 1 and -j 4 over every bridge input and flag set")
	dir := t.TempDir()
	targets := map[string][]string{"chiffon": {"trace", "binary"}, "narratoria": {"trace"}, "trace": {"narratoria", "chiffon", "binary"}}
	for from, inputs := range bridgeJobsInputs(t) {
		var paths []string
		for name, data := range inputs {
			path := filepath.Join(dir, from+"-"+name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(name, "bad") && !strings.Contains(name, "syntax") && !strings.Contains(name, "nonobject") && !strings.Contains(name, "truncated") {
				paths = append(paths, path)
			}
			for _, to := range targets[from] {
				flagSets := [][]string{nil, {"--strict"}, {"--run-id", "11111111-2222-4333-8444-555555555555", "-o", filepath.Join(dir, "out")}, {"--no-reassemble"}}
				if raceflag.Enabled {
					flagSets = flagSets[:2]
				}
				for _, flags := range flagSets {
					if flags != nil && (flags[0] == "--no-reassemble" && from != "chiffon" || to == "binary") {
						continue // (--to binary runs on one worker: once is enough)
					}
					for _, src := range []string{path, "-"} {
						if src == "-" && flags != nil {
							continue // standard input: once per input and target
						}
						args := append(append([]string{"convert", "--from", from, "--to", to, "--deterministic"}, flags...), src)
						one := runJobs(t, data, dir, append(args, "-j", "1")...)
						four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
						if one != four {
							t.Errorf("%s %s -> %s %v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q %d bytes\n-j 4: %d %d bytes %.300q %d bytes\n%s",
								name, from, to, flags, one.code, len(one.out), one.err, len(one.oFile), four.code, len(four.out), four.err, len(four.oFile), lineDiffs(one.out, four.out))
						}
						quiet := one.err == "" || to != "trace" && to != "narratoria" // (some trace events have no Chiffon or Kado counterpart)
						if name == "good.ndjson" && flags == nil && (one.code != 0 || !quiet || len(one.out) < len(data)/4) {
							t.Errorf("%s %s -> %s: exit %d, %q", name, from, to, one.code, one.err)
						}
					}
				}
			}
		}
		// Several inputs: one stream, whose seq and state go on from one
		// input to the next.
		slices.Sort(paths)
		for _, to := range targets[from] {
			args := append([]string{"convert", "--from", from, "--to", to, "--deterministic"}, paths...)
			one := runJobs(t, nil, dir, append(args, "-j", "1")...)
			four := runJobs(t, nil, dir, append(args, "-j", "4")...)
			if one != four {
				t.Errorf("%s -> %s, several inputs: -j 4 differs from -j 1 (exit %d, %d; %.300q, %.300q)\n%s", from, to, one.code, four.code, one.err, four.err, lineDiffs(one.out, four.out))
			}
		}
	}
}

// lineDiffs is the first line where a and b differ.
func lineDiffs(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n%.400s\n%.400s", i+1, al[i], bl[i])
		}
	}
	return ""
}

// convert --from chiffon --to trace -j 4 passes a live stream on message
// by message.
func TestConvertBridgeJobsLive(t *testing.T) {
	msgs := bytes.SplitAfter(bridgeMessages("chiffon", 4, 1), []byte("\n"))
	var steps [][][]byte
	for i := range 4 {
		steps = append(steps, [][]byte{msgs[i]})
	}
	args := []string{"convert", "--from", "chiffon", "--to", "trace", "--deterministic", "-j", "4"}
	checkLive(t, args, steps, func(r *bufio.Reader, i int) error {
		line, err := r.ReadString('\n')
		if want := fmt.Sprintf(`{"seq":%d,`, i+1); err == nil && !strings.HasPrefix(line, want) {
			return fmt.Errorf("%q, want %s...", line, want)
		}
		return err
	})
}
