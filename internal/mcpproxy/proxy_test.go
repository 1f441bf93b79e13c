package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/toon"
)

// session runs a Proxy between a client that sends client and a server
// that reads all of it, then answers with script: what the server read,
// what the client got, and the log. The server answers only once the
// client is done, so that the requests are known when the answers come.
func session(t *testing.T, opts Options, maxMessage int, client, script string) (toServer, toClient string, log []map[string]any) {
	t.Helper()
	var logBuf bytes.Buffer
	p, err := New(opts, &logBuf)
	if err != nil {
		t.Fatal(err)
	}
	if maxMessage > 0 {
		p.maxMessage = maxMessage
	}
	upR, upW := io.Pipe()
	downR, downW := io.Pipe()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(upR)
		got <- string(b)
		io.WriteString(downW, script)
		downW.Close()
	}()
	var out bytes.Buffer
	if err := p.Run(strings.NewReader(client), upW, downR, &out); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		log = append(log, m)
	}
	return <-got, out.String(), log
}

const rows = `{"orders": [{"id": 1, "customer": "Ada", "total": 42.5}, {"id": 2, "customer": "Grace", "total": 17.0}, {"id": 3, "customer": "Linus", "total": 99.99}]}`

func callLine(id, tool string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}` + "\n"
}

func result(id, text string, extra string) string {
	q, _ := json.Marshal(text)
	return `{"jsonrpc": "2.0", "id": ` + id + `, "result": {"content": [{"type": "text", "text": ` + string(q) + `}]` + extra + `}}` + "\n"
}

// Everything but the results of the client's tools/call requests goes on
// byte for byte, in order; those results' JSON text becomes TOON that
// decodes to the same value, and the rest of them stays.
func TestProxyRewritesOnlyToolResults(t *testing.T) {
	client := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		callLine("3", "orders") +
		callLine(`"s"`, "orders") +
		callLine("4", "fails") +
		callLine("5", "broken") +
		callLine("6", "plain") +
		`{"jsonrpc":"2.0","id":"srv-1","result":{"role":"assistant","content":{"type":"text","text":"{\"a\": 1}"}}}` + "\n" + // the client's answer to a sampling request
		`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\r\n" +
		"not json at all\n" +
		`[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]` + "\n" +
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"orders"}}` // no final newline
	structured := `, "structuredContent": ` + rows
	script := `{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}}` + "\n" +
		`{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 3, "progress": 1, "message": "{\"a\": [1, 2]}"}}` + "\n" +
		`{"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "{\"x\": [1, 2, 3]}"}}]}}` + "\n" + // the server's request, id 3 of its own
		result("3", rows, structured) +
		result(`"s"`, rows, `, "_meta": {"k": [1, 2]}`) +
		result("4", rows, `, "isError": true`) +
		`{"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "{\"bad\": true}"}}` + "\n" +
		result("6", "not JSON: {", "") +
		result("99", rows, "") + // no request of that id
		"garbage\n" +
		`{"jsonrpc": "2.0", "id": 7, "result": {}}` + "\r\n" +
		result("9", rows, "")
	up, down, log := session(t, Options{}, 0, client, script)
	if up != client {
		t.Errorf("the server read\n%q\nwant\n%q", up, client)
	}
	gotLines := strings.SplitAfter(down, "\n")
	wantLines := strings.SplitAfter(script, "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("the client got %d lines, want %d:\n%s", len(gotLines), len(wantLines), down)
	}
	rewritten := map[int]bool{3: true, 4: true, 11: true} // the lines of ids 3, "s" and 9
	for i := range wantLines {
		if !rewritten[i] {
			if gotLines[i] != wantLines[i] {
				t.Errorf("line %d changed:\n%q\nwant\n%q", i, gotLines[i], wantLines[i])
			}
			continue
		}
		checkRewrite(t, wantLines[i], gotLines[i])
	}
	// One log line per tools/call answered, then the totals.
	if len(log) != 7 {
		t.Fatalf("%d log lines, want 7: %v", len(log), log)
	}
	for i, want := range []struct {
		tool      string
		rewritten bool
	}{{"orders", true}, {"orders", true}, {"fails", false}, {"broken", false}, {"plain", false}, {"orders", true}} {
		if log[i]["tool"] != want.tool || log[i]["rewritten"] != want.rewritten {
			t.Errorf("log line %d: %v, want tool %s, rewritten %v", i, log[i], want.tool, want.rewritten)
		}
	}
	if tot := log[6]; tot["event"] != "total" || tot["calls"] != 6.0 || tot["rewritten"] != 3.0 {
		t.Errorf("totals %v", tot)
	}
}

// checkRewrite checks that got is want with each text block's JSON
// rewritten as TOON of the same value, all else the same.
func checkRewrite(t *testing.T, want, got string) {
	t.Helper()
	var w, g map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	wc := w["result"].(map[string]any)["content"].([]any)
	gc := g["result"].(map[string]any)["content"].([]any)
	for i := range wc {
		wt, gt := wc[i].(map[string]any)["text"].(string), gc[i].(map[string]any)["text"].(string)
		if wt == gt {
			t.Errorf("text %d not rewritten: %s", i, got)
			continue
		}
		var js bytes.Buffer
		if err := toon.ToJSON(&js, strings.NewReader(gt), toon.UnmarshalOptions{}); err != nil {
			t.Fatalf("the rewrite is no TOON: %v\n%s", err, gt)
		}
		var wv, gv any
		json.Unmarshal([]byte(wt), &wv)
		json.Unmarshal(js.Bytes(), &gv)
		if !reflect.DeepEqual(wv, gv) {
			t.Errorf("the TOON reads back as %s, want %s", js.Bytes(), wt)
		}
		gc[i].(map[string]any)["text"] = wt
	}
	if !reflect.DeepEqual(w, g) {
		t.Errorf("the rest of the message changed:\n%s\nwant\n%s", got, want)
	}
	// Bytes outside the text kept: the same members in the same order.
	if strings.Count(got, `"`) < strings.Count(want, `"`)-strings.Count(want, `\"`) {
		t.Errorf("members lost: %s", got)
	}
}

// A message longer than the Proxy holds goes on as it comes, untouched,
// and the ones after it are read as before.
func TestProxyPassesLongMessages(t *testing.T) {
	client := callLine("1", "big") + callLine("2", "small")
	big := result("1", `{"pad": "`+strings.Repeat("x", 200<<10)+`", "rows": [1, 2, 3]}`, "")
	script := big + result("2", rows, "")
	_, down, log := session(t, Options{}, 100<<10, client, script)
	lines := strings.SplitAfter(down, "\n")
	if len(lines) != 3 || lines[0] != big {
		t.Fatalf("the long message changed (%d lines)", len(lines))
	}
	checkRewrite(t, result("2", rows, ""), lines[1])
	// The long one is logged as left alone: the id came before it was
	// too long.
	if len(log) != 3 || log[0]["tool"] != "big" || log[0]["rewritten"] != false || !strings.Contains(fmt.Sprint(log[0]["why"]), "over 102400 bytes") || log[1]["tool"] != "small" {
		t.Errorf("log %v: want the big call left alone, the small one, then the totals", log)
	}
}

// Ids that differ are told apart, though the SDK's jsonrpc.ID would make
// 1.5 and 1 the same; a number's way of writing does not matter.
func TestProxyIDsKeptApart(t *testing.T) {
	client := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{}}` + "\n" +
		callLine("1.5", "a") +
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"resources/read","params":{}}` + "\n" +
		callLine("9007199254740992", "b") +
		callLine(`"1"`, "c") +
		callLine("20", "d")
	notMine := result("1", rows, "") + result("9007199254740993", rows, "")
	script := notMine + result("1.5", rows, "") + result("9007199254740992", rows, "") + result(`"1"`, rows, "") + result("2.0e1", rows, "")
	_, down, log := session(t, Options{}, 0, client, script)
	lines := strings.SplitAfter(down, "\n")
	if got := lines[0] + lines[1]; got != notMine {
		t.Errorf("answers to other requests changed:\n%s", got)
	}
	for i, id := range []string{"1.5", "9007199254740992", `"1"`, "2.0e1"} {
		checkRewrite(t, result(id, rows, ""), lines[2+i])
	}
	if len(log) != 5 || log[0]["tool"] != "a" || log[1]["tool"] != "b" || log[2]["tool"] != "c" || log[3]["tool"] != "d" {
		t.Errorf("log %v", log)
	}
}

// A broken answer goes on as it came; its call is logged and forgotten.
func TestProxyBrokenAnswer(t *testing.T) {
	client := callLine("1", "broken")
	script := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"a\": 1}"}]}` + "\n" +
		result("1", rows, "") // a second answer: no request waits for it
	_, down, log := session(t, Options{}, 0, client, script)
	if down != script {
		t.Errorf("got\n%s\nwant\n%s", down, script)
	}
	if len(log) != 2 || log[0]["why"] != "not valid JSON" || log[1]["calls"] != 1.0 {
		t.Errorf("log %v", log)
	}
}

// An answer with more after its value on the line (a second value, a
// stray bracket) is no JSON-RPC message: it goes on as it came, logged as
// not valid JSON. (FuzzMessage found the first: `{...}0` was rewritten.)
func TestProxyTrailingData(t *testing.T) {
	for _, tail := range []string{"0", ` {"a":1}`, "]", "}", `"x"`} {
		client := callLine("1", "t")
		answer := strings.TrimSuffix(result("1", rows, ""), "\n") + tail + "\n"
		_, down, log := session(t, Options{}, 0, client, answer)
		if down != answer {
			t.Errorf("%q after the value: got\n%s\nwant\n%s", tail, down, answer)
		}
		if len(log) != 2 || log[0]["why"] != "not valid JSON" || log[0]["rewritten"] != false {
			t.Errorf("%q after the value: log %v", tail, log)
		}
	}
	rw, _ := NewRewriter(Options{})
	res := `{"content":[{"type":"text","text":"{\"a\": [1, 2, 3]}"}]}`
	for _, tail := range []string{"", " \r\n"} {
		if _, call := rw.Result([]byte(res + tail)); !call.Rewritten {
			t.Errorf("Result with %q after it: %+v", tail, call)
		}
	}
	for _, tail := range []string{"]", "0", "{}"} {
		if out, call := rw.Result([]byte(res + tail)); call.Rewritten || string(out) != res+tail {
			t.Errorf("Result with %q after it: rewritten %+v", tail, call)
		}
	}
}

// Python writes NaN and Infinity in what it calls JSON; TOON has no such
// numbers (they would become null): such a text stays as it is.
func TestProxyLeavesNonFinite(t *testing.T) {
	for _, among := range [][]string{nil, {"toon-comma", "toon-tab"}} {
		client := callLine("1", "py")
		script := result("1", `{"rows": [{"x": 1.5, "y": NaN}, {"x": Infinity, "y": -Infinity}]}`, "")
		_, down, log := session(t, Options{Among: among}, 0, client, script)
		if down != script || log[0]["rewritten"] != false {
			t.Errorf("among %v: got\n%s\nlog %v", among, down, log[0])
		}
	}
}

// The rewrite needs the saving asked for; below it the result stays, and
// the log says why.
func TestProxyMinSaving(t *testing.T) {
	client := callLine("1", "orders")
	script := result("1", rows, "")
	_, down, log := session(t, Options{MinSaving: 99}, 0, client, script)
	if down != script {
		t.Errorf("rewritten under --min-saving 99:\n%s", down)
	}
	if log[0]["rewritten"] != false || !strings.Contains(fmt.Sprint(log[0]["why"]), "toon-comma would take") {
		t.Errorf("log %v", log[0])
	}
	_, down, log = session(t, Options{MinSaving: 30}, 0, client, script)
	if down == script || log[0]["rewritten"] != true {
		t.Errorf("not rewritten under --min-saving 30: %v", log[0])
	}
}

// --to cheapest takes the form with the fewest tokens among those asked.
func TestProxyCheapest(t *testing.T) {
	client := callLine("1", "orders")
	script := result("1", rows, "")
	_, down, log := session(t, Options{Among: []string{"json", "toon-comma", "toon-tab", "toon-pipe"}}, 0, client, script)
	choice := fmt.Sprint(log[0]["choice"])
	if !strings.HasPrefix(choice, "toon-") && choice != "json" {
		t.Fatalf("choice %q", choice)
	}
	checkRewrite(t, script, strings.TrimSuffix(down, "\n")+"\n")
}

// --describe adds one line to each tool's description, or gives one to
// a tool that has none.
func TestProxyDescribe(t *testing.T) {
	client := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	script := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","description":"Finds \"things\"."},{"name":"b","inputSchema":{}}],"nextCursor":"x"}}` + "\n"
	_, down, _ := session(t, Options{Describe: true}, 0, client, script)
	want := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","description":"Finds \"things\".\n` + DescribeLine + `"},{"name":"b","inputSchema":{},"description":"` + DescribeLine + `"}],"nextCursor":"x"}}` + "\n"
	if down != want {
		t.Errorf("got\n%s\nwant\n%s", down, want)
	}
	_, down, _ = session(t, Options{}, 0, client, script)
	if down != script {
		t.Errorf("changed without --describe:\n%s", down)
	}
}

// A cancelled request is forgotten: its late answer goes on as it is.
func TestProxyCancelled(t *testing.T) {
	client := callLine("7", "slow") + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}` + "\n"
	script := result("7", rows, "")
	_, down, log := session(t, Options{}, 0, client, script)
	if down != script || len(log) != 1 {
		t.Errorf("a cancelled call's answer: %s, log %v", down, log)
	}
}
