package jsonv_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// The Checker's one pass vouches on its own for JSON as producers write
// it, compact and as Python's json.dumps writes it (", ", indented, CRLF,
// non-ASCII kept or escaped), with the compact prefix of compactPrefix:
// otherwise every such value would be read twice (the speed of decode).
func TestCheckerTakesWhatProducersWrite(t *testing.T) {
	in := producerRecords(50, "")
	texts := []struct {
		name string
		json []byte
	}{{"compact", in}, {"ascii", pyjson.Dumps(t, in)}, {"no-ascii", pyjson.Dumps(t, in, "--no-ascii")}}
	for _, s := range pyjson.Styles {
		texts = append(texts, struct {
			name string
			json []byte
		}{s.Name, pyjson.Dumps(t, in, s.Flags...)})
	}
	var c jsonv.Checker
	for _, text := range texts {
		values := pyjson.Values(t, text.json, false)
		if len(values) != 50 {
			t.Fatalf("%s: %d values", text.name, len(values))
		}
		for _, v := range values {
			k, ok := c.Scan(v)
			if !ok {
				t.Fatalf("%s: the one pass did not vouch for %.80s...", text.name, v)
			}
			if p := jsonv.CompactPrefix(v); k != p {
				t.Fatalf("%s: compact prefix %d, compactPrefix %d, of %.80s...", text.name, k, p, v)
			}
			got, err := c.Compacted(nil, v)
			if want := jsonv.Compacted(nil, v); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: Compacted = %.80s..., %v; want %.80s...", text.name, got, err, want)
			}
		}
	}
}

// producerRecords is n NDJSON records of every shape producers write,
// record i with i members more than the first; more is added to the text
// of each.
func producerRecords(n int, more string) []byte {
	var nd strings.Builder
	for i := range n {
		fmt.Fprintf(&nd, `{"id":%d,"name":"user \"%d\"","text":"Ελληνικά naïve 😀 line\nnext\ttab \\ back%s","score":%d.5e-3,"ok":%t,"none":null,"tags":["a","b",{"deep":[[],{}]}]`, i, i, more, i, i%2 == 0)
		for j := range i {
			fmt.Fprintf(&nd, `,"m%d":%d`, j, -j)
		}
		nd.WriteString("}\n")
	}
	return []byte(nd.String())
}
