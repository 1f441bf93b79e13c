package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strings"

	"github.com/gobwas/ws"
	"github.com/toonkit/toonkit/kado"
)

// handshakeMax bounds the HTTP header block of a WebSocket handshake (as
// nginx's large_client_header_buffers does by default).
const handshakeMax = 8 << 10

// handshake looks at the start of a direction. A direction that starts with
// a frame header (or anything but "GET " or "HTTP") is read as frames
// (ws false, err nil). One that starts with an HTTP request or response
// is a WebSocket handshake when it asks for (or grants, with 101) an
// Upgrade to websocket: its header block is consumed and ws is true. Any
// other HTTP message gives an error: the direction holds no frames.
func handshake(br *bufio.Reader) (ws bool, err error) {
	p, err := br.Peek(4)
	if err != nil && len(p) < 4 {
		if errors.Is(err, errStopped) {
			return false, err
		}
		return false, nil // too short for a handshake: the frame reader judges
	}
	request := string(p) == "GET "
	if !request && string(p) != "HTTP" {
		return false, nil
	}
	// Look at what has arrived, one read more at a time: never wait for
	// bytes the handshake does not need.
	var block []byte
	for n := 4; ; {
		p, err := br.Peek(min(max(n, br.Buffered()), handshakeMax))
		if i := bytes.Index(p, []byte("\r\n\r\n")); i >= 0 {
			block = p[:i+4]
			break
		}
		if errors.Is(err, errStopped) {
			return false, err
		}
		if len(p) < n || len(p) == handshakeMax {
			return false, fmt.Errorf("it starts with an HTTP message whose header does not end within its first %d bytes", len(p))
		}
		n = len(p) + 1 // one read more
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(block)))
	line, err := tp.ReadLine()
	if err != nil {
		return false, fmt.Errorf("it starts with a malformed HTTP message: %v", err)
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return false, fmt.Errorf("it starts with an HTTP message with a malformed header: %v", err)
	}
	upgrade := hasToken(hdr.Values("Upgrade"), "websocket") && hasToken(hdr.Values("Connection"), "upgrade")
	switch {
	case request && upgrade:
	case !request && upgrade && len(line) >= 12 && strings.HasPrefix(line, "HTTP/1.") && line[8] == ' ' && line[9:12] == "101":
	default:
		return false, fmt.Errorf("it starts with an HTTP message that is not a WebSocket handshake (%q)", truncate(line, 60))
	}
	_, err = br.Discard(len(block))
	return true, err
}

// hasToken reports whether a comma-separated header holds token, in any
// case.
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// WebSocketError is a break of RFC 6455 framing. Offset counts bytes of
// the direction from the end of the handshake.
type WebSocketError struct {
	Offset int64
	Msg    string
}

func (e *WebSocketError) Error() string {
	return fmt.Sprintf("WebSocket frame at byte %d (after the handshake): %s; the rest of this direction is not read", e.Offset, e.Msg)
}

// wsReader reads the WebSocket frames of one direction (after the
// handshake) and gives the payloads of its binary messages, unmasked and
// joined, as one byte stream; text messages go to onText, control frames
// are passed over, a close frame ends the stream. Frame headers are read
// with github.com/gobwas/ws.
type wsReader struct {
	src    countingReader
	max    int
	onText func([]byte)

	remain  int64 // payload bytes of the current binary frame still to read
	mask    [4]byte
	masked  bool
	maskOff int
	inMsg   bool   // a message is open (its last frame has not come)
	msgText bool   // the open message is text
	text    []byte // the open text message
	hdrBuf  [12]byte
	closed  bool
	err     error
	sawMask int // 1 when its frames are masked, 0 when not, -1 before the first
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func newWSReader(r io.Reader, maxSize int, onText func([]byte)) *wsReader {
	if maxSize <= 0 {
		maxSize = kado.DefaultMaxFrameSize
	}
	return &wsReader{src: countingReader{r: r}, max: maxSize, onText: onText, sawMask: -1}
}

func (w *wsReader) fail(at int64, format string, args ...any) error {
	w.err = &WebSocketError{Offset: at, Msg: fmt.Sprintf(format, args...)}
	return w.err
}

// Read gives the next bytes of the binary messages.
func (w *wsReader) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	for w.remain == 0 {
		if w.closed {
			return 0, io.EOF
		}
		if err := w.nextFrame(); err != nil {
			return 0, err
		}
	}
	n, err := w.src.Read(p[:min(int64(len(p)), w.remain)])
	if w.masked {
		ws.Cipher(p[:n], w.mask, w.maskOff)
	}
	w.maskOff += n
	w.remain -= int64(n)
	if err == io.EOF && w.remain > 0 {
		return n, w.fail(w.src.n, "the stream ends %d %s before the end of the frame", w.remain, plural(w.remain, "byte", "bytes"))
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// nextFrame reads frame headers until one that starts binary payload
// bytes (or the end).
func (w *wsReader) nextFrame() error {
	at := w.src.n
	h, err := ws.ReadHeaderBuffer(&w.src, w.hdrBuf[:0])
	switch {
	case err == io.EOF:
		if w.inMsg {
			return w.fail(at, "the stream ends inside a fragmented message")
		}
		w.closed = true
		return nil
	case err == io.ErrUnexpectedEOF:
		return w.fail(at, "the stream ends inside a frame header")
	case errors.Is(err, errStopped):
		return err
	case err != nil:
		return w.fail(at, "%v", err)
	}
	if w.sawMask < 0 {
		w.sawMask = 0
		if h.Masked {
			w.sawMask = 1
		}
	}
	if h.Rsv != 0 {
		return w.fail(at, "reserved bits %03b are set (an extension such as permessage-deflate, which is not read)", h.Rsv)
	}
	if h.OpCode.IsControl() {
		if !h.Fin || h.Length > 125 {
			return w.fail(at, "a control frame (opcode 0x%X) that is fragmented or longer than 125 bytes", byte(h.OpCode))
		}
		if _, err := io.CopyN(io.Discard, &w.src, h.Length); err != nil {
			return w.endErr(at, err)
		}
		if h.OpCode == ws.OpClose {
			w.closed = true
		}
		return nil
	}
	switch h.OpCode {
	case ws.OpText, ws.OpBinary:
		if w.inMsg {
			return w.fail(at, "a new message (opcode 0x%X) starts before the previous one ended", byte(h.OpCode))
		}
		w.msgText = h.OpCode == ws.OpText
		w.text = w.text[:0]
	case ws.OpContinuation:
		if !w.inMsg {
			return w.fail(at, "a continuation frame with no message to continue")
		}
	default:
		return w.fail(at, "opcode 0x%X is reserved", byte(h.OpCode))
	}
	w.inMsg = !h.Fin
	if w.msgText {
		if h.Length > int64(w.max-len(w.text)) {
			return w.fail(at, "a text message longer than the limit of %d bytes", w.max)
		}
		start := len(w.text)
		buf := bytes.NewBuffer(w.text)
		if _, err := io.CopyN(buf, &w.src, h.Length); err != nil {
			return w.endErr(at, err)
		}
		w.text = buf.Bytes()
		if h.Masked {
			ws.Cipher(w.text[start:], h.Mask, 0)
		}
		if h.Fin {
			w.onText(w.text)
		}
		return nil
	}
	w.remain, w.mask, w.masked, w.maskOff = h.Length, h.Mask, h.Masked, 0
	return nil
}

func (w *wsReader) endErr(at int64, err error) error {
	if errors.Is(err, errStopped) {
		return err
	}
	if err == io.EOF {
		return w.fail(at, "the stream ends inside the frame")
	}
	return w.fail(at, "%v", err)
}

// wsPlausible tells whether b starts with a WebSocket frame header that
// begins a binary message carrying a Kado frame: reserved bits clear, the
// binary opcode (FIN set or not), the mask bit as the direction masks
// (masked is 0 or 1; -1 when not known), a length that holds a frame
// header and a byte of payload and is within maxSize plus the header, and
// a payload that starts with a plausible Kado frame header
// (kado.Plausible) which, when FIN is set, fits in the frame. need is the
// number of bytes the test looks at: with fewer, ok is false and the
// caller should read more.
func wsPlausible(b []byte, masked int, maxSize int) (need int, ok bool) {
	if len(b) < 2 {
		return 2, false
	}
	if b[0]&0x70 != 0 || ws.OpCode(b[0]&0x0f) != ws.OpBinary {
		return 0, false
	}
	m := b[1]&0x80 != 0
	if masked >= 0 && m != (masked == 1) {
		return 0, false
	}
	hdr, n := 2, uint64(b[1]&0x7f)
	switch n {
	case 126:
		hdr = 4
	case 127:
		hdr = 10
	}
	if m {
		hdr += 4
	}
	need = hdr + kado.HeaderSize + 1
	if len(b) < need {
		return need, false
	}
	switch n {
	case 126:
		if n = uint64(b[2])<<8 | uint64(b[3]); n < 126 {
			return need, false
		}
	case 127:
		if n = binary.BigEndian.Uint64(b[2:10]); n <= 0xffff {
			return need, false
		}
	}
	if n < kado.HeaderSize+1 || n > uint64(maxSize)+kado.HeaderSize {
		return need, false
	}
	var p [kado.HeaderSize + 1]byte
	copy(p[:], b[hdr:need])
	if m {
		var key [4]byte
		copy(key[:], b[hdr-4:hdr])
		ws.Cipher(p[:], key, 0)
	}
	if !kado.Plausible(p[:], maxSize) {
		return need, false
	}
	if fin := b[0]&0x80 != 0; fin && uint64(kado.ParseHeader(p[:]).PayloadLength)+kado.HeaderSize > n {
		return need, false
	}
	return need, true
}

// resyncWS skips the bytes of br up to the first plausible WebSocket frame
// header (wsPlausible) and returns how many it skipped; found is false when
// the stream ends first.
func resyncWS(br *bufio.Reader, masked, maxSize int) (skipped int64, found bool, err error) {
	for {
		need := 2
		for {
			p, perr := br.Peek(need)
			n, ok := wsPlausible(p, masked, maxSize)
			if ok {
				return skipped, true, nil
			}
			if n <= len(p) || perr != nil {
				if perr != nil && len(p) < n {
					if errors.Is(perr, errStopped) {
						return skipped, false, perr
					}
					if len(p) == 0 {
						return skipped, false, nil
					}
				}
				break
			}
			need = n
		}
		if _, err := br.Discard(1); err != nil {
			return skipped, false, err
		}
		skipped++
	}
}

// wsHeaderLen is the length of the WebSocket frame header at the start of
// br, which wsPlausible has accepted.
func wsHeaderLen(br *bufio.Reader) int {
	p, _ := br.Peek(2)
	if len(p) < 2 {
		return 0
	}
	n := 2
	switch p[1] & 0x7f {
	case 126:
		n = 4
	case 127:
		n = 10
	}
	if p[1]&0x80 != 0 {
		n += 4
	}
	return n
}
