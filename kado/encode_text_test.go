package kado

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/pyjson"
)

// decode's records of a capture: frames, and a WebSocket text message
// between them.
func captureRecords(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"header":{"version":1,"type":1,"typeName":"INSTRUCTION","payloadLength":9,"timestamp":5,"compressed":false,"capture":{"conn":"10.0.0.1:1>10.0.0.2:2","dir":"c2s","time":"2026-01-02T03:04:05.000000000Z"}},"payload":{"n":%d}}`+"\n", i)
		if i%3 == 1 {
			fmt.Fprintf(&b, `{"capture":{"conn":"10.0.0.1:1>10.0.0.2:2","dir":"c2s","time":"2026-01-02T03:04:05.000000000Z"},"text":"hello %d"}`+"\n", i)
		}
		fmt.Fprintf(&b, `{"instruction":"bare %d"}`+"\n", i) // takes the running sequence id
	}
	return b.String()
}

// A text message's record is not a frame: an error at its position, with
// one worker or several; with SkipText it is left out, counted, and takes
// no sequence id: the frames are those of the input without it.
func TestEncodeTextMessages(t *testing.T) {
	ts := uint64(7)
	in := captureRecords(400)
	var without strings.Builder
	for line := range strings.Lines(in) {
		if !strings.Contains(line, `"text"`) {
			without.WriteString(line)
		}
	}
	run := func(in string, workers int, skip bool) (out []byte, skipped int, err error) {
		_, err = EncodeStream(context.Background(), strings.NewReader(in), EncodeStreamOptions{Workers: workers, Timestamp: &ts, SkipText: skip, ChunkBytes: 1 << 10},
			EncodeHandler{Write: func(p []byte) error { out = append(out, p...); return nil }, Skipped: func(n int) error { skipped += n; return nil }})
		return
	}
	want, _, err := run(without.String(), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	py := string(pyjson.Dumps(t, []byte(in), "--indent", "2", "--crlf"))
	for _, input := range []string{in, py} {
		for _, workers := range []int{1, 4} {
			_, _, err := run(input, workers, false)
			var ee *EncodeError
			if !errors.As(err, &ee) || ee.Kind != TextMessage || ee.Pos.Line == 0 || !strings.Contains(err.Error(), "WebSocket text message") {
				t.Fatalf("workers %d: err %v", workers, err)
			}
			if input == in && ee.Pos.Line != 4 {
				t.Errorf("workers %d: at %s, want line 4", workers, ee.Pos)
			}
			got, skipped, err := run(input, workers, true)
			if err != nil || !bytes.Equal(got, want) || skipped != 133 {
				t.Errorf("workers %d SkipText: err %v, %d skipped, output same: %v", workers, err, skipped, bytes.Equal(got, want))
			}
		}
	}
}

func TestIsTextRecord(t *testing.T) {
	for v, want := range map[string]bool{
		`{"capture":{"conn":"a"},"text":"x"}`:            true,
		`{ "text" : "x" , "capture" : {} }`:              true,
		`{"capture":{},"text":"x","more":1}`:             false,
		`{"capture":{},"text":1}`:                        false,
		`{"capture":"x","text":"y"}`:                     false,
		`{"capture":{}}`:                                 false,
		`{"capture":{},"capture":{},"text":"x"}`:         false,
		`{"header":{"capture":{}},"payload":{"text":1}}`: false,
		`["capture","text"]`:                             false,
	} {
		if got := isTextRecord([]byte(v)); got != want {
			t.Errorf("%s: %v", v, got)
		}
	}
}
