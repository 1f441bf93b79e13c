package inspect

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/pkg/capture"
	kado "github.com/toonkit/toonkit/pkg/codec/binary"
)

// liveView hands a connection's bytes to a capture.Live and renders its
// records.
func liveView(t *testing.T, format Format, c2s, s2c []byte) string {
	t.Helper()
	var out bytes.Buffer
	in := New(&out, Options{Format: format})
	l := capture.NewLive(capture.Options{}, in.Record)
	c := l.Open("127.0.0.1:51234>127.0.0.1:7000")
	at := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if err := c.Feed(capture.C2S, at, c2s); err != nil {
		t.Fatal(err)
	}
	if err := c.Feed(capture.S2C, at.Add(time.Millisecond), s2c); err != nil {
		t.Fatal(err)
	}
	if err := c.Lost(capture.S2C, at.Add(2*time.Millisecond), 5); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(at.Add(3 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Every line names the time, the connection and the direction; bad bytes,
// lost bytes and text messages get lines of their own.
func TestRecordOneLine(t *testing.T) {
	c2s := append(capturetest.Frame(kado.Instruction, 7, `{"task": "sum"}`), "junk"...)
	c2s = append(c2s, capturetest.Frame(kado.Heartbeat, 8, `{}`)...)
	s2c := append([]byte(capturetest.WSResponse), capturetest.WSFrame(true, 1, []byte("hi"), nil)...)
	got := liveView(t, OneLine, c2s, s2c)
	const conn = "127.0.0.1:51234>127.0.0.1:7000"
	want := `     0          0  2026-01-02T03:04:05.123456789Z ` + conn + ` c2s  INSTRUCTION      seq 7           15 B      {"task":"sum"}
     1         33  2026-01-02T03:04:05.123456789Z ` + conn + ` c2s  ! version: expected 1, found 106 (0x6A 'j')
     -         33  2026-01-02T03:04:05.123456789Z ` + conn + ` c2s  ~ skipped 4 bytes to the next plausible header at byte 37
     2         37  2026-01-02T03:04:05.123456789Z ` + conn + ` c2s  HEARTBEAT        seq 8            2 B      {}
     -          -  2026-01-02T03:04:05.124456789Z ` + conn + ` s2c  text "hi"
     -          -  2026-01-02T03:04:05.125456789Z ` + conn + ` s2c  ! bytes 133-137 were not looked at (the view fell behind; they were forwarded); the WebSocket framing is lost, the rest of this direction is not shown
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
}

// The full view titles each frame with its source.
func TestRecordText(t *testing.T) {
	got := liveView(t, Text, capturetest.Frame(kado.Instruction, 7, `{"task": "sum"}`), nil)
	want := "\n2026-01-02T03:04:05.123456789Z 127.0.0.1:51234>127.0.0.1:7000 c2s: frame 0 at byte 0 (0x0): INSTRUCTION, seq 7, 33 bytes\n"
	if !bytes.HasPrefix([]byte(got), []byte(want)) || !bytes.Contains([]byte(got), []byte(`"task": "sum"`)) {
		t.Errorf("view:\n%s", got)
	}
}
