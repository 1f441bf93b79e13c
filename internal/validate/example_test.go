package validate_test

import (
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/validate"
)

// Trace events checked on four workers: the findings come in input order,
// the seq rule applied across the stream as one worker applies it.
func ExampleTrace_workers() {
	var b strings.Builder
	for _, seq := range []int{0, 1, 2, 5, 5, 6} {
		fmt.Fprintf(&b, `{"seq":%d,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"final_output","payload":{"text":"hi"},"meta":{"seed":42,"run_id":"550e8400-e29b-41d4-a716-446655440000","agent_id":7,"session_id":"s-1","signature":"%064x"}}`+"\n", seq, seq)
	}
	n, err := validate.Trace(strings.NewReader(b.String()), "events.ndjson", validate.Options{Workers: 4}, func(f validate.Finding) bool {
		fmt.Println(f.Text())
		return true
	})
	fmt.Println(n, "events", err)
	// Output:
	// events.ndjson:4:8: warning: /seq: skips 5 after 2 in run 550e8400-e29b-41d4-a716-446655440000: events 3-4 are missing [AOP051]
	// events.ndjson:5:8: error: /seq: repeats seq 5 of run 550e8400-e29b-41d4-a716-446655440000 [AOP050]
	// 6 events <nil>
}
