package inspect

import (
	"strings"
	"testing"

	"github.com/toonkit/toonkit/kado"
)

// Test captures, built from kado so that they are
// deterministic and need no binary files in the repository.

const ts0 = 1735689600123 // 2025-01-01T00:00:00.123Z

func frame(t testing.TB, typ kado.MessageType, seq uint32, payload string, mode kado.CompressMode) []byte {
	t.Helper()
	b, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: typ, Timestamp: ts0 + uint64(seq) - 1, SequenceID: seq}, []byte(payload), mode)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawFrame is a frame with the given header fields and wire payload, which
// is written as is (payloadLength is its length unless length >= 0).
func rawFrame(version byte, typ byte, length int64, seq uint32, wire []byte) []byte {
	n := uint32(len(wire))
	if length >= 0 {
		n = uint32(length)
	}
	b := kado.AppendHeader(nil, kado.Header{Version: version, Type: kado.MessageType(typ), PayloadLength: n, Timestamp: ts0 + uint64(seq) - 1, SequenceID: seq})
	return append(b, wire...)
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// goodCapture: an uncompressed INSTRUCTION, a TOOL_RESULT whose payload
// has repeated lines (squeezed in the hexdump) and a non-ASCII string, and
// a compressed STATUS with every kind of JSON value.
func goodCapture(t testing.TB) []byte {
	return cat(
		frame(t, kado.Instruction, 1, `{"instruction":"Write unit tests for the UserService class"}`, kado.CompressAuto),
		frame(t, kado.ToolResult, 2, `{"success":true,"data":"`+strings.Repeat("=", 70)+`\tcafé","duration":12}`, kado.CompressAuto),
		frame(t, kado.Status, 3, `{"status":"analyzing","progress":0.45,"ratio":1.50e3,"steps":[1,-2,{"done":false,"note":null}],"empty":{},"none":[],"log":"`+strings.Repeat(" ", 40)+`"}`, kado.CompressAlways),
	)
}

// damagedCapture: a good frame; a frame with version 2 (resync finds the
// next one); a payload that is not JSON; a compressed payload with an RLE
// zero count (a warning only); and a frame cut short at the end of the
// input after a NUL, a control byte and a non-ASCII byte.
func damagedCapture(t testing.TB) []byte {
	return cat(
		frame(t, kado.Instruction, 1, `{"instruction":"ping"}`, kado.CompressNever),
		rawFrame(2, 1, -1, 2, []byte(`{"instruction":"from the future"}`)),
		frame(t, kado.Heartbeat, 3, `{}`, kado.CompressNever),
		rawFrame(1, 4, -1, 4, []byte(`{"status":"ok",progress:1}`)),
		rawFrame(1, 4, -1, 5, []byte("\x5a{\"status\":\"\xff\x41\x00ok\",\"progress\":1}")),
		rawFrame(1, 5, 60, 6, []byte("{\"code\":\"X\x00\x01\x7f\xc3")),
	)
}

// edgeCapture: a bad type, a payloadLength above the limit (1KiB in the
// test), an RLE escape cut short, a payload that decompresses past the
// limit, an empty payload, and a truncated header at the end.
func edgeCapture(t testing.TB) []byte {
	return cat(
		rawFrame(1, 9, -1, 1, []byte(`{"x":1}`)),
		frame(t, kado.Instruction, 2, `{"instruction":"after a bad type"}`, kado.CompressNever),
		rawFrame(1, 2, 5000, 3, []byte(`{"toolName":"file_read","args":{}}`)),
		frame(t, kado.Status, 4, `{"status":"done","progress":1}`, kado.CompressNever),
		rawFrame(1, 6, -1, 5, []byte("\x5a{}\xff\x41")),
		rawFrame(1, 3, -1, 6, []byte("\x5a"+strings.Repeat("\xff\x41\xff", 5))),
		rawFrame(1, 6, -1, 7, nil),
		[]byte{0x01, 0x02, 0x03, '\n'},
	)
}
