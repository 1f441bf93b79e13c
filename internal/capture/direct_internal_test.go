package capture

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// Frames read by feed itself (direct), without a switch to the direction's
// coroutine, are the records the coroutine gives, whatever the options
// (payloads left unchecked, at the ends of segments too), on captures with
// every hazard and on the small-frame capture; there, nearly every frame
// is read so.
func TestDirectSameAsCoroutine(t *testing.T) {
	defer func(d bool) { directReads = d }(directReads)
	files := tangles()
	small := capturetest.SmallFrames(1 << 20)
	files["small.pcapng"] = small
	files["after-whole.pcapng"] = afterWholeFrames()
	for name, data := range files {
		for _, opts := range []Options{
			{},
			{LeaveJSON: true},
			{LeaveJSON: true, Reopen: func() (io.Reader, error) { return bytes.NewReader(data), nil }},
			{MaxFrameSize: 100, LeaveJSON: true},
		} {
			for _, serial := range []bool{true, false} {
				directReads = false
				want := dump(t, data, opts, serial, 0)
				directReads = true
				if got := dump(t, data, opts, serial, 0); got != want {
					t.Errorf("%s %+v serial %v: direct reads differ:\n%s", name, opts, serial, firstDiff(want, got))
				}
			}
		}
	}
	r := newReader(Options{}, func(*Record) error { return nil })
	readMode = inOne
	defer func() { readMode = byCPUs }()
	if err := r.run(bytes.NewReader(small)); err != nil {
		t.Fatal(err)
	}
	r.close()
	if r.stats.Frames < 4000 || r.resumes > r.stats.Connections*4 {
		t.Errorf("%d frames, %d switches to a coroutine for %d connections", r.stats.Frames, r.resumes, r.stats.Connections)
	}
}

// firstDiff is the first line where two dumps differ.
func firstDiff(a, b string) string {
	al, bl := bytes.Split([]byte(a), []byte("\n")), bytes.Split([]byte(b), []byte("\n"))
	for i := range min(len(al), len(bl)) {
		if !bytes.Equal(al[i], bl[i]) {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return "lengths differ"
}

// Whatever the capture, the frames feed reads itself are the records the
// coroutine gives, with payloads checked and left unchecked.
func FuzzDirectSameAsCoroutine(f *testing.F) {
	f.Add(capturetest.Tangle(layers.LinkTypeEthernet, capturetest.PcapNG, 5, 3))
	f.Add(capturetest.Tangle(layers.LinkTypeRaw, capturetest.Pcap, 4, 3))
	f.Add(afterWholeFrames())
	for _, name := range capturetest.SampleNames() {
		data, _ := capturetest.Sample(name)
		f.Add(data)
	}
	defer func(d bool) { directReads = d }(directReads)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{
			{MaxFrameSize: 1 << 16, MaxConns: 8, ReassemblyBuffer: 1 << 14},
			{MaxFrameSize: 1 << 16, MaxConns: 8, ReassemblyBuffer: 1 << 14, LeaveJSON: true, Reopen: func() (io.Reader, error) { return bytes.NewReader(data), nil }},
		} {
			directReads = false
			want := dump(t, data, opts, true, 0)
			directReads = true
			if got := dump(t, data, opts, true, 0); got != want {
				t.Fatalf("direct reads differ (LeaveJSON %v):\n%s", opts.LeaveJSON, firstDiff(want, got))
			}
		}
	})
}

// afterWholeFrames is a capture whose segments end, after whole frames,
// with what the frame reader decides on at once (a whole header that is
// bad, a payload that is not JSON, a header cut short by a lost segment)
// or waits on (part of a header, a good header without its payload),
// while another connection sends in between.
func afterWholeFrames() []byte {
	b := &capturetest.Builder{}
	a := b.Conn("10.0.0.1:40000", "10.0.0.9:7000")
	o := b.Conn("10.0.0.2:40001", "10.0.0.9:7000")
	a.Handshake()
	o.Handshake()
	good := func(seq int) []byte { return capturetest.Frame(1, seq, `{"n":1}`) }
	badHeader := append([]byte{2, 1, 7, 0, 0, 0}, make([]byte, 12)...)
	badJSON := capturetest.Frame(1, 9, `{"n":`)
	segs := [][]byte{
		append(good(1), good(2)...),                         // whole frames: read directly
		append(append(good(12), badHeader...), good(13)...), // a bad header, and the frame it resynchronises on
		append(good(3), badHeader...),                       // then a whole bad header
		append(append(good(4), good(5)...), badJSON...),     // then a payload that is not JSON
		append(good(6), good(7)[:10]...),                    // then part of a header
		append(good(7)[10:], good(8)[:20]...),               // the rest, then a header without its payload
		good(8)[20:],
		append(good(10), 0x01),
		append([]byte{3}, good(11)...),
	}
	off, ooff := 0, 0
	for i, seg := range segs {
		a.Send(capturetest.C2S, off, seg)
		off += len(seg)
		of := good(100 + i)
		o.Send(capturetest.C2S, ooff, of)
		ooff += len(of)
	}
	return b.Bytes()
}
