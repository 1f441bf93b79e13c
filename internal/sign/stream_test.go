package sign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// oneLoop is the loop cmd/sign.go ran before SignStream: Reader.Next,
// Signer.Event, AppendSigned, nothing written after a bad event, the tail
// and a final line break. It writes what it meets as a transcript.
func oneLoop(data []byte, limit int) string {
	sg, _ := NewSigner([]byte("k"), SchemeSpec)
	rd := NewReader(bytes.NewReader(data), limit)
	var out, msgs strings.Builder
	bad := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return transcript(out.String(), msgs.String(), bad, err)
		}
		ev, err := sg.Event(rec)
		if err != nil {
			bad++
			fmt.Fprintf(&msgs, "%s\n", eventError(rec, err))
			continue
		}
		if bad == 0 {
			out.Write(rec.Gap)
			out.Write(AppendSigned(nil, ev, sg.Sign(ev)))
			fmt.Fprintf(&msgs, "signed %q %s %q %s\n", ev.RunID, ev.Seq, ev.T, sg.Sign(ev))
		}
	}
	if bad == 0 {
		out.Write(rd.Tail())
		if s := out.String(); s != "" && !strings.HasSuffix(s, "\n") {
			i := strings.LastIndexByte(s, '\n')
			if i > 0 && s[i-1] == '\r' {
				out.WriteString("\r\n")
			} else {
				out.WriteString("\n")
			}
		}
	}
	return transcript(out.String(), msgs.String(), bad, nil)
}

func transcript(out, msgs string, bad int, err error) string {
	s := fmt.Sprintf("out %q\n%sbad %d\n", out, msgs, bad)
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		return s + fmt.Sprintf("error %v\n%q ^%d\n", se, se.Excerpt, se.Caret)
	}
	if err != nil {
		s += fmt.Sprintf("error %v\n", err)
	}
	return s
}

// streamed is SignStream's transcript.
func streamed(t testing.TB, in io.Reader, opts StreamOptions) string {
	sg, _ := NewSigner([]byte("k"), SchemeSpec)
	var out, msgs strings.Builder
	h := StreamHandler{
		Output: func(b []byte) error {
			if len(b) == 0 {
				t.Fatal("Output called with nothing")
			}
			out.Write(b)
			return nil
		},
		Bad: func(e *EventError) error {
			fmt.Fprintf(&msgs, "%s\n", e)
			return nil
		},
		Signed: func(run, seq, t []byte, d *[sha256.Size]byte) error {
			fmt.Fprintf(&msgs, "signed %q %s %q %x\n", run, seq, t, *d)
			return nil
		},
	}
	bad, err := SignStream(context.Background(), in, sg, opts, h)
	return transcript(out.String(), msgs.String(), bad, err)
}

// difference shows where two transcripts part.
func difference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-120, 0)
	return fmt.Sprintf("at byte %d\ngot  …%q\nwant …%q", i, got[from:min(i+120, len(got))], want[from:min(i+120, len(want))])
}

// genEvent is one trace event, compact; bad ones lack a field or have one
// of the wrong type.
func genEvent(r *rand.Rand, seq int, bad bool) string {
	payload := []string{`{}`, `{"a":1,"b":[1,2.50,"é"]}`, `{"goal":"g","steps":[{"x":null},{"y":true}],"n":-0}`, `[1,{"k":"v"}]`, `"x\ny"`}[r.Intn(5)]
	ev := fmt.Sprintf(`{"seq":%d,"t":"2025-12-05T10:30:00Z","actor":"agent","type":"note","payload":%s,"meta":{"run_id":"r-%d"}}`, seq, payload, r.Intn(3))
	if r.Intn(4) == 0 {
		ev = strings.Replace(ev, `}}`, `,"signature":"old"},"signature":null}`, 1)
	}
	if bad {
		switch r.Intn(3) {
		case 0:
			ev = strings.Replace(ev, `"payload"`, `"pay"`, 1)
		case 1:
			ev = strings.Replace(ev, fmt.Sprintf(`"seq":%d`, seq), `"seq":"1"`, 1)
		default:
			ev = strings.Replace(ev, `"run_id"`, `"run"`, 1)
		}
	}
	return ev
}

// genLog is n events in one of the layouts sign meets: NDJSON, several
// events on a line, indented JSON, an array on one line or indented; with
// CR LF, blank lines, a byte order mark, no final line break; some events
// bad, some inputs broken.
func genLog(r *rand.Rand, n int) []byte {
	evs := make([]string, n)
	for i := range evs {
		evs[i] = genEvent(r, i, r.Intn(40) == 0)
	}
	spaced := func(s string) string {
		s = strings.ReplaceAll(s, `,"`, `, "`)
		return strings.ReplaceAll(s, `":`, `": `)
	}
	indent := func(s string) string {
		return string(jsonv.AppendIndent(nil, []byte(s), "", "  "))
	}
	var b strings.Builder
	nl := "\n"
	if r.Intn(4) == 0 {
		nl = "\r\n"
	}
	if r.Intn(8) == 0 {
		b.WriteString("\xEF\xBB\xBF")
	}
	arr := r.Intn(4) == 0
	style := r.Intn(4)
	if arr {
		b.WriteString("[")
		if style == 2 {
			b.WriteString(nl + "  ")
		}
	}
	for i, ev := range evs {
		switch style {
		case 1:
			ev = spaced(ev)
		case 2:
			ev = strings.ReplaceAll(indent(ev), "\n", nl)
		}
		if i > 0 {
			switch {
			case arr && style == 2:
				b.WriteString("," + nl + "  ")
			case arr:
				b.WriteString(", ")
			case r.Intn(10) == 0:
				b.WriteString(" ")
			case r.Intn(10) == 0:
				b.WriteString(nl + nl)
			default:
				b.WriteString(nl)
			}
		}
		b.WriteString(ev)
	}
	if arr {
		b.WriteString(nl + "]")
	}
	if r.Intn(3) != 0 {
		b.WriteString(nl)
	}
	out := []byte(b.String())
	switch r.Intn(10) {
	case 0: // cut short
		out = out[:r.Intn(len(out)+1)]
	case 1: // a byte broken
		if len(out) > 0 {
			out[r.Intn(len(out))] = "}],:x\"\n "[r.Intn(8)]
		}
	}
	return out
}

// TestStreamMatchesOneLoop: on generated logs in every layout, SignStream on
// one worker and on four, with batches from a few bytes to the default,
// writes what the single loop wrote, with the same messages and errors.
func TestStreamMatchesOneLoop(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	n := 300
	if raceflag.Enabled {
		n = 30 // the race detector is slow; the logs are all alike
	}
	for i := range n {
		data := genLog(r, 1+r.Intn(40))
		want := oneLoop(data, 0)
		for _, batch := range []int{1, 7, 100, 1000, 0} {
			for _, w := range []int{1, 4} {
				got := streamed(t, bytes.NewReader(data), StreamOptions{Workers: w, BatchBytes: batch})
				if got != want {
					t.Fatalf("log %d, %d workers, batch %d: %s\ninput %q", i, w, batch, difference(got, want), data)
				}
			}
		}
	}
}

// TestStreamPythonFormatted: logs written by python3's json.dumps (its
// defaults, indent=2 with CR LF, tabs), as NDJSON and as one array.
func TestStreamPythonFormatted(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var nd strings.Builder
	for i := range 400 {
		nd.WriteString(genEvent(r, i, i%97 == 96) + "\n")
	}
	array := "[" + strings.ReplaceAll(strings.TrimSpace(nd.String()), "\n", ",") + "]\n"
	for _, style := range pyjson.Styles {
		for name, in := range map[string]string{"ndjson": nd.String(), "array": array} {
			data := pyjson.Dumps(t, []byte(in), style.Flags...)
			want := oneLoop(data, 0)
			for _, w := range []int{1, 4} {
				for _, batch := range []int{300, 4096, 0} {
					got := streamed(t, bytes.NewReader(data), StreamOptions{Workers: w, BatchBytes: batch})
					if got != want {
						t.Fatalf("%s %s, %d workers, batch %d: %s", style.Name, name, w, batch, difference(got, want))
					}
				}
			}
		}
	}
}

// FuzzStreamMatchesOneWorker: on any input, SignStream on four workers
// writes, reports and fails as on one, batch for batch, and both as the
// single loop does.
func FuzzStreamMatchesOneWorker(f *testing.F) {
	r := rand.New(rand.NewSource(1))
	for range 20 {
		f.Add(genLog(r, 1+r.Intn(6)), uint16(r.Intn(300)))
	}
	f.Add([]byte(prettyArray), uint16(16))
	f.Add([]byte(unsignedLog), uint16(50))
	for _, s := range fuzzSeeds(f, false) {
		f.Add(s, uint16(200))
	}
	f.Fuzz(func(t *testing.T, data []byte, batch uint16) {
		opts := StreamOptions{Workers: 1, BatchBytes: int(batch), MaxEventSize: 1 << 12}
		one := streamed(t, bytes.NewReader(data), opts)
		opts.Workers = 4
		if four := streamed(t, bytes.NewReader(data), opts); four != one {
			t.Fatalf("4 workers vs 1: %s", difference(four, one))
		}
		if want := oneLoop(data, 1<<12); one != want {
			t.Fatalf("vs the single loop: %s", difference(one, want))
		}
	})
}

// eventError places an event's FieldError in the stream, as the single
// loop did.
func eventError(rec *Record, err error) *EventError {
	fe := err.(*FieldError)
	return &EventError{Index: rec.Index, Pos: rec.PosAt(fe.Offset), Field: fe}
}

// BenchmarkSignStreamJobs: SignStream on one worker and on two, on 8 MB of
// the bench's events (the speed-up is scripts/bench.sh's to judge).
func BenchmarkSignStreamJobs(b *testing.B) {
	raw := repeatLog(auditLog(b), 8<<20)
	sg := mustSigner(b, "bench-salt-key", SchemeSpec)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			h := StreamHandler{Output: func([]byte) error { return nil }, Bad: func(*EventError) error { return nil }}
			for b.Loop() {
				if _, err := SignStream(context.Background(), bytes.NewReader(raw), sg, StreamOptions{Workers: w}, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
