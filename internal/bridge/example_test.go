package bridge_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/internal/bridge"
	"github.com/toonkit/toonkit/internal/records"
)

// Chiffon messages converted to trace events on two workers: the workers
// map the messages, the ordered pass numbers each run's events (seq) and
// gives them in input order.
func ExampleConverter_Stream() {
	in := strings.NewReader(`{"type":"work_request","timestamp":"2026-01-19T04:21:04Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","from_agent":"orchestrator","payload":{"task_id":"t1","work_type":"run_playbook"}}
{"type":"error","timestamp":"2026-01-19T04:21:05Z","trace_id":"550e8400-e29b-41d4-a716-446655440002","from_agent":"infra","payload":{"error_code":5001,"error_message":"slow"}}
`)
	c, err := bridge.New(bridge.Options{From: bridge.Chiffon, To: bridge.Trace, Checked: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	rest, err := c.Stream(context.Background(), in, bridge.StreamOptions{Workers: 2},
		bridge.StreamHandler{Emit: func(msg []byte) error {
			fmt.Println(string(msg))
			return nil
		}})
	if err == nil && rest == nil {
		err = c.End()
	}
	fmt.Println(err, rest == nil)
	// Output:
	// {"seq":1,"t":"2026-01-19T04:21:04Z","actor":"system","type":"action_request","payload":{"action":"run_playbook","context":{"task_id":"t1"}},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440002","agent_id":0,"x_source":{"protocol":"chiffon","absent":["/to_agent","/protocol_version","/message_id","/request_id","/payload/parameters"]}}}
	// {"seq":2,"t":"2026-01-19T04:21:05Z","actor":"agent","type":"error","payload":{"error_type":"Timeout","message":"slow","code":"5001","details":{},"recoverable":true},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440002","agent_id":0,"x_source":{"protocol":"chiffon","fields":{"/from_agent":"infra"},"generated":["/payload/details"],"absent":["/to_agent","/protocol_version","/message_id","/request_id"]}}}
	// <nil> true
}

// An input's protocol, told by the fields of its first message.
func ExampleSourceProtocol() {
	in := strings.NewReader(`{"version":"0","type":"log","level":"info","message":"Starting"}` + "\n")
	src, err := records.NewSource(in, "tool.ndjson", records.SourceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := bridge.SourceProtocol(src, "", false)
	fmt.Println(p, err)
	// Output:
	// narratoria <nil>
}

// Two logs of Narratoria tool events converted to trace events as one
// run: the second input's events are numbered on from the first's.
func ExampleInputs() {
	in := &bridge.Inputs{Options: bridge.Options{To: bridge.Trace, Deterministic: true, RunID: "550e8400-e29b-41d4-a716-446655440002"}}
	snk := records.SinkFunc(func(ev []byte) error {
		fmt.Println(string(ev))
		return nil
	})
	for _, log := range []string{
		`{"version":"0","type":"log","level":"info","message":"Starting"}`,
		`{"version":"0","type":"done","ok":true}`,
	} {
		src, err := records.NewSource(strings.NewReader(log+"\n"), "tool.ndjson", records.SourceOptions{})
		if err == nil {
			err = in.Copy(context.Background(), src, snk, records.CopyOptions{})
		}
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// {"seq":1,"t":"1970-01-01T00:00:00.000Z","actor":"tool","type":"reasoning","payload":{"goal":"Starting","steps":[],"safety_checks":[],"uncertainty":"medium","context":{"level":"info"}},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440002","agent_id":0,"x_source":{"protocol":"narratoria","generated":["/meta/run_id","/t"]}}}
	// {"seq":2,"t":"1970-01-01T00:00:00.000Z","actor":"tool","type":"final_output","payload":{"text":"","structured":{"ok":true}},"meta":{"run_id":"550e8400-e29b-41d4-a716-446655440002","agent_id":0,"x_source":{"protocol":"narratoria","generated":["/meta/run_id","/t","/payload/text"]}}}
}
