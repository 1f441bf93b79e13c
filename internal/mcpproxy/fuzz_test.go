package mcpproxy

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/toon"
)

// FuzzResult: no result makes the Rewriter panic; a result it does not
// rewrite comes back byte for byte; a rewritten one is JSON equal to the
// original but for text blocks whose JSON became TOON of the same value.
func FuzzResult(f *testing.F) {
	for _, s := range []string{
		`{"content": [{"type": "text", "text": ` + quote(rows) + `}]}`,
		`{"content": [{"type": "text", "text": "[1, 2, 3]"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}], "structuredContent": {"a": 1}}`,
		`{"content": [{"type": "text", "text": "{\"a\": {\"b\": [{\"c\": 1}, {\"c\": 2}]}}"}], "isError": false}`,
		`{"content": [{"type": "text", "text": "{\"a\": 1, \"a\": 2}"}]}`,
		`{"content": [{"type": "text", "text": "[\"\\ud800\"]"}]}`,
		`{"content": [{"type": "text", "text": ` + quote(`[{"x": "a,b", "y": "- item"}, {"x": "", "y": " lead"}]`) + `}]}`,
		`{"content": [], "isError": true}`,
		`{"content": {"type": "text"}}`,
		`[1]`, `{"content": [{"type": "text", "text": 1}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rw, err := NewRewriter(Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, call := rw.Result(in)
		if !call.Rewritten {
			if !bytes.Equal(out, in) {
				t.Fatalf("not rewritten, yet changed:\n%q\n%q", in, out)
			}
			return
		}
		var a, b map[string]any
		if err := json.Unmarshal(in, &a); err != nil {
			t.Fatalf("rewrote what is not JSON: %q", in)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("the rewrite is not JSON: %v\n%q", err, out)
		}
		ac, _ := a["content"].([]any)
		bc, _ := b["content"].([]any)
		if len(ac) != len(bc) {
			t.Fatalf("content changed length")
		}
		for i := range ac {
			x, _ := ac[i].(map[string]any)
			y, _ := bc[i].(map[string]any)
			xt, _ := x["text"].(string)
			yt, _ := y["text"].(string)
			if xt == yt {
				continue
			}
			var js bytes.Buffer
			if err := toon.ToJSON(&js, strings.NewReader(yt), toon.UnmarshalOptions{}); err != nil {
				t.Fatalf("a rewritten text is not TOON: %v\n%q", err, yt)
			}
			var xv, yv any
			json.Unmarshal([]byte(xt), &xv)
			if err := json.Unmarshal(js.Bytes(), &yv); err != nil || !reflect.DeepEqual(xv, yv) {
				t.Fatalf("TOON reads back as %s, want %s", js.Bytes(), xt)
			}
			y["text"] = xt
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("more than the texts changed:\n%q\n%q", in, out)
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzMessage: a message from the server, while a tools/call of id 1 and
// a tools/list of id 2 (--describe) wait for their answers. No message
// makes the Proxy panic; one that is not a response to them comes back
// byte for byte; one that is comes back as JSON.
func FuzzMessage(f *testing.F) {
	f.Add([]byte(result("1", rows, "")))
	f.Add([]byte(result(`"1"`, rows, "")))
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","description":"x"},{}]}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`))
	f.Add([]byte(`{"id":1,"result":{"content":[{"type":"text","text":"[1]"}]},"id":3}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		p, err := New(Options{Describe: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.fromClient([]byte(callLine("1", "t")))
		p.fromClient([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		in := bytes.Clone(msg)
		out := p.fromServer(msg)
		if !bytes.Equal(msg, in) {
			t.Fatal("the message was changed in place")
		}
		if bytes.Equal(out, in) {
			return
		}
		p.mu.Lock()
		_, one := p.pending["n1"]
		_, two := p.pending["n2"]
		p.mu.Unlock()
		if one && two {
			t.Fatalf("changed a message that answered neither request:\n%q\n%q", in, out)
		}
		if !json.Valid(out) {
			t.Fatalf("the rewrite is not JSON:\n%q\n%q", in, out)
		}
	})
}
