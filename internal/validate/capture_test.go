package validate

import (
	"bytes"
	"testing"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/kado"
)

// The rules across frames apply per direction of a connection (one
// sender's run): both sides numbering from 1 is no finding, a side going
// back is, and the finding names the connection and direction.
func TestCaptureRunsPerDirection(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
	c.Handshake()
	st := func(seq int) []byte { return capturetest.Frame(kado.Status, seq, `{"status":"ok","progress":1}`) }
	c2s := append(st(1), st(2)...)
	s2c := append(append(st(1), st(2)...), st(2)...)
	c.Send(capturetest.C2S, 0, c2s)
	c.Send(capturetest.S2C, 0, s2c)
	o := b.Conn("10.0.0.1:51300", "10.0.0.2:7000")
	o.Handshake()
	o.Send(capturetest.C2S, 0, st(1))
	var got []Finding
	n, err := Capture(bytes.NewReader(b.Bytes()), "x.pcapng", Options{}, capture.Options{}, func(f Finding) bool {
		got = append(got, f)
		return true
	})
	if err != nil || n != 6 {
		t.Fatalf("%d frames, error %v", n, err)
	}
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	f := got[0]
	if f.Code != "BIN030" || f.Conn != "10.0.0.1:51234>10.0.0.2:7000" || f.Dir != "s2c" || f.Frame != 2 {
		t.Errorf("finding %+v", f)
	}
	if w := f.Where(); w != "x.pcapng: 10.0.0.1:51234>10.0.0.2:7000 s2c: frame 2 at byte 106" {
		t.Errorf("where %q", w)
	}
}

// No capture makes Capture panic or hang; every finding of a frame or of
// the traffic names its connection and direction (but packets not read,
// CAP007, which are the capture's).
func FuzzCapture(f *testing.F) {
	for _, n := range capturetest.SampleNames() {
		data, _ := capturetest.Sample(n)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Capture(bytes.NewReader(data), "fuzz", Options{MaxFrameSize: 1 << 16}, capture.Options{MaxConns: 8, ReassemblyBuffer: 1 << 14}, func(x Finding) bool {
			if (x.Conn == "" || x.Dir == "") && x.Code != codePackets {
				t.Fatalf("finding without a connection: %+v", x)
			}
			return true
		})
	})
}
