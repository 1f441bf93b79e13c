package capture_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// benchCapture is a pcapng of about 20 MB: 100 connections, requests and
// responses of 200 B to 8 KB in 1448-byte segments.
func benchCapture(b *testing.B) []byte {
	b.Helper()
	bld := &capturetest.Builder{File: capturetest.PcapNG}
	cs := make([]*capturetest.Conn, 100)
	off := make([][2]int, len(cs))
	for i := range cs {
		cs[i] = bld.Conn(fmt.Sprintf("10.0.0.%d:%d", i+1, 40000+i), server)
		cs[i].Handshake()
	}
	seq := 0
	for round := 0; round < 25; round++ {
		for i, c := range cs {
			for dir := range 2 {
				seq++
				f := frame([]string{"c2s", "s2c"}[dir], seq)
				pad := bytes.Repeat([]byte("x"), 200+(seq*7919)%8000)
				f = append(f[:len(f)-1:len(f)-1], []byte(`,"pad":"`+string(pad)+`"}`)...)
				f = fixLength(f)
				off[i][dir] = c.SendSplit(dir, off[i][dir], f, segments(len(f))...)
			}
		}
	}
	return bld.Bytes()
}

// fixLength sets a frame's payloadLength after its payload was changed.
func fixLength(f []byte) []byte {
	n := uint32(len(f) - 18)
	f[2], f[3], f[4], f[5] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	return f
}

func segments(n int) []int {
	var out []int
	for ; n > 1448; n -= 1448 {
		out = append(out, 1448)
	}
	return out
}

func BenchmarkRead(b *testing.B) {
	data := benchCapture(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		_, err := capture.Read(bytes.NewReader(data), capture.Options{}, func(r *capture.Record) error {
			if r.Kind != capture.Frame {
				b.Fatalf("record %s", describe(r))
			}
			n++
			return nil
		})
		if err != nil || n != 5000 {
			b.Fatalf("%d frames, %v", n, err)
		}
	}
}

// BenchmarkStream is decode's work on the capture: each record's JSON
// line, with one worker and with two.
func BenchmarkStream(b *testing.B) {
	data := benchCapture(b)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			opts := capture.StreamOptions{Workers: workers, Append: func(dst []byte, r *capture.Record) []byte {
				return append(capture.AppendRecord(dst, r), '\n')
			}}
			opts.Reopen = func() (io.Reader, error) { return bytes.NewReader(data), nil }
			for b.Loop() {
				n := 0
				err := capture.Stream(context.Background(), bytes.NewReader(data), opts, capture.StreamHandler{
					Records: func(out []byte, ends []int, frames int) error { n += frames; return nil },
					Other:   func(r *capture.Record) error { return fmt.Errorf("record %s", describe(r)) },
				})
				if err != nil || n != 5000 {
					b.Fatalf("%d frames, %v", n, err)
				}
			}
		})
	}
}
