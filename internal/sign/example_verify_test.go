package sign_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/sign"
)

// Verify checks a log on several workers: the problems come in the order of
// the events, as with one worker.
func ExampleLog_Verify() {
	signer, err := sign.NewSigner([]byte("test-key"), sign.SchemeSpec)
	if err != nil {
		panic(err)
	}
	// A log of three events, signed, then the third changed and the
	// second taken out.
	var log bytes.Buffer
	rd := sign.NewReader(strings.NewReader(`{"seq": 1, "t": "2025-12-05T10:30:00Z", "actor": "agent", "type": "reasoning", "payload": {"goal": "refund"}, "meta": {"run_id": "r-1"}}
{"seq": 2, "t": "2025-12-05T10:30:01Z", "actor": "agent", "type": "action_request", "payload": {"action": "lookup"}, "meta": {"run_id": "r-1"}}
{"seq": 3, "t": "2025-12-05T10:30:02Z", "actor": "tool", "type": "action_response", "payload": {"status": "ok"}, "meta": {"run_id": "r-1"}}
`), 0)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		ev, _ := signer.Event(rec)
		if ev.Seq[0] != '2' {
			log.Write(rec.Gap)
			log.Write(sign.AppendSigned(nil, ev, signer.Sign(ev)))
		}
	}
	tampered := bytes.Replace(log.Bytes(), []byte(`"ok"`), []byte(`"failed"`), 1)

	l := &sign.Log{Signer: signer, Emit: func(p sign.Problem) {
		fmt.Printf("%s: seq %s (run %s): %s\n", p.Where, p.Seq, p.Run, p.Msg)
	}}
	if err := l.Verify(context.Background(), bytes.NewReader(tampered), "audit.ndjson", sign.VerifyOptions{Workers: 2}); err != nil {
		panic(err)
	}
	l.Finish()
	fmt.Printf("%d events, %d failures\n", l.Events, l.Errors)
	// Output:
	// audit.ndjson:2: seq 3 (run r-1): signature mismatch
	// audit.ndjson:2: seq 3 (run r-1): an event is missing between seq 1 and 3
	// 2 events, 2 failures
}
