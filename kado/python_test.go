package kado

import (
	"bytes"
	"io"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// pythonRecords is decode's NDJSON of n frames of every type: records with
// object, array, string and number payloads, non-ASCII text (which
// json.dumps escapes), and some bare payloads.
func pythonRecords(n int) []byte {
	var b []byte
	payloads := []string{
		`{"instruction":"Write unit tests for the UserService class","context":{"files":["a.ts","b.ts"],"depth":2}}`,
		`{"toolName":"file_patch","args":{"path":"src/x.ts","content":"line 1\nline \"2\"\tZürich 😀"}}`,
		`{"success":true,"data":[{"id":1,"score":93.5,"tags":[]},{"id":2,"score":-0.25,"tags":["a"]}],"duration":12}`,
		`["a",1,true,null,{"k":{}}]`,
		`"just a string"`,
	}
	for i := range n {
		p := payloads[i%len(payloads)]
		if i%7 == 6 {
			b = append(b, p...) // a bare payload
		} else {
			h := Header{Version: 1, Type: MessageType(1 + i%8), PayloadLength: uint32(len(p)), Timestamp: 1735689600000 + uint64(i), SequenceID: uint32(i)}
			b = AppendRecord(b, h, i%2 == 0, []byte(p))
		}
		b = append(b, '\n')
	}
	return b
}

// encodeFrames is the loop of encode --to binary: each value read,
// parsed as a record (or a bare payload), its payload compacted in place,
// and written as a frame. It counts the records the structural split
// refused (left to the decoder).
func encodeFrames(tb testing.TB, in []byte, out *bytes.Buffer) (slow int) {
	w := NewWriter(out, CompressAuto)
	jr := jsonv.NewReader(bytes.NewReader(in), jsonv.Options{})
	for seq := uint32(0); ; seq++ {
		v, _, err := jr.Next()
		if err == io.EOF {
			return slow
		}
		if err != nil {
			tb.Fatal(err)
		}
		if v.Kind() == '{' {
			if _, _, _, _, ok := splitRecord(v); !ok {
				slow++
			}
		}
		rec, err := ParseRecord(v)
		if err != nil {
			tb.Fatal(err)
		}
		h := Header{Version: 1, Type: Instruction, Timestamp: 1, SequenceID: seq}
		if rec.IsRecord {
			h = Header{Version: *rec.Version, Type: *rec.Type, Timestamp: *rec.Timestamp, SequenceID: *rec.SequenceID}
		}
		if _, err := w.WriteFrame(h, jsonv.CompactInPlace(rec.Payload)); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestPythonFormattedRecords: records as json.dumps writes them (", " and
// ": ", or indent=2 with CRLF) are split by the structural scan, not the
// decoder, and make the same frames as the same records compact, with no
// allocation more.
func TestPythonFormattedRecords(t *testing.T) {
	in := pythonRecords(40)
	for _, style := range pyjson.Styles {
		t.Run(style.Name, func(t *testing.T) {
			compact, py := pyjson.Pair(t, in, style)
			var want, got bytes.Buffer
			slowC, slowP := encodeFrames(t, compact, &want), encodeFrames(t, py, &got)
			if slowC != 0 || slowP != 0 {
				t.Errorf("the decoder split %d compact and %d Python-formatted records", slowC, slowP)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("the Python-formatted records make %d bytes of frames, the compact ones %d, not the same", got.Len(), want.Len())
			}
			allocs := func(text []byte) float64 {
				values := pyjson.Values(t, text, false)
				scratch := make([]byte, len(text))
				return testing.AllocsPerRun(5, func() {
					for _, v := range values {
						n := copy(scratch, v)
						rec, _ := ParseRecord(scratch[:n])
						jsonv.CompactInPlace(rec.Payload)
					}
				})
			}
			if a, b := allocs(py), allocs(compact); a != b {
				t.Errorf("%v allocations for the Python-formatted records, %v for the compact ones", a, b)
			}
		})
	}
}

// BenchmarkEncodeFormatting is encode --to binary's loop on the same
// records compact and as json.dumps writes them; MB/s of the NDJSON as
// written.
func BenchmarkEncodeFormatting(b *testing.B) {
	in := pythonRecords(2000)
	for _, t := range pyjson.Texts(b, in) {
		b.Run(t.Name, func(b *testing.B) {
			text := t.JSON
			buf := make([]byte, len(text))
			var out bytes.Buffer
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, text) // compacted in place: a fresh copy each time
				out.Reset()
				encodeFrames(b, buf, &out)
			}
			b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
