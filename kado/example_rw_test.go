package kado_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/kado"
)

// A Writer writes frames back to back; a Reader reads them back, each
// payload as compact JSON.
func ExampleWriter() {
	var stream bytes.Buffer
	w := kado.NewWriter(&stream, kado.CompressAuto)
	h, err := w.WriteFrame(kado.Header{Version: kado.Version, Type: kado.ToolCall, Timestamp: 1735689600123, SequenceID: 7}, []byte(`{"toolName":"ls","args":{}}`))
	fmt.Println(h.PayloadLength, err, stream.Len())

	r := kado.NewReader(&stream, kado.ReaderOptions{})
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		js, err := r.JSON(f)
		fmt.Println(f.Header.Type, f.Header.SequenceID, string(js), err)
	}
	// Output:
	// 27 <nil> 45
	// TOOL_CALL 7 {"toolName":"ls","args":{}} <nil>
}

// A frame that breaks a rule is a *FrameError that names the field.
func ExampleFrameError() {
	bad := append(kado.AppendHeader(nil, kado.Header{Version: 2, Type: kado.Status, PayloadLength: 2}), "{}"...)
	_, err := kado.NewReader(bytes.NewReader(bad), kado.ReaderOptions{}).Next()
	fmt.Println(kado.IsFrameError(err))
	fmt.Println(err)
	// Output:
	// true
	// frame 0 at byte 0: version: expected 1, found 2 (0x02)
}
