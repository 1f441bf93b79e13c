package binary_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/pkg/codec/binary"
)

// EncodeStream makes a frame of each JSON value, on two workers here, in
// input order; a record keeps its own header fields, a bare payload has its
// type inferred and takes the running sequence id.
func ExampleEncodeStream() {
	in := strings.NewReader(`{"instruction": "Write unit tests"}
{"header": {"type": 4, "sequenceId": 100}, "payload": {"status": "running", "progress": 50}}
{"toolName": "read_file", "args": {"path": "a.go"}}
{"x": }
`)
	ts := uint64(1735689600123)
	var out bytes.Buffer
	next, err := binary.EncodeStream(context.Background(), in, binary.EncodeStreamOptions{Workers: 2, Seq: 7, Timestamp: &ts},
		binary.EncodeHandler{Write: func(p []byte) error { out.Write(p); return nil }})
	fmt.Println("error:", err)
	fmt.Println("next sequence id:", next)
	rd := binary.NewReader(&out, binary.ReaderOptions{})
	for {
		f, err := rd.Next()
		if err != nil {
			break
		}
		js, _ := rd.JSON(f)
		fmt.Printf("%s seq %d: %s\n", f.Header.Type, f.Header.SequenceID, js)
	}
	// Output:
	// error: 4:7: invalid character '}' at start of value (at /x)
	// next sequence id: 10
	// INSTRUCTION seq 7: {"instruction":"Write unit tests"}
	// STATUS seq 100: {"status":"running","progress":50}
	// TOOL_CALL seq 9: {"toolName":"read_file","args":{"path":"a.go"}}
}

// Each reads a stream frame by frame; with keepGoing a bad frame is
// reported and the reader moves on to the next plausible header.
func ExampleReader_Each() {
	var stream bytes.Buffer
	w := binary.NewWriter(&stream, binary.CompressNever)
	w.WriteFrame(binary.Header{Version: 1, Type: binary.Instruction, SequenceID: 1}, []byte(`{"instruction":"a"}`))
	stream.WriteString("junk")
	w.WriteFrame(binary.Header{Version: 1, Type: binary.Status, SequenceID: 2}, []byte(`{"status":"done","progress":100}`))

	r := binary.NewReader(&stream, binary.ReaderOptions{})
	err := r.Each(true, binary.FrameHandler{
		Good: func(f *binary.Frame, js []byte) error {
			fmt.Printf("frame %d: %s\n", f.Index, js)
			return nil
		},
		Bad: func(err error) error {
			fmt.Println("bad:", err)
			return nil
		},
		Moved: func(err error, m binary.Moved) {
			fmt.Printf("skipped %d bytes\n", m.Skipped)
		},
	})
	fmt.Println("end:", err)
	// Output:
	// frame 0: {"instruction":"a"}
	// bad: frame 1 at byte 37: version: expected 1, found 106 (0x6A 'j')
	// skipped 4 bytes
	// frame 2: {"status":"done","progress":100}
	// end: <nil>
}
