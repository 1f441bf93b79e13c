package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	_ "github.com/toonkit/toonkit/toon" // the codec
)

// client is the editor's end of a session with a Server, for the tests.
type client struct {
	t     testing.TB
	ctx   context.Context
	conn  jsonrpc2.Conn
	done  chan error // Serve's result
	mu    sync.Mutex
	diags map[protocol.DocumentURI][]publishParams
	cond  *sync.Cond
}

// failsafe bounds a wait for a message that should come, so that a
// broken server fails the test rather than hanging it; the tests do not
// depend on it otherwise.
const failsafe = 2 * time.Minute

// newClient starts a Server on one end of a pipe and initializes it with
// init's params (nil: no capabilities).
func newClient(t testing.TB, opts Options, init map[string]any) *client {
	t.Helper()
	c := startClient(t, opts)
	if init == nil {
		init = map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}
	}
	var res map[string]any
	c.call(protocol.MethodInitialize, init, &res)
	c.notify(protocol.MethodInitialized, map[string]any{})
	return c
}

// newClientNoInit is a session that is not initialized yet.
func newClientNoInit(t testing.TB) *client { return startClient(t, Options{}) }

func startClient(t testing.TB, opts Options) *client {
	ctx, cancel := context.WithCancel(context.Background())
	a, b := net.Pipe()
	c := &client{t: t, ctx: ctx, done: make(chan error, 1), diags: map[protocol.DocumentURI][]publishParams{}}
	c.cond = sync.NewCond(&c.mu)
	go func() { c.done <- Serve(ctx, a, opts) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	c.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p publishParams
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("publishDiagnostics: %v", err)
			}
			c.mu.Lock()
			c.diags[p.URI] = append(c.diags[p.URI], p)
			c.cond.Broadcast()
			c.mu.Unlock()
		}
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() {
		cancel()
		c.conn.Close()
		a.Close()
	})
	return c
}

// call sends a request and decodes its result into result; a response
// error fails the test.
func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.try(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// try sends a request and returns its error response.
func (c *client) try(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(c.ctx, failsafe)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(c.ctx, method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// open opens a document and returns its first diagnostics.
func (c *client) open(u protocol.DocumentURI, text string) []protocol.Diagnostic {
	c.t.Helper()
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "toon", Version: 1, Text: text}})
	return c.wait(u, 1)
}

// edit sends one incremental change (nil rng: the whole text) as version.
func (c *client) edit(u protocol.DocumentURI, version int32, rng *protocol.Range, text string) {
	c.t.Helper()
	c.notify(protocol.MethodTextDocumentDidChange, didChangeParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []change{{Range: rng, Text: text}},
	})
}

// wait returns the diagnostics published for version of u.
func (c *client) wait(u protocol.DocumentURI, version int32) []protocol.Diagnostic {
	c.t.Helper()
	deadline := time.AfterFunc(failsafe, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer deadline.Stop()
	start := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for _, p := range c.diags[u] {
			if p.Version != nil && *p.Version == version {
				return p.Diagnostics
			}
		}
		if time.Since(start) >= failsafe {
			c.t.Fatalf("no diagnostics for version %d of %s", version, u)
		}
		c.cond.Wait()
	}
}

// shutdown ends the session as an editor does and returns Serve's error.
func (c *client) shutdown() error {
	c.t.Helper()
	c.call(protocol.MethodShutdown, nil, nil)
	c.notify("exit", nil)
	select {
	case err := <-c.done:
		return err
	case <-time.After(failsafe):
		return errors.New("Serve did not return after exit")
	}
}

func rng(l1, c1, l2, c2 uint32) *protocol.Range {
	return &protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func docID(u protocol.DocumentURI) protocol.TextDocumentIdentifier {
	return protocol.TextDocumentIdentifier{URI: u}
}
