package capture_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// liveRecords hands the chunks of each direction over to a Live, a chunk
// each in turn, and lists the records.
func liveRecords(t *testing.T, chunks [2][][]byte, lost map[int]int64) []string {
	t.Helper()
	var out []string
	l := capture.NewLive(capture.Options{MaxFrameSize: 1 << 12}, func(r *capture.Record) error {
		out = append(out, describe(r))
		return nil
	})
	c := l.Open(conn)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 0; i < max(len(chunks[0]), len(chunks[1])); i++ {
		for d := range 2 {
			if i < len(chunks[d]) {
				at = at.Add(time.Millisecond)
				if n := lost[i]; n > 0 && d == 0 {
					if err := c.Lost(capture.Dir(d), at, n); err != nil {
						t.Fatal(err)
					}
				}
				if err := c.Feed(capture.Dir(d), at, chunks[d][i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := l.Close(at.Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	return out
}

func split(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

func ms(n int) string {
	return capture.TimeString(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(n) * time.Millisecond))
}

// Whatever the chunks, the same records (but for their times) come out.
func TestLiveAnyChunks(t *testing.T) {
	c2s := append(append(frame("c2s", 0), "garbage!"...), frame("c2s", 1)...)
	want := []string{
		`frame c2s seq=0 at=0 {"dir":"c2s","n":0,"text":"frame 0 of c2s"}`,
		fmt.Sprintf(`problem c2s frame 1 at byte %d: version: expected 1, found 103 (0x67 'g')`, len(frame("c2s", 0))),
		fmt.Sprintf(`frame c2s seq=1 at=%d {"dir":"c2s","n":1,"text":"frame 1 of c2s"}`, len(frame("c2s", 0))+8),
	}
	for size := 1; size <= len(c2s); size++ {
		var got []string
		for _, line := range liveRecords(t, [2][][]byte{split(c2s, size), nil}, nil) {
			f := strings.Fields(line)
			// kind conn dir time rest: keep kind, dir and rest (the
			// problem's text repeats conn and dir)
			rest := strings.Join(f[4:], " ")
			rest = strings.TrimPrefix(rest, conn+" c2s: ")
			got = append(got, f[0]+" "+f[2]+" "+rest)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("chunks of %d: records (-want +got):\n%s", size, d)
		}
	}
}

// Records come out with the time of the chunk that completed them, and
// bad bytes are reported with where reading went on.
func TestLiveExact(t *testing.T) {
	f0, f1 := frame("c2s", 0), frame("c2s", 1)
	c2s := [][]byte{f0[:10], append(f0[10:], "garbage!"...), f1}
	s2c := [][]byte{frame("s2c", 2)}
	got := liveRecords(t, [2][][]byte{c2s, s2c}, nil)
	want := []string{
		fmt.Sprintf(`frame %s s2c %s seq=2 at=0 {"dir":"s2c","n":2,"text":"frame 2 of s2c"}`, conn, ms(2)),
		fmt.Sprintf(`frame %s c2s %s seq=0 at=0 {"dir":"c2s","n":0,"text":"frame 0 of c2s"}`, conn, ms(3)),
		fmt.Sprintf(`problem %s c2s %s %s c2s: frame 1 at byte %d: version: expected 1, found 103 (0x67 'g')`, conn, ms(4), conn, len(f0)),
		fmt.Sprintf(`frame %s c2s %s seq=1 at=%d {"dir":"c2s","n":1,"text":"frame 1 of c2s"}`, conn, ms(4), len(f0)+8),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
}

// Bytes that were not handed over (a viewer that fell behind) are a
// Problem naming them; the direction resynchronises after them.
func TestLiveLost(t *testing.T) {
	f0, f1, f2 := frame("c2s", 0), frame("c2s", 1), frame("c2s", 2)
	// f1's first 5 bytes are handed over, then 10 are lost, then the rest
	// of f1 and f2.
	c2s := [][]byte{append(f0, f1[:5]...), f1[15:], f2}
	got := liveRecords(t, [2][][]byte{c2s, nil}, map[int]int64{1: 10})
	n0 := int64(len(f0))
	want := []string{
		fmt.Sprintf(`frame %s c2s %s seq=0 at=0 {"dir":"c2s","n":0,"text":"frame 0 of c2s"}`, conn, ms(1)),
		fmt.Sprintf(`problem %s c2s %s %s c2s: bytes %d-%d were not looked at (the view fell behind; they were forwarded); the 5 bytes of the frame they cut are not shown`, conn, ms(2), conn, n0+5, n0+14),
		fmt.Sprintf(`note %s c2s %s %s c2s: after the hole: skipped %d bytes to the first plausible header at byte %d`, conn, ms(3), conn, len(f1)-15, len(f0)+len(f1)),
		fmt.Sprintf(`frame %s c2s %s seq=2 at=%d {"dir":"c2s","n":2,"text":"frame 2 of c2s"}`, conn, ms(3), len(f0)+len(f1)),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
}

// A WebSocket connection is unwrapped as in a capture file.
func TestLiveWebSocket(t *testing.T) {
	f0 := frame("c2s", 0)
	mask := []byte{1, 2, 3, 4}
	c2s := append([]byte(capturetest.WSRequest), capturetest.WSFrame(false, 2, f0[:20], mask)...)
	c2s = append(c2s, capturetest.WSFrame(true, 0, f0[20:], mask)...)
	c2s = append(c2s, capturetest.WSFrame(true, 1, []byte("hello"), mask)...)
	s2c := []byte(capturetest.WSResponse)
	got := liveRecords(t, [2][][]byte{split(c2s, 3), {s2c}}, nil)
	if len(got) != 2 {
		t.Fatalf("records: %q", got)
	}
	if want := fmt.Sprintf(`frame %s c2s`, conn); !bytes.HasPrefix([]byte(got[0]), []byte(want)) || !bytes.HasSuffix([]byte(got[0]), []byte(`seq=0 at=0 {"dir":"c2s","n":0,"text":"frame 0 of c2s"}`)) {
		t.Errorf("record 0: %s", got[0])
	}
	if want := `"hello"`; !bytes.HasSuffix([]byte(got[1]), []byte(want)) || !bytes.HasPrefix([]byte(got[1]), []byte("text ")) {
		t.Errorf("record 1: %s", got[1])
	}
}

// A frame cut short by the end of the connection is reported when it
// closes.
func TestLiveCutByClose(t *testing.T) {
	f0 := frame("c2s", 0)
	got := liveRecords(t, [2][][]byte{{f0[:30]}, nil}, nil)
	want := []string{fmt.Sprintf(`problem %s c2s %s %s c2s: frame 0 at byte 2: payloadLength: expected %d payload bytes, found only 12 bytes remain`, conn, ms(2), conn, len(f0)-18)}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
}

// A Live never panics, and gives the same records (but for their times)
// whether a direction's bytes come whole or in pieces.
func FuzzLive(f *testing.F) {
	f.Add(append(frame("c2s", 0), "junk"...), uint8(3))
	f.Add([]byte(capturetest.WSRequest+"\x82\x03abc\x81\x02hi"), uint8(5))
	f.Add(frames("c2s", 0, 3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		run := func(size int) []string {
			var out []string
			l := capture.NewLive(capture.Options{MaxFrameSize: 1 << 12}, func(r *capture.Record) error {
				line := describe(r)
				// Leave out the time.
				fs := strings.SplitN(line, " ", 5)
				out = append(out, fs[0]+" "+strings.Join(fs[4:], " "))
				return nil
			})
			c := l.Open(conn)
			at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			for _, b := range split(data, size) {
				c.Feed(capture.C2S, at, b)
			}
			l.Close(at)
			return out
		}
		whole := run(len(data) + 1)
		pieces := run(1 + int(cut))
		if d := cmp.Diff(whole, pieces); d != "" {
			t.Fatalf("whole vs in pieces of %d (-whole +pieces):\n%s", 1+int(cut), d)
		}
	})
}
