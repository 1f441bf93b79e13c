package bridge

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkChiffonToTrace converts a stream of generated Chiffon messages
// of every type to trace events.
func BenchmarkChiffonToTrace(b *testing.B) {
	g := newGen(1)
	types := []string{"work_request", "work_status", "work_status", "work_result", "error"}
	var msgs [][]byte
	size := 0
	for i := range 5000 {
		m := g.chiffon(types[i%len(types)])
		msgs = append(msgs, []byte(m))
		size += len(m)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	where := func() string { return "" }
	for b.Loop() {
		c, err := New(Options{From: Chiffon, To: Trace, Checked: true}) // as convert runs it: its reader checked them
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			if err := c.Convert(m, where, func([]byte) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(msgs)*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkStream converts the generated Chiffon messages to trace events
// with Stream, on 1 and 2 workers (compare with BenchmarkChiffonToTrace,
// Convert a message at a time).
func BenchmarkStream(b *testing.B) {
	g := newGen(1)
	types := []string{"work_request", "work_status", "work_status", "work_result", "error"}
	var in []byte
	for i := range 5000 {
		in = append(append(in, g.chiffon(types[i%len(types)])...), '\n')
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				c, err := New(Options{From: Chiffon, To: Trace, Checked: true})
				if err != nil {
					b.Fatal(err)
				}
				rest, err := c.Stream(context.Background(), bytes.NewReader(in), StreamOptions{Workers: workers}, StreamHandler{Emit: func([]byte) error { return nil }})
				if err != nil || rest != nil {
					b.Fatal(err, rest != nil)
				}
			}
		})
	}
}
