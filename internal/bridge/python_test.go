package bridge

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// chiffonLog is n generated Chiffon messages of every type, NDJSON.
func chiffonLog(n int) []byte {
	g := newGen(1)
	types := []string{"work_request", "work_status", "work_status", "work_result", "error"}
	var b strings.Builder
	for i := range n {
		b.WriteString(g.chiffon(types[i%len(types)]))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// messages is the values of an NDJSON text (or of values back to back),
// each as written.
func messages(tb testing.TB, in []byte) [][]byte { return pyjson.Values(tb, in, false) }

// TestPythonFormattedMessages: Chiffon messages as json.dumps writes them
// (", " and ": ", or indent=2 with CRLF), given to Convert as the reader
// gives them, convert to the same trace events as the same messages
// compact, with no allocation more (a copy of each message compacted was
// one), checked or not.
func TestPythonFormattedMessages(t *testing.T) {
	in := chiffonLog(40)
	for _, style := range pyjson.Styles {
		t.Run(style.Name, func(t *testing.T) {
			compact, py := pyjson.Pair(t, in, style)
			cm, pm := messages(t, compact), messages(t, py)
			if len(cm) != 40 || len(pm) != 40 || bytes.Equal(cm[0], pm[0]) {
				t.Fatalf("%d compact messages, %d Python-formatted, the first %q", len(cm), len(pm), pm[0])
			}
			strs := func(msgs [][]byte) (s []string) {
				for _, m := range msgs {
					s = append(s, string(m))
				}
				return s
			}
			for _, checked := range []bool{true, false} {
				opts := Options{From: Chiffon, To: Trace, Checked: checked, Deterministic: true}
				want := convertAll(t, opts, strs(cm))
				got := convertAll(t, opts, strs(pm))
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("checked %v: the Python-formatted messages give\n%s\nthe compact ones\n%s", checked, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			if raceflag.Enabled {
				t.Skip("allocations are not counted under -race: the race build allocates more (the conversions were compared)")
			}
			for _, checked := range []bool{true, false} {
				allocs := func(msgs [][]byte) float64 {
					c, err := New(Options{From: Chiffon, To: Trace, Checked: checked, Deterministic: true, Now: fixedNow})
					if err != nil {
						t.Fatal(err)
					}
					where := func() string { return "" }
					emit := func([]byte) error { return nil }
					return testing.AllocsPerRun(5, func() {
						for _, m := range msgs {
							if err := c.Convert(m, where, emit); err != nil {
								t.Fatal(err)
							}
						}
					})
				}
				if a, b := allocs(pm), allocs(cm); a != b {
					t.Errorf("checked %v: %v allocations for the Python-formatted messages, %v for the compact ones", checked, a, b)
				}
			}
		})
	}
}

// BenchmarkChiffonToTraceFormatting converts the same Chiffon messages
// compact and as json.dumps writes them (as convert's reader gives them,
// white space and all); MB/s of the messages as written.
func BenchmarkChiffonToTraceFormatting(b *testing.B) {
	in := chiffonLog(2000)
	for _, t := range pyjson.Texts(b, in) {
		b.Run(t.Name, func(b *testing.B) {
			text := t.JSON
			msgs := messages(b, text)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			where := func() string { return "" }
			emit := func([]byte) error { return nil }
			for b.Loop() {
				c, err := New(Options{From: Chiffon, To: Trace, Checked: true})
				if err != nil {
					b.Fatal(err)
				}
				for _, m := range msgs {
					if err := c.Convert(m, where, emit); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(msgs)*b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
