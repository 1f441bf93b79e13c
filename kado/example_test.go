package kado_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/kado"
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
	next, err := kado.EncodeStream(context.Background(), in, kado.EncodeStreamOptions{Workers: 2, Seq: 7, Timestamp: &ts},
		kado.EncodeHandler{Write: func(p []byte) error { out.Write(p); return nil }})
	fmt.Println("error:", err)
	fmt.Println("next sequence id:", next)
	rd := kado.NewReader(&out, kado.ReaderOptions{})
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
	w := kado.NewWriter(&stream, kado.CompressNever)
	w.WriteFrame(kado.Header{Version: 1, Type: kado.Instruction, SequenceID: 1}, []byte(`{"instruction":"a"}`))
	stream.WriteString("junk")
	w.WriteFrame(kado.Header{Version: 1, Type: kado.Status, SequenceID: 2}, []byte(`{"status":"done","progress":100}`))

	r := kado.NewReader(&stream, kado.ReaderOptions{})
	err := r.Each(true, kado.FrameHandler{
		Good: func(f *kado.Frame, js []byte) error {
			fmt.Printf("frame %d: %s\n", f.Index, js)
			return nil
		},
		Bad: func(err error) error {
			fmt.Println("bad:", err)
			return nil
		},
		Moved: func(err error, m kado.Moved) {
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
