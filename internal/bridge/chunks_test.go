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
	// Read back: the chunks are one message again, the one they came from,
	// which says in x_source what chunks it was joined from.
	again := convertAll(t, Options{From: Chiffon, To: Trace}, chunks)
	if len(again) != 1 {
		t.Fatalf("the chunks read back as %d messages", len(again))
	}
	joined, _ := parse([]byte(again[0]))
	if n := elementCount(t, joined.get("meta.x_source.chunks")); n != len(chunks) {
		t.Fatalf("x_source.chunks holds %d chunks, not %d", n, len(chunks))
	}
	joined.del("meta.x_source.chunks")
	if string(joined.bytes()) != traced[0] {
		t.Fatal("the chunks read back as another message than the one they came from")
	}
	// Back to Chiffon, they are the same chunks again, whatever SplitAt.
	back := convertAll(t, Options{From: Trace, To: Chiffon, SplitAt: 1 << 30}, again)
	if strings.Join(back, "\n") != strings.Join(chunks, "\n") {
		t.Fatalf("chunked, joined and written back: %d messages, not the %d chunks", len(back), len(chunks))
	}
	// Without the record of the chunks, the message is written whole.
	if back := convertAll(t, Options{From: Trace, To: Chiffon, SplitAt: 1 << 30}, traced); len(back) != 1 || back[0] != whole {
		t.Fatal("the message is not the one it was")
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

func elementCount(t *testing.T, n *node) int {
	t.Helper()
	count := 0
	if n == nil || !elements(n, func(*node) bool { count++; return true }) {
		t.Fatalf("not an array: %v", n)
	}
	return count
}

// TestChunkRecords: chunks whose envelopes differ (ids, times, progress, a
// member one of them lacks or adds) are joined into one message that
// keeps, in x_source, how each chunk differs from the first; written back
// as Chiffon, directly or through a frame, they are the same chunks, byte
// for byte.
func TestChunkRecords(t *testing.T) {
	first := statusWith("Añadido", `,"output_chunk":"bytes 0-8 of 16"`)
	first = first[:len(first)-1] + `,"x_custom_fields":{"host":"a","rack":1}}`
	second := strings.NewReplacer(
		`446655440005`, `446655440105`, // message_id
		`446655440006`, `446655440106`, // request_id
		`"2026-01-19T04:21:34Z"`, `"2026-01-19T04:21:35.250Z"`,
		`"progress_percent":100`, `"progress_percent":90`,
		`,"rack":1`, ``,
		`"output":"Añadido","output_chunk":"bytes 0-8 of 16"}`, `"output":": 3 ✓\n","output_chunk":"bytes 8-16 of 16"},"x_note":{"a":[1,2]}`,
	).Replace(first)
	if second == first || !strings.Contains(second, "8-16") || strings.Contains(second, "rack") {
		t.Fatal("the second chunk is not made as meant")
	}
	chunks := []string{first, second}
	checkValid(t, Chiffon, chunks)
	for _, via := range []Protocol{Trace, Kado} {
		joined := convertAll(t, Options{From: Chiffon, To: via}, chunks)
		if len(joined) != 1 {
			t.Fatalf("%s: %d messages", via, len(joined))
		}
		checkValid(t, via, joined)
		back := convertAll(t, Options{From: via, To: Chiffon}, joined)
		if strings.Join(back, "\n") != strings.Join(chunks, "\n") {
			t.Errorf("through %s, the chunks came back as\n%s\nnot\n%s", via, strings.Join(back, "\n"), strings.Join(chunks, "\n"))
		}
	}
	event, _ := parse([]byte(convertAll(t, Options{From: Chiffon, To: Trace}, chunks)[0]))
	want := `[{"output_chunk":"bytes 0-8 of 16"},{"output_chunk":"bytes 8-16 of 16","fields":{"/message_id":"550e8400-e29b-41d4-a716-446655440105","/timestamp":"2026-01-19T04:21:35.250Z","/request_id":"550e8400-e29b-41d4-a716-446655440106","/payload/progress_percent":90,"/payload/x_note":{"a":[1,2]}},"absent":["/x_custom_fields/rack"]}]`
	if got := string(event.get("meta.x_source.chunks").bytes()); got != want {
		t.Errorf("x_source.chunks:\n got %s\nwant %s", got, want)
	}

	// A record that no longer fits the output is a warning (an error with
	// Strict), and the message is written whole.
	for _, edit := range []struct{ from, to, why string }{
		{"bytes 8-16 of 16", "bytes 8-15 of 16", "the chunks end at byte 15 of the 16-byte output"},
		{"bytes 0-8 of 16", "bytes 0-7 of 16", `"bytes 8-16 of 16" does not follow byte 7 of the 16-byte output`},
		{"bytes 0-8 of 16", "bytes 0-2 of 16", `"bytes 0-2 of 16" ends within a character`},
		{"bytes 0-8 of 16", "bytes 0-8 of sixteen", `"bytes 0-8 of sixteen" is not "bytes A-B of N"`},
		{`"output_chunk":"bytes 0-8 of 16"`, `"chunk":1`, "an entry is not an object with an output_chunk"},
		{`"absent":["/x_custom_fields/rack"]`, `"absent":"/x_custom_fields/rack"`, "an absent list is not an array"},
	} {
		edited := strings.Replace(string(event.bytes()), edit.from, edit.to, 1)
		var warnings []string
		c, _ := New(Options{From: Trace, To: Chiffon, Warn: func(where, msg string) { warnings = append(warnings, where+": "+msg) }})
		var out []string
		if err := c.Convert([]byte(edited), func() string { return "line 1" }, func(b []byte) error { out = append(out, string(b)); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || !strings.Contains(out[0], `"output":"Añadido: 3 ✓\n"`) {
			t.Errorf("%s: written as %d messages: %s", edit.why, len(out), out)
		}
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "line 1: x_source.chunks: "+edit.why) {
			t.Errorf("%s: warnings %q", edit.why, warnings)
		}
		c, _ = New(Options{From: Trace, To: Chiffon, Strict: true})
		err := c.Convert([]byte(edited), func() string { return "line 1" }, func([]byte) error { t.Error("written with Strict"); return nil })
		if err == nil || !strings.Contains(err.Error(), edit.why) {
			t.Errorf("%s: with Strict: %v", edit.why, err)
		}
	}
}
