package sign

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// An event signed with a retired key at or after its retirement fails,
// naming the key (CodeRetired); before it, it verifies. A t that is no
// RFC 3339 time cannot be placed before the retirement: it fails too.
func TestLogRetired(t *testing.T) {
	raw, err := os.ReadFile("testdata/audit.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")[:4] // t 10:30:00.000 to 10:30:03.003
	lines[3] = strings.Replace(lines[3], `"t":"2025-12-05T10:30:03.003Z"`, `"t":"Friday"`, 1)
	old, _ := NewSigner([]byte("the-old-key-0123"), SchemeSpec)
	var signed bytes.Buffer
	h := StreamHandler{Output: func(b []byte) error { signed.Write(b); return nil }, Bad: func(e *EventError) error { return e }}
	if _, err := SignStream(context.Background(), strings.NewReader(strings.Join(lines, "")), old, StreamOptions{}, h); err != nil {
		t.Fatal(err)
	}
	ring, _ := NewSigner([]byte("the-new-key-0123"), SchemeSpec)
	ring.AddKey([]byte("the-old-key-0123"))
	at := time.Date(2025, 12, 5, 10, 30, 2, 0, time.UTC)
	for _, workers := range []int{1, 3} {
		var got []string
		l := &Log{Signer: ring, KeyIDs: []string{"new", "old"}, Retired: []time.Time{{}, at}, Emit: func(p Problem) {
			if p.Code == CodeRetired {
				got = append(got, p.Seq+": "+p.Msg)
			}
		}}
		if err := l.Verify(context.Background(), bytes.NewReader(signed.Bytes()), "f", VerifyOptions{Workers: workers, BatchBytes: 700}); err != nil {
			t.Fatal(err)
		}
		want := []string{
			"3: signed with the key old at 2025-12-05T10:30:02.002Z, at or after its retirement at 2025-12-05T10:30:02Z: a retired key signs no more",
			`4: signed with the key old, retired at 2025-12-05T10:30:02Z, and its t "Friday" is not an RFC 3339 time: it cannot be placed before the retirement`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("workers %d:\ngot  %q\nwant %q", workers, got, want)
		}
	}
	// Without a retirement time the old key verifies all four.
	l := &Log{Signer: ring, KeyIDs: []string{"new", "old"}, Emit: func(Problem) {}}
	if err := l.Verify(context.Background(), bytes.NewReader(signed.Bytes()), "f", VerifyOptions{Workers: 1}); err != nil || !l.OK() {
		t.Fatalf("%v %d errors", err, l.Errors)
	}
}
