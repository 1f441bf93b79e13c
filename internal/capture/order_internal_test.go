package capture

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/kado"
)

// The records held back behind a hole are bounded: past maxHeld the hole
// is given up, and the records still come out in time order.
func TestHeldBound(t *testing.T) {
	defer func(m, s int) { maxHeld, readMode = m, s }(maxHeld, readMode)
	maxHeld = 4 << 10
	// In one goroutine: how much of the file has been read when the hole
	// is reported is the measure (reading ahead reads up to aheadBatches
	// batches further, the whole of this small capture).
	readMode = inOne
	frame := func(seq int) []byte {
		f, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: 1, SequenceID: uint32(seq)}, []byte(fmt.Sprintf(`{"n":%d}`, seq)), kado.CompressNever)
		return f
	}
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	a := b.Conn("10.0.0.1:40000", "10.0.0.2:7000")
	a.Handshake()
	o := b.Conn("10.0.0.3:40001", "10.0.0.2:7000")
	o.Handshake()
	f1 := frame(1)
	a.Send(capturetest.C2S, 0, f1[:5])         // the rest of frame 1 is lost
	a.Send(capturetest.C2S, len(f1), frame(2)) // waits behind the hole
	off := 0
	for i := range 400 { // 400 records of another connection, about 32 KB held
		f := frame(100 + i)
		o.Send(capturetest.C2S, off, f)
		off += len(f)
	}
	var kinds []string
	var last string
	gapAt := -1
	data := b.Bytes()
	in := &countingReader{r: bytes.NewReader(data)}
	readAtGap := int64(-1)
	_, err := Read(in, Options{}, func(r *Record) error {
		ts := TimeString(r.Time)
		if ts < last {
			t.Errorf("record %d at %s after %s", len(kinds), ts, last)
		}
		last = ts
		if r.Kind == Problem {
			gapAt, readAtGap = len(kinds), in.n
		}
		kinds = append(kinds, fmt.Sprint(r.Kind))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The hole and the frame behind it are the oldest records. Without
	// the bound they, and all the other connection's records, would wait
	// for the end of the capture.
	if len(kinds) != 402 || gapAt != 0 || readAtGap < 0 || readAtGap > int64(len(data))/2 {
		t.Errorf("%d records, the hole reported at %d, %d of %d bytes read then", len(kinds), gapAt, readAtGap, len(data))
	}
}
