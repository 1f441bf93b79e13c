package bridge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// oneByOne converts the messages of in with Convert, read one at a time
// by one Reader, as convert's single-worker loop does; it gives what it
// emits, warns and fails with, in order.
func oneByOne(opts Options, in []byte, elements bool) string {
	var b strings.Builder
	opts.Warn = func(where, msg string) { fmt.Fprintf(&b, "warning: %s: %s\n", where, msg) }
	c, err := New(opts)
	if err != nil {
		return err.Error()
	}
	jr := jsonv.NewReader(bytes.NewReader(in), jsonv.Options{Elements: elements})
	return loop(c, jr, &b)
}

// loop converts what jr reads with c, writing to b.
func loop(c *Converter, jr *jsonv.Reader, b *strings.Builder) string {
	for {
		v, pos, err := jr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(b, "error: %v\n", err)
			return b.String()
		}
		if err := c.Convert(v, func() string { return pos.String() }, func(p []byte) error {
			b.Write(p)
			b.WriteByte('\n')
			return nil
		}); err != nil {
			fmt.Fprintf(b, "error: %v\n", err)
			return b.String()
		}
	}
	if err := c.End(); err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
	}
	return b.String()
}

// streamed converts the messages of in with Stream on workers, and the
// rest it leaves with Convert; mapped says how many messages the ordered
// pass took from the workers as they were.
func streamed(opts Options, in []byte, elements bool, workers, batch int) (out string, mapped int64) {
	var b strings.Builder
	opts.Warn = func(where, msg string) { fmt.Fprintf(&b, "warning: %s: %s\n", where, msg) }
	c, err := New(opts)
	if err != nil {
		return err.Error(), 0
	}
	rest, err := c.Stream(context.Background(), bytes.NewReader(in), StreamOptions{Workers: workers, Elements: elements, BatchBytes: batch},
		StreamHandler{Emit: func(p []byte) error {
			b.Write(p)
			b.WriteByte('\n')
			return nil
		}})
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
		return b.String(), c.mapped
	}
	if rest == nil {
		rest = jsonv.NewReader(strings.NewReader(""), jsonv.Options{})
	}
	return loop(c, rest, &b), c.mapped
}

// genStream is n generated messages of p as NDJSON, in a few runs, with
// now and then a message that does not convert as it is (bad says which
// kinds).
func genStream(g *gen, p Protocol, n int, bad bool) []byte {
	types := map[Protocol][]string{
		Kado:       {"INSTRUCTION", "TOOL_CALL", "TOOL_RESULT", "ERROR", "STATUS", "CONTEXT_REQUEST", "CONTEXT_RESPONSE"},
		Chiffon:    {"work_request", "work_status", "work_status", "work_result", "error"},
		Narratoria: {"log", "state_patch", "asset", "ui_event", "error", "done"},
		Trace:      {"reasoning", "action_request", "action_response", "final_output", "error"},
	}[p]
	runs := []string{g.uuid(), g.uuid(), "run-not-a-uuid"}
	var b bytes.Buffer
	for i := range n {
		msg := g.message(p, types[g.r.IntN(len(types))], runs[g.r.IntN(len(runs))])
		if bad {
			switch g.r.IntN(30) {
			case 5, 6, 7:
				// Chunks of one step, in turn or not, some missing, some twice.
				a := g.r.IntN(2) * 2
				msg = statusWith("ab", "")
				msg = strings.Replace(msg, `"output":"ab"`, fmt.Sprintf(`"output":"ab","output_chunk":"bytes %d-%d of 4"`, a, a+2), 1)
			case 0:
				msg = `{"type":"no_such_type","payload":{}}` // a warning (--strict: an error)
			case 1:
				msg = `[1,2]` // not an object: an error
			case 2:
				msg = statusWith("ab", "") // a chunk: joined in the ordered pass
				msg = strings.Replace(msg, `"output":"ab"`, `"output":"ab","output_chunk":"bytes 0-2 of 2"`, 1)
			case 3:
				msg = strings.Replace(msg, `"timestamp":`, `"timestampx":`, 1) // a time from the stream
				msg = strings.Replace(msg, `"t":`, `"tx":`, 1)
			case 4:
				msg = strings.Replace(msg, `"seq":`, `"seq":1`, 1) // a seq out of turn
			}
		}
		if p == Chiffon && !bad && g.r.IntN(5) == 0 {
			// A step's output in 2 or 3 chunks, one message of another
			// task in between now and then.
			parts := 2 + g.r.IntN(2)
			total := 3 * parts
			for k := range parts {
				c := statusWith(strings.Repeat("o", 3), "")
				c = strings.Replace(c, `446655440004"`, fmt.Sprintf(`%012d"`, i), 1)
				c = strings.Replace(c, `"output":"ooo"`, fmt.Sprintf(`"output":"ooo","output_chunk":"bytes %d-%d of %d"`, 3*k, 3*k+3, total), 1)
				b.WriteString(c + "\n")
				if g.r.IntN(3) == 0 {
					b.WriteString(g.message(p, types[g.r.IntN(len(types))], runs[0]) + "\n")
				}
			}
		}
		if i%7 == 3 {
			// Formatted as json.dumps(indent=2) on Windows writes it.
			if c, err := jsonv.AppendCompact(nil, []byte(msg)); err == nil {
				msg = string(bytes.ReplaceAll(jsonv.AppendIndent(nil, c, "", "  "), []byte("\n"), []byte("\r\n")))
			}
		}
		b.WriteString(msg)
		b.WriteString("\n")
	}
	return b.Bytes()
}

var streamDirs = [][2]Protocol{{Chiffon, Trace}, {Narratoria, Trace}, {Kado, Trace}, {Trace, Narratoria}, {Trace, Chiffon}, {Kado, Chiffon}, {Chiffon, Kado}, {Trace, Kado}}

// TestStreamMatchesConvert: Stream on 4 workers gives what Convert gives
// a message at a time (messages, warnings and their places, the error
// that stops it), with --deterministic or --run-id, --strict or not, on
// generated streams with bad messages among them, cut into small batches.
func TestStreamMatchesConvert(t *testing.T) {
	n, variants := 400, []Options{{Deterministic: true}, {RunID: "11111111-2222-4333-8444-555555555555", Deterministic: true}, {Deterministic: true, Strict: true}, {Deterministic: true, NoReassemble: true}}
	if raceflag.Enabled {
		n, variants = 150, variants[:2] // the race detector is slow: a few batches
	}
	for i, d := range streamDirs {
		for _, bad := range []bool{false, true} {
			for _, v := range variants {
				in := genStream(newGen(uint64(i*10+1)), d[0], n, bad)
				opts := v
				opts.From, opts.To, opts.Now, opts.Checked = d[0], d[1], fixedNow, true
				want := oneByOne(opts, in, false)
				for _, workers := range []int{1, 4} {
					got, _ := streamed(opts, in, false, workers, 700)
					if got != want {
						t.Fatalf("%s -> %s (bad %v, %+v), %d workers:\n%s", d[0], d[1], bad, v, workers, firstDiff(got, want))
					}
				}
			}
		}
	}
}

// TestStreamMaps: the workers map the messages, the ordered pass takes
// them as they are (not converting them again) where nothing but the seq
// comes from the stream before them.
func TestStreamMaps(t *testing.T) {
	for i, d := range [][2]Protocol{{Chiffon, Trace}, {Narratoria, Trace}, {Trace, Narratoria}} {
		g := newGen(uint64(i + 100))
		types := map[Protocol][]string{
			Chiffon:    {"work_request", "work_status", "work_result", "error"},
			Narratoria: {"log", "state_patch", "asset", "ui_event", "error", "done"},
			Trace:      {"reasoning", "final_output", "error"}, // those with a Narratoria counterpart
			Kado:       {"INSTRUCTION", "TOOL_CALL", "TOOL_RESULT", "ERROR", "STATUS", "CONTEXT_REQUEST", "CONTEXT_RESPONSE"},
		}[d[0]]
		var in bytes.Buffer
		n := int64(0)
		run := g.uuid()
		for n < 500 {
			msg := g.message(d[0], types[g.r.IntN(len(types))], run)
			if d[0] == Narratoria && !(strings.Contains(msg, `"timestamp"`) && strings.Contains(msg, `"requestId"`)) {
				continue // the time and the run of the message before it
			}
			in.WriteString(msg + "\n")
			n++
		}
		opts := Options{From: d[0], To: d[1], Now: fixedNow, Checked: true, RunID: "11111111-2222-4333-8444-555555555555"}
		out, mapped := streamed(opts, in.Bytes(), false, 4, 4<<10)
		if strings.Contains(out, "\nwarning: ") || strings.Contains(out, "\nerror: ") {
			t.Fatalf("%s -> %s: a warning or an error:\n%s", d[0], d[1], out)
		}
		if mapped < n*9/10 {
			t.Errorf("%s -> %s: the workers' mapping was taken for %d of %d messages", d[0], d[1], mapped, n)
		}
	}
}

// TestStreamGoldens: the examples convert on 4 workers as on one, in
// small batches, compact and as json.dumps(indent=2) with CRLF writes
// them (a JSON array of them).
func TestStreamGoldens(t *testing.T) {
	for _, g := range goldens {
		dir := "../../testdata/demo"
		if g.input == "trace.ndjson" {
			dir = "testdata"
		}
		in, err := os.ReadFile(dir + "/" + g.input)
		if err != nil {
			t.Fatal(err)
		}
		var arr bytes.Buffer
		arr.WriteString("[\r\n")
		for i, line := range bytes.Split(bytes.TrimSpace(in), []byte("\n")) {
			if i > 0 {
				arr.WriteString(",\r\n")
			}
			arr.Write(bytes.ReplaceAll(jsonv.AppendIndent(nil, line, "  ", "  "), []byte("\n"), []byte("\r\n")))
		}
		arr.WriteString("\r\n]\r\n")
		for _, v := range []struct {
			in       []byte
			elements bool
		}{{in, false}, {arr.Bytes(), true}} {
			opts := Options{From: g.from, To: g.to, Deterministic: true, Now: fixedNow, Checked: true}
			want := oneByOne(opts, v.in, v.elements)
			got, _ := streamed(opts, v.in, v.elements, 4, 300)
			if got != want {
				t.Fatalf("%s %s -> %s:\n%s", g.input, g.from, g.to, firstDiff(got, want))
			}
		}
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got:  %s\n want: %s", i+1, a, b)
		}
	}
	return "(same lines)"
}

// FuzzStreamMatchesOneWorker: any stream of messages converts on 4
// workers, in small batches, as on one, and as Convert gives it a message
// at a time. (The workers make coverage vary from run to run: fuzz with a
// short -fuzzminimizetime, such as 1s, or the engine spends its time
// minimizing.)
func FuzzStreamMatchesOneWorker(f *testing.F) {
	for i, d := range streamDirs {
		f.Add(uint8(i), genStream(newGen(uint64(i)), d[0], 12, true))
	}
	f.Add(uint8(4), []byte("{\"seq\":1,\"t\":\"x\",\"type\":\"error\",\"meta\":{\"run_id\":\"r\"}}\n{\"seq\":3}\n"))
	f.Add(uint8(0), []byte(`[{"type":"work_status"},{"type":`))
	// A frame's type by name alone (this made Convert panic).
	f.Add(uint8(2), []byte(`{"header":{"version":1,"typ{e":8,"typeName":"CONTEXT_RESPONSE","timestamp":1736582425979,"sequenceId":1},"payload":{}}`+"\n"))
	f.Fuzz(func(t *testing.T, dir uint8, in []byte) {
		if len(in) > 64<<10 {
			return // (batches of 256 bytes cost the square of a long record's size to cut)
		}
		d := streamDirs[int(dir)%len(streamDirs)]
		opts := Options{From: d[0], To: d[1], Deterministic: true, Strict: dir&32 != 0, NoReassemble: dir&64 != 0, Now: fixedNow, Checked: true, MaxOutput: 1 << 16}
		elements := dir&128 != 0
		want := oneByOne(opts, in, elements)
		one, _ := streamed(opts, in, elements, 1, 256)
		four, _ := streamed(opts, in, elements, 4, 256)
		if one != want || four != one {
			t.Fatalf("%s -> %s:\n one by one: %s\n 1 worker: %s\n 4 workers: %s", d[0], d[1], want, one, four)
		}
	})
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// canonical numbers the UUIDs of s in the order they first come (random
// ids differ from run to run; which messages share one does not).
func canonical(s string) string {
	seen := map[string]string{}
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if _, ok := seen[u]; !ok {
			seen[u] = fmt.Sprintf("<id %d>", len(seen)+1)
		}
		return seen[u]
	})
}

// TestStreamRandomIDs: with random ids (no Deterministic), Stream on 4
// workers gives what Convert gives but for the ids' values: the open task
// a message belongs to, and the time of a message without one, come from
// the messages before it in the worker's batch, checked in the ordered
// pass; most messages are taken from the workers.
func TestStreamRandomIDs(t *testing.T) {
	for i, d := range [][2]Protocol{{Trace, Chiffon}, {Kado, Chiffon}, {Chiffon, Trace}, {Kado, Trace}} {
		for _, bad := range []bool{false, true} {
			g := newGen(uint64(i + 50))
			in := genStream(g, d[0], 600, bad)
			if d[0] == Trace && !bad {
				// One run, its seqs in turn (genStream's runs share one count).
				in, g.seq = nil, 0
				run := g.uuid()
				for range 600 {
					in = append(in, g.trace([]string{"action_request", "action_response", "reasoning", "error"}[g.r.IntN(4)], run)+"\n"...)
				}
			}
			opts := Options{From: d[0], To: d[1], Now: fixedNow, Checked: true}
			want := canonical(oneByOne(opts, in, false))
			got, mapped := streamed(opts, in, false, 4, 2<<10)
			if got = canonical(got); got != want {
				t.Fatalf("%s -> %s (bad %v):\n%s", d[0], d[1], bad, firstDiff(got, want))
			}
			if !bad && d != [2]Protocol{Kado, Chiffon} && d != [2]Protocol{Kado, Trace} && mapped < int64(strings.Count(want, "\n"))/2 {
				t.Errorf("%s -> %s: %d of %d messages taken from the workers", d[0], d[1], mapped, strings.Count(want, "\n"))
			}
		}
	}
}
