package kado

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/raceflag"
)

// A frame at the size limit costs about its own size: a compressed one its
// decompressed payload (sized once, from the compressed body), an
// uncompressed one the buffer that grows to hold it (and the smaller ones
// before it). The payload's JSON is checked and compacted in place, never
// copied, so the cost is never a multiple of the limit.
func TestFrameAtTheLimitCostsItsSize(t *testing.T) {
	const limit = 8 << 20
	head, foot := `{"instruction":"`, `"}`
	body := strings.Repeat("abcdefg ", (limit-len(head)-len(foot))/8)
	payload := []byte(head + body + foot)
	spaced := []byte(`{ "instruction" : "` + strings.Repeat(" ", limit-len(head)-len(foot)-4) + `" }`)
	h := Header{Version: Version, Type: Instruction, Timestamp: 1, SequenceID: 1}
	frame := func(wire []byte) []byte {
		h.PayloadLength = uint32(len(wire))
		return append(AppendHeader(nil, h), wire...)
	}
	cases := []struct {
		name   string
		frame  []byte
		want   string
		budget uint64
	}{
		{"uncompressed", frame(payload), string(payload), 2*limit + 1<<20},
		{"compressed, white space to take out", frame(AppendRLE([]byte{CompressionMagic}, spaced)),
			`{"instruction":"` + strings.Repeat(" ", limit-len(head)-len(foot)-4) + `"}`, limit + 1<<20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			rd := NewReader(bytes.NewReader(c.frame), ReaderOptions{MaxFrameSize: limit})
			f, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			js, err := rd.JSON(f)
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if string(js) != c.want {
				t.Fatalf("payload of %d bytes, not the one written", len(js))
			}
			if !f.Compressed() && &js[0] != &f.Payload()[0] {
				t.Error("a compact payload was copied")
			}
			if raceflag.Enabled {
				t.Skip("the allocation budget is not checked under -race: the race build allocates more (the payload itself was checked)")
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > c.budget {
				t.Errorf("reading a %d MiB frame allocated %.1f MiB, budget %.1f MiB", limit>>20, float64(alloc)/(1<<20), float64(c.budget)/(1<<20))
			}
		})
	}
}
