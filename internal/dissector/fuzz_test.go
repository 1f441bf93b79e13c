package dissector_test

import (
	"testing"

	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/dissector"
	"github.com/toonkit/toonkit/kado"
)

// FuzzTshark feeds any bytes to the Lua dissector in the real tshark: as a
// TCP stream on the registered port cut into segments, on another port
// (the heuristic), and as a WebSocket binary message. tshark must show no
// Lua error, and where toonkit finds no problem in the bytes, tshark must
// show the frames toonkit reads. One input costs two tshark runs (about
// half a second): go test -fuzz FuzzTshark -fuzztime 5m ./internal/dissector.
func FuzzTshark(f *testing.F) {
	f.Add([]byte{}, uint8(7))
	f.Add(capturetest.Frame(kado.Status, 1, `{"status":"running"}`), uint8(5))
	two := append(capturetest.Frame(kado.Heartbeat, 2, `{}`), 1, 2, 0x30, 0, 0, 0)
	f.Add(two, uint8(1))
	z := kado.AppendHeader(nil, kado.Header{Version: 1, Type: kado.ToolResult, PayloadLength: 9})
	f.Add(append(z, 0x5a, '[', 0xff, '1', 4, 0xff, ',', 0, ']'), uint8(200))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		if len(data) > 1<<16 {
			return
		}
		lua := luaFile(t, dissector.Options{})
		b := &capturetest.Builder{File: capturetest.PcapNG}
		seg := int(cut%64) + 1
		for _, server := range []string{"10.0.0.2:7000", "10.0.0.2:9000"} {
			c := b.Conn("10.0.0.1:40000", server)
			c.Handshake()
			off := 0
			for off < len(data) {
				n := min(seg, len(data)-off)
				if off == 0 && server != "10.0.0.2:7000" {
					// The heuristic needs a whole header in the first segment.
					n = min(max(n, kado.HeaderSize), len(data))
				}
				c.Send(capturetest.C2S, off, data[off:off+n])
				off += n
				seg = seg*7%61 + 1
			}
			c.Fin(capturetest.C2S, len(data))
		}
		w := b.Conn("10.0.0.1:40001", "10.0.0.2:8080")
		w.Handshake()
		w.Send(capturetest.C2S, 0, []byte(capturetest.WSRequest))
		w.Send(capturetest.S2C, 0, []byte(capturetest.WSResponse))
		w.Send(capturetest.C2S, len(capturetest.WSRequest), capturetest.WSFrame(true, 2, data, []byte{1, 2, 3, 4}))
		capFile := b.Bytes()

		want, problems, notes := toonkitAll(t, capFile)
		got := tshark(t, lua, capFile)
		// Where toonkit finds something wrong, or bytes that are not
		// frames at the start of a direction (it does not read on), the
		// Lua may skip elsewhere: only the absence of Lua errors counts.
		if problems == 0 && notes == 0 {
			compare(t, got, want)
		}
	})
}
