package mcpserve

import (
	"context"
	"encoding/json"
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

// drainConn keeps the ids of the requests read and not yet answered; at
// the end of the input, Read waits until none is left. A request
// cancelled (notifications/cancelled) is not waited for: the SDK need not
// answer it. Two requests of one id, which the SDK answers once, are one.
type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[jsonrpc.ID]bool
}

func (d *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := d.Connection.Read(ctx)
	if errors.Is(err, io.EOF) {
		stop := context.AfterFunc(ctx, func() {
			d.mu.Lock()
			d.cond.Broadcast()
			d.mu.Unlock()
		})
		defer stop()
		d.mu.Lock()
		for len(d.pending) > 0 && ctx.Err() == nil {
			d.cond.Wait()
		}
		d.mu.Unlock()
		return nil, err
	}
	req, ok := m.(*jsonrpc.Request)
	switch {
	case !ok:
	case req.ID.IsValid():
		d.mu.Lock()
		if d.pending == nil {
			d.pending = map[jsonrpc.ID]bool{}
		}
		d.pending[req.ID] = true
		d.mu.Unlock()
	case req.Method == "notifications/cancelled":
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if id, err := jsonrpc.MakeID(params.RequestID); err == nil {
				d.answered(id)
			}
		}
	}
	return m, err
}

func (d *drainConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := d.Connection.Write(ctx, m)
	if r, ok := m.(*jsonrpc.Response); ok {
		d.answered(r.ID)
	}
	return err
}

func (d *drainConn) answered(id jsonrpc.ID) {
	d.mu.Lock()
	delete(d.pending, id)
	d.cond.Broadcast()
	d.mu.Unlock()
}
