package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/toonkit/toonkit/internal/validate"
)

// Options configure Serve.
type Options struct {
	// Version is the server's version, in initialize's serverInfo.
	Version string
	// Indent is the spaces per level TOON documents are read with; 0:
	// each document's own (its least indentation, as fmt finds it). A
	// client may set it too, by initializationOptions {"indent": N}.
	Indent int
	// MaxSize bounds a line of a document; 0 means 64 MiB.
	MaxSize int
	// MaxMessage bounds a message from the client (its Content-Length);
	// 0 means 256 MiB. A message's bytes are held as they arrive, not
	// as its header claims. A larger message ends the session with a
	// *LimitError.
	MaxMessage int64
}

// ErrNoShutdown is Serve's error when the client sent exit without
// shutdown, or closed the connection without either: LSP asks the server
// to exit with status 1 then.
var ErrNoShutdown = errors.New("the client left without a shutdown request")

// CommandShowJSON is the command (workspace/executeCommand) that returns
// a document as JSON: its argument is the document's URI, its result the
// JSON text, indented by two spaces, ending with a newline.
const CommandShowJSON = "toonkit.showJSON"

// Serve speaks LSP on conn (an editor's stdin and stdout) until the
// client sends exit, and returns nil when a shutdown request came first.
func Serve(ctx context.Context, conn io.ReadWriteCloser, opts Options) error {
	s := &Server{opts: opts, docs: map[protocol.DocumentURI]*document{}, exited: make(chan struct{})}
	s.conn = jsonrpc2.NewConn(newStream(conn, opts.MaxMessage))
	s.conn.Go(ctx, s.handle)
	var limit *LimitError
	select {
	case <-s.exited:
	case <-s.conn.Done():
		errors.As(s.conn.Err(), &limit)
	case <-ctx.Done():
	}
	s.closeAll()
	s.conn.Close()
	if limit != nil {
		return limit
	}
	s.mu.Lock()
	down := s.shutdown
	s.mu.Unlock()
	if !down {
		return ErrNoShutdown
	}
	return nil
}

// Server is one client's session: its open documents and their
// diagnostics.
type Server struct {
	conn jsonrpc2.Conn
	opts Options

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	enc         encoding
	docs        map[protocol.DocumentURI]*document
	exited      chan struct{}
	exitOnce    sync.Once
	wg          sync.WaitGroup

	schemaMu sync.Mutex
	schemas  validate.Schemas
}

// document is an open document: its newest text and version, the outline
// of that text once asked for, and the goroutine that diagnoses it.
type document struct {
	uri     protocol.DocumentURI
	name    string // its file's path; "" when it is no file
	mu      sync.Mutex
	t       *text
	version int32
	outline *outline // of t; nil until asked for
	dirty   chan struct{}
	closed  chan struct{}
	gone    bool // closed: nothing more is published (under mu)
}

func (d *document) snapshot() (*text, int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.t, d.version
}

// outlineOf is the outline of the document's newest text.
func (s *Server) outlineOf(d *document) *outline {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.outline == nil || d.outline.t != d.t {
		d.outline = newOutline(d.t, s.opts.Indent)
	}
	return d.outline
}

// indentFor is the indent a document is read with.
func (s *Server) indentFor(t *text) int {
	if s.opts.Indent > 0 {
		return s.opts.Indent
	}
	return newIndent(t)
}

// fileName is the path of a file: URI, "" for any other.
func fileName(u protocol.DocumentURI) string {
	p, err := url.Parse(string(u))
	if err != nil || p.Scheme != "file" {
		return ""
	}
	path := p.Path
	if runtime.GOOS == "windows" && len(path) > 2 && path[0] == '/' && path[2] == ':' {
		path = path[1:]
	}
	return filepath.FromSlash(path)
}

// initializeResult is protocol.InitializeResult with LSP 3.17's
// positionEncoding, which go.lsp.dev/protocol (3.16) lacks.
type initializeResult struct {
	protocol.InitializeResult
	Capabilities capabilities `json:"capabilities"`
}

type capabilities struct {
	protocol.ServerCapabilities
	PositionEncoding string `json:"positionEncoding,omitempty"`
}

// initializeExtra is what initialize's params hold beyond
// protocol.InitializeParams: 3.17's position encodings, and our options.
type initializeExtra struct {
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
	} `json:"capabilities"`
	InitializationOptions struct {
		Indent int `json:"indent"`
	} `json:"initializationOptions"`
}

func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	_, isCall := req.(*jsonrpc2.Call)
	s.mu.Lock()
	initialized, down := s.initialized, s.shutdown
	s.mu.Unlock()
	switch m := req.Method(); {
	case m == "exit":
		s.exitOnce.Do(func() { close(s.exited) })
		return nil
	case m == protocol.MethodInitialize:
		if initialized {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was sent twice"))
		}
		return s.initialize(ctx, reply, req)
	case !initialized:
		if !isCall {
			return nil // notifications before initialize are dropped
		}
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized"))
	case down && isCall:
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down"))
	case m == protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return reply(ctx, nil, nil)
	}
	result, err := s.dispatch(ctx, req)
	if !isCall {
		return nil
	}
	return reply(ctx, result, err)
}

func (s *Server) initialize(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	var extra initializeExtra
	if err := json.Unmarshal(req.Params(), &extra); err != nil {
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error()))
	}
	s.mu.Lock()
	s.initialized = true
	enc := "utf-16"
	for _, e := range extra.Capabilities.General.PositionEncodings {
		if e == "utf-8" {
			s.enc, enc = utf8Bytes, "utf-8"
		}
	}
	if n := extra.InitializationOptions.Indent; n > 0 && s.opts.Indent == 0 {
		s.opts.Indent = n
	}
	s.mu.Unlock()
	res := initializeResult{
		InitializeResult: protocol.InitializeResult{ServerInfo: &protocol.ServerInfo{Name: "toonkit", Version: s.opts.Version}},
		Capabilities: capabilities{PositionEncoding: enc, ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
			},
			HoverProvider:                   true,
			DocumentSymbolProvider:          true,
			FoldingRangeProvider:            true,
			SelectionRangeProvider:          true,
			DocumentFormattingProvider:      true,
			DocumentRangeFormattingProvider: true,
			CodeActionProvider: protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.RefactorRewrite},
			},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: []string{CommandShowJSON}},
		}},
	}
	return reply(ctx, res, nil)
}

// params decodes req's params into v, or is InvalidParams.
func params(req jsonrpc2.Request, v any) error {
	if err := json.Unmarshal(req.Params(), v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: %v", req.Method(), err))
	}
	return nil
}

// dispatch runs one request or notification after initialize.
func (s *Server) dispatch(ctx context.Context, req jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	switch req.Method() {
	case protocol.MethodInitialized, "$/cancelRequest", "$/setTrace", protocol.MethodTextDocumentDidSave, protocol.MethodWorkspaceDidChangeConfiguration:
		return nil, nil
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if err := params(req, &p); err != nil {
			return nil, err
		}
		s.open(ctx, p.TextDocument.URI, p.TextDocument.Version, []byte(p.TextDocument.Text))
		return nil, nil
	case protocol.MethodTextDocumentDidChange:
		var p didChangeParams
		if err := params(req, &p); err != nil {
			return nil, err
		}
		return nil, s.change(ctx, p, enc)
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := params(req, &p); err != nil {
			return nil, err
		}
		s.close(ctx, p.TextDocument.URI)
		return nil, nil
	case protocol.MethodTextDocumentHover:
		return onDoc(s, req, func(d *document, p *protocol.HoverParams) (any, error) {
			o := s.outlineOf(d)
			if h := o.hover(o.t.offset(p.Position, enc), enc); h != nil {
				return h, nil
			}
			return nil, nil
		})
	case protocol.MethodTextDocumentDocumentSymbol:
		return onDoc(s, req, func(d *document, _ *docParams) (any, error) {
			return nonNil(s.outlineOf(d).symbols(enc)), nil
		})
	case protocol.MethodTextDocumentFoldingRange:
		return onDoc(s, req, func(d *document, _ *docParams) (any, error) {
			return nonNil(s.outlineOf(d).folds()), nil
		})
	case "textDocument/selectionRange":
		return onDoc(s, req, func(d *document, p *protocol.SelectionRangeParams) (any, error) {
			o := s.outlineOf(d)
			out := []protocol.SelectionRange{}
			for _, pos := range p.Positions {
				out = append(out, o.selection(o.t.offset(pos, enc), enc))
			}
			return out, nil
		})
	case protocol.MethodTextDocumentFormatting:
		return onDoc(s, req, func(d *document, _ *docParams) (any, error) {
			t, _ := d.snapshot()
			return s.format(t, nil, enc)
		})
	case protocol.MethodTextDocumentRangeFormatting:
		return onDoc(s, req, func(d *document, p *protocol.DocumentRangeFormattingParams) (any, error) {
			t, _ := d.snapshot()
			return s.format(t, &p.Range, enc)
		})
	case protocol.MethodTextDocumentCodeAction:
		return onDoc(s, req, func(d *document, p *protocol.CodeActionParams) (any, error) {
			return nonNil(s.codeActions(d, *p, enc)), nil
		})
	case protocol.MethodWorkspaceExecuteCommand:
		var p protocol.ExecuteCommandParams
		if err := params(req, &p); err != nil {
			return nil, err
		}
		return s.execute(p)
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// docParams are the params of a request on a document and nothing else
// (symbols, folding ranges, formatting: the formatting options are not
// read, since a TOON document keeps its own indent).
type docParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

// onDoc decodes req's params into a P, finds the open document they name
// and runs f on both.
func onDoc[P any](s *Server, req jsonrpc2.Request, f func(*document, *P) (any, error)) (any, error) {
	var p P
	if err := params(req, &p); err != nil {
		return nil, err
	}
	var id docParams
	json.Unmarshal(req.Params(), &id) //nolint:errcheck // params decoded them already
	d, err := s.doc(id.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return f(d, &p)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// doc is the open document uri, or an InvalidParams error.
func (s *Server) doc(u protocol.DocumentURI) (*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s is not open", u))
	}
	return d, nil
}

// open starts a document and its diagnostics.
func (s *Server) open(ctx context.Context, u protocol.DocumentURI, version int32, src []byte) {
	s.mu.Lock()
	if old, ok := s.docs[u]; ok {
		close(old.closed)
		old.mu.Lock()
		old.gone = true
		old.mu.Unlock()
	}
	d := &document{uri: u, name: fileName(u), t: newText(src), version: version, dirty: make(chan struct{}, 1), closed: make(chan struct{})}
	s.docs[u] = d
	s.mu.Unlock()
	// The first diagnosis is made before the next message is read, so
	// that a client (or a script) that opens a document and then asks
	// something has the diagnostics first; later ones are made on
	// another goroutine, not to hold up typing.
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	s.publish(ctx, u, &version, s.diagnose(d.t, d.name, enc))
	s.wg.Add(1)
	go s.diagnoseLoop(ctx, d)
}

// change applies an edit and asks for diagnostics of the new text.
func (s *Server) change(ctx context.Context, p didChangeParams, enc encoding) error {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return err
	}
	d.mu.Lock()
	t, err := d.t.apply(p.ContentChanges, enc)
	if err == nil {
		d.t, d.version = t, p.TextDocument.Version
	}
	d.mu.Unlock()
	if err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	select {
	case d.dirty <- struct{}{}:
	default: // a diagnosis is due already; it will read the newest text
	}
	return nil
}

func (s *Server) close(ctx context.Context, u protocol.DocumentURI) {
	s.mu.Lock()
	d, ok := s.docs[u]
	delete(s.docs, u)
	s.mu.Unlock()
	if ok {
		close(d.closed)
		d.mu.Lock()
		d.gone = true
		s.publish(ctx, u, nil, []protocol.Diagnostic{})
		d.mu.Unlock()
	}
}

func (s *Server) closeAll() {
	s.mu.Lock()
	for u, d := range s.docs {
		close(d.closed)
		delete(s.docs, u)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// diagnoseLoop diagnoses the document's newest text each time it is
// marked dirty, and publishes the result unless the text changed
// meanwhile (a newer diagnosis is then due).
func (s *Server) diagnoseLoop(ctx context.Context, d *document) {
	defer s.wg.Done()
	for {
		select {
		case <-d.closed:
			return
		case <-ctx.Done():
			return
		case <-d.dirty:
		}
		t, version := d.snapshot()
		s.mu.Lock()
		enc := s.enc
		s.mu.Unlock()
		diags := s.diagnose(t, d.name, enc)
		d.mu.Lock()
		if !d.gone && d.t == t {
			s.publish(ctx, d.uri, &version, diags)
		}
		d.mu.Unlock()
	}
}

func (s *Server) publish(ctx context.Context, u protocol.DocumentURI, version *int32, diags []protocol.Diagnostic) {
	p := publishParams{URI: u, Diagnostics: diags}
	if version != nil {
		p.Version = version
	}
	s.conn.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, p) //nolint:errcheck // a closed connection ends Serve
}

// publishParams is protocol.PublishDiagnosticsParams with a version
// that is left out when not known (the library's is a plain uint32).
type publishParams struct {
	URI         protocol.DocumentURI  `json:"uri"`
	Version     *int32                `json:"version,omitempty"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}
