package seal_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// ExampleFromLog seals a signed log of one event, then reads the seal
// back, checking its HMAC.
func ExampleFromLog() {
	log := `{"seq":1,"t":"2025-12-05T10:30:00Z","actor":"agent","type":"note","payload":{"a":1},"meta":{"run_id":"r-1","signature":"9b6a3d96dea0d665eecdd2c08032209e771ee833298117952b7f20b565987dbd"}}` + "\n"
	key := []byte("test-key")
	s, _ := sign.NewSigner(key, sign.SchemeSpec)
	b, err := seal.FromLog(strings.NewReader(log), s, 0)
	if err != nil {
		panic(err)
	}
	sl, _ := b.Seal(key, sign.SchemeSpec, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	doc, _ := sl.Marshal()
	back, err := seal.Parse(doc, key)
	fmt.Println(back.Runs[0].RunID, back.Runs[0].Count, err)
	_, err = seal.Parse(doc, []byte("another key"))
	fmt.Println(err)
	// Output:
	// r-1 1 <nil>
	// the seal's own HMAC does not match: the seal was edited, or made with another key
}

// ExampleBuilder_For checks a log against its seal as verify --seal
// --explain does: the log's events swapped, every one validly signed, and
// the finding says where the log first departs from the seal.
func ExampleBuilder_For() {
	key := []byte("test-key")
	s, _ := sign.NewSigner(key, sign.SchemeSpec)
	var signed strings.Builder
	unsigned := `{"seq":1,"t":"2026-01-01T00:00:01Z","actor":"agent","type":"note","payload":{},"meta":{"run_id":"r-1"}}
{"seq":2,"t":"2026-01-01T00:00:02Z","actor":"agent","type":"note","payload":{},"meta":{"run_id":"r-1"}}
{"seq":3,"t":"2026-01-01T00:00:03Z","actor":"agent","type":"note","payload":{},"meta":{"run_id":"r-1"}}
`
	h := sign.StreamHandler{Output: func(b []byte) error { signed.Write(b); return nil }, Bad: func(e *sign.EventError) error { return e }}
	sign.SignStream(context.Background(), strings.NewReader(unsigned), s, sign.StreamOptions{}, h)
	b, _ := seal.FromLog(strings.NewReader(signed.String()), s, 0)
	sl, _ := b.Seal(key, sign.SchemeSpec, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

	// The log with its last two events swapped, checked against the seal.
	l := strings.SplitAfter(signed.String(), "\n")
	swapped := l[0] + l[2] + l[1]
	var check seal.Builder
	check.For(sl, true)
	log := &sign.Log{Signer: s, Emit: func(sign.Problem) {}, Signed: func(w sign.Where, run, seq, t []byte, mac *[32]byte) { check.AddAt(w, run, seq, t, mac) }}
	log.Verify(context.Background(), strings.NewReader(swapped), "audit.ndjson", sign.VerifyOptions{Workers: 1})
	for _, f := range check.Compare(sl) {
		fmt.Printf("run %s: %s\n%s\n", f.RunID, f.Msg, f.Departs)
	}
	// Output:
	// run r-1: the log ends at seq 2, the seal at seq 3
	// the log first departs from the seal at event 2 of the run (seq 3, audit.ndjson:2, byte 262): the seal's links agree with the run's first event, not with it (the first link that differs, after event 2: 841e36125d in the seal, 3affaf5707 in the log); the seal has there the log's event 3 of the run (seq 2, audit.ndjson:3, byte 524)
}
