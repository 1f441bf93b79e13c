package bridge

import (
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
