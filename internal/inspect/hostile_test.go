package inspect

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/raceflag"
	"github.com/toonkit/toonkit/kado"
)

// A deeply nested payload does not blow the view up: below a fixed depth
// values are printed on one line, so the output stays proportional to the
// payload (it grew with the square of the depth before).
func TestDeepNestingStaysSmall(t *testing.T) {
	const depth = 5000
	payload := `{"instruction":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
	frame, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction}, []byte(payload), kado.CompressNever)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Render(&out, bytes.NewReader(frame), "deep.bin", Options{}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 64<<10 {
		t.Fatalf("%d bytes of output for a %d-byte frame", out.Len(), len(frame))
	}
	if !strings.Contains(out.String(), strings.Repeat("[", depth-maxPrettyDepth)) {
		t.Fatal("the deep part of the payload is not shown")
	}
}

// A payload whose length field is too large swallows the frames after it
// only until inspect notices that its length leads nowhere: it then
// resynchronises, as decode --keep-going does, and shows the good frames.
func TestResyncAfterWrongLength(t *testing.T) {
	var capture []byte
	for i, p := range []string{`{"instruction":"a"}`, `{"status":"s","progress":1}`, `{}`} {
		capture, _, _ = kado.AppendFrame(capture, kado.Header{Version: 1, Type: kado.MessageType([]int{1, 4, 6}[i]), SequenceID: uint32(i)}, []byte(p), kado.CompressNever)
	}
	capture[2] = 60 // frame 0 now claims 60 payload bytes: its own 19 and part of frame 1
	var out bytes.Buffer
	s, err := Render(&out, bytes.NewReader(capture), "c.bin", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Frames != 3 || s.Valid != 2 || s.Invalid != 1 || s.Bytes != int64(len(capture)) {
		t.Fatalf("summary %+v\n%s", s, out.String())
	}
	if !strings.Contains(out.String(), "next plausible header at byte 37") {
		t.Fatalf("no resync note:\n%s", out.String())
	}
}

// A long string is cut in the JSON view (the hexdump above has every byte),
// so a payload near the limit does not make a view several times its size.
func TestLongStringIsCut(t *testing.T) {
	payload := `{"instruction":"` + strings.Repeat("é", 50000) + `"}`
	frame, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction}, []byte(payload), kado.CompressAlways)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Render(&out, bytes.NewReader(frame), "long.bin", Options{}); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 32<<10 {
		t.Fatalf("%d bytes of output", out.Len())
	}
	if !strings.Contains(out.String(), `é…" (100002 bytes in all)`) {
		t.Fatalf("no cut note:\n%s", out.String())
	}
}

// A compressed frame whose payload decompresses to the size limit costs
// inspect that payload, once: the pretty printer reads it in place.
func TestBombCostsItsSize(t *testing.T) {
	const limit = 8 << 20
	payload := `{"instruction":"` + strings.Repeat("a", limit-18) + `"}`
	frame, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction}, []byte(payload), kado.CompressAlways)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Render(io.Discard, bytes.NewReader(frame), "bomb.bin", Options{MaxFrameSize: limit})
	runtime.ReadMemStats(&after)
	if err != nil || s.Valid != 1 {
		t.Fatalf("summary %+v, %v", s, err)
	}
	if raceflag.Enabled {
		t.Skip("the allocation budget is not checked under -race: the race build allocates more (the frame was inspected)")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit+2<<20 {
		t.Fatalf("inspecting a %d-byte frame that decompresses to %d MiB allocated %.1f MiB", len(frame), limit>>20, float64(alloc)/(1<<20))
	}
}
