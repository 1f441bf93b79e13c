package capture_test

import (
	"bytes"
	"fmt"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/kado"
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

// Leave the check of the frames' payloads to the caller (on workers, say:
// here in turn) with Options.LeaveJSON: the frames after a direction's
// first that a version byte follows come unchecked, and Record.Check
// checks each, turning a payload that is not JSON into the Problem Read
// would have given. With Options.Reopen (not set here) the frame at the end
// of the segment would come unchecked too, and a false from Check would ask
// for the capture to be read again.
func ExampleRecord_Check() {
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
	c.Handshake()
	seg := append(append(capturetest.Frame(kado.Instruction, 1, `{"n":1}`), capturetest.Frame(kado.Instruction, 2, `{"n":`)...), capturetest.Frame(kado.Instruction, 3, `{"n":3}`)...)
	c.Send(capturetest.C2S, 0, seg)
	capFile := b.Bytes()

	dec := kado.NewReader(nil, kado.ReaderOptions{})
	_, err := capture.Read(bytes.NewReader(capFile), capture.Options{LeaveJSON: true}, func(r *capture.Record) error {
		unchecked := r.Unchecked()
		if !r.Check(dec) {
			return fmt.Errorf("read the capture again")
		}
		switch r.Kind {
		case capture.Frame:
			fmt.Println("frame", r.Frame.Index, "unchecked:", unchecked, string(r.JSON))
		case capture.Problem:
			fmt.Println("problem, unchecked:", unchecked, r.Err)
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// frame 0 unchecked: false {"n":1}
	// problem, unchecked: true 10.0.0.1:51234>10.0.0.2:7000 c2s: frame 1 at byte 48: payload: not valid JSON at /n: unexpected end of input (byte 5 of the payload)
	// frame 2 unchecked: false {"n":3}
	// <nil>
}
