package capture

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readWS reads a direction's WebSocket frames (after the handshake) and
// returns the binary stream, the text messages and the error.
func readWS(r io.Reader) ([]byte, []string, error) {
	var texts []string
	w := newWSReader(r, 1<<12, func(b []byte) { texts = append(texts, string(b)) })
	var out bytes.Buffer
	_, err := io.Copy(&out, w)
	return out.Bytes(), texts, err
}

// The deframer never panics or grows past its limit, and reads the same
// bytes, messages and errors whether its input comes whole or a byte at a
// time.
func FuzzWebSocket(f *testing.F) {
	f.Add([]byte("\x82\x03abc"))
	f.Add([]byte("\x02\x83\x01\x02\x03\x04abc\x89\x00\x80\x01d\x81\x02hi\x88\x00"))
	f.Add([]byte("\x82\x7e\x00\x05hello"))
	f.Add([]byte("\x82\x7f\x00\x00\x00\x00\x00\x00\x00\x05hello"))
	f.Add([]byte("\x01\x01h\x01\x01i"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b1, t1, e1 := readWS(bytes.NewReader(data))
		b2, t2, e2 := readWS(iotest.OneByteReader(bytes.NewReader(data)))
		if !bytes.Equal(b1, b2) || len(t1) != len(t2) || (e1 == nil) != (e2 == nil) {
			t.Fatalf("whole: %q %q %v; byte by byte: %q %q %v", b1, t1, e1, b2, t2, e2)
		}
		for _, s := range t1 {
			if len(s) > 1<<12 {
				t.Fatalf("a text message of %d bytes passed the limit", len(s))
			}
		}
		var we *WebSocketError
		if e1 != nil && !errors.As(e1, &we) {
			t.Fatalf("error %v is not a *WebSocketError", e1)
		}
	})
}

func TestWebSocketErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\x00\x00", "WebSocket frame at byte 0 (after the handshake): a continuation frame with no message to continue; the rest of this direction is not read"},
		{"\x02\x01a\x02\x01b", "WebSocket frame at byte 3 (after the handshake): a new message (opcode 0x2) starts before the previous one ended; the rest of this direction is not read"},
		{"\x89\x7e\x00\x80", "WebSocket frame at byte 0 (after the handshake): a control frame (opcode 0x9) that is fragmented or longer than 125 bytes; the rest of this direction is not read"},
		{"\xc2\x00", "WebSocket frame at byte 0 (after the handshake): reserved bits 100 are set (an extension such as permessage-deflate, which is not read); the rest of this direction is not read"},
		{"\x83\x00", "WebSocket frame at byte 0 (after the handshake): opcode 0x3 is reserved; the rest of this direction is not read"},
		{"\x82\x05ab", "WebSocket frame at byte 4 (after the handshake): the stream ends 3 bytes before the end of the frame; the rest of this direction is not read"},
		{"\x81\x7e\x20\x00", "WebSocket frame at byte 0 (after the handshake): a text message longer than the limit of 4096 bytes; the rest of this direction is not read"},
		{"\x02\x01a", "WebSocket frame at byte 3 (after the handshake): the stream ends inside a fragmented message; the rest of this direction is not read"},
		{"\x82", "WebSocket frame at byte 0 (after the handshake): the stream ends inside a frame header; the rest of this direction is not read"},
	} {
		_, _, err := readWS(bytes.NewReader([]byte(tc.in)))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// The start of a direction: frames, a WebSocket handshake, or something
// else (an error that says what).
func TestHandshake(t *testing.T) {
	long := "GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nCookie: " + strings.Repeat("a", handshakeMax) + "\r\n\r\n"
	for _, tc := range []struct {
		in   string
		ws   bool
		want string
	}{
		{"\x01\x01\x00\x00", false, ""},
		{"GE", false, ""},
		{"GET /x HTTP/1.1\r\nUpgrade: WebSocket\r\nConnection: keep-alive, upgrade\r\n\r\n\x82\x00", true, ""},
		{"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", true, ""},
		{"HTTP/1.1 200 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", false, `it starts with an HTTP message that is not a WebSocket handshake ("HTTP/1.1 200 OK")`},
		{"GET / HTTP/1.1\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n", false, `it starts with an HTTP message that is not a WebSocket handshake ("GET / HTTP/1.1")`},
		{"GET / HTTP/1.1\r\nHost: x\r\n", false, "it starts with an HTTP message whose header does not end within its first 25 bytes"},
		{long, false, "it starts with an HTTP message whose header does not end within its first 8192 bytes"},
	} {
		br := bufio.NewReaderSize(strings.NewReader(tc.in), handshakeMax)
		ws, err := handshake(br)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if ws != tc.ws || msg != tc.want {
			t.Errorf("%.40q: ws %v, error %q; want %v, %q", tc.in, ws, msg, tc.ws, tc.want)
		}
		if ws {
			if rest, _ := io.ReadAll(br); !bytes.HasPrefix([]byte(tc.in), []byte(tc.in[:len(tc.in)-len(rest)])) || bytes.Contains(rest, []byte("\r\n\r\n")) {
				t.Errorf("%.40q: the handshake was not consumed: %q left", tc.in, rest)
			}
		}
	}
}

// The resynchronisation after a hole finds only a WebSocket frame header
// that begins a binary message carrying a plausible frame, masked as the
// direction masks, and never reads past its input.
func TestResyncWS(t *testing.T) {
	kf := []byte("\x01\x01\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00{}")
	bin := append([]byte{0x82, byte(len(kf))}, kf...)
	masked := append([]byte{0x82, 0x80 | byte(len(kf)), 0, 0, 0, 0}, kf...) // a zero mask key
	for _, tc := range []struct {
		in      []byte
		masked  int
		skipped int64
		found   bool
	}{
		{append([]byte("junk"), bin...), 0, 4, true},
		{append([]byte("junk"), bin...), -1, 4, true},
		{append([]byte("junk"), bin...), 1, int64(4 + len(bin)), false}, // unmasked, but the direction masks
		{append([]byte("junk"), masked...), 1, 4, true},
		{append([]byte{0x81, byte(len(kf))}, kf...), -1, int64(2 + len(kf)), false},     // a text frame
		{append([]byte{0x82, byte(len(kf) - 1)}, kf...), -1, int64(2 + len(kf)), false}, // the frame does not fit
		{append([]byte{0x02, byte(len(kf) - 1)}, kf...), -1, 0, true},                   // ... unless the message goes on
		{[]byte("\x82\x7e"), -1, 2, false},
	} {
		br := bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(tc.in)), 64)
		skipped, found, err := resyncWS(br, tc.masked, 1<<10)
		if err != nil || skipped != tc.skipped || found != tc.found {
			t.Errorf("% x masked=%d: skipped %d found %v err %v", tc.in, tc.masked, skipped, found, err)
		}
	}
}
