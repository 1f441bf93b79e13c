package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/validate"
)

// mvt is the spec's minimum viable tool (section 9).
const mvt = `{"version":"0","type":"log","level":"info","message":"Starting"}
{"version":"0","type":"state_patch","patch":{"flags":{"torchLit":true}}}
{"version":"0","type":"done","ok":true,"summary":"Torch lit."}
`

// run reads stream with a host and returns the result for exit, with what
// the host called back, in order: "event N TYPE [ignored]" and "CODE".
func run(t *testing.T, opts Options, state string, stream string, exit Exit) (Result, []string) {
	t.Helper()
	var st *State
	if state != "" {
		var err error
		if st, err = NewState([]byte(state)); err != nil {
			t.Fatal(err)
		}
	}
	h := New(opts, st)
	var calls []string
	h.OnEvent = func(ev *Event) {
		s := fmt.Sprintf("event %d %s", ev.Line, ev.Type)
		if ev.Ignored != "" {
			s += " (" + ev.Ignored + ")"
		}
		calls = append(calls, s)
	}
	h.OnViolation = func(f validate.Finding) { calls = append(calls, f.Code) }
	if _, err := h.Read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	return h.Result(exit), calls
}

func TestMinimumViableTool(t *testing.T) {
	r, calls := run(t, Options{}, "", mvt, Exit{})
	if diff := cmp.Diff([]string{"event 1 log", "event 2 state_patch", "event 3 done"}, calls); diff != "" {
		t.Fatal(diff)
	}
	if !r.OK || r.ExitCode != 0 || len(r.Reasons) != 0 || r.Lines != 3 || r.Errors+r.Warnings != 0 {
		t.Fatalf("result %+v", r)
	}
	if r.Done == nil || !r.Done.OK || r.Done.Summary != "Torch lit." || r.Done.Line != 3 {
		t.Fatalf("done %+v", r.Done)
	}
	if got := string(r.State.AppendJSON(nil)); got != `{"flags":{"torchLit":true}}` {
		t.Fatalf("state %s", got)
	}
}

// The exit code and the reasons, for each way an invocation can end.
func TestResult(t *testing.T) {
	notOK := strings.Replace(mvt, `"ok":true`, `"ok":false`, 1)
	noDone := mvt[:strings.LastIndex(mvt[:len(mvt)-1], "\n")+1]
	cases := []struct {
		name    string
		stream  string
		exit    Exit
		code    int
		reasons []string
	}{
		{"ok", mvt, Exit{}, 0, nil},
		{"done ok false", notOK, Exit{}, 1, []string{"done has ok false"}},
		{"no done", noDone, Exit{}, 1, []string{"no done event", "1 protocol error"}},
		{"exit status 2 after done ok", mvt, Exit{Status: 2}, 1, []string{"the tool exited with status 2"}},
		{"killed", mvt, Exit{Status: -1, Signal: "SIGSEGV"}, 1, []string{"the tool was ended by SIGSEGV"}},
		{"timeout", noDone, Exit{Status: -1, Signal: "SIGTERM", Timeout: 200 * time.Millisecond}, 1,
			[]string{"timed out after 200ms", "no done event", "1 protocol error"}},
		{"interrupted", noDone, Exit{Status: -1, Signal: "SIGTERM", Interrupted: "SIGINT", InterruptedCode: 130}, 130,
			[]string{"interrupted by SIGINT", "no done event", "1 protocol error"}},
		{"done breaks the rules", strings.Replace(mvt, `"ok":true`, `"ok":"yes"`, 1), Exit{}, 1,
			[]string{"the done event breaks the rules", "1 protocol error"}},
		{"not started", "", Exit{StartError: "exec: \"nope\": executable file not found in $PATH"}, 3,
			[]string{"cannot start the tool: exec: \"nope\": executable file not found in $PATH"}},
	}
	for _, c := range cases {
		var r Result
		if c.exit.StartError != "" {
			r = New(Options{}, nil).Result(c.exit)
		} else {
			r, _ = run(t, Options{}, "", c.stream, c.exit)
		}
		if r.ExitCode != c.code || r.OK != (c.code == 0) || !cmp.Equal(c.reasons, r.Reasons) {
			t.Errorf("%s: exit code %d, ok %v, reasons %q; want %d, %q", c.name, r.ExitCode, r.OK, r.Reasons, c.code, c.reasons)
		}
	}
}

// Events after done are reported and ignored: a patch after done does not
// reach the state, a second done is an error, and warnings alone pass.
func TestAfterDone(t *testing.T) {
	stream := mvt + `{"version":"0","type":"state_patch","patch":{"late":true}}
{"version":"0","type":"log","level":"info","message":"bye"}
`
	r, calls := run(t, Options{}, "", stream, Exit{})
	want := []string{"event 1 log", "event 2 state_patch", "event 3 done",
		"event 4 state_patch (after done)", "NAR082", "event 5 log (after done)", "NAR082"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Fatal(diff)
	}
	if !r.OK || r.Warnings != 2 || string(r.State.AppendJSON(nil)) != `{"flags":{"torchLit":true}}` {
		t.Fatalf("ok %v, warnings %d, state %s", r.OK, r.Warnings, r.State.AppendJSON(nil))
	}
	r, calls = run(t, Options{}, "", mvt+`{"version":"0","type":"done","ok":false}`+"\n", Exit{})
	if diff := cmp.Diff([]string{"event 1 log", "event 2 state_patch", "event 3 done", "event 4 done (after done)", "NAR081"}, calls); diff != "" {
		t.Fatal(diff)
	}
	if r.OK || !r.Done.OK || r.Done.Line != 3 || !cmp.Equal(r.Reasons, []string{"1 protocol error"}) {
		t.Fatalf("two dones: %+v", r)
	}
}

// An unknown type stops the reading there (spec 5.2): what follows is not
// read, and the caller is told to end the tool.
func TestUnknownTypeStops(t *testing.T) {
	h := New(Options{}, nil)
	var types []string
	h.OnEvent = func(ev *Event) { types = append(types, ev.Type+" "+ev.Ignored) }
	stream := `{"version":"0","type":"log","level":"info","message":"a"}
{"version":"0","type":"sparkle"}
{"version":"0","type":"done","ok":true}
`
	end, err := h.Read(strings.NewReader(stream))
	if err != nil || end {
		t.Fatalf("end %v, err %v: want a stop", end, err)
	}
	if diff := cmp.Diff([]string{"log ", "sparkle unknown type"}, types); diff != "" {
		t.Fatal(diff)
	}
	r := h.Result(Exit{Status: -1, Signal: "SIGTERM"})
	want := []string{`reading stopped at an event of unknown type "sparkle" at stdout:2`, "no done event", "1 protocol error"}
	if r.ExitCode != 1 || !cmp.Equal(want, r.Reasons) || r.Stopped == "" {
		t.Fatalf("reasons %q, stopped %q", r.Reasons, r.Stopped)
	}
}

// A line longer than the limit is a violation that stops the reading; it
// is never held whole.
func TestLineTooLong(t *testing.T) {
	h := New(Options{MaxLineSize: 1024}, nil)
	var codes []string
	h.OnViolation = func(f validate.Finding) { codes = append(codes, fmt.Sprintf("%s %d", f.Code, f.Line)) }
	stream := mvt[:strings.Index(mvt, "\n")+1] + `{"version":"0","type":"log","level":"info","message":"` + strings.Repeat("x", 1<<20) + "\"}\n"
	end, err := h.Read(strings.NewReader(stream))
	r := h.Result(Exit{})
	if err != nil || end || !cmp.Equal(codes, []string{"NAR002 2"}) || r.Stopped != "a line longer than 1024 bytes at stdout:2" {
		t.Fatalf("end %v, err %v, codes %v, stopped %q", end, err, codes, r.Stopped)
	}
}

// Lines that break the rules are reported and not applied; the stream goes
// on.
func TestInvalidEventsAreNotApplied(t *testing.T) {
	stream := `not json
{"version":"0","type":"state_patch","patch":["not","an","object"]}
{"version":"0","type":"state_patch","patch":{"a":1},"timestamp":"yesterday"}
{"version":"0","type":"state_patch","patch":{"b":2}}` + "\r" + `
{"version":"0","type":"state_patch","patch":{"c":3}}
{"version":"0","type":"done","ok":true}
`
	r, calls := run(t, Options{}, `{"kept":true}`, stream, Exit{})
	want := []string{"event 1  (breaks the rules)", "NAR002", "event 2 state_patch (breaks the rules)", "NAR030",
		"event 3 state_patch (breaks the rules)", "NAR013", "event 4 state_patch (breaks the rules)", "NAR001",
		"event 5 state_patch", "event 6 done"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Fatal(diff)
	}
	if got := string(r.State.AppendJSON(nil)); got != `{"kept":true,"c":3}` || r.Errors != 4 || r.ExitCode != 1 {
		t.Fatalf("state %s, errors %d, exit code %d", got, r.Errors, r.ExitCode)
	}
}

// Assets are registered with whether their file can be read; one that
// cannot is a violation (spec 4.3), a repeated assetId is not registered
// again.
func TestAssets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.png"), []byte("png"), 0o644)
	os.Mkdir(filepath.Join(dir, "folder"), 0o755)
	abs := filepath.Join(dir, "a.png")
	stream := `{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"image/png","path":"a.png","metadata":{"width":1}}
{"version":"0","type":"asset","assetId":"b","kind":"image","mediaType":"image/png","path":"missing.png"}
{"version":"0","type":"asset","assetId":"c","kind":"image","mediaType":"image/png","path":"folder"}
{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"image/png","path":"a.png"}
{"version":"0","type":"asset","assetId":"d","kind":"image","mediaType":"image/png","path":` + string(jsonv.AppendQuote(nil, abs)) + `}
{"version":"0","type":"done","ok":true}
`
	r, calls := run(t, Options{Dir: dir}, "", stream, Exit{})
	want := []string{"event 1 asset", "event 2 asset", "EXE001", "event 3 asset", "EXE001", "event 4 asset (breaks the rules)", "NAR046", "event 5 asset", "event 6 done"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Fatal(diff)
	}
	var got []string
	for _, a := range r.Assets {
		got = append(got, fmt.Sprintf("%d %s %s %v %q %s", a.Line, a.ID, a.Path, a.Readable, a.Problem, string(a.Metadata)))
	}
	wantAssets := []string{`1 a a.png true "" {"width":1}`, `2 b missing.png false "does not exist" `, `3 c folder false "is a directory" `, "5 d " + abs + ` true "" `}
	if diff := cmp.Diff(wantAssets, got); diff != "" {
		t.Fatal(diff)
	}
	v := r.Violations[0]
	if v.Line != 2 || v.Pointer != "/path" || v.Column != 91 || v.Offset != 212 || v.Message != `the asset's file "missing.png" does not exist (spec 4.3: a file readable by the host)` {
		t.Fatalf("violation %+v", v)
	}
}

// An event that carries another requestId than the request's is a warning.
func TestRequestID(t *testing.T) {
	stream := `{"version":"0","type":"log","level":"info","message":"m","requestId":"r-1"}
{"version":"0","type":"done","ok":true,"requestId":"r-2"}
`
	r, calls := run(t, Options{RequestID: "r-1"}, "", stream, Exit{})
	if diff := cmp.Diff([]string{"event 1 log", "event 2 done", "EXE002"}, calls); diff != "" {
		t.Fatal(diff)
	}
	if !r.OK || r.Violations[0].Message != `the requestId "r-2" is not the request's, "r-1"` {
		t.Fatalf("%+v", r)
	}
	if _, calls := run(t, Options{}, "", stream, Exit{}); len(calls) != 2 {
		t.Fatalf("no request id sent, yet %v", calls)
	}
}

// Every violation is passed on and counted; Result lists the first ones.
func TestKeepViolations(t *testing.T) {
	r, calls := run(t, Options{KeepViolations: 2}, "", strings.Repeat("x\n", 5), Exit{})
	if len(calls) != 11 || r.Errors != 6 || len(r.Violations) != 2 || r.Omitted != 4 {
		t.Fatalf("calls %d, errors %d, kept %d, omitted %d", len(calls), r.Errors, len(r.Violations), r.Omitted)
	}
}

// Each event is taken as its line arrives, before the next one is written.
func TestEventsAsTheyArrive(t *testing.T) {
	pr, pw := io.Pipe()
	h := New(Options{}, nil)
	seen := make(chan string, 3)
	h.OnEvent = func(ev *Event) { seen <- ev.Type }
	go h.Read(pr)
	for _, line := range strings.SplitAfter(mvt, "\n")[:3] {
		go pw.Write([]byte(line))
		select {
		case typ := <-seen:
			if !strings.Contains(line, `"type":"`+typ+`"`) {
				t.Fatalf("event %s for line %s", typ, line)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event for %s while the stream stays open", line)
		}
	}
	pw.Close()
}

// The JSON report: a line per event and per violation, as they come, then
// the summary; every line is JSON.
func TestJSONReport(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644)
	stream := `{"version":"0", "type":"log","level":"info","message":"Starting"}
oops
{"version":"0","type":"asset","assetId":"a","kind":"text","mediaType":"text/plain","path":"a.txt"}
` + mvt[strings.Index(mvt, "\n")+1:] + `{"version":"0","type":"log","level":"info","message":"late"}
`
	h := New(Options{Dir: dir}, nil)
	var out []byte
	h.OnEvent = func(ev *Event) { out = AppendEventJSON(out, ev) }
	h.OnViolation = func(f validate.Finding) { out = AppendViolationJSON(out, f) }
	h.Read(strings.NewReader(stream))
	out = AppendSummaryJSON(out, h.Result(Exit{Status: 3}))
	want := `{"kind":"event","line":1,"event":{"version":"0","type":"log","level":"info","message":"Starting"}}
{"kind":"event","line":2,"text":"oops","ignored":"breaks the rules"}
{"kind":"violation","file":"stdout","line":2,"column":1,"offset":66,"record":1,"pointer":"","code":"NAR002","severity":"error","message":"not one JSON object: invalid character 'o' at start of value"}
{"kind":"event","line":3,"event":{"version":"0","type":"asset","assetId":"a","kind":"text","mediaType":"text/plain","path":"a.txt"}}
{"kind":"event","line":4,"event":{"version":"0","type":"state_patch","patch":{"flags":{"torchLit":true}}}}
{"kind":"event","line":5,"event":{"version":"0","type":"done","ok":true,"summary":"Torch lit."}}
{"kind":"event","line":6,"event":{"version":"0","type":"log","level":"info","message":"late"},"ignored":"after done"}
{"kind":"violation","file":"stdout","line":6,"column":23,"offset":328,"record":5,"pointer":"/type","code":"NAR082","severity":"warning","message":"an event after done (record 4) is ignored"}
{"kind":"summary","ok":false,"exitCode":1,"reasons":["the tool exited with status 3","1 protocol error"],"tool":{"exitStatus":3,"signal":null,"timedOut":false,"interrupted":null},"done":{"line":5,"ok":true,"valid":true,"summary":"Torch lit."},"lines":6,"stopped":null,"errors":1,"warnings":1,"state":{"flags":{"torchLit":true}},"assets":[{"line":3,"assetId":"a","kind":"text","mediaType":"text/plain","path":"a.txt","readable":true,"problem":null}],"violations":[{"file":"stdout","line":2,"column":1,"offset":66,"record":1,"pointer":"","code":"NAR002","severity":"error","message":"not one JSON object: invalid character 'o' at start of value"},{"file":"stdout","line":6,"column":23,"offset":328,"record":5,"pointer":"/type","code":"NAR082","severity":"warning","message":"an event after done (record 4) is ignored"}],"omitted":0}
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Fatalf("line %d is not JSON: %s", i+1, line)
		}
	}
	// A tool that could not be started still gets a summary.
	got := string(AppendSummaryJSON(nil, New(Options{}, nil).Result(Exit{StartError: "no such file"})))
	if !strings.Contains(got, `"exitCode":3,"reasons":["cannot start the tool: no such file"],"tool":{"startError":"no such file"},"done":null`) {
		t.Fatalf("summary %s", got)
	}
}

// The text report: one line per event as it comes, its violations under
// it, and the summary.
func TestTextReport(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.png"), nil, 0o644)
	stream := `{"version":"0","type":"log","level":"warn","message":"two\nlines \u001b[31m","fields":{"k":1}}
{"version":"0","type":"asset","assetId":"a","kind":"image","mediaType":"image/png","path":"a.png"}
{"version":"0","type":"asset","assetId":"b","kind":"image","mediaType":"image/png","path":"b.png"}
{"version":"0","type":"ui_event","event":"show","payload":{"assetId":"a"}}
{"version":"0","type":"error","errorCode":"E1","errorMessage":"wet torch","details":{"retry":true}}
{"version":"0","type":"state_patch","patch":{"long":"` + strings.Repeat("x", 300) + `"}}
{"version":"0","type":"log","level":"loud","message":"m"}
{"version":"0","type":"done","ok":false,"summary":"Torch not lit."}
`
	h := New(Options{Dir: dir}, nil)
	var out bytes.Buffer
	h.OnEvent = func(ev *Event) { WriteEventText(&out, ev, nil) }
	h.OnViolation = func(f validate.Finding) { validate.WriteText(&out, f, nil) }
	h.Read(strings.NewReader(stream))
	WriteSummaryText(&out, h.Result(Exit{}), nil)
	want := `   1  log          warn   two\nlines \u001b[31m  {"k":1}
   2  asset        a  image  image/png  a.png  (readable)
   3  asset        b  image  image/png  b.png  (does not exist)
stdout:3:91: error: /path: the asset's file "b.png" does not exist (spec 4.3: a file readable by the host) [EXE001]
   4  ui_event     show  {"assetId":"a"}
   5  error        E1  wet torch  {"retry":true}
   6  state_patch  {"long":"` + strings.Repeat("x", 191) + `… (311 bytes)
   7  log          {"version":"0","type":"log","level":"loud","message":"m"}  (ignored: breaks the rules)
stdout:7:37: error: /level: must be debug, info, warn or error, found "loud" [NAR020]
   8  done         not ok: Torch not lit.

done        not ok: Torch not lit.
tool        exited with status 0
state       {
              "long": "` + strings.Repeat("x", 300) + `"
            }
assets      2
            a  image  image/png  a.png  (readable)
            b  image  image/png  b.png  (does not exist)
violations  2 errors, 0 warnings
            stdout:3:91: error: /path: the asset's file "b.png" does not exist (spec 4.3: a file readable by the host) [EXE001]
            stdout:7:37: error: /level: must be debug, info, warn or error, found "loud" [NAR020]
result      failed: done has ok false; 2 protocol errors
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// Colors go where the roles say.
	out.Reset()
	mark := func(r paint.Role, s string) string { return fmt.Sprintf("<%v:%s>", r, s) }
	WriteEventText(&out, &Event{Line: 1, Type: "log", Event: []byte("{}"), Level: "error", Message: "m"}, mark)
	WriteEventText(&out, &Event{Line: 2, Type: "done", Event: []byte("{}"), OK: true}, mark)
	if got, want := out.String(), "<Dim:   1>  <Title:log        >  <Error:error>  m\n<Dim:   2>  <Title:done       >  <Success:ok>\n"; got != want {
		t.Fatalf("painted:\n%s\nwant\n%s", got, want)
	}
}

// A tool that writes 100 MB of events is followed in constant memory: the
// heap in use stays far below the size of the stream.
func TestConstantMemory(t *testing.T) {
	const size = 100 << 20
	h := New(Options{}, nil)
	events := 0
	var peak uint64
	var ms runtime.MemStats
	h.OnEvent = func(ev *Event) {
		if events++; events%1000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	g := &generator{left: size}
	end, err := h.Read(g)
	r := h.Result(Exit{})
	if err != nil || !end || r.Errors != 0 || !cmp.Equal(r.Reasons, []string{"done has ok false"}) || g.read < size {
		t.Fatalf("end %v, err %v, read %d bytes, result %+v", end, err, g.read, r.Reasons)
	}
	if events < 100000 || peak == 0 {
		t.Fatalf("%d events, peak %d", events, peak)
	}
	if grew := int64(peak) - int64(base); grew > 32<<20 {
		t.Fatalf("the heap grew by %d MiB over a %d MiB stream", grew>>20, size>>20)
	}
	t.Logf("%d events, %d MiB: heap %d KiB at the start, %d KiB at the most", events, g.read>>20, base>>10, peak>>10)
}

// generator writes events without end until left bytes are written, then
// a done with ok false (it follows error events): logs, patches of one
// member, ui events, errors.
type generator struct {
	left, read int
	n          int
	buf        []byte
	done       bool
}

func (g *generator) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && !g.done {
		pad := strings.Repeat("x", 700+g.n%200)
		switch g.n % 4 {
		case 0:
			g.buf = fmt.Appendf(g.buf, `{"version":"0","type":"log","level":"info","message":"step %d %s","fields":{"n":%d}}`+"\n", g.n, pad, g.n)
		case 1:
			g.buf = fmt.Appendf(g.buf, `{"version":"0","type":"state_patch","patch":{"progress":{"step":%d,"note":"%s"}}}`+"\n", g.n, pad)
		case 2:
			g.buf = fmt.Appendf(g.buf, `{"version":"0","type":"ui_event","event":"progress","payload":{"step":%d,"text":"%s"}}`+"\n", g.n, pad)
		case 3:
			g.buf = fmt.Appendf(g.buf, `{"version":"0","type":"error","errorCode":"W%d","errorMessage":"%s"}`+"\n", g.n, pad)
		}
		g.n++
		if g.read+len(g.buf) >= g.left {
			g.buf = append(g.buf, `{"version":"0","type":"done","ok":false}`+"\n"...)
			g.done = true
		}
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	g.read += n
	return n, nil
}

// Events are read whatever their white space, and a member of another
// type's name is ignored, whatever its value (spec 8: additional fields).
func TestEventFields(t *testing.T) {
	stream := `{ "version" : "0" , "type" : "log" , "level" : "info" , "message" : "a \u00e9" , "ok" : "not a boolean", "path": 7 }
{"version":"0","type":"done", "ok" : true , "summary" : "s", "level": {"x": 1}}
`
	h := New(Options{}, nil)
	var got []string
	h.OnEvent = func(ev *Event) {
		got = append(got, fmt.Sprintf("%s %s %q %v %q %q", ev.Type, ev.Level, ev.Message, ev.OK, ev.Summary, ev.Ignored))
	}
	h.Read(strings.NewReader(stream))
	want := []string{`log info "a é" false "" ""`, `done  "" true "s" ""`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
	if r := h.Result(Exit{}); !r.OK {
		t.Fatalf("%+v", r.Reasons)
	}
}

// BenchmarkRead: events read, checked and applied, per second.
func BenchmarkRead(b *testing.B) {
	const size = 10 << 20
	b.SetBytes(size)
	for range b.N {
		New(Options{}, nil).Read(&generator{left: size})
	}
}
