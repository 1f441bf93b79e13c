package mcpserve

import (
	"context"
	"strings"
	"testing"

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
