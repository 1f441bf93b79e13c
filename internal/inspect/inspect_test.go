package inspect

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

func TestISOTime(t *testing.T) {
	tests := []struct {
		ms   uint64
		want string
		ok   bool
	}{
		{0, "1970-01-01T00:00:00.000Z", true},
		{1, "1970-01-01T00:00:00.001Z", true},
		{1735689600123, "2025-01-01T00:00:00.123Z", true},
		{1735689600000, "2025-01-01T00:00:00.000Z", true},
		{253402300799999, "9999-12-31T23:59:59.999Z", true},
		{253402300800000, "", false},
		{math.MaxInt64, "", false},
		{math.MaxUint64, "", false},
	}
	for _, tt := range tests {
		got, ok := isoTime(tt.ms)
		if got != tt.want || ok != tt.ok {
			t.Errorf("isoTime(%d) = %q, %v; want %q, %v", tt.ms, got, ok, tt.want, tt.ok)
		}
	}
}

func TestHexdumpSqueeze(t *testing.T) {
	rep := func(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }
	tests := []struct {
		name  string
		data  []byte
		at    int64
		marks []mark
		want  string
	}{
		{"one short line", []byte("hi"), 0, nil,
			"00000000  68 69                                             |hi|\n"},
		{"start in a line: offsets stay those of the input", []byte("ABC"), 0x12, nil,
			"00000010        41 42 43                                    |  ABC|\n"},
		{"two equal lines: nothing to squeeze, the last is always shown", rep('a', 32), 0, nil,
			"00000000  61 61 61 61 61 61 61 61  61 61 61 61 61 61 61 61  |aaaaaaaaaaaaaaaa|\n" +
				"00000010  61 61 61 61 61 61 61 61  61 61 61 61 61 61 61 61  |aaaaaaaaaaaaaaaa|\n"},
		{"four equal lines: one star", rep(0, 64), 0x100, nil,
			"00000100  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n" +
				"*\n" +
				"00000130  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"},
		{"a different line ends the squeeze", append(rep('=', 48), "end"...), 0, nil,
			"00000000  3d 3d 3d 3d 3d 3d 3d 3d  3d 3d 3d 3d 3d 3d 3d 3d  |================|\n" +
				"*\n" +
				"00000030  65 6e 64                                          |end|\n"},
		{"a partial first line is never squeezed", rep('x', 40), 8, nil,
			"00000000                           78 78 78 78 78 78 78 78  |        xxxxxxxx|\n" +
				"00000010  78 78 78 78 78 78 78 78  78 78 78 78 78 78 78 78  |xxxxxxxxxxxxxxxx|\n" +
				"00000020  78 78 78 78 78 78 78 78  78 78 78 78 78 78 78 78  |xxxxxxxxxxxxxxxx|\n"},
		{"different lines", []byte("0123456789abcdefFEDCBA9876543210"), 0, nil,
			"00000000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  |0123456789abcdef|\n" +
				"00000010  46 45 44 43 42 41 39 38  37 36 35 34 33 32 31 30  |FEDCBA9876543210|\n"},
		{"a marked line is not squeezed, and carets show the byte", rep('-', 48), 0,
			[]mark{{from: 0x11, to: 0x12, role: paint.Invalid, label: "here"}},
			"00000000  2d 2d 2d 2d 2d 2d 2d 2d  2d 2d 2d 2d 2d 2d 2d 2d  |----------------|\n" +
				"00000010  2d 2d 2d 2d 2d 2d 2d 2d  2d 2d 2d 2d 2d 2d 2d 2d  |----------------|\n" +
				"             ^^                                               ^  here\n" +
				"00000020  2d 2d 2d 2d 2d 2d 2d 2d  2d 2d 2d 2d 2d 2d 2d 2d  |----------------|\n"},
		{"non-printable bytes are dots", []byte{0, '\t', 0x1b, 0x7f, 0xc3, 0xa9, ' ', 'x'}, 0, nil,
			"00000000  00 09 1b 7f c3 a9 20 78                           |...... x|\n"},
		{"offsets past 32 bits", []byte("z"), 0x123456789, nil,
			"123456780                              7a                    |         z|\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &printer{w: &errWriter{W: &out}}
			p.hexdump("", tt.data, tt.at, tt.marks)
			p.flush()
			if got := out.String(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestHexdumpColorRuns(t *testing.T) {
	var out bytes.Buffer
	p := &printer{w: &errWriter{W: &out}, style: func(r paint.Role, s string) string { return "<" + r.String() + ">" + s + "</>" }}
	p.hexdump("", []byte("ab c\x00\xff"), 0, nil)
	p.flush()
	want := "<Dim>00000000</>  <BytePrintable>61 62</> <ByteWhitespace>20</> <BytePrintable>63</> <ByteNull>00</> <ByteNonASCII>ff</>" +
		strings.Repeat(" ", 33) + "|<BytePrintable>ab</><ByteWhitespace> </><BytePrintable>c</><ByteNull>.</><ByteNonASCII>.</>|\n"
	if got := out.String(); got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
}

func hdr(version, typ byte, length uint32, ts uint64, seq uint32) []byte {
	return kado.AppendHeader(nil, kado.Header{Version: version, Type: kado.MessageType(typ), PayloadLength: length, Timestamp: ts, SequenceID: seq})
}

func TestCheckFields(t *testing.T) {
	good := hdr(1, 1, 60, 1735689600123, 7)
	tests := []struct {
		name   string
		header []byte
		max    int
		lf     lengthFacts
		want   []string // "name|value|check|status" per field
	}{
		{"a good frame", good, 1 << 20, lengthFacts{reached: true, avail: 60}, []string{
			"version|1|ok|ok",
			"type|INSTRUCTION (0x01)|ok|ok",
			"payloadLength|60|ok: 60 bytes present|ok",
			"timestamp|1735689600123 (2025-01-01T00:00:00.123Z)|ok|ok",
			"sequenceId|7|ok|ok",
		}},
		{"bad version and type, each checked on its own", hdr(2, 0x7b, 60, 0, 0), 1 << 20, lengthFacts{}, []string{
			"version|2|INVALID: expected 1, found 2 (0x02)|invalid",
			"type|UNKNOWN (0x7B)|INVALID: expected a message type from 1 to 8, found 123 (0x7B '{')|invalid",
			"payloadLength|60|unchecked|unchecked",
			"timestamp|0 (1970-01-01T00:00:00.000Z)|ok|ok",
			"sequenceId|0|ok|ok",
		}},
		{"payloadLength above the limit", hdr(1, 8, 5000, 0, 0), 1024, lengthFacts{}, []string{
			"version|1|ok|ok",
			"type|CONTEXT_RESPONSE (0x08)|ok|ok",
			"payloadLength|5000|INVALID: expected at most 1024 bytes, found 5000|invalid",
			"timestamp|0 (1970-01-01T00:00:00.000Z)|ok|ok",
			"sequenceId|0|ok|ok",
		}},
		{"truncated payload", good, 1 << 20, lengthFacts{reached: true, avail: 1}, []string{
			"version|1|ok|ok",
			"type|INSTRUCTION (0x01)|ok|ok",
			"payloadLength|60|INVALID: only 1 byte remains|invalid",
			"timestamp|1735689600123 (2025-01-01T00:00:00.123Z)|ok|ok",
			"sequenceId|7|ok|ok",
		}},
		{"cut off by --length", good, 1 << 20, lengthFacts{reached: true, avail: 20, cut: true}, []string{
			"version|1|ok|ok",
			"type|INSTRUCTION (0x01)|ok|ok",
			"payloadLength|60|cut off by --length: 20 of 60 bytes read|cut",
			"timestamp|1735689600123 (2025-01-01T00:00:00.123Z)|ok|ok",
			"sequenceId|7|ok|ok",
		}},
		{"truncated header", good[:8], 1 << 20, lengthFacts{}, []string{
			"version|1|ok|ok",
			"type|INSTRUCTION (0x01)|ok|ok",
			"payloadLength|60|unchecked|unchecked",
			"timestamp||INVALID: only 2 of its 8 bytes remain|invalid",
			"sequenceId||missing|missing",
		}},
		{"header ends at a field boundary", good[:6], 1 << 20, lengthFacts{}, []string{
			"version|1|ok|ok",
			"type|INSTRUCTION (0x01)|ok|ok",
			"payloadLength|60|unchecked|unchecked",
			"timestamp||INVALID: missing|invalid",
			"sequenceId||missing|missing",
		}},
		{"timestamp past the year 9999", hdr(1, 6, 2, math.MaxUint64, math.MaxUint32), 1 << 20, lengthFacts{reached: true, avail: 2}, []string{
			"version|1|ok|ok",
			"type|HEARTBEAT (0x06)|ok|ok",
			"payloadLength|2|ok: 2 bytes present|ok",
			"timestamp|18446744073709551615 (after year 9999)|ok|ok",
			"sequenceId|4294967295|ok|ok",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := checkFields(nil, tt.header, tt.max, tt.lf)
			var got []string
			for _, f := range fields {
				got = append(got, f.name+"|"+f.value+"|"+f.check+"|"+f.status.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestPrettyJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{}`, "{}\n"},
		{`[]`, "[]\n"},
		{`"x"`, "\"x\"\n"},
		{`{"a":1.50e3,"b":[true,false,null,{}],"c":{"d":"\u0001\n"}}`,
			"{\n  \"a\": 1.50e3,\n  \"b\": [\n    true,\n    false,\n    null,\n    {}\n  ],\n  \"c\": {\n    \"d\": \"\\u0001\\n\"\n  }\n}\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := &printer{w: &errWriter{W: &out}}
		if err := p.prettyJSON("", []byte(tt.in)); err != nil {
			t.Fatal(err)
		}
		p.flush()
		if out.String() != tt.want {
			t.Errorf("prettyJSON(%s) =\n%s\nwant\n%s", tt.in, out.String(), tt.want)
		}
	}
	// Roles, as jq colors them.
	var out bytes.Buffer
	p := &printer{w: &errWriter{W: &out}, style: func(r paint.Role, s string) string { return "<" + r.String() + ">" + s }}
	p.prettyJSON("", []byte(`{"k":["s",1,true,null]}`))
	p.flush()
	want := "<JSONPunct>{\n  <JSONKey>\"k\"<JSONPunct>: <JSONPunct>[\n    <JSONString>\"s\"<JSONPunct>,\n    <JSONNumber>1<JSONPunct>,\n    <JSONLiteral>true<JSONPunct>,\n    <JSONNull>null\n  <JSONPunct>]\n<JSONPunct>}\n"
	if out.String() != want {
		t.Errorf("roles:\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSafeString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain café"`, `"plain café"`},
		{"\"a\u0085b\"", `"a\u0085b"`},
		{"\"\u202eevil\"", `"\u202eevil"`},
		{"\"x\u2028y\"", `"x\u2028y"`},
		{"\"del\x7f\"", `"del\u007f"`},
	}
	for _, tt := range tests {
		if got := safeString([]byte(tt.in)); got != tt.want {
			t.Errorf("safeString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// onlyReader hides every method but Read (so that skip must read).
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// oneByte reads one byte at a time, as a slow pipe might.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestSkipAndLengthReadersAgree(t *testing.T) {
	data := cat(goodCapture(t), damagedCapture(t))
	for _, o := range []Options{
		{},
		{Skip: 78},
		{Skip: 78, Length: 135},
		{Skip: 78, Length: 100},
		{Skip: 5, Length: 300},
		{Skip: 100000},
		{OnlyFrame: true, Frame: 4},
		{Format: JSON, Skip: 200},
	} {
		var want bytes.Buffer
		if _, err := Render(&want, bytes.NewReader(data), "x", o); err != nil {
			t.Fatal(err)
		}
		for name, r := range map[string]io.Reader{
			"reader":   onlyReader{bytes.NewReader(data)},
			"one byte": oneByte{bytes.NewReader(data)},
		} {
			var got bytes.Buffer
			if _, err := Render(&got, r, "x", o); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%+v: a %s gives:\n%s\nwhere a seeker gives:\n%s", o, name, got.String(), want.String())
			}
		}
	}
}

func TestSummaryCounts(t *testing.T) {
	s, err := Render(io.Discard, bytes.NewReader(damagedCapture(t)), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Files: 1, Frames: 6, Valid: 3, Invalid: 3, Compressed: 1, Bytes: int64(len(damagedCapture(t))),
		Skipped: 83, Errors: 3, Warnings: 1, Indices: 6,
		Types:  [9]int{kado.Instruction: 1, kado.Status: 2, kado.Heartbeat: 1},
		Checks: map[string]int{"version": 1, "payloadLength": 1, "payload": 1, "rle": 1}}
	if len(s.Problems) != 3 {
		t.Fatalf("problems: %v", s.Problems)
	}
	if got := s.Problems[0].String(); got != "frame 1 at byte 40: version: expected 1, found 2 (0x02)" {
		t.Errorf("first problem: %s", got)
	}
	if got := s.Problems[1].String(); got != `frame 3 at byte 144: payload: not valid JSON: invalid character 'p' at start of string (expecting '"') (byte 15 of the payload)` {
		t.Errorf("second problem: %s", got)
	}
	s.Problems = nil
	if !reflect.DeepEqual(s, want) {
		t.Errorf("summary %+v, want %+v", s, want)
	}

	s, _ = Render(io.Discard, bytes.NewReader(damagedCapture(t)), "x", Options{OnlyFrame: true, Frame: 2})
	if !s.FrameFound || s.Frames != 1 || s.Valid != 1 || s.Errors != 0 {
		t.Errorf("--frame 2: %+v", s)
	}
	s, _ = Render(io.Discard, bytes.NewReader(damagedCapture(t)), "x", Options{OnlyFrame: true, Frame: 9})
	if s.FrameFound || s.Frames != 0 || s.Indices != 6 || s.Errors != 0 {
		t.Errorf("--frame 9: %+v", s)
	}
	if got := NoFrame(9, 6); got != "no frame 9: the input holds frames 0-5" {
		t.Errorf("NoFrame: %s", got)
	}
}

type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	capture := goodCapture(t)
	var out bytes.Buffer
	_, err := Render(&out, &failingReader{data: capture[:100], err: boom}, "x", Options{})
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want a *ReadError of boom", err)
	}
	if !strings.Contains(out.String(), "frame 0 at byte 0") {
		t.Errorf("the frame before the error was not shown:\n%s", out.String())
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	_, err := Render(&failingWriter{n: 1}, bytes.NewReader(goodCapture(t)), "x", Options{})
	var we *WriteError
	if !errors.As(err, &we) || err.Error() != "disk full" {
		t.Fatalf("err = %v, want a *WriteError", err)
	}
}

func TestPlainHasNoEscapes(t *testing.T) {
	// A payload full of escape codes must not reach a terminal raw.
	evil := `{"x":"\u001b[31m\u009b31m\u202e"}`
	data := cat(frame(t, kado.Instruction, 1, evil, kado.CompressNever), rawFrame(1, 1, -1, 2, []byte("\x1b[2J\x9b2J")))
	var out bytes.Buffer
	Render(&out, bytes.NewReader(data), "x\x1b", Options{})
	if bytes.ContainsAny(out.Bytes(), "\x1b\u009b\u202e") {
		t.Errorf("the view holds terminal controls:\n%q", out.String())
	}
}
