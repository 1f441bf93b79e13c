package mcpproxy

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The summary of two sessions' logs is the sums of their calls, by tool;
// a line that is not the proxy's is an error with its line number.
func TestSummary(t *testing.T) {
	var logs bytes.Buffer
	for range 2 {
		p, _ := New(Options{}, &logs)
		client := callLine("1", "orders") + callLine("2", "fails")
		script := result("1", rows, "") + result("2", rows, `, "isError": true`)
		upR, upW := io.Pipe()
		downR, downW := io.Pipe()
		go func() {
			io.ReadAll(upR)
			downW.Write([]byte(script))
			downW.Close()
		}()
		p.Run(strings.NewReader(client), upW, downR, &bytes.Buffer{})
	}
	var s Summary
	if err := s.Add(bytes.NewReader(logs.Bytes()), "proxy.log"); err != nil {
		t.Fatal(err)
	}
	if s.Sessions != 2 || len(s.Tools) != 2 || s.All.Calls != 4 || s.All.Rewritten != 2 {
		t.Fatalf("%+v", s)
	}
	o, f := s.Tools[0], s.Tools[1]
	if o.Tool != "orders" || o.Calls != 2 || o.After.Tokens >= o.Before.Tokens || f.Tool != "fails" || f.Before != f.After || f.Saved != 0 {
		t.Errorf("tools %+v", s.Tools)
	}
	if s.All.Before.Tokens != o.Before.Tokens+f.Before.Tokens || s.All.Saved <= 0 {
		t.Errorf("all %+v", s.All)
	}
	var text bytes.Buffer
	s.WriteText(&text)
	if lines := strings.Split(strings.TrimSpace(text.String()), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[3], "all (2 sessions)") {
		t.Errorf("table:\n%s", text.String())
	}
	for _, bad := range []string{`{"x":1}`, `not json`, `{"event":"start"}`} {
		err := (&Summary{}).Add(strings.NewReader(logs.String()+bad+"\n"), "proxy.log")
		if err == nil || !strings.HasPrefix(err.Error(), "proxy.log:7: ") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
