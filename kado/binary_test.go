package kado

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHeaderLayout(t *testing.T) {
	h := Header{Version: 1, Type: ToolCall, PayloadLength: 0x04030201, Timestamp: 0x0807060504030201, SequenceID: 0xDDCCBBAA}
	got := AppendHeader(nil, h)
	want := unhex(t, "01 02 01020304 0102030405060708 AABBCCDD")
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendHeader = % x, want % x", got, want)
	}
	if len(got) != HeaderSize {
		t.Fatalf("header size %d", len(got))
	}
	if back := ParseHeader(got); back != h {
		t.Fatalf("ParseHeader = %+v, want %+v", back, h)
	}
}

func TestTimestampKeepsAll64Bits(t *testing.T) {
	// 2^53+1 cannot pass through a float64; the maximum uint64 neither.
	for _, ts := range []uint64{1<<53 + 1, math.MaxUint64, 1735689600123} {
		h := ParseHeader(AppendHeader(nil, Header{Version: 1, Type: Heartbeat, Timestamp: ts}))
		if h.Timestamp != ts {
			t.Errorf("timestamp %d came back as %d", ts, h.Timestamp)
		}
	}
}

func TestMessageTypes(t *testing.T) {
	names := map[MessageType]string{1: "INSTRUCTION", 2: "TOOL_CALL", 3: "TOOL_RESULT", 4: "STATUS",
		5: "ERROR", 6: "HEARTBEAT", 7: "CONTEXT_REQUEST", 8: "CONTEXT_RESPONSE"}
	for typ, name := range names {
		if typ.String() != name || !typ.Valid() {
			t.Errorf("%d: String %q Valid %v", typ, typ.String(), typ.Valid())
		}
	}
	for _, bad := range []MessageType{0, 9, 0xFF} {
		if bad.Valid() {
			t.Errorf("%d is valid", bad)
		}
	}
	if got := MessageType(0x2A).String(); got != "UNKNOWN(0x2A)" {
		t.Errorf("String = %q", got)
	}
}

func TestParseMessageType(t *testing.T) {
	good := map[string]MessageType{
		"instruction": Instruction, "INSTRUCTION": Instruction, "tool_call": ToolCall, "Tool-Call": ToolCall,
		"tool-result": ToolResult, "status": Status, "error": Error, "heartbeat": Heartbeat,
		"context_request": ContextRequest, "CONTEXT-RESPONSE": ContextResponse,
		"1": Instruction, "8": ContextResponse, "0x02": ToolCall, "0x08": ContextResponse, "0X3": ToolResult,
		" 4 ": Status, "05": Error, // decimal, never octal
	}
	for in, want := range good {
		got, err := ParseMessageType(in)
		if err != nil || got != want {
			t.Errorf("ParseMessageType(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "9", "0x09", "256", "-1", "toolcall", "tool call", "1.0", "010", "0b11", "0o7"} {
		if got, err := ParseMessageType(in); err == nil {
			t.Errorf("ParseMessageType(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseSequenceID(t *testing.T) {
	for in, want := range map[string]uint32{"0": 0, "1": 1, "100": 100, "4294967295": 4294967295} {
		if got, err := ParseSequenceID(in); err != nil || got != want {
			t.Errorf("ParseSequenceID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "4294967296", "1.0", "0x10", " 1", "1e3"} {
		if got, err := ParseSequenceID(in); err == nil || !strings.Contains(err.Error(), "0 to 4294967295") {
			t.Errorf("ParseSequenceID(%q) = %d, %v; want an error giving the range", in, got, err)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	good := map[string]uint64{
		"0": 0, "1735689600123": 1735689600123, "18446744073709551615": 1<<64 - 1,
		"2025-01-01T00:00:00.123Z": 1735689600123, "2025-01-01T01:00:00+01:00": 1735689600000, "1970-01-01T00:00:00Z": 0,
	}
	for in, want := range good {
		if got, err := ParseTimestamp(in); err != nil || got != want {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"-1": "RFC 3339", "18446744073709551616": "RFC 3339", "2025-01-01": "RFC 3339", "soon": "RFC 3339",
		"1969-12-31T23:59:59Z": "before 1970", "2025-01-01T00:00:00.0001Z": "below the millisecond",
	}
	for in, why := range bad {
		if got, err := ParseTimestamp(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want an error saying %q", in, got, err, why)
		}
	}
}

func TestRLECases(t *testing.T) {
	rep := func(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }
	cases := []struct {
		name     string
		in, body []byte
	}{
		{"empty", nil, nil},
		{"short runs verbatim", []byte("aabbbc"), []byte("aabbbc")},
		{"run of 4", rep('A', 4), unhex(t, "FF 41 04")},
		{"run of 3 verbatim", rep('A', 3), []byte("AAA")},
		{"255", rep('A', 255), unhex(t, "FF 41 FF")},
		{"256", rep('A', 256), unhex(t, "FF 41 FF 41")},
		{"258", rep('A', 258), unhex(t, "FF 41 FF 41 41 41")},
		{"259", rep('A', 259), unhex(t, "FF 41 FF FF 41 04")},
		{"510", rep('A', 510), unhex(t, "FF 41 FF FF 41 FF")},
		{"lone FF", []byte{0xFF}, unhex(t, "FF FF 01")},
		{"three FF", rep(0xFF, 3), unhex(t, "FF FF 03")},
		{"256 FF", rep(0xFF, 256), unhex(t, "FF FF FF FF FF 01")},
		{"FF between", []byte{'a', 0xFF, 'b'}, unhex(t, "61 FF FF 01 62")},
		{"zero bytes", rep(0, 5), unhex(t, "FF 00 05")},
		{"mixed", append(append([]byte("x"), rep(' ', 10)...), 'y'), unhex(t, "78 FF 20 0A 79")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := AppendRLE(nil, c.in)
			if !bytes.Equal(got, c.body) {
				t.Fatalf("AppendRLE = % X, want % X", got, c.body)
			}
			back, err := AppendUnRLE(nil, got, 0)
			if err != nil || !bytes.Equal(back, c.in) {
				t.Fatalf("AppendUnRLE = % X, %v; want % X", back, err, c.in)
			}
		})
	}
}

func TestUnRLELenient(t *testing.T) {
	cases := []struct {
		name     string
		body     []byte
		want     []byte
		oddities []RLEOddity
	}{
		{"zero count gives nothing", unhex(t, "61 FF 41 00 62"), []byte("ab"), []RLEOddity{{1, "zero count"}}},
		{"FF at the end is literal", unhex(t, "61 FF"), unhex(t, "61 FF"), []RLEOddity{{1, "truncated escape"}}},
		{"FF and one byte at the end are literal", unhex(t, "61 FF 41"), unhex(t, "61 FF 41"), []RLEOddity{{1, "truncated escape"}}},
		{"plain", []byte("abc"), []byte("abc"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AppendUnRLE(nil, c.body, 0)
			if err != nil || !bytes.Equal(got, c.want) {
				t.Fatalf("AppendUnRLE = % X, %v; want % X", got, err, c.want)
			}
			if diff := cmp.Diff(c.oddities, RLEOddities(c.body)); diff != "" {
				t.Fatalf("RLEOddities (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnRLELimit(t *testing.T) {
	bomb := bytes.Repeat(unhex(t, "FF 41 FF"), 1000) // 255000 bytes out of 3000
	if _, err := AppendUnRLE(nil, bomb, 100000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if out, err := AppendUnRLE(nil, bomb, 255000); err != nil || len(out) != 255000 {
		t.Fatalf("at the limit: len %d, %v", len(out), err)
	}
	if _, err := AppendUnRLE(nil, []byte("abcdef"), 5); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("literal tail over the limit: err = %v", err)
	}
}

func TestAppendPayloadCompression(t *testing.T) {
	small := []byte(`{"instruction":"` + strings.Repeat(" ", 900) + `"}`) // 918 bytes: under the threshold
	big := []byte(`{"instruction":"` + strings.Repeat(" ", 1100) + `"}`)  // compressible
	noisy := make([]byte, 0, 2000)                                        // over the threshold, no runs
	noisy = append(noisy, `{"instruction":"`...)
	for i := 0; len(noisy) < 1990; i++ {
		noisy = append(noisy, "abcdefghij"[i%10])
	}
	noisy = append(noisy, `"}`...)
	exact := []byte(`{"d":"` + strings.Repeat("ab", 508) + `"}`) // exactly 1024 bytes
	if len(exact) != 1024 {
		t.Fatalf("len(exact) = %d", len(exact))
	}
	for _, c := range []struct {
		name     string
		payload  []byte
		mode     CompressMode
		compress bool
	}{
		{"auto small", small, CompressAuto, false},
		{"auto 1024 is not over the threshold", exact, CompressAuto, false},
		{"always 1024", exact, CompressAlways, true},
		{"auto big", big, CompressAuto, true},
		{"auto no gain", noisy, CompressAuto, false},
		{"always small", small, CompressAlways, true},
		{"always no gain", noisy, CompressAlways, true},
		{"never big", big, CompressNever, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			wire, compressed := AppendPayload(nil, c.payload, c.mode)
			if compressed != c.compress || IsCompressed(wire) != c.compress {
				t.Fatalf("compressed = %v, IsCompressed %v; want %v", compressed, IsCompressed(wire), c.compress)
			}
			if c.compress && !bytes.Equal(wire, append([]byte{0x5A}, AppendRLE(nil, c.payload)...)) {
				t.Fatalf("compressed wire is not 0x5A + RLE body")
			}
			back, err := AppendDecompressed(nil, wire, 0)
			if err != nil || !bytes.Equal(back, c.payload) {
				t.Fatalf("decompress∘compress is not the identity: %v", err)
			}
		})
	}
}

// The body of a payload just over the threshold whose RLE body is exactly as
// long as the payload is not compressed in auto mode: "shorter" is strict.
func TestAutoNeedsShorterBody(t *testing.T) {
	p := []byte(`{"d":"` + strings.Repeat("ab", 600) + `"}`)
	// Replace three bytes by one 0xFF: the body grows by 0 (3 → FF FF 01).
	p[10], p[11], p[12] = 'x', 0xFF, 'y'
	body := AppendRLE(nil, p)
	if len(body) <= len(p) {
		wire, c := AppendPayload(nil, p, CompressAuto)
		if c != (len(body) < len(p)) || (c && len(wire) != len(body)+1) {
			t.Fatalf("auto compressed=%v with body %d vs payload %d", c, len(body), len(p))
		}
	}
}

// Every example payload of the spec, as the TypeScript encoder writes it
// (compact JSON), in one stream, read back with its header.
func TestSpecExamples(t *testing.T) {
	examples := []struct {
		typ     MessageType
		payload string
	}{
		{Instruction, `{"instruction":"Write unit tests for the UserService class"}`},
		{ToolCall, `{"toolName":"file_read","args":{"path":"src/services/user.ts"}}`},
		{ToolResult, `{"success":true,"data":"export class UserService { ... }","duration":12}`},
		{Status, `{"status":"analyzing","progress":0.45}`},
		{Error, `{"code":"TOOL_FAILED","message":"File not found: src/missing.ts"}`},
		{Heartbeat, `{}`},
		{ContextRequest, `{"type":"file","path":"src/config.ts"}`},
		{ContextResponse, `{"type":"file","path":"src/config.ts"}`},
	}
	var stream []byte
	for i, ex := range examples {
		var err error
		stream, _, err = AppendFrame(stream, Header{Version: 1, Type: ex.typ, Timestamp: 1735689600123 + uint64(i), SequenceID: uint32(i + 1)}, []byte(ex.payload), CompressAuto)
		if err != nil {
			t.Fatal(err)
		}
	}
	// The first frame, byte for byte: 01 01, length 60, timestamp, seq 1.
	first := unhex(t, "01 01 3c000000 7b7c291f94010000 01000000")
	if !bytes.Equal(stream[:HeaderSize], first) {
		t.Fatalf("first header = % x, want % x", stream[:HeaderSize], first)
	}
	r := NewReader(bytes.NewReader(stream), ReaderOptions{})
	var off int64
	for i, ex := range examples {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want := Header{Version: 1, Type: ex.typ, PayloadLength: uint32(len(ex.payload)), Timestamp: 1735689600123 + uint64(i), SequenceID: uint32(i + 1)}
		if f.Header != want || f.Index != i || f.Offset != off || f.Compressed() {
			t.Fatalf("frame %d: %+v index %d offset %d", i, f.Header, f.Index, f.Offset)
		}
		js, err := r.JSON(f)
		if err != nil || string(js) != ex.payload {
			t.Fatalf("frame %d JSON = %s, %v", i, js, err)
		}
		off += int64(f.Size())
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
}

// The Python ai-engine writes json.dumps spacing and ensure_ascii escapes;
// toonkit decodes those frames to the same compact JSON.
func TestPythonFrames(t *testing.T) {
	payload := `{"status": "analyzing caf\u00e9", "progress": 0.45, "items": [1, 2.50, -0]}`
	frame := AppendHeader(nil, Header{Version: 1, Type: Status, PayloadLength: uint32(len(payload)), Timestamp: 1, SequenceID: 7})
	frame = append(frame, payload...)
	r := NewReader(bytes.NewReader(frame), ReaderOptions{})
	f, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	js, err := r.JSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"status":"analyzing café","progress":0.45,"items":[1,2.50,-0]}`; string(js) != want {
		t.Fatalf("JSON = %s, want %s", js, want)
	}
}

func TestCompressedFrameRoundTrip(t *testing.T) {
	payload := []byte(`{"success":true,"data":"` + strings.Repeat("=", 3000) + `","duration":5}`)
	frame, h, err := AppendFrame(nil, Header{Version: 1, Type: ToolResult, Timestamp: 9, SequenceID: 3}, payload, CompressAuto)
	if err != nil {
		t.Fatal(err)
	}
	if int(h.PayloadLength) != len(frame)-HeaderSize || frame[HeaderSize] != CompressionMagic {
		t.Fatalf("payloadLength %d, frame %d bytes, first payload byte %#x", h.PayloadLength, len(frame), frame[HeaderSize])
	}
	r := NewReader(bytes.NewReader(frame), ReaderOptions{})
	f, err := r.Next()
	if err != nil || !f.Compressed() {
		t.Fatalf("Next: %v compressed=%v", err, f != nil && f.Compressed())
	}
	js, err := r.JSON(f)
	if err != nil || !bytes.Equal(js, payload) {
		t.Fatalf("decode∘encode differs: %v", err)
	}
}

func TestReaderErrors(t *testing.T) {
	good := func(seq uint32) []byte {
		b, _, _ := AppendFrame(nil, Header{Version: 1, Type: Heartbeat, Timestamp: 1, SequenceID: seq}, []byte(`{}`), CompressNever)
		return b
	}
	frame0 := good(1) // 20 bytes
	cases := []struct {
		name   string
		input  []byte
		max    int
		frames int // good frames before the error
		kind   Problem
		msg    string
	}{
		{"truncated header", append(append([]byte{}, frame0...), 1, 1, 0), 0, 1, TruncatedHeader,
			"frame 1 at byte 20: header: expected 18 header bytes, found only 3 bytes remain"},
		{"bad version", append(append([]byte{}, frame0...), append([]byte{2}, good(2)[1:]...)...), 0, 1, BadVersion,
			"frame 1 at byte 20: version: expected 1, found 2 (0x02)"},
		{"bad type", append([]byte{1, 9}, good(2)[2:]...), 0, 0, BadType,
			"frame 0 at byte 1: type: expected a message type from 1 to 8, found 9 (0x09)"},
		{"json given as binary", []byte(`{"instruction":"x"}`), 0, 0, BadVersion,
			"frame 0 at byte 0: version: expected 1, found 123 (0x7B '{')"},
		{"truncated payload", append(AppendHeader(nil, Header{Version: 1, Type: 1, PayloadLength: 120}), bytes.Repeat([]byte("x"), 97)...), 0, 0, TruncatedPayload,
			"frame 0 at byte 2: payloadLength: expected 120 payload bytes, found only 97 bytes remain"},
		{"over the limit", AppendHeader(nil, Header{Version: 1, Type: 1, PayloadLength: 1 << 30}), 1 << 20, 0, TooLarge,
			"frame 0 at byte 2: payloadLength: expected at most 1048576 bytes, found 1073741824"},
		{"huge length, few bytes", AppendHeader(nil, Header{Version: 1, Type: 1, PayloadLength: 0xFFFFFFFF}), 1 << 33, 0, TruncatedPayload,
			"frame 0 at byte 2: payloadLength: expected 4294967295 payload bytes, found only 0 bytes remain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(c.input), ReaderOptions{MaxFrameSize: c.max})
			for i := 0; i < c.frames; i++ {
				if _, err := r.Next(); err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
			}
			_, err := r.Next()
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FrameError", err)
			}
			if fe.Kind != c.kind || err.Error() != c.msg {
				t.Fatalf("kind %d err %q\nwant kind %d %q", fe.Kind, err, c.kind, c.msg)
			}
			if _, again := r.Next(); again != err {
				t.Fatalf("the error is not sticky: %v", again)
			}
		})
	}
}

// A hostile length never sizes an allocation before the bytes arrive.
func TestReaderDoesNotTrustLength(t *testing.T) {
	in := AppendHeader(nil, Header{Version: 1, Type: 1, PayloadLength: 60 << 20})
	in = append(in, []byte(`{"x":1}`)...)
	r := NewReader(bytes.NewReader(in), ReaderOptions{})
	if _, err := r.Next(); err == nil {
		t.Fatal("no error")
	}
	if cap(r.in.Buf) > 1<<20 {
		t.Fatalf("buffer grew to %d bytes for a 25-byte input", cap(r.in.Buf))
	}
}

func TestResync(t *testing.T) {
	f1, _, _ := AppendFrame(nil, Header{Version: 1, Type: Instruction, Timestamp: 1, SequenceID: 1}, []byte(`{"instruction":"a"}`), CompressNever)
	f2, _, _ := AppendFrame(nil, Header{Version: 1, Type: Status, Timestamp: 2, SequenceID: 2}, []byte(`{"status":"s","progress":1}`), CompressNever)
	garbage := []byte("\x01\x09garbage\x01\x01\x00")
	in := append(append(append(append([]byte{}, f1...), garbage...), f2...), 0xEE, 0xEE)
	r := NewReader(bytes.NewReader(in), ReaderOptions{})
	if f, err := r.Next(); err != nil || f.Header.SequenceID != 1 {
		t.Fatalf("first: %v", err)
	}
	if _, err := r.Next(); err == nil {
		t.Fatal("garbage accepted")
	}
	skipped, found := r.Resync()
	if !found || skipped != int64(len(garbage)) {
		t.Fatalf("Resync = %d, %v; want %d, true", skipped, found, len(garbage))
	}
	f, err := r.Next()
	if err != nil || f.Header.SequenceID != 2 || f.Offset != int64(len(f1)+len(garbage)) || f.Index != 2 {
		t.Fatalf("after resync: %+v %v", f, err)
	}
	if _, err := r.Next(); err == nil {
		t.Fatal("trailing bytes accepted")
	}
	if skipped, found := r.Resync(); found || skipped != 2 {
		t.Fatalf("Resync at the end = %d, %v", skipped, found)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
}

func TestPayloadErrors(t *testing.T) {
	mk := func(payload []byte) []byte {
		return append(AppendHeader(nil, Header{Version: 1, Type: 1, PayloadLength: uint32(len(payload))}), payload...)
	}
	cases := []struct {
		name, msg string
		in        []byte
	}{
		{"not json", "frame 0 at byte 18: payload: expected JSON, found byte 0x78 ('x')", mk([]byte("xyz"))},
		{"broken json", `frame 0 at byte 30: payload: not valid JSON at /b: invalid character '}' at start of value (byte 12 of the payload)`, mk([]byte(`{"a":1,"b": }`))},
		{"duplicate names", `frame 0 at byte 25: payload: not valid JSON at /a: duplicate object member name (byte 7 of the payload)`, mk([]byte(`{"a":1,"a":2}`))},
		{"invalid utf-8", "frame 0 at byte 20: payload: not valid JSON at /0: invalid UTF-8 (byte 2 of the payload)", mk([]byte("[\"\xff\"]"))},
		{"decompression bomb", "frame 0 at byte 18: payload: payload exceeds the maximum frame size: decompressed size passes 1000 bytes", mk(append([]byte{0x5A}, bytes.Repeat([]byte{0xFF, '1', 0xFF}, 10)...))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(c.in), ReaderOptions{MaxFrameSize: 1000})
			f, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.JSON(f)
			if err == nil || err.Error() != c.msg {
				t.Fatalf("err = %v\nwant  %s", err, c.msg)
			}
		})
	}
}

// A reader that hands out one byte at a time still sees whole frames.
func TestReaderSmallReads(t *testing.T) {
	var in []byte
	for i := 0; i < 50; i++ {
		payload := []byte(`{"success":true,"data":"` + strings.Repeat("z", i*100) + `","duration":1}`)
		in, _, _ = AppendFrame(in, Header{Version: 1, Type: ToolResult, SequenceID: uint32(i)}, payload, CompressAuto)
	}
	r := NewReader(&oneByteReader{in}, ReaderOptions{})
	for i := 0; ; i++ {
		f, err := r.Next()
		if err == io.EOF {
			if i != 50 {
				t.Fatalf("%d frames", i)
			}
			return
		}
		if err != nil || f.Header.SequenceID != uint32(i) {
			t.Fatalf("frame %d: %v", i, err)
		}
		if _, err := r.JSON(f); err != nil {
			t.Fatal(err)
		}
	}
}

type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}
