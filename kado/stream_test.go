package kado

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// oneWorker is the single-worker loop (cmd's decode): Next, JSON, and MoveOn
// after a bad frame; it writes what it meets as a transcript.
func oneWorker(in io.Reader, keepGoing bool, limit int) string {
	var t strings.Builder
	rd := NewReader(in, ReaderOptions{MaxFrameSize: limit})
	for {
		f, err := rd.Next()
		if err == io.EOF {
			return t.String()
		}
		if err == nil {
			var js []byte
			if js, err = rd.JSON(f); err == nil {
				t.Write(AppendRecord(nil, f.Header, f.Compressed(), js))
				t.WriteByte('\n')
				continue
			}
		}
		if !IsFrameError(err) {
			fmt.Fprintf(&t, "read error: %v\n", err)
			return t.String()
		}
		var m Moved
		if keepGoing {
			m = rd.MoveOn(f, err)
		}
		fmt.Fprintf(&t, "bad: %v %+v\n", err, m)
		if !keepGoing {
			return t.String()
		}
	}
}

func streamed(t testing.TB, in io.Reader, keepGoing bool, limit, workers, batch int) string {
	_, live := in.(*bufio.Reader)
	var s strings.Builder
	err := DecodeStream(context.Background(), in, StreamOptions{MaxFrameSize: limit, Workers: workers, KeepGoing: keepGoing, BatchBytes: batch, Live: live,
		Append: func(dst []byte, f *Frame, js []byte) []byte { return AppendRecord(dst, f.Header, f.Compressed(), js) }},
		StreamHandler{
			Records: func(out []byte, ends []int) error {
				start := 0
				for _, end := range ends {
					s.Write(out[start:end])
					s.WriteByte('\n')
					start = end
				}
				if start != len(out) {
					t.Fatalf("ends %v do not cover %d bytes", ends, len(out))
				}
				return nil
			},
			Bad: func(err error, m Moved) error {
				fmt.Fprintf(&s, "bad: %v %+v\n", err, m)
				return nil
			},
		})
	if err != nil {
		fmt.Fprintf(&s, "read error: %v\n", err)
	}
	return s.String()
}

// genFrames makes n frames of varied payloads, some compressed.
func genFrames(rng *rand.Rand, n int) []byte {
	var b []byte
	for i := range n {
		var p string
		switch rng.IntN(4) {
		case 0:
			p = fmt.Sprintf(`{"instruction": "step %d", "n": [1, 2.50, -3e4]}`, i)
		case 1:
			p = `{"success":true,"data":"` + strings.Repeat("ab", 600+rng.IntN(400)) + `","duration":1}`
		case 2:
			p = fmt.Sprintf(`{"status":"ok","progress":%d,"note":"\u00e9\n"}`, i)
		default:
			p = `[` + strings.Repeat(`{"k":"vvvvvvvv"},`, 100) + `{}]`
		}
		b, _, _ = AppendFrame(b, Header{Version: 1, Type: MessageType(rng.IntN(8) + 1), SequenceID: uint32(i), Timestamp: uint64(i)}, []byte(p), CompressAuto)
	}
	return b
}

// damage breaks a stream as real captures break: cut short, garbage
// between frames, a flipped byte (a bad header or a payload that is not
// JSON), a bad payload whose length leads nowhere.
func damage(rng *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	switch rng.IntN(5) {
	case 0:
		return b[:rng.IntN(len(b))]
	case 1:
		at := rng.IntN(len(b))
		return append(b[:at:at], append([]byte("GARBAGE\x01\x09\x00"), b[at:]...)...)
	case 2:
		b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		return b
	case 3:
		for range 5 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		return b
	default:
		at := rng.IntN(len(b))
		b[at] = '}'
		return append(b[:at+1:at+1], append([]byte{0x07}, b[at+1:]...)...)
	}
}

func TestStreamMatchesOneWorker(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	damaged, largeDamaged, workerCounts := 60, 6, []int{1, 2, 4}
	inputs := [][]byte{nil, genFrames(rng, 1), genFrames(rng, 300)}
	for range damaged {
		inputs = append(inputs, damage(rng, genFrames(rng, 1+rng.IntN(60))))
	}
	// Large frames (decoded between runs of the workers), compressed or
	// not, good and bad, among small ones.
	var large []byte
	for i, p := range []string{`{"data":"` + strings.Repeat("x", bigFrame) + `"}`, `{"data":"` + strings.Repeat("xy", bigFrame/2) + `"}`, `{"data": ` + strings.Repeat("1", bigFrame) + `}`} {
		large = append(large, genFrames(rng, 3)...)
		large, _, _ = AppendFrame(large, Header{Version: 1, Type: Instruction, SequenceID: uint32(i)}, []byte(p), CompressAuto)
	}
	large = append(large, genFrames(rng, 3)...)
	inputs = append(inputs, large)
	for range largeDamaged {
		inputs = append(inputs, damage(rng, large))
	}
	for i, in := range inputs {
		for _, keepGoing := range []bool{false, true} {
			want := oneWorker(bytes.NewReader(in), keepGoing, 8<<20)
			for _, workers := range workerCounts {
				for _, batch := range []int{1, 700, 0} {
					got := streamed(t, bytes.NewReader(in), keepGoing, 8<<20, workers, batch)
					if got != want {
						t.Fatalf("input %d, keep-going %v, %d workers, batches of %d bytes: %s", i, keepGoing, workers, batch, difference(got, want))
					}
				}
				// A pipe that delivers a few bytes at a time, through a
				// bufio.Reader (the idle cuts).
				got := streamed(t, bufio.NewReader(iotest.HalfReader(bytes.NewReader(in))), keepGoing, 8<<20, workers, 0)
				if got != want {
					t.Fatalf("input %d through a pipe, %d workers: output differs", i, workers)
				}
			}
		}
	}
}

func TestStreamReadErrorInOrder(t *testing.T) {
	in := genFrames(rand.New(rand.NewPCG(1, 2)), 40)
	for _, cut := range []int{0, 5, 18, len(in) / 2, len(in) - 3} {
		mk := func() io.Reader {
			return io.MultiReader(bytes.NewReader(in[:cut]), iotest.ErrReader(errors.New("disk on fire")))
		}
		want := oneWorker(mk(), true, 1<<20)
		if !strings.HasSuffix(want, "read error: disk on fire\n") {
			t.Fatalf("cut %d: one worker: %q", cut, want)
		}
		for _, workers := range []int{1, 4} {
			if got := streamed(t, mk(), true, 1<<20, workers, 300); got != want {
				t.Fatalf("cut %d, %d workers:\n got %q\nwant %q", cut, workers, got, want)
			}
		}
	}
}

// FuzzStreamMatchesOneWorker: on any input, the frames, errors, offsets and
// resynchronisation of DecodeStream on four workers are those of one Reader.
func FuzzStreamMatchesOneWorker(f *testing.F) {
	seedFrames(f)
	rng := rand.New(rand.NewPCG(3, 4))
	f.Add(damage(rng, genFrames(rng, 8)))
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 16
		for _, keepGoing := range []bool{false, true} {
			want := oneWorker(bytes.NewReader(in), keepGoing, limit)
			if got := streamed(t, bytes.NewReader(in), keepGoing, limit, 4, 64); got != want {
				t.Fatalf("keep-going %v: %s", keepGoing, difference(got, want))
			}
		}
	})
}

// difference shows where two transcripts part.
func difference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("from byte %d:\n got %.400q\nwant %.400q", from, got[from:], want[from:])
}

// BenchmarkDecodeStream: the frame decoder on one and on two workers (the
// speed-up is scripts/bench.sh's to judge).
func BenchmarkDecodeStream(b *testing.B) {
	in := genFrames(rand.New(rand.NewPCG(5, 6)), 4000)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				err := DecodeStream(context.Background(), bytes.NewReader(in), StreamOptions{Workers: workers,
					Append: func(dst []byte, f *Frame, js []byte) []byte { return AppendRecord(dst, f.Header, f.Compressed(), js) }},
					StreamHandler{Records: func([]byte, []int) error { return nil }})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The reader's buffers hold the frames that the workers read (no copy), and
// are used again once the batches that may hold their frames are written:
// with small buffers, many of them, the output is still one worker's, for
// good and damaged inputs, at every pace of the writer.
func TestStreamReusesBuffers(t *testing.T) {
	defer func(n int) { streamBuffer = n }(streamBuffer)
	streamBuffer = 8 << 10
	rng := rand.New(rand.NewPCG(17, 2))
	good := genFrames(rng, 600)
	inputs := [][]byte{good}
	for range 8 {
		inputs = append(inputs, damage(rng, good))
	}
	for i, in := range inputs {
		for _, keepGoing := range []bool{false, true} {
			want := oneWorker(bytes.NewReader(in), keepGoing, 8<<20)
			for _, batch := range []int{1, 700, 5000} {
				got := streamed(t, iotest.HalfReader(bytes.NewReader(in)), keepGoing, 8<<20, 4, batch)
				if got != want {
					t.Fatalf("input %d, keep-going %v, batches of %d bytes: %s", i, keepGoing, batch, difference(got, want))
				}
			}
		}
	}
}
