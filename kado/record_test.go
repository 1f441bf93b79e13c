package kado

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestAppendRecord(t *testing.T) {
	h := Header{Version: 1, Type: Instruction, PayloadLength: 60, Timestamp: 1735689600123, SequenceID: 1}
	got := string(AppendRecord(nil, h, false, []byte(`{"instruction":"x"}`)))
	want := `{"header":{"version":1,"type":1,"typeName":"INSTRUCTION","payloadLength":60,"timestamp":1735689600123,"sequenceId":1,"compressed":false},"payload":{"instruction":"x"}}`
	if got != want {
		t.Fatalf("AppendRecord =\n%s\nwant\n%s", got, want)
	}
}

func TestParseRecord(t *testing.T) {
	rec, err := ParseRecord(jsontext.Value(`{"header":{"version":1,"type":4,"typeName":"STATUS","payloadLength":3,"timestamp":18446744073709551615,"sequenceId":4294967295,"compressed":true},"payload":{"status":"a","progress":1}}`))
	if err != nil || !rec.IsRecord {
		t.Fatalf("ParseRecord: %v %v", rec.IsRecord, err)
	}
	if *rec.Version != 1 || *rec.Type != Status || *rec.Timestamp != 18446744073709551615 || *rec.SequenceID != 4294967295 {
		t.Fatalf("fields %d %d %d %d", *rec.Version, *rec.Type, *rec.Timestamp, *rec.SequenceID)
	}
	if string(rec.Payload) != `{"status":"a","progress":1}` || rec.PayloadStart != 156 {
		t.Fatalf("payload %s at %d", rec.Payload, rec.PayloadStart)
	}
	// typeName alone names the type; missing fields stay nil.
	rec, err = ParseRecord(jsontext.Value(`{"payload":{},"header":{"typeName":"heartbeat"}}`))
	if err != nil || !rec.IsRecord || *rec.Type != Heartbeat || rec.Timestamp != nil || rec.SequenceID != nil || rec.Version != nil {
		t.Fatalf("typeName only: %+v %v", rec, err)
	}
	// Not records: bare payloads.
	for _, v := range []string{`{"instruction":"x"}`, `{"header":{}}`, `{"header":{},"payload":1,"x":2}`, `{"header":1,"payload":2}`, `[1]`, `"s"`} {
		rec, err := ParseRecord(jsontext.Value(v))
		if err != nil || rec.IsRecord || string(rec.Payload) != v {
			t.Errorf("ParseRecord(%s) = record %v, %v", v, rec.IsRecord, err)
		}
	}
}

func TestParseRecordErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{`{"header":{"type":9},"payload":{}}`, "/header/type: type must be a message type from 1 to 8, found 9"},
		{`{"header":{"type":0},"payload":{}}`, "/header/type: type must be a message type from 1 to 8, found 0"},
		{`{"header":{"sequenceId":4294967296},"payload":{}}`, "/header/sequenceId: sequenceId must be a whole number from 0 to 4294967295, found 4294967296"},
		{`{"header":{"timestamp":-1},"payload":{}}`, "/header/timestamp: timestamp must be a whole number of milliseconds from 0 to 18446744073709551615, found -1"},
		{`{"header":{"timestamp":1.5},"payload":{}}`, "/header/timestamp: timestamp must be a whole number of milliseconds from 0 to 18446744073709551615, found 1.5"},
		{`{"header":{"timestamp":1e3},"payload":{}}`, "/header/timestamp: timestamp must be a whole number of milliseconds from 0 to 18446744073709551615, found 1e3"},
		{`{"header":{"timestamp":18446744073709551616},"payload":{}}`, "/header/timestamp: timestamp must be a whole number of milliseconds from 0 to 18446744073709551615, found 18446744073709551616"},
		{`{"header":{"version":256},"payload":{}}`, "/header/version: version must be a whole number from 0 to 255, found 256"},
		{`{"header":{"sequenceID":1},"payload":{}}`, `/header/sequenceID: unknown header field "sequenceID" (known: version, type, typeName, payloadLength, timestamp, sequenceId, compressed, capture)`},
		{`{"header":{"type":1,"typeName":"STATUS"},"payload":{}}`, "/header/typeName: typeName STATUS disagrees with type 1 (INSTRUCTION)"},
		{`{"header":{"typeName":"PING"},"payload":{}}`, `/header/typeName: unknown message type "PING" (want a name such as tool_call, or a number 1-8)`},
	}
	for _, c := range cases {
		_, err := ParseRecord(jsontext.Value(c.in))
		var re *RecordError
		if !errors.As(err, &re) || err.Error() != c.msg {
			t.Errorf("ParseRecord(%s) err = %v\nwant %s", c.in, err, c.msg)
		}
	}
	_, err := ParseRecord(jsontext.Value(`{"header":{"type":9},"payload":{}}`))
	if re := err.(*RecordError); re.Offset != 18 {
		t.Errorf("offset %d, want 18", re.Offset)
	}
}

func TestInferType(t *testing.T) {
	good := map[string]MessageType{
		`{"instruction":"x"}`:                        Instruction,
		`{"toolName":"f","args":{}}`:                 ToolCall,
		`{"success":false}`:                          ToolResult,
		`{"success":true,"data":1,"duration":2}`:     ToolResult,
		`{"status":"s","progress":0.5}`:              Status,
		`{"code":"E","message":"m"}`:                 Error,
		`{}`:                                         Heartbeat,
		` { } `:                                      Heartbeat,
		`{"instruction":"x","context":{"code":"c"}}`: Instruction, // nested keys do not count
	}
	for in, want := range good {
		if got, err := InferType(jsontext.Value(in)); err != nil || got != want {
			t.Errorf("InferType(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		`{"type":"file","path":"p"}`:            "keys type and path fit both CONTEXT_REQUEST and CONTEXT_RESPONSE",
		`{"status":"s"}`:                        "no message type has the keys status",
		`{"toolName":"f"}`:                      "no message type has the keys toolName",
		`{"instruction":"x","success":true}`:    "the keys fit several message types: INSTRUCTION, TOOL_RESULT",
		`[1]`:                                   "the payload is not an object, so its type cannot be inferred",
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}`: "no message type has the keys a, b, c, d, e, ...",
	}
	for in, msg := range bad {
		if got, err := InferType(jsontext.Value(in)); err == nil || err.Error() != msg {
			t.Errorf("InferType(%s) = %v, %v; want error %q", in, got, err, msg)
		}
	}
}

// A capture as a table has flat rows; they read back as records.
func TestFlatRecord(t *testing.T) {
	h := Header{Version: 1, Type: ToolCall, PayloadLength: 39, Timestamp: 1735689600123, SequenceID: 7}
	payload := []byte(`{"toolName":"read","args":{"path":"a"}}`)
	flat := AppendFlatRecord([]byte("x"), h, false, payload)
	want := `x{"version":1,"type":2,"typeName":"TOOL_CALL","payloadLength":39,"timestamp":1735689600123,"sequenceId":7,"compressed":false,"payload":{"toolName":"read","args":{"path":"a"}}}`
	if string(flat) != want {
		t.Fatalf("AppendFlatRecord = %s", flat)
	}
	nested, ok := UnflattenRecord([]byte("y"), flat[1:])
	if !ok || string(nested) != "y"+string(AppendRecord(nil, h, false, payload)) {
		t.Fatalf("UnflattenRecord = %s, %v", nested, ok)
	}
	for _, v := range []string{`{"type":1,"payload":{}}`, `[1]`, `{"version":1,"type":2,"typeName":"X","payloadLength":1,"timestamp":1,"sequenceId":1,"compressed":false,"payload":{},"extra":1}`} {
		if out, ok := UnflattenRecord(nil, []byte(v)); ok || out != nil {
			t.Errorf("UnflattenRecord(%s) = %s, %v", v, out, ok)
		}
	}
}
