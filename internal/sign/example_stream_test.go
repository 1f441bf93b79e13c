package sign_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/sign"
)

// ExampleSignStream signs a log of two events on two workers. The second
// has no payload: it is reported, and nothing is written from it on (the
// line break before it neither).
func ExampleSignStream() {
	in := strings.NewReader(`{"seq":1,"t":"2025-12-05T10:30:00Z","actor":"agent","type":"note","payload":{"a":1},"meta":{"run_id":"r-1"}}
{"seq":2,"t":"2025-12-05T10:30:01Z","actor":"agent","type":"note","meta":{"run_id":"r-1"}}
`)
	s, err := sign.NewSigner([]byte("test-key"), sign.SchemeSpec)
	if err != nil {
		panic(err)
	}
	var out strings.Builder
	h := sign.StreamHandler{
		Output: func(b []byte) error { out.Write(b); return nil },
		Bad: func(e *sign.EventError) error {
			fmt.Println("bad:", e)
			return nil
		},
	}
	bad, err := sign.SignStream(context.Background(), in, s, sign.StreamOptions{Workers: 2}, h)
	fmt.Println(bad, err)
	fmt.Println(out.String())
	// Output:
	// bad: 2:1: event 2: /payload: missing: a trace event has seq, t, actor, type, payload and meta.run_id
	// 1 <nil>
	// {"seq":1,"t":"2025-12-05T10:30:00Z","actor":"agent","type":"note","payload":{"a":1},"meta":{"run_id":"r-1","signature":"9b6a3d96dea0d665eecdd2c08032209e771ee833298117952b7f20b565987dbd"},"signature":"9b6a3d96dea0d665eecdd2c08032209e771ee833298117952b7f20b565987dbd"}
}
