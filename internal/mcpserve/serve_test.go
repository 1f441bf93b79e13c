package mcpserve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := NewServer(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String(), res.IsError
}

// Each tool's answer, and its errors: toonkit's messages, with positions.
func TestTools(t *testing.T) {
	cs := connect(t, Options{MaxInput: 1 << 10, MaxOutput: 1 << 10})
	for _, c := range []struct {
		tool  string
		args  map[string]any
		want  string // the text, or a part of an error's
		isErr bool
	}{
		{"encode", map[string]any{"json": `{"a":[1,2,3]}`}, "a[3]: 1,2,3", false},
		{"encode", map[string]any{"json": `{"a":[1,2,3]}`, "delimiter": "pipe"}, "a[3|]: 1|2|3", false},
		{"encode", map[string]any{"json": `{"a":{"b":1}}`, "indent": 4}, "a:\n    b: 1", false},
		{"encode", map[string]any{"json": `{"a":`}, "json: 1:6: unexpected end of input", true},
		{"encode", map[string]any{"json": `{"a":1,"a":2}`}, "json: 1:8: duplicate object member name", true},
		{"encode", map[string]any{"json": `1 2`}, "1:3: a second value", true},
		{"encode", map[string]any{"json": `[1]`, "delimiter": "semicolon"}, "delimiter", true},
		{"encode", map[string]any{}, "json", true},
		{"encode", map[string]any{"json": "[" + strings.Repeat("1,", 600) + "1]"}, "json: 1203 bytes pass the limit of 1024", true},
		{"encode", map[string]any{"json": strings.Repeat(`{"a":`, 30) + "1" + strings.Repeat("}", 30), "indent": 16}, "output limit of 1024 bytes", true},
		{"decode", map[string]any{"toon": "a[3]: 1,2,3"}, `{"a":[1,2,3]}`, false},
		{"decode", map[string]any{"toon": "a[3]: 1,2"}, "toon: 1:", true},
		{"decode", map[string]any{"toon": "a[3]: 1,2", "strict": false}, `{"a":[1,2]}`, false},
		{"stats", map[string]any{"json": `[{"a":1,"b":2},{"a":3,"b":4}]`}, `"cheapest"`, false},
		{"stats", map[string]any{"json": `[1]`, "tokenizer": "gpt9"}, "tokenizer: unknown tokenizer", true},
		{"query", map[string]any{"filter": ".a[1]", "input": `{"a":[1,2,3]}`}, "2", false},
		{"query", map[string]any{"filter": ".a[]", "input": "a[2]: 1,2"}, "1\n2", false},
		{"query", map[string]any{"filter": ".a", "input": "{\"a\":1}\n{\"a\":2}"}, "1\n2", false},
		{"query", map[string]any{"filter": ".a |", "input": "{}"}, "filter:", true},
		{"query", map[string]any{"filter": ".", "input": `{"a":`}, "input: 1:6", true},
		{"validate", map[string]any{"input": "a[3]: 1,2"}, "input:1:", false},
		{"validate", map[string]any{"input": `{"a":1}`, "schema": `{"type":"object","required":["b"]}`}, "SCH", false},
		{"validate", map[string]any{"input": "b: 1", "schema": `{"type":"object","required":["b"]}`}, "valid: no findings", false},
		{"validate", map[string]any{"input": `{"a":1}`}, "as: say what the JSON is", true},
		{"validate", map[string]any{"input": `{"a":1}`, "schema": `{"type":`}, "schema:", true},
	} {
		got, isErr := call(t, cs, c.tool, c.args)
		if isErr != c.isErr || !strings.Contains(got, c.want) || !c.isErr && c.tool != "stats" && c.tool != "validate" && got != c.want {
			t.Errorf("%s %v: %q (error %v), want %q (error %v)", c.tool, c.args, got, isErr, c.want, c.isErr)
		}
	}
}

// The five tools are listed, each with an input schema.
func TestToolList(t *testing.T) {
	cs := connect(t, Options{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.Description == "" {
			t.Errorf("%s: no schema or description", tl.Name)
		}
	}
	if strings.Join(names, " ") != "decode encode query stats validate" {
		t.Errorf("tools %v", names)
	}
}

// serveSession runs the server over Transport on a session piped in, as
// `toonkit mcp serve < session` does, and returns what it wrote. A
// session that does not end fails the test after a minute.
func serveSession(t *testing.T, opts Options, session string) string {
	t.Helper()
	var out strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- NewServer(opts).Run(context.Background(), Transport(strings.NewReader(session), &out, 1<<20))
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the server did not end at the end of its input")
	}
	return out.String()
}

const initLines = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// Every request read before the input ends is answered, then the server
// ends: also when two requests share an id (which the SDK answers once),
// and when a request was cancelled.
func TestServeDrainsAtEOF(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"encode","arguments":{"json":"[1,2]"}}}` + "\n"
	out := serveSession(t, Options{}, initLines+call+call+`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"encode","arguments":{"json":"[3]"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`+"\n")
	if !strings.Contains(out, `"id":"init"`) || !strings.Contains(out, `"id":7`) {
		t.Errorf("answers:\n%s", out)
	}
}

// A validate call with a schema takes toon or json alone; decode's indent
// is 1 to 16; query tells a TOON root array from JSON; a long report is
// an error, not a result past --max-output.
func TestToolBounds(t *testing.T) {
	cs := connect(t, Options{MaxOutput: 200})
	for _, c := range []struct {
		tool  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"validate", map[string]any{"input": "a: 1", "as": "bogus", "schema": `{}`}, `as: with a schema, the input is toon or json, not "bogus"`, true},
		{"validate", map[string]any{"input": "a: 1", "as": "chiffon", "schema": `{}`}, `as: with a schema, the input is toon or json`, true},
		{"decode", map[string]any{"toon": "a: 1", "indent": -3}, "indent: must be from 1 to 16, found -3", true},
		{"decode", map[string]any{"toon": "a: 1", "indent": 99}, "indent: must be from 1 to 16, found 99", true},
		{"query", map[string]any{"filter": ".[1].b", "input": "[2]{a,b}:\n  1,x\n  2,y"}, `"y"`, false},
		{"query", map[string]any{"filter": "length", "input": "[3]: 1,2,3"}, "3", false},
		{"query", map[string]any{"filter": "length", "input": "[1,2]"}, "2", false},
		{"validate", map[string]any{"input": strings.Repeat("a[3]: 1,2\n", 20)}, "the result passes the output limit of 200 bytes", true},
		{"stats", map[string]any{"json": `[{"a":1}]`}, "the result passes the output limit of 200 bytes", true},
	} {
		got, isErr := call(t, cs, c.tool, c.args)
		if isErr != c.isErr || !strings.Contains(got, c.want) || !c.isErr && got != c.want {
			t.Errorf("%s %v: %q (error %v), want %q (error %v)", c.tool, c.args, got, isErr, c.want, c.isErr)
		}
	}
}
