package mcpserve

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is the SDK's newline-delimited JSON transport over r and w
// (stdin and stdout), which answers every request read before the input
// ends: a client that writes its requests and closes its end (a session
// piped in, as in `toonkit mcp serve < session`) gets every answer. The
// SDK's own ends the session at the end of the input, while requests may
// still be running. maxLine bounds a message (mcp.IOTransport's
// MaxLineLength).
func Transport(r io.Reader, w io.Writer, maxLine int) mcp.Transport {
	return &drainTransport{inner: &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}, MaxLineLength: maxLine}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

type drainTransport struct{ inner mcp.Transport }

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d := &drainConn{Connection: c}
	d.cond = sync.NewCond(&d.mu)
	return d, nil
}

// drainConn counts the requests read and the responses written; at the
// end of the input, Read waits until they are even.
type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	cond    *sync.Cond
	pending int
}

func (d *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := d.Connection.Read(ctx)
	if errors.Is(err, io.EOF) {
		d.mu.Lock()
		for d.pending > 0 && ctx.Err() == nil {
			d.cond.Wait()
		}
		d.mu.Unlock()
		return nil, err
	}
	if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
		d.mu.Lock()
		d.pending++
		d.mu.Unlock()
	}
	return m, err
}

func (d *drainConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := d.Connection.Write(ctx, m)
	if _, ok := m.(*jsonrpc.Response); ok {
		d.mu.Lock()
		d.pending--
		d.cond.Broadcast()
		d.mu.Unlock()
	}
	return err
}
