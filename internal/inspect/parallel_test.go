package inspect

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/raceflag"
	"github.com/toonkit/toonkit/kado"
)

// rendered is what Render gives: the output, the summary and the error.
func rendered(data []byte, opts Options, halfReads bool) string {
	var out bytes.Buffer
	r := iotest.HalfReader(bytes.NewReader(data))
	if !halfReads {
		r = bytes.NewReader(data)
	}
	s, err := Render(&out, r, "cap.bin", opts)
	return fmt.Sprintf("%s\nsummary %+v\nerror %v", out.Bytes(), s, err)
}

// hostileCapture holds many frames of every kind: good ones, compressed
// ones, payloads that are not JSON (with a length that leads to a header,
// and one that does not), a bomb that decompresses past the limit, frames
// over 1 MiB, garbage and a cut end.
func hostileCapture(rng *rand.Rand, frames int) []byte {
	var b []byte
	add := func(typ kado.MessageType, p string, mode kado.CompressMode) {
		b, _, _ = kado.AppendFrame(b, kado.Header{Version: 1, Type: typ, SequenceID: uint32(len(b))}, []byte(p), mode)
	}
	for i := range frames {
		switch i % 50 {
		case 7:
			add(kado.Instruction, `{"instruction": nope}`, kado.CompressNever) // not JSON, a header follows
		case 13:
			b = append(b, "garbage\x01\x09"...)
		case 21:
			add(kado.Status, `{"data":"`+strings.Repeat("z", 2<<20)+`"}`, kado.CompressAlways) // a bomb for a small limit
		case 33:
			start := len(b)
			add(kado.ToolCall, `{"toolName":"x","args":{}}`, kado.CompressNever)
			b[start+kado.OffPayloadLength] += 7 // its length leads into the next frame
		case 41:
			if i < 100 {
				add(kado.Instruction, `{"data":"`+strings.Repeat("ab", 600<<10)+`"}`, kado.CompressNever) // over 1 MiB
			}
		default:
			add(kado.MessageType(1+i%8), fmt.Sprintf(`{"instruction": "step %d", "data": %q}`, i, strings.Repeat("xy", rng.IntN(700))), kado.CompressAuto)
		}
	}
	return b[:len(b)-5]
}

// The JSON format on four workers writes what one writes, byte for byte,
// with the same summary, on every kind of frame, with --skip, --length and
// a small limit, and from reads of any size.
func TestJSONWorkersMatchOne(t *testing.T) {
	frames := 1500
	if raceflag.Enabled {
		frames = 300 // the race build is slow; the kinds of frames are all there
	}
	data := hostileCapture(rand.New(rand.NewPCG(8, 1)), frames)
	options := []Options{{}, {MaxFrameSize: 1 << 20}, {MaxFrameSize: 4 << 10}, {Skip: 1001}, {Skip: 77, Length: int64(len(data) / 2)}, {Length: 5000}}
	for _, o := range options {
		o.Format = JSON
		one := rendered(data, o, false)
		if !strings.Contains(one, `"status":"invalid"`) && o.Length != 5000 {
			t.Fatalf("%+v: no invalid frame in the capture", o)
		}
		o.Workers = 4
		for _, half := range []bool{false, true} {
			if four := rendered(data, o, half); four != one {
				i := 0
				for i < len(one) && i < len(four) && one[i] == four[i] {
					i++
				}
				t.Errorf("%+v (half reads %v): four workers differ from one at byte %d:\none:  %.300q\nfour: %.300q", o, half, i, one[max(0, i-100):], four[max(0, i-100):])
			}
		}
	}
}

// FuzzJSONWorkersMatchOne: on any input, the JSON format on four workers
// writes what one writes, byte for byte, with the same summary.
func FuzzJSONWorkersMatchOne(f *testing.F) {
	f.Add(goodCapture(f), uint16(0), uint16(0), uint16(0))
	f.Add(damagedCapture(f), uint16(0), uint16(0), uint16(0))
	f.Add(edgeCapture(f), uint16(1024), uint16(0), uint16(0))
	f.Add(goodCapture(f), uint16(0), uint16(78), uint16(160))
	f.Add([]byte("\x01\x01\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00Z\xff{\x00\xff"), uint16(0), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, maxSize, skip, length uint16) {
		opts := Options{Format: JSON, MaxFrameSize: int(maxSize), Skip: int64(skip), Length: int64(length)}
		one := rendered(data, opts, false)
		opts.Workers = 4
		if four := rendered(data, opts, true); four != one {
			t.Fatalf("four workers differ from one:\none:  %q\nfour: %q", one, four)
		}
	})
}

// BenchmarkJSONWorkers: the JSON format on one and on two workers (the
// speed-up is scripts/bench.sh's to judge).
func BenchmarkJSONWorkers(b *testing.B) {
	var data []byte
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 4000 {
		data, _, _ = kado.AppendFrame(data, kado.Header{Version: 1, Type: kado.MessageType(1 + i%8)},
			[]byte(fmt.Sprintf(`{"instruction": "step %d", "data": %q}`, i, strings.Repeat("xy", rng.IntN(2000)))), kado.CompressAuto)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Render(io.Discard, bytes.NewReader(data), "b.bin", Options{Format: JSON, Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
