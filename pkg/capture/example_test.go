package capture_test

import (
	"bytes"
	"fmt"

	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/pkg/capture"
	kado "github.com/toonkit/toonkit/pkg/codec/binary"
)

// Read a capture (here one made up in memory, as tcpdump -w would save
// it) and print its frames with where they came from.
func Example() {
	f, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction, SequenceID: 7}, []byte(`{"task":"sum","args":[1,2]}`), kado.CompressNever)
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
	c.Handshake()
	c.SendSplit(capturetest.C2S, 0, f, 10) // the frame in two segments
	capFile := b.Bytes()

	_, err := capture.Read(bytes.NewReader(capFile), capture.Options{}, func(r *capture.Record) error {
		if r.Kind == capture.Frame {
			fmt.Println(r.Conn, r.Dir, capture.TimeString(r.Time), r.Frame.Header.Type, r.Frame.Header.SequenceID, string(r.JSON))
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// 10.0.0.1:51234>10.0.0.2:7000 c2s 2026-01-02T03:04:05.004000004Z INSTRUCTION 7 {"task":"sum","args":[1,2]}
	// <nil>
}
