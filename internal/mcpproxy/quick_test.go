package mcpproxy

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// The answers Python's json module writes (testdata/answers.py: indented
// and compact texts, \u escapes and UTF-8, surrogate pairs, images and
// structuredContent beside the text, several texts, CRLF) are read by
// quickAnswer's one pass, as the decoder reads them.
func TestQuickAnswerTakesWhatProducersWrite(t *testing.T) {
	data, err := os.ReadFile("testdata/answers.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) < 18 {
		t.Fatalf("%d answers", len(lines))
	}
	rw, _ := NewRewriter(Options{})
	for i, msg := range lines {
		if _, ok := rw.quickAnswer(msg); !ok {
			t.Errorf("answer %d: left to the decoder: %.80q", i+1, msg)
			continue
		}
		sameAsDecoder(t, rw, msg)
	}
	// And a result on its own, as Result takes it.
	for _, msg := range lines[:4] {
		var r []byte
		quickMembers(msg, 0, func(name []byte, v int) (int, bool) {
			e := jsonv.SkipValue(msg, v)
			if string(name) == "result" {
				r = msg[v:e]
			}
			return e, true
		})
		if _, ok := rw.quickResultOnly(r); !ok {
			t.Errorf("Result's quick path left %.60q to the decoder", r)
		}
	}
}

// What quickAnswer leaves to the decoder: every message that is not a
// valid answer with a result object, and those it cannot read alone.
func TestQuickAnswerDeclines(t *testing.T) {
	rw, _ := NewRewriter(Options{})
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"result":[]}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","\u0069d":1,"result":{}}`,                                    // an escaped name
		`{"jsonrpc":"2.0","id":1,"result":{},"id":2}`,                                  // a name twice
		`{"id":1,"result":{"content":[{"type":"text","text":"a","text":"b"}]}}`,        // twice in a block
		`{"id":1,"result":{"content":[{"type":"text","text":"\ud800"}]}}`,              // a lone surrogate
		"{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\x01\"}]}}", // a control character
		"{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}}",  // not UTF-8
		`{"id":1,"result":{"content":[]}} {}`,                                          // more after it
		`{"id":1,"result":{"content":[1,]}}`,
		`{"id":01,"result":{}}`,
		`{"id":1,"result":{"content":[{"type":"text","text":"x"}]}`,
		`[{"id":1,"result":{}}]`,
	} {
		if q, ok := rw.quickAnswer([]byte(msg)); ok {
			t.Errorf("quickAnswer took %s: %+v", msg, q)
		}
	}
}

// sameAsDecoder fails t unless quickAnswer's reading of msg is
// decodeAnswer's: a valid answer, the same id, result and shape, and the
// texts unquoted as jsontext unquotes them.
func sameAsDecoder(t *testing.T, rw *Rewriter, msg []byte) {
	t.Helper()
	q, ok := rw.quickAnswer(msg)
	if !ok {
		return
	}
	a := decodeAnswer(msg)
	if !a.valid || !a.answer || a.shapeErr != nil {
		t.Fatalf("quickAnswer took what the decoder finds invalid or no answer (%+v):\n%q", a, msg)
	}
	a.result.start += bytes.IndexAny(msg[a.result.start:a.result.end], "{[\"tfn-0123456789")
	if q.id != a.id || q.result != a.result {
		t.Fatalf("quickAnswer: id %v result %v; the decoder: %v %v\n%q", q.id, q.result, a.id, a.result, msg)
	}
	raws := q.sh.raws
	q.sh.raws = nil
	if !reflect.DeepEqual(q.sh, a.sh) {
		t.Fatalf("quickAnswer's shape %+v, the decoder's %+v\n%q", q.sh, a.sh, msg)
	}
	for i, s := range a.sh.texts {
		want, err := jsontext.AppendUnquote(nil, s.of(msg))
		if err != nil || !bytes.Equal(raws[i], want) {
			t.Fatalf("text %d unquoted as %q, want %q (%v)", i, raws[i], want, err)
		}
	}
}

// FuzzQuickAnswer: where quickAnswer reads a message, it reads it as the
// decoder does (sameAsDecoder), and Result's quick path as Result's
// decoder.
func FuzzQuickAnswer(f *testing.F) {
	data, _ := os.ReadFile("testdata/answers.ndjson")
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) < 2000 { // the fuzzer's mutations of long ones go slowly
			f.Add(l)
		}
	}
	f.Add([]byte(result("1", rows, "")))
	f.Add([]byte(`{"id":1,"result":{"content":[{"type":"text","text":"[1]"},{"type":"image"}],"isError":true}}`))
	f.Add([]byte(`{"id":1,"result":{"content":{"type":"text"},"isError":1}}`))
	f.Add([]byte(`{"id":1,"result":{"tools":[{"name":"a","description":"x"}]}}`))
	f.Add([]byte(`{"id":1,"result":{"content":[{"text":"\ud83d\ude00","type":"text"}]},"x":[1,{"y":"}"}]}`))
	rw, _ := NewRewriter(Options{})
	f.Fuzz(func(t *testing.T, msg []byte) {
		sameAsDecoder(t, rw, msg)
		sh, ok := rw.quickResultOnly(msg)
		if !ok {
			return
		}
		var want shape
		d := jsontext.NewDecoder(bytes.NewReader(msg))
		if err := scanResult(d, &want); err != nil || !atEnd(d) {
			t.Fatalf("Result's quick path took what its decoder refuses (%v):\n%q", err, msg)
		}
		sh.raws = nil
		if !reflect.DeepEqual(sh, want) {
			t.Fatalf("Result's quick path: shape %+v, the decoder's %+v\n%q", sh, want, msg)
		}
	})
}
