package convert

import (
	"bytes"
	"testing"

	"github.com/toonkit/toonkit/kado"
)

// appendOutput writes decode's record of a frame, or its payload, as an
// NDJSON line or bare (an element of decode's -o FILE.json array).
func TestAppendOutput(t *testing.T) {
	var buf bytes.Buffer
	if _, err := kado.NewWriter(&buf, kado.CompressNever).WriteFrame(kado.Header{Version: 1, Type: kado.Status, Timestamp: 7, SequenceID: 2}, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	rd := kado.NewReader(&buf, kado.ReaderOptions{})
	f, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	js, err := rd.JSON(f)
	if err != nil {
		t.Fatal(err)
	}
	rec := `{"header":{"version":1,"type":4,"typeName":"STATUS","payloadLength":7,"timestamp":7,"sequenceId":2,"compressed":false},"payload":{"a":1}}`
	for _, c := range []struct {
		payload, line bool
		want          string
	}{
		{false, false, rec},
		{false, true, rec + "\n"},
		{true, false, `{"a":1}`},
		{true, true, `{"a":1}` + "\n"},
	} {
		if got := string(appendOutput([]byte("x"), f, js, c.payload, c.line)); got != "x"+c.want {
			t.Errorf("payload %v, line %v: %s, want x%s", c.payload, c.line, got, c.want)
		}
	}
}
