package inspect

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	kado "github.com/toonkit/toonkit/pkg/codec/binary"
)

// frameStream yields the same frames over and over, n bytes in all, without
// holding them: an input of any size in constant memory.
type frameStream struct {
	unit []byte
	pos  int
	left int64
}

func (s *frameStream) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && s.left > 0 {
		k := copy(p[n:min(len(p), n+int(min(s.left, int64(len(s.unit)-s.pos))))], s.unit[s.pos:])
		n += k
		s.pos = (s.pos + k) % len(s.unit)
		s.left -= int64(k)
	}
	return n, nil
}

func benchUnit(tb testing.TB) []byte {
	return cat(
		goodCapture(tb),
		frame(tb, kado.ToolResult, 9, `{"success":true,"data":"`+strings.Repeat("export class UserService { }\n", 40)+`"}`, kado.CompressAuto),
	)
}

func BenchmarkRender(b *testing.B) {
	unit := benchUnit(b)
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"plain", Options{}},
		{"color", Options{Style: ansiStyle}},
		{"json", Options{Format: JSON}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := bytes.Repeat(unit, 64)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Render(io.Discard, bytes.NewReader(data), "bench", bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestConstantMemory renders large streams of frames and of bytes that are
// not frames; the heap must stay far below the input size.
func TestConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 128 MiB")
	}
	for _, tc := range []struct {
		name string
		size int64
		unit []byte
		opts Options
	}{
		{"frames as JSON", 64 << 20, benchUnit(t), Options{Format: JSON}},
		{"frames as text", 16 << 20, benchUnit(t), Options{Style: ansiStyle}},
		{"garbage", 64 << 20, []byte("not a frame at all, just text\n"), Options{}},
		{"garbage with version bytes", 16 << 20, []byte("\x01\x01\xff\xff\xff\x7f and more \x01\x02\x10\x00\x00\x00"), Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var peak uint64
			done, stopped := make(chan struct{}), make(chan struct{})
			go func() {
				var ms runtime.MemStats
				for {
					select {
					case <-done:
						close(stopped)
						return
					default:
					}
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
					time.Sleep(5 * time.Millisecond)
				}
			}()
			s, err := Render(io.Discard, &frameStream{unit: tc.unit, left: tc.size}, "big", tc.opts)
			close(done)
			<-stopped
			if err != nil {
				t.Fatal(err)
			}
			if s.Bytes != tc.size {
				t.Errorf("read %d bytes, want %d", s.Bytes, tc.size)
			}
			t.Logf("heap in use peaked at %.1f MiB for a %d MiB input", float64(peak)/(1<<20), tc.size>>20)
			if peak > 12<<20 {
				t.Errorf("heap in use reached %d MiB for a %d MiB input", peak>>20, tc.size>>20)
			}
		})
	}
}
