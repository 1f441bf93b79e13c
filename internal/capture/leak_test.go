package capture_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// A callback that stops the reading early leaves no direction's reader
// running: every direction begun is stopped when Read returns, whatever
// the number of connections still open.
func TestStopEarlyLeavesNoReader(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	for i := range 20 {
		c := b.Conn(fmt.Sprintf("10.0.0.%d:4000%d", 10+i, i%10), server)
		c.Handshake()
		// half a frame in each direction: each direction's reader is
		// begun and waits for the rest
		c.Send(capturetest.C2S, 0, frame("c2s", i)[:20])
		c.Send(capturetest.S2C, 0, frame("s2c", i)[:20])
	}
	c := b.Conn("10.0.0.99:50000", server)
	c.Handshake()
	c.Send(capturetest.C2S, 0, frame("c2s", 99))
	data := b.Bytes()
	stop := errors.New("stop")
	before := runtime.NumGoroutine()
	for range 5 {
		_, err := capture.Read(bytes.NewReader(data), capture.Options{}, func(r *capture.Record) error {
			if r.Kind == capture.Frame {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Fatalf("Read: %v, want the callback's error", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left running after Read returned (%d before)", n-before, before)
	}
}
