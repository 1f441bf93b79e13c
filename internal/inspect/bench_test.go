package inspect

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/kado"
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

// heapProbe reads r, and each time another every bytes have been read,
// collects the garbage and notes the live heap.
type heapProbe struct {
	r           io.Reader
	every, next int64
	read        int64
	peak        uint64
}

func (h *heapProbe) Read(p []byte) (int, error) {
	if h.read >= h.next {
		h.next += h.every
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	n, err := h.r.Read(p)
	h.read += int64(n)
	return n, err
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
			// The live heap, after a collection, each MiB of the input:
			// what the render holds, measured while it waits for input, so
			// that a loaded machine's lagging collector does not count.
			in := &heapProbe{r: &frameStream{unit: tc.unit, left: tc.size}, every: 1 << 20}
			s, err := Render(io.Discard, in, "big", tc.opts)
			peak := in.peak
			if err != nil {
				t.Fatal(err)
			}
			if s.Bytes != tc.size {
				t.Errorf("read %d bytes, want %d", s.Bytes, tc.size)
			}
			t.Logf("the live heap peaked at %.1f MiB for a %d MiB input", float64(peak)/(1<<20), tc.size>>20)
			if peak > 8<<20 {
				t.Errorf("the live heap reached %d MiB for a %d MiB input", peak>>20, tc.size>>20)
			}
		})
	}
}

// BenchmarkCaptureOneLine is `inspect --oneline` of a capture of small
// frames (capturetest.SmallFrames, as scripts/bench.sh's inspect section
// measures at 28 MB), with one worker and two, and the full view with two.
func BenchmarkCaptureOneLine(b *testing.B) {
	data := capturetest.SmallFrames(8 << 20)
	for _, bc := range []struct {
		name    string
		format  Format
		workers int
	}{{"oneline/j1", OneLine, 1}, {"oneline/j2", OneLine, 2}, {"view/j2", Text, 2}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				in := New(io.Discard, Options{Format: bc.format, Workers: bc.workers})
				if _, err := in.InspectCapture("bench", bufio.NewReaderSize(bytes.NewReader(data), 64<<10), capture.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
