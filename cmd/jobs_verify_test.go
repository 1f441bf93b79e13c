package cmd

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
	"github.com/toonkit/toonkit/internal/sign"
)

// signedAuditLog is n trace events of about 1 KB in several runs, signed
// with key as toonkit sign signs them: several batches of the workers.
func signedAuditLog(t *testing.T, key string, n int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(17, 3))
	var b bytes.Buffer
	seqs := map[int]int{}
	for range n {
		run := rng.IntN(3)
		seqs[run]++
		fmt.Fprintf(&b, `{"seq":%d,"t":"2025-12-05T10:30:%02d.000Z","actor":"agent","type":"reasoning","payload":{"goal":"Process refund #%d","steps":[{"step_id":"s1","confidence":0.%d}],"audit":{"trail":%q,"reviewed":false,"reviewer":null}},"meta":{"run_id":"550e8400-e29b-41d4-a716-00000000000%d","agent_id":123}}`+"\n",
			seqs[run], rng.IntN(60), rng.IntN(1000), rng.IntN(99), strings.Repeat("checked the order — é\t", 10+rng.IntN(40)), run)
	}
	sg, err := sign.NewSigner([]byte(key), sign.SchemeSpec)
	if err != nil {
		t.Fatal(err)
	}
	rd := sign.NewReader(&b, 0)
	var out []byte
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return append(out, rd.Tail()...)
		}
		if err != nil {
			t.Fatal(err)
		}
		ev, err := sg.Event(rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.Gap...)
		out = sign.AppendSigned(out, ev, sg.Sign(ev))
	}
}

// verifyJobsInputs writes the logs that the identity test reads: the signed
// logs of testdata (CPython's, both copies and meta.signature only; the
// demo's audit log and its tampered copy) and a generated one of several
// batches, changed in each way verify reports and laid out as producers
// write it.
func verifyJobsInputs(t *testing.T, dir string) []string {
	events := 1500
	if raceflag.Enabled {
		events = 600 // still several batches, in a race run that stays short
	}
	log := signedAuditLog(t, "test-key", events)
	lines := bytes.SplitAfter(log, []byte("\n"))
	lines = lines[:len(lines)-1]
	n := len(lines)
	edit := func(f func(i int, l []byte) []byte) []byte {
		var out []byte
		for i, l := range lines {
			out = append(out, f(i, l)...)
		}
		return out
	}
	topSig := func(l []byte) []byte { // the line without its top-level signature
		i := bytes.LastIndex(l, []byte(`,"signature":"`))
		return append(bytes.Clone(l[:i]), "}\n"...)
	}
	inputs := map[string][]byte{
		"good.ndjson": log,
		"tampered.ndjson": edit(func(i int, l []byte) []byte {
			if i%211 == 5 {
				return bytes.Replace(l, []byte("refund"), []byte("Refund"), 1)
			}
			return l
		}),
		"gaps.ndjson": edit(func(i int, l []byte) []byte { return l[:len(l)*min(1, i%97)] }),
		"repeats.ndjson": edit(func(i int, l []byte) []byte {
			if i%313 == 9 {
				return append(bytes.Clone(l), l...)
			}
			return l
		}),
		"late.ndjson": edit(func(i int, l []byte) []byte { // an event 1100 events late, one 30 late
			switch i {
			case 50, 70:
				return nil
			case 1150:
				return append(bytes.Clone(l), lines[50]...)
			case 100:
				return append(bytes.Clone(l), lines[70]...)
			}
			return l
		}),
		"unsigned.ndjson": bytes.ReplaceAll(log, []byte(`"signature":"`), []byte(`"sig":"`)),
		"meta-only.ndjson": edit(func(i int, l []byte) []byte {
			if i%2 == 0 {
				return topSig(l)
			}
			return l
		}),
		"top-only.ndjson": edit(func(i int, l []byte) []byte {
			if i%401 == 3 {
				return bytes.Replace(l, []byte(`,"signature":"`), []byte(`,"x":"`), 1)
			}
			return l
		}),
		"not-events.ndjson": edit(func(i int, l []byte) []byte {
			switch i % 257 {
			case 1:
				return append([]byte("[1, 2]\n{\"seq\": 1.5, \"meta\": {}}\n\"text\"\n"), l...)
			case 2:
				return append([]byte("{\"seq\": 3,\n  \"meta\": {\"run_id\": 7}}\n"), l...)
			}
			return l
		}),
		"malformed.ndjson": edit(func(i int, l []byte) []byte {
			if i == n*3/4 {
				return append([]byte(`{"seq": 1, "t": "x",, }`+"\n"), l...)
			}
			return l
		}),
		"truncated.ndjson":  log[:len(log)-300],
		"crlf.ndjson":       bytes.ReplaceAll(log, []byte("\n"), []byte("\r\n")),
		"bom.ndjson":        append([]byte("\xEF\xBB\xBF"), log...),
		"array.json":        append(append([]byte("[\n"), bytes.ReplaceAll(bytes.TrimSpace(log), []byte("}\n{"), []byte("},\n{"))...), "\n]\n"...),
		"one-line.json":     append(append([]byte("["), bytes.ReplaceAll(bytes.TrimSpace(log), []byte("}\n{"), []byte("}, {"))...), "]"...),
		"no-final-lf.jsonl": bytes.TrimSpace(log),
		"big-event.ndjson": edit(func(i int, l []byte) []byte {
			if i == n/2 {
				return bytes.Replace(l, []byte(`"trail":"`), []byte(`"trail":"`+strings.Repeat("long ", 300<<10)), 1)
			}
			return l
		}),
	}
	for _, s := range pyjson.Styles {
		inputs["python-"+s.Name+".ndjson"] = pyjson.Dumps(t, inputs["tampered.ndjson"], s.Flags...)
	}
	var names []string
	for name, data := range inputs {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	for _, s := range sign.Schemes {
		names = append(names, "../testdata/sign/python-"+s+".ndjson", "../testdata/sign/python-meta-only-"+s+".ndjson")
	}
	return append(names, "../testdata/demo/audit.ndjson", "../testdata/demo/tampered.ndjson")
}

// verify -j 4 writes what -j 1 writes, byte for byte: stdout, stderr and
// the exit status, for every report, from files and from standard input.
func TestVerifyJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs verify -j 1 and -j 4 over every input")
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte("test-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	demoKey, err := os.ReadFile("../testdata/demo/audit.key")
	if err != nil {
		t.Fatal(err)
	}
	older := filepath.Join(dir, "older.key") // a second key: the keys of each run are reported
	if err := os.WriteFile(older, []byte("a-key-rotated-out-long-ago\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	names := verifyJobsInputs(t, dir)
	problems := 0
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		k := key
		if strings.Contains(name, "demo") {
			k = filepath.Join(dir, "demo.key")
			os.WriteFile(k, demoKey, 0o600)
		}
		scheme := "spec"
		for _, s := range sign.Schemes {
			if strings.HasSuffix(name, "-"+s+".ndjson") {
				scheme = s
			}
		}
		flagSets := [][]string{nil, {"--explain"}, {"--report", "json"}, {"--report", "github", "--require-both"},
			{"--scheme", "payload", "--explain"}, {"--max-frame-size", "2KiB"}, {"--key-file", older, "--report", "json"}}
		if raceflag.Enabled {
			flagSets = flagSets[2:4]
		}
		for _, flags := range flagSets {
			if flags == nil || flags[0] != "--scheme" {
				flags = append(flags, "--scheme", scheme)
			}
			for _, src := range []string{name, "-"} {
				args := append(append([]string{"verify", "--key-file", k}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %.400q %.300q\n-j 4: %d %.400q %.300q", args,
						one.code, one.out, one.err, four.code, four.out, four.err)
				}
				if one.code == cli.ExitInvalid {
					problems++
				}
			}
		}
	}
	if problems == 0 {
		t.Fatal("no input had a problem: the comparison proves little")
	}
}

// Several files are one log with -j as without: the seq rule across files,
// an unreadable file among them.
func TestVerifyJobsSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte("test-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log := signedAuditLog(t, "test-key", 1200)
	cut := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
	parts := map[string][]byte{"a.ndjson": log[:cut], "b.ndjson": log[cut:], "b-crlf.ndjson": bytes.ReplaceAll(log[cut:], []byte("\n"), []byte("\r\n"))}
	for name, data := range parts {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	t.Setenv("SOURCE_DATE_EPOCH", "0") // junit's clock
	for _, files := range [][]string{
		{p("a.ndjson"), p("b.ndjson")},
		{p("b.ndjson"), p("a.ndjson")},
		{p("a.ndjson"), p("b-crlf.ndjson"), p("b.ndjson")},
		{p("a.ndjson"), p("missing.ndjson"), "../testdata/demo/tampered.ndjson", p("b.ndjson")},
	} {
		for _, report := range []string{"text", "json", "junit"} {
			args := append([]string{"verify", "--key-file", key, "--report", report}, files...)
			one := runJobs(t, nil, dir, append(args, "-j", "1")...)
			four := runJobs(t, nil, dir, append(args, "-j", "4")...)
			if one != four {
				t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %.400q %.300q\n-j 4: %d %.400q %.300q", args,
					one.code, one.out, one.err, four.code, four.out, four.err)
			}
		}
	}
	if r := runJobs(t, nil, dir, "verify", "--key-file", key, "-j", "4", p("a.ndjson"), p("b.ndjson")); r.code != 0 || r.out != "verified 1200 events in 3 runs: all signatures valid\n" {
		t.Errorf("the log in two files: exit %d, %q %q", r.code, r.out, r.err)
	}
}
