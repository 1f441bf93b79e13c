package bridge

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// bigOutput is about n bytes of text with characters of 1 to 4 bytes, so
// that a chunk boundary falls inside a character unless it is moved.
func bigOutput(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString([]string{"a", "é", "日", "🎉", "line\n"}[i%5])
	}
	return b.String()
}

func statusWith(output, extra string) string {
	return fmt.Sprintf(`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-446655440005","from_agent":"infra","to_agent":"orchestrator","timestamp":"2026-01-19T04:21:34Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","request_id":"550e8400-e29b-41d4-a716-446655440006","type":"work_status","payload":{"task_id":"550e8400-e29b-41d4-a716-446655440004","status":"running","progress_percent":100,"step":{"number":5,"name":"Collecting logs","output":%s%s}}}`,
		strNode(output).raw, extra)
}

// TestChunks: a 5 MB step output of multi-byte text is written as chunks
// of at most 256 KiB, cut between characters, whose ranges state their
// real bytes and tile the output; the chunks validate, and reading them
// joins them into the message they came from.
func TestChunks(t *testing.T) {
	out := bigOutput(5 << 20)
	whole := statusWith(out, "")
	traced := convertAll(t, Options{From: Chiffon, To: Trace}, []string{whole})
	chunks := convertAll(t, Options{From: Trace, To: Chiffon}, traced)
	if len(chunks) < 20 {
		t.Fatalf("a %d-byte output became %d messages", len(out), len(chunks))
	}
	next := 0
	for i, c := range chunks {
		n, err := parse([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		part, _ := n.str("payload.step.output")
		spec, _ := n.str("payload.step.output_chunk")
		if len(part) > 256<<10 || !utf8.ValidString(part) {
			t.Fatalf("chunk %d: %d bytes, valid UTF-8 %v", i, len(part), utf8.ValidString(part))
		}
		if want := fmt.Sprintf("bytes %d-%d of %d", next, next+len(part), len(out)); spec != want {
			t.Fatalf("chunk %d says %q, holds %q", i, spec, want)
		}
		if out[next:next+len(part)] != part {
			t.Fatalf("chunk %d does not hold bytes %d-%d of the output", i, next, next+len(part))
		}
		next += len(part)
	}
	if next != len(out) {
		t.Fatalf("the chunks hold %d of %d bytes", next, len(out))
	}
	checkValid(t, Chiffon, chunks)
	// Read back: the chunks are one message again, the one they came from.
	again := convertAll(t, Options{From: Chiffon, To: Trace}, chunks)
	if len(again) != 1 || again[0] != traced[0] {
		t.Fatalf("the chunks read back as %d messages; the first differs: %v", len(again), len(again) > 0 && again[0] != traced[0])
	}
	back := convertAll(t, Options{From: Trace, To: Chiffon, SplitAt: 1 << 30}, again)
	if len(back) != 1 || back[0] != whole {
		t.Fatal("chunked and joined, the message is not the one it was")
	}
	// --no-reassemble: each chunk is a message of its own.
	kept := convertAll(t, Options{From: Chiffon, To: Trace, NoReassemble: true}, chunks)
	if len(kept) != len(chunks) {
		t.Fatalf("--no-reassemble: %d chunks gave %d events", len(chunks), len(kept))
	}
}

// TestChunkErrors: chunks missing, repeated, overlapping, misstated or
// never completed are errors that say where.
func TestChunkErrors(t *testing.T) {
	chunk := func(a, b, n int) string {
		return statusWith(strings.Repeat("x", b-a), fmt.Sprintf(`,"output_chunk":"bytes %d-%d of %d"`, a, b, n))
	}
	cases := []struct {
		name string
		msgs []string
		want string
	}{
		{"missing first", []string{chunk(10, 20, 20)}, "message 1: step 5 of task 550e8400-e29b-41d4-a716-446655440004: bytes 0-10 of the output are missing (the first chunk holds bytes 10-20)"},
		{"gap", []string{chunk(0, 10, 30), chunk(20, 30, 30)}, "message 2: step 5 of task 550e8400-e29b-41d4-a716-446655440004: bytes 10-20 of the output are missing before the chunk bytes 20-30"},
		{"duplicate", []string{chunk(0, 10, 30), chunk(0, 10, 30)}, "message 2: step 5 of task 550e8400-e29b-41d4-a716-446655440004: the chunk bytes 0-10 comes twice"},
		{"overlap", []string{chunk(0, 10, 30), chunk(5, 15, 30)}, "message 2: step 5 of task 550e8400-e29b-41d4-a716-446655440004: the chunk bytes 5-15 overlaps bytes 5-10 of the chunks before it"},
		{"misstated", []string{strings.Replace(chunk(0, 10, 30), "bytes 0-10", "bytes 0-12", 1)}, "message 1: step 5 of task 550e8400-e29b-41d4-a716-446655440004: the chunk says bytes 0-12 (12 bytes) but its output holds 10 bytes"},
		{"other total", []string{chunk(0, 10, 30), chunk(10, 20, 40)}, "message 2: step 5 of task 550e8400-e29b-41d4-a716-446655440004: the chunk says the output has 40 bytes, the first chunk (message 1) said 30"},
		{"incomplete", []string{chunk(0, 10, 30), chunk(10, 20, 30)}, "message 1: step 5 of task 550e8400-e29b-41d4-a716-446655440004: the output chunks end at byte 20 of 30 (bytes 20-30 are missing)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(Options{From: Chiffon, To: Trace})
			if err != nil {
				t.Fatal(err)
			}
			for i, msg := range tc.msgs {
				if err = c.Convert([]byte(msg), func() string { return fmt.Sprintf("message %d", i+1) }, func([]byte) error { return nil }); err != nil {
					break
				}
			}
			if err == nil {
				err = c.End()
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestDeterministic: with Deterministic, a conversion that makes ids and
// times gives the same bytes twice; without it, new ids each time.
func TestDeterministic(t *testing.T) {
	g := newGen(3)
	var msgs []string
	for _, typ := range []string{"INSTRUCTION", "STATUS", "TOOL_RESULT", "ERROR"} {
		msgs = append(msgs, g.kado(typ))
	}
	for _, to := range []Protocol{Chiffon, Trace} {
		a := convertAll(t, Options{From: Kado, To: to, Deterministic: true}, msgs)
		b := convertAll(t, Options{From: Kado, To: to, Deterministic: true}, msgs)
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Fatalf("%s: two deterministic conversions differ", to)
		}
		c := convertAll(t, Options{From: Kado, To: to}, msgs)
		if strings.Join(a, "\n") == strings.Join(c, "\n") {
			t.Fatalf("%s: random ids gave the deterministic output", to)
		}
	}
}
