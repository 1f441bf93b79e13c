package capture

import (
	"bytes"
	"testing"

	"github.com/toonkit/toonkit/internal/capturetest"
)

// BenchmarkReadSmallFrames is Read of a capture of small frames in one
// goroutine and reading ahead (the file and the packets' layers on a
// goroutine of their own).
func BenchmarkReadSmallFrames(b *testing.B) {
	defer func(m int) { readMode = m }(readMode)
	data := capturetest.SmallFrames(8 << 20)
	for _, m := range []struct {
		name string
		mode int
	}{{"one", inOne}, {"ahead", ahead}} {
		b.Run(m.name, func(b *testing.B) {
			readMode = m.mode
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data), Options{}, func(*Record) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
