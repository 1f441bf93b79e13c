package validate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
	"github.com/toonkit/toonkit/kado"
)

// validated is what a validation gave: its findings in order, the count
// of records and the error.
type validated struct {
	Findings []Finding
	N        int
	Err      string
}

var jobsValidators = map[string]func(io.Reader, string, Options, Emit) (int, error){
	"chiffon": Chiffon, "trace": Trace, "narratoria": Narratoria, "binary": Binary,
}

// validateWith checks in with one validator; maxErrors > 0 stops at that
// many errors, as --max-errors does.
func validateWith(proto string, in []byte, opts Options, maxErrors int) validated {
	var v validated
	errs := 0
	n, err := jobsValidators[proto](bytes.NewReader(in), "in", opts, func(f Finding) bool {
		v.Findings = append(v.Findings, f)
		if f.Severity == Error {
			errs++
		}
		return maxErrors == 0 || errs < maxErrors
	})
	v.N = n
	if err != nil {
		v.Err = err.Error()
	}
	return v
}

// sameOnWorkers fails when 4 workers, given chunks of chunk bytes, find
// other than one worker.
func sameOnWorkers(t *testing.T, label, proto string, in []byte, maxSize, chunk, maxErrors int) validated {
	t.Helper()
	one := validateWith(proto, in, Options{MaxFrameSize: maxSize, Workers: 1}, maxErrors)
	four := validateWith(proto, in, Options{MaxFrameSize: maxSize, Workers: 4, chunk: chunk}, maxErrors)
	if d := cmp.Diff(one, four); d != "" {
		t.Fatalf("%s %s (chunks of %d, max errors %d): 4 workers differ from one (-one +four):\n%s", label, proto, chunk, maxErrors, d)
	}
	return one
}

// jobsInputs are streams of each protocol, good and broken in the ways
// the rules across the stream look for, far apart so that they fall in
// different chunks.
func jobsInputs(t *testing.T) map[string]map[string][]byte {
	lines := func(s string) [][]byte { return bytes.SplitAfter([]byte(s), []byte("\n")) }
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	edit := func(ls [][]byte, i int, old, new string) [][]byte {
		ls = append([][]byte(nil), ls...)
		ls[i] = bytes.Replace(ls[i], []byte(old), []byte(new), 1)
		return ls
	}
	ch := lines(benchMessages("chiffon", 400))
	ch = ch[:len(ch)-1] // the empty string after the last LF
	msgID := func(i int) string { return fmt.Sprintf("550e8400-e29b-41d4-a716-%012x", i) }
	bad := ch
	bad = edit(bad, 301, msgID(301), msgID(7))                           // a message_id again, far on
	bad = edit(bad, 42, "bytes 50-100 of 100", "bytes 60-100 of 100")    // a gap in the output
	bad = edit(bad, 203, `"type":"work_result"`, `"type":"work_status"`) // no result
	bad = edit(bad, 99, `"work_type":"run_playbook"`, `"work_type":"run_playbook","extra":1`)
	bad = edit(bad, 150, `"progress_percent":50`, `"progress_percent":150`)
	bad = edit(bad, 151, msgID(151), strings.ToUpper(msgID(151)))
	bad = edit(bad, 207, `"type":"work_result"`, `"type":"work_result","x":{"y":[1,2]}`)
	bad = append(bad, ch[3], ch[1]) // a second work_result, a status after it
	chiffon := map[string][]byte{"good": join(ch), "bad": join(bad)}

	tr := lines(benchMessages("trace", 2600))
	tr = tr[:len(tr)-1]
	tbad := tr
	tbad = edit(tbad, 500, `"seq":500`, `"seq":503`)  // a gap
	tbad = edit(tbad, 900, `"seq":900`, `"seq":898`)  // a step back
	tbad = edit(tbad, 1500, `"seq":500`, `"seq":499`) // a repeat
	tbad = edit(tbad, 2100, `"signature":"0`, `"signature":"1`)
	tbad = edit(tbad, 2200, `"actor":"agent"`, `"actor":7`)
	trace := map[string][]byte{"good": join(tr), "bad": join(tbad)}

	var nl []string
	for i := range 3000 {
		switch i % 5 {
		case 0:
			nl = append(nl, fmt.Sprintf(`{"version":"0","type":"asset","assetId":"a-%d","kind":"image","mediaType":"image/png","path":"p.png"}`, i))
		case 1:
			nl = append(nl, `{"version":"0","type":"state_patch","patch":{"flags":{"lit":true}}}`)
		default:
			nl = append(nl, fmt.Sprintf(`{"version":"0","type":"log","level":"info","message":"step %d é"}`, i))
		}
	}
	good := strings.Join(append(nl, `{"version":"0","type":"done","ok":true}`), "\n") + "\n"
	nbad := append([]string(nil), nl...)
	nbad[1000] = `{"version":"0","type":"asset","assetId":"a-5","kind":"image","mediaType":"image png","path":"p.png"}`
	nbad[1500] = `{"version":"0","type":"error","message":"x"}`
	nbad[1600] = `not json`
	nbad[1700] = ``
	nbad[1800] = `{"version":"0","type":"log","level":"loud","message":"m"}` + "\r"
	nbad[2000] = `{"version":"0","type":"done","ok":true}`
	narr := map[string][]byte{
		"good":      []byte(good),
		"bad":       []byte(strings.Join(nbad, "\n") + "\n{\"version\":\"0\",\"type\":\"done\",\"ok\":true}"),
		"unknown":   []byte(strings.Replace(good, `"type":"state_patch"`, `"type":"sparkle"`, 1)[len(good)/2:]),
		"nodone":    []byte(strings.Join(nl, "\n") + "\n"),
		"longline":  []byte(strings.Replace(good, `"message":"step 1502 é"`, `"message":"`+strings.Repeat("z", 9000)+`"`, 1)),
		"truncated": []byte(good[:len(good)*2/3]),
	}
	out := map[string]map[string][]byte{"chiffon": chiffon, "trace": trace, "narratoria": narr, "binary": jobsFrames()}
	for _, proto := range []string{"chiffon", "trace"} {
		m := out[proto]
		for _, k := range []string{"good", "bad"} {
			d := m[k]
			m[k+"-crlf"] = bytes.ReplaceAll(d, []byte("\n"), []byte("\r\n"))
			m[k+"-array"] = append(append([]byte("[\n"), bytes.ReplaceAll(bytes.TrimSuffix(d, []byte("\n")), []byte("\n"), []byte(",\n"))...), "\n]\n"...)
			m[k+"-bom"] = append([]byte("\xEF\xBB\xBF"), d...)
			m[k+"-values"] = bytes.ReplaceAll(d, []byte("}\n{"), []byte("} {"))
		}
		late := len(m["bad"]) * 3 / 4
		late += bytes.IndexByte(m["bad"][late:], '\n') + 1
		m["syntax"] = append(append(bytes.Clone(m["bad"][:late]), `{"seq": 1,}`+"\n"...), m["bad"][late:]...)
		m["truncated"] = m["bad"][:len(m["bad"])-40]
		m["longline"] = append(append(bytes.Clone(m["bad"][:late]), `{"protocol_version": "`+strings.Repeat("x", 9000)+`"}`+"\n"...), m["bad"][late:]...)
		m["scalars"] = append(append(bytes.Clone(m["bad"][:late]), "1\n[2, {\"a\": 3}]\n\"s\"\n"...), m["bad"][late:]...)
	}
	return out
}

// Several workers find what one worker finds, in the same order, at the
// same places, with the same count of records, on good and broken
// streams, in chunks of many sizes, and stop where one worker stops.
func TestWorkersMatchOne(t *testing.T) {
	chunks, stops := []int{37, 1500, 0}, []int{0, 1, 3}
	if raceflag.Enabled {
		chunks, stops = []int{300}, []int{0, 1} // the race run is kept short
	}
	for proto, inputs := range jobsInputs(t) {
		for name, in := range inputs {
			for _, chunk := range chunks {
				for _, maxErrors := range stops {
					got := sameOnWorkers(t, name, proto, in, 1<<20, chunk, maxErrors)
					if name == "good" && (len(got.Findings) != 0 || got.N < 400) {
						t.Fatalf("%s %s: %d records, findings %v", proto, name, got.N, got.Findings)
					}
					if name == "bad" && maxErrors == 0 && len(got.Findings) < 5 {
						t.Fatalf("%s %s: %d findings: the input does not break the rules it should", proto, name, len(got.Findings))
					}
				}
			}
			sameOnWorkers(t, name, proto, in, 4000, 1000, 0) // a message past --max-frame-size
		}
	}
}

// The same on what Python services write: json.dumps' separators, and
// indented with CRLF line ends (messages of many lines each).
func TestWorkersMatchOnePython(t *testing.T) {
	inputs := jobsInputs(t)
	for _, proto := range []string{"chiffon", "trace"} {
		for _, name := range []string{"good", "bad"} {
			in := inputs[proto][name]
			for _, style := range pyjson.Styles {
				if raceflag.Enabled && style.Name != "dumps" {
					continue // the race run is kept short
				}
				py := pyjson.Dumps(t, in, style.Flags...)
				for _, chunk := range []int{300, 0} {
					sameOnWorkers(t, style.Name+" "+name, proto, py, 1<<20, chunk, 0)
				}
			}
		}
	}
}

// FuzzWorkersMatchOne: on any bytes, 4 workers (in chunks of 8 to 263
// bytes) find what one worker finds, for each protocol, with and without
// a stop after some errors.
func FuzzWorkersMatchOne(f *testing.F) {
	for _, s := range []string{
		benchMessages("chiffon", 4),
		benchMessages("trace", 3),
		"{\"version\":\"0\",\"type\":\"log\",\"level\":\"info\",\"message\":\"m\"}\nnot json\n{\"version\":\"0\",\"type\":\"done\",\"ok\":true}\r\n{\"version\":\"0\",\"type\":\"x\"}\n",
		"[{\"seq\":1,\"t\":\"x\",\"actor\":\"agent\",\"type\":\"reasoning\",\"payload\":{},\"meta\":{\"run_id\":\"r\"}},\n{\"seq\":1}]\n",
		"\xEF\xBB\xBF{\"a\":\n1}\n{\"b\": 2}\n{",
		string(jobsFrames()["damaged"][:700]),
	} {
		f.Add([]byte(s), uint8(20), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk, maxErrors uint8) {
		for _, proto := range []string{"chiffon", "trace", "narratoria", "binary"} {
			sameOnWorkers(t, "fuzz", proto, in, 1<<12, 8+int(chunk), int(maxErrors%4))
		}
	})
}

// jobsFrames are streams of Kado frames: good, and damaged in the ways
// the reader and the rules look for (bad headers, payloads that are not
// JSON, sequence ids that go back, RLE oddities, large frames, bytes after
// the last frame).
func jobsFrames() map[string][]byte {
	frame := func(b []byte, typ kado.MessageType, seq uint32, ts uint64, payload string, c kado.CompressMode) []byte {
		b, _, _ = kado.AppendFrame(b, kado.Header{Version: 1, Type: typ, SequenceID: seq, Timestamp: ts}, []byte(payload), c)
		return b
	}
	payloads := []string{
		`{"instruction": "step %d"}`,
		`{"status": "working", "progress": 0.%d}`,
		`{"toolName": "grep", "args": {"n": %d}}`,
		`{"success": true, "data": "%d` + strings.Repeat("x", 300) + `", "duration": 1.5}`,
	}
	types := []kado.MessageType{kado.Instruction, kado.Status, kado.ToolCall, kado.ToolResult}
	var good, damaged []byte
	for i := range 600 {
		p := fmt.Sprintf(payloads[i%4], i)
		good = frame(good, types[i%4], uint32(i), uint64(1000+i), p, kado.CompressAuto)
		seq, ts := uint32(i), uint64(1000+i)
		switch i % 97 {
		case 11:
			seq, ts = 3, 5 // back
		case 23:
			p = `{"status": 7}` // the schema
		case 31:
			p = `{"instruction": ` // not JSON, a header after it
		case 47:
			damaged = append(damaged, "garbage\x01\x09zz"...)
		case 59:
			damaged = frame(damaged, types[i%4], seq, ts, `{"data": "`+strings.Repeat("ab", 600<<10)+`"}`, kado.CompressAuto)
		case 71:
			damaged = frame(damaged, kado.Instruction, seq, ts, `{"instruction": "`+strings.Repeat("a", 300)+`"}`, kado.CompressAlways)
			damaged[len(damaged)-1] = 0xFF // an escape cut short
			continue
		}
		damaged = frame(damaged, types[i%4], seq, ts, p, kado.CompressAuto)
	}
	notJSONLast := frame(bytes.Clone(good[:len(good)/2]), kado.Instruction, 1, 1, `{"x": nope}`, kado.CompressNever)
	notJSONLast = append(notJSONLast, "zzz"...)
	notJSONLast = append(notJSONLast, good[len(good)/2:]...)
	return map[string][]byte{
		"good":      good,
		"bad":       damaged,
		"damaged":   damaged,
		"truncated": damaged[:len(damaged)*2/3],
		"trailing":  append(bytes.Clone(good), "after the last frame"...),
		"notjson":   notJSONLast,
	}
}

// The workers of a fresh process load the schemas once, before any of
// them reads them: run under -race (make test), a data race there fails
// the child process.
func TestWorkersFreshProcess(t *testing.T) {
	if os.Getenv("TOONKIT_FRESH_WORKERS") == "1" {
		in := jobsInputs(t)["chiffon"]["bad"]
		if _, err := Chiffon(bytes.NewReader(in), "in", Options{Workers: 4, chunk: 500}, func(Finding) bool { return true }); err != nil {
			t.Fatal(err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkersFreshProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TOONKIT_FRESH_WORKERS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// Good streams, compact or as Python writes them (indented messages one
// after another too), are checked by the workers to their end: one worker
// takes over only where the workers cannot go on (here a JSON array).
func TestWorkersKeepTheStream(t *testing.T) {
	inputs := jobsInputs(t)
	for _, proto := range []string{"chiffon", "trace"} {
		good := inputs[proto]["good"]
		streams := map[string][]byte{"compact": good, "crlf": inputs[proto]["good-crlf"], "bom": inputs[proto]["good-bom"]}
		for _, style := range pyjson.Styles[:2] {
			streams[style.Name] = pyjson.Dumps(t, good, style.Flags...)
		}
		for name, in := range streams {
			before := takeovers.Load()
			sameOnWorkers(t, name, proto, in, 1<<20, 4000, 0)
			if takeovers.Load() != before {
				t.Errorf("%s %s: one worker took over", proto, name)
			}
		}
		before := takeovers.Load()
		sameOnWorkers(t, "array", proto, inputs[proto]["good-array"], 1<<20, 4000, 0)
		if takeovers.Load() == before {
			t.Errorf("%s: the workers read a JSON array cut in chunks", proto)
		}
	}
	before := takeovers.Load()
	sameOnWorkers(t, "good", "narratoria", inputs["narratoria"]["good"], 1<<20, 4000, 0)
	if takeovers.Load() != before {
		t.Errorf("narratoria: one worker took over")
	}
}
