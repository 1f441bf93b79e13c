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
