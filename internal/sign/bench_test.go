package sign

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
)

// auditLog is the first events of the stream scripts/bench.sh signs and
// verifies (genbench -messages audit): unsigned trace events of about
// 1 KB, one of each payload shape twice.
func auditLog(b testing.TB) []byte {
	b.Helper()
	raw, err := os.ReadFile("testdata/audit.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// auditLines is auditLog's events, and their mean size.
func auditLines(b *testing.B) (lines [][]byte, mean int64) {
	lines = bytes.SplitAfter(bytes.TrimSpace(auditLog(b)), []byte("\n"))
	for _, l := range lines {
		mean += int64(len(l))
	}
	return lines, mean / int64(len(lines))
}

// repeatLog is raw copied to about size bytes, each copy a run of its own
// (its run_id made unique), so that a verified copy has no problems.
func repeatLog(raw []byte, size int) []byte {
	const run = "550e8400-e29b-41d4-a716-000000000000"
	var out []byte
	for i := 0; len(out) < size; i++ {
		out = append(out, bytes.ReplaceAll(raw, []byte(run), fmt.Appendf(nil, "550e8400-e29b-41d4-a716-%012x", i))...)
	}
	return out
}

// BenchmarkSignEvent is the work `toonkit sign` does per event, on an
// event already read: its fields, the message, the HMAC and the signed
// bytes.
func BenchmarkSignEvent(b *testing.B) {
	lines, mean := auditLines(b)
	sg := mustSigner(b, "bench-salt-key", SchemeSpec)
	var p parser
	var out []byte
	b.SetBytes(mean)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		raw := lines[i%len(lines)]
		if err := p.parseDocument(raw); err != nil {
			b.Fatal(err)
		}
		ev, err := sg.event(raw, p.tape)
		if err != nil {
			b.Fatal(err)
		}
		out = AppendSigned(out[:0], ev, sg.Sign(ev))
	}
}

// BenchmarkParse is the parser alone, per event.
func BenchmarkParse(b *testing.B) {
	lines, mean := auditLines(b)
	var p parser
	b.SetBytes(mean)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := p.parseDocument(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessage is the spec scheme's message alone (json.dumps of the
// payload, sorted), per event.
func BenchmarkMessage(b *testing.B) {
	lines, _ := auditLines(b)
	sg := mustSigner(b, "bench-salt-key", SchemeSpec)
	evs := make([]Event, len(lines))
	for i, l := range lines {
		ev, err := sg.Parse(l)
		if err != nil {
			b.Fatal(err)
		}
		evs[i] = *ev
		evs[i].tape = append([]node(nil), ev.tape...)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sg.Message(&evs[i%len(evs)])
	}
}

// BenchmarkSignStream is `toonkit sign` on a stream of 8 MB, reader and
// all but the output.
func BenchmarkSignStream(b *testing.B) {
	raw := repeatLog(auditLog(b), 8<<20)
	sg := mustSigner(b, "bench-salt-key", SchemeSpec)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		eachRecord(b, raw, func(rec *Record) {
			ev, err := sg.Event(rec)
			if err != nil {
				b.Fatal(err)
			}
			buf = append(buf[:0], rec.Gap...)
			buf = AppendSigned(buf, ev, sg.Sign(ev))
		})
	}
}

// BenchmarkVerifyStream is `toonkit verify` on a signed stream of 8 MB.
func BenchmarkVerifyStream(b *testing.B) {
	verifyStream(b, signBytes(b, "bench-salt-key", SchemeSpec, repeatLog(auditLog(b), 8<<20)), 0)
}

// BenchmarkVerifyStreamMetaOnly is BenchmarkVerifyStream on the same
// events stored with meta.signature only, as many Python services store
// them: the same reader and checks, a few bytes fewer.
func BenchmarkVerifyStreamMetaOnly(b *testing.B) {
	raw := signBytes(b, "bench-salt-key", SchemeSpec, repeatLog(auditLog(b), 8<<20))
	n := bytes.Count(raw, []byte("\n"))
	verifyStream(b, sigTop.ReplaceAll(raw, []byte("}\n")), n)
}

// verifyStream verifies raw once per iteration; metaOnly events must be
// signed in meta.signature only.
func verifyStream(b *testing.B, raw []byte, metaOnly int) {
	b.ReportAllocs()
	verifyStreamKeys(b, raw, metaOnly, "bench-salt-key")
}

// verifyStreamKeys verifies raw once per iteration with the keys given,
// newest first; metaOnly events must be signed in meta.signature only.
func verifyStreamKeys(b *testing.B, raw []byte, metaOnly int, keys ...string) {
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		l := &Log{Signer: twoKeys(b, keys...), Emit: func(Problem) {}}
		eachRecord(b, raw, func(rec *Record) {
			ev, err := l.Signer.Event(rec)
			if err != nil {
				b.Fatal(err)
			}
			l.Check(ev, Where{File: "log", Line: rec.Pos.Line, Index: rec.Index})
		})
		l.Finish()
		if l.Errors != 0 || l.MetaOnly != metaOnly {
			b.Fatalf("%d problems, %d events signed in meta.signature only, want %d", l.Errors, l.MetaOnly, metaOnly)
		}
	}
}

// BenchmarkVerifyStreamJobs is Log.Verify on the stream of
// BenchmarkVerifyStream, on one worker and on two.
func BenchmarkVerifyStreamJobs(b *testing.B) {
	raw := signBytes(b, "bench-salt-key", SchemeSpec, repeatLog(auditLog(b), 8<<20))
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				l := &Log{Signer: mustSigner(b, "bench-salt-key", SchemeSpec), Emit: func(Problem) {}}
				if err := l.Verify(context.Background(), bytes.NewReader(raw), "log", VerifyOptions{Workers: workers}); err != nil {
					b.Fatal(err)
				}
				l.Finish()
				if l.Errors != 0 {
					b.Fatalf("%d problems", l.Errors)
				}
			}
		})
	}
}

// BenchmarkVerifyStreamKeys is BenchmarkVerifyStream with one key, and with
// the log's key last of three (two newer keys before it, as after two
// rotations): the key that matched the event before is tried first, so
// three keys cost what one does.
func BenchmarkVerifyStreamKeys(b *testing.B) {
	raw := signBytes(b, "bench-salt-key", SchemeSpec, repeatLog(auditLog(b), 8<<20))
	for _, keys := range [][]string{{"bench-salt-key"}, {"newest-bench-key", "newer-bench-key", "bench-salt-key"}} {
		b.Run(fmt.Sprint("keys=", len(keys)), func(b *testing.B) { verifyStreamKeys(b, raw, 0, keys...) })
	}
}
