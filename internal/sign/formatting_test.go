package sign

import (
	"bytes"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// compactValues is the JSON values of text, each compacted, one a line.
func compactValues(t testing.TB, text []byte) []byte {
	var out []byte
	for _, v := range pyjson.Values(t, text, false) {
		out = append(append(out, jsonv.CompactInPlace(v)...), '\n')
	}
	return out
}

// TestPythonFormattedEvents: events as json.dumps writes them (", " and
// ": ", or indent=2 with CRLF) sign to the same signatures as the same
// events compact, in every scheme (the message signed is canonical); sign
// keeps their bytes and spacing (the signed log, compacted, is the signed
// compact log), and the signed log verifies. Reading and signing one
// costs no allocation more than the compact event.
func TestPythonFormattedEvents(t *testing.T) {
	in := auditLog(t)
	for _, style := range pyjson.Styles {
		t.Run(style.Name, func(t *testing.T) {
			compact, py := pyjson.Pair(t, in, style)
			for s := range Schemes {
				scheme := Scheme(s)
				sigs := func(text []byte) (sigs []string) {
					sg := mustSigner(t, "bench-salt-key", scheme)
					eachRecord(t, text, func(rec *Record) {
						ev, err := sg.Event(rec)
						if err != nil {
							t.Fatal(err)
						}
						sigs = append(sigs, string(sg.Sign(ev)))
					})
					return sigs
				}
				want, got := sigs(compact), sigs(py)
				if len(want) != 8 || len(got) != len(want) {
					t.Fatalf("%s: %d events compact, %d Python-formatted", scheme, len(want), len(got))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: event %d signs as %s Python-formatted, %s compact", scheme, i+1, got[i], want[i])
					}
				}
				signedC, signedP := signBytes(t, "bench-salt-key", scheme, compact), signBytes(t, "bench-salt-key", scheme, py)
				if bytes.Equal(signedP, signedC) || !bytes.Equal(compactValues(t, signedP), compactValues(t, signedC)) {
					t.Fatalf("%s: the Python-formatted log signed is not itself, signatures added:\n%.600s", scheme, signedP)
				}
				l := &Log{Signer: mustSigner(t, "bench-salt-key", scheme), Emit: func(p Problem) {
					t.Fatalf("%s: the signed Python-formatted log: %s %s at event %d", scheme, p.Code, p.Msg, p.Index)
				}}
				eachRecord(t, signedP, func(rec *Record) {
					ev, err := l.Signer.Event(rec)
					if err != nil {
						t.Fatal(err)
					}
					l.Check(ev, Where{Index: rec.Index})
				})
				l.Finish()
			}
			allocs := func(text []byte) float64 {
				events := pyjson.Values(t, text, false)
				sg := mustSigner(t, "bench-salt-key", SchemeSpec)
				var out []byte
				return testing.AllocsPerRun(5, func() {
					for _, raw := range events {
						ev, err := sg.Parse(raw)
						if err != nil {
							t.Fatal(err)
						}
						out = AppendSigned(out[:0], ev, sg.Sign(ev))
					}
				})
			}
			if a, b := allocs(py), allocs(compact); a != b {
				t.Errorf("%v allocations for the Python-formatted events, %v for the compact ones", a, b)
			}
		})
	}
}

// BenchmarkSignFormatting is sign's work (read, parse, sign, write) on the
// same events compact and as json.dumps writes them; MB/s of the log as
// written.
func BenchmarkSignFormatting(b *testing.B) {
	for _, t := range pyjson.Texts(b, repeatLog(auditLog(b), 2<<20)) {
		b.Run(t.Name, func(b *testing.B) {
			sg := mustSigner(b, "bench-salt-key", SchemeSpec)
			b.SetBytes(int64(len(t.JSON)))
			b.ReportAllocs()
			var buf []byte
			n := 0
			for b.Loop() {
				eachRecord(b, t.JSON, func(rec *Record) {
					ev, err := sg.Event(rec)
					if err != nil {
						b.Fatal(err)
					}
					buf = append(buf[:0], rec.Gap...)
					buf = AppendSigned(buf, ev, sg.Sign(ev))
					n++
				})
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkVerifyFormatting is verify's work on the same signed events
// compact and as json.dumps writes them.
func BenchmarkVerifyFormatting(b *testing.B) {
	signed := signBytes(b, "bench-salt-key", SchemeSpec, repeatLog(auditLog(b), 2<<20))
	for _, t := range pyjson.Texts(b, signed) {
		b.Run(t.Name, func(b *testing.B) {
			verifyStream(b, t.JSON, 0)
		})
	}
}

// FuzzSignFormatting: an event signs the same, or fails the same, compact
// and indented with CRLF line ends (the message signed is canonical), in
// every scheme.
func FuzzSignFormatting(f *testing.F) {
	f.Add([]byte(`{"seq":1,"t":"x","actor":"a","type":"t","payload":{"b":[1,2.50,{}],"a":"é"},"meta":{"run_id":"r","signature":"00"}}`))
	f.Add([]byte(`{"seq": 1, "t": "", "actor": "", "type": "", "payload": [], "meta": {"run_id": "\ud800"}}`))
	f.Add([]byte(`{"seq":-0,"t":"","actor":"","type":"","payload":1e400,"meta":{"run_id":"x"},"signature":"y"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := jsonv.AppendCompact(nil, in)
		if err != nil {
			return
		}
		pretty := bytes.ReplaceAll(jsonv.AppendIndent(nil, c, "", "  "), []byte("\n"), []byte("\r\n"))
		for s := range Schemes {
			sign := func(raw []byte) string {
				sg := mustSigner(t, "k", Scheme(s))
				ev, err := sg.Parse(raw)
				if err != nil {
					return "error"
				}
				return string(sg.Sign(ev))
			}
			if a, b := sign(c), sign(pretty); a != b {
				t.Fatalf("%s: %s signs as %s, indented as %s", Scheme(s), c, a, b)
			}
		}
	})
}
