package toon

import (
	"bytes"
	"io"
	"testing"

	"github.com/toonkit/toonkit/internal/pyjson"
)

// TestPythonFormattedDocuments: documents as json.dumps writes them (", "
// and ": ", or indent=2 with CRLF) encode to the same TOON as the same
// documents compact; a table of primitives takes the one-pass form
// (EncodeTable) however it is written.
func TestPythonFormattedDocuments(t *testing.T) {
	docs := map[string]bool{ // the document, and whether it is a table of primitives
		string(encodeBenchRecords(50, false)): true,
		string(encodeBenchRecords(50, true)):  false,
		`[{"id":1,"name":"Zoë \"Z\" Ünal","note":"a, b\nc\t😀","n":null,"ok":true,"x":-1.5e+300}]`:        true,
		`{"users":[{"id":1,"tags":["a","b"]},{"id":2,"tags":[]}],"meta":{"count":2,"next":null},"e":{}}`: false,
	}
	for _, style := range pyjson.Styles {
		t.Run(style.Name, func(t *testing.T) {
			for doc, table := range docs {
				compact, py := pyjson.Pair(t, []byte(doc), style)
				var want, got bytes.Buffer
				if err := FromJSON(&want, compact, MarshalOptions{}); err != nil {
					t.Fatal(err)
				}
				if err := FromJSON(&got, py, MarshalOptions{}); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Fatalf("%.80s: Python-formatted:\n%s\ncompact:\n%s", py, got.String(), want.String())
				}
				took, err := encodeTable(io.Discard, py, MarshalOptions{}.encodeOptions())
				if err != nil || took != table {
					t.Errorf("%.80s: EncodeTable took it %v (%v), want %v", py, took, err, table)
				}
			}
		})
	}
}

// BenchmarkEncodeFormatting encodes the same ~2 MB documents (a table of
// primitives, and a list) compact and as json.dumps writes them; MB/s of
// the JSON as written.
func BenchmarkEncodeFormatting(b *testing.B) {
	for _, doc := range []struct {
		name string
		json []byte
	}{{"table", encodeBenchRecords(20000, false)}, {"list", encodeBenchRecords(15000, true)}} {
		for _, t := range pyjson.Texts(b, doc.json) {
			b.Run(doc.name+"/"+t.Name, func(b *testing.B) { runEncodeBench(b, t.JSON) })
		}
	}
}
