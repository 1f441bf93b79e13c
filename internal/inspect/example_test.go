package inspect_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/toonkit/toonkit/internal/inspect"
	"github.com/toonkit/toonkit/kado"
)

// Render checks a capture; here it writes only the summary, as JSON
// (without SummaryOnly: one object per frame first).
func ExampleRender() {
	var capture bytes.Buffer
	w := kado.NewWriter(&capture, kado.CompressNever)
	w.WriteFrame(kado.Header{Version: kado.Version, Type: kado.Instruction, Timestamp: 1735689600123, SequenceID: 1}, []byte(`{"instruction":"hi"}`))
	w.WriteFrame(kado.Header{Version: kado.Version, Type: kado.Heartbeat, Timestamp: 1735689600124, SequenceID: 2}, []byte(`{}`))
	sum, err := inspect.Render(os.Stdout, &capture, "capture.bin", inspect.Options{Format: inspect.JSON, SummaryOnly: true})
	fmt.Println(sum.Frames, sum.Valid, sum.Errors, err)
	// Output:
	// {"kind":"summary","files":1,"frames":2,"valid":2,"invalid":0,"cut":0,"compressed":0,"bytes":58,"bytesSkipped":0,"errors":0,"warnings":0,"types":{"INSTRUCTION":1,"HEARTBEAT":1},"checks":{}}
	// 2 2 0 <nil>
}
