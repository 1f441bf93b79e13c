package lsp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// The bounds of what a client can make the server read.
const (
	// maxHeaderLine bounds a header line of the base protocol.
	maxHeaderLine = 4 << 10
	// defaultMaxMessage is Options.MaxMessage's default.
	defaultMaxMessage = 256 << 20
)

// A LimitError says that the client sent more than the server reads: a
// header line or a message over its bound. The session ends with it.
type LimitError struct {
	What  string // "header line" or "message"
	Size  int64  // its size (at least Limit+1 for a header line)
	Limit int64
}

func (e *LimitError) Error() string {
	if e.What == "message" {
		return fmt.Sprintf("the client sent a message of %d bytes, over the limit of %d bytes", e.Size, e.Limit)
	}
	return fmt.Sprintf("the client sent a %s over the limit of %d bytes", e.What, e.Limit)
}

// stream is the base protocol's header-framed JSON-RPC stream, as
// jsonrpc2.NewStream reads it, within bounds: a header line of
// maxHeaderLine bytes, a message of max bytes; and a message's body is
// read as it arrives, so that memory grows with the bytes the client
// sent, never with the Content-Length it claims. jsonrpc2's own stream
// writes the server's messages.
type stream struct {
	jsonrpc2.Stream // Write and Close
	in              *bufio.Reader
	max             int64
}

func newStream(conn io.ReadWriteCloser, max int64) *stream {
	if max <= 0 {
		max = defaultMaxMessage
	}
	return &stream{Stream: jsonrpc2.NewStream(conn), in: bufio.NewReaderSize(conn, maxHeaderLine), max: max}
}

// Read reads the next message: header lines up to an empty one, of which
// Content-Length (its name in any case, as the base protocol's headers
// are read) gives the size of the body that follows; the others are
// skipped.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var total int64
	length := int64(-1)
	for {
		line, err := s.in.ReadSlice('\n')
		total += int64(len(line))
		if err == bufio.ErrBufferFull {
			return nil, total, &LimitError{What: "header line", Size: int64(len(line)) + 1, Limit: maxHeaderLine}
		}
		if err != nil {
			if err == io.EOF && total > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, total, fmt.Errorf("reading a header line: %w", err)
		}
		text := strings.TrimSpace(string(line))
		if text == "" {
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, total, fmt.Errorf("invalid header line %q", text)
		}
		if strings.EqualFold(strings.TrimSpace(name), jsonrpc2.HdrContentLength) {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n <= 0 {
				return nil, total, fmt.Errorf("invalid %s: %q", jsonrpc2.HdrContentLength, strings.TrimSpace(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, total, fmt.Errorf("missing %s header", jsonrpc2.HdrContentLength)
	}
	if length > s.max {
		return nil, total, &LimitError{What: "message", Size: length, Limit: s.max}
	}
	// A buffer of its own for each message: the decoded message refers to
	// its bytes (jsonrpc2 decodes without copying).
	var body bytes.Buffer
	body.Grow(int(min(length, 64<<10)))
	n, err := io.CopyN(&body, s.in, length)
	total += n
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, total, fmt.Errorf("reading a message of %d bytes: %w", length, err)
	}
	msg, err := jsonrpc2.DecodeMessage(body.Bytes())
	return msg, total, err
}
