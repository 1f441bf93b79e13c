package mcpproxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// DefaultMaxMessage is the longest message a Proxy reads whole to look
// into; a longer one is passed on as it comes, untouched.
const DefaultMaxMessage = 64 << 20

// maxPending bounds the requests a Proxy waits for the answers of: past
// it, a request's answer is passed on untouched.
const maxPending = 1 << 16

// Proxy passes the messages of an MCP session over stdio (JSON-RPC
// messages, one per line) between a client and a server, each as it came,
// in order, and rewrites the results of the client's tools/call requests
// (Rewriter.Result) and, with Options.Describe, of its tools/list
// requests.
type Proxy struct {
	rw         *Rewriter
	describe   bool
	log        io.Writer
	maxMessage int

	mu      sync.Mutex
	pending map[string]pending // the client's requests whose responses are looked into, by idKey
	totals  Totals
}

type pending struct {
	tool string // a tools/call's tool
	list bool   // a tools/list
}

// Totals are the sums of a session's tools/call results, the last line
// of the log ("event": "total").
type Totals struct {
	Event     string `json:"event"`
	Calls     int    `json:"calls"`
	Rewritten int    `json:"rewritten"`
	Before    Size   `json:"before"`
	After     Size   `json:"after"`
	// Saved is the share of the tokens that the rewrites saved, in percent
	// to one decimal.
	Saved float64 `json:"saved_percent"`
}

// New returns a Proxy that rewrites as opts say and writes its log to log
// (nil: no log): one JSON line per tools/call result (a Call), and the
// Totals when Run returns.
func New(opts Options, log io.Writer) (*Proxy, error) {
	rw, err := NewRewriter(opts)
	if err != nil {
		return nil, err
	}
	return &Proxy{rw: rw, describe: opts.Describe, log: log, maxMessage: DefaultMaxMessage, pending: map[string]pending{}}, nil
}

// Run passes the client's messages (read from client) to the server
// (written to toServer, which is closed when client ends) and the
// server's (read from server) to the client (written to toClient), until
// the server's end: its output's end or a read error. It then writes the
// totals to the log and returns; what the client still sends is not read.
// The error is one of reading the server or writing to the client; nil
// when the server's output ended.
func (p *Proxy) Run(client io.Reader, toServer io.WriteCloser, server io.Reader, toClient io.Writer) error {
	go func() {
		// A server that stops reading its stdin (or exits) fails these
		// writes: its output's end, below, ends the session.
		p.pass(client, toServer, p.fromClient, nil)
		toServer.Close() // the server's stdin ends: stdio's way to end a session
	}()
	err := p.pass(server, clientWriter{toClient}, p.fromServer, p.tooLong)
	p.writeTotals()
	var we writeError
	if err != nil && !errors.As(err, &we) {
		err = fmt.Errorf("cannot read the server: %s", cli.PathErrText(err))
	}
	return err
}

// clientWriter says which side a failed write was to.
type clientWriter struct{ w io.Writer }

func (c clientWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	if err != nil {
		err = writeError{err}
	}
	return n, err
}

type writeError struct{ err error }

func (e writeError) Error() string { return "cannot write to the client: " + cli.PathErrText(e.err) }
func (e writeError) Unwrap() error { return e.err }

// Totals returns the sums so far.
func (p *Proxy) Totals() Totals {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.totals
	t.Event = "total"
	if t.Before.Tokens > 0 {
		t.Saved = math.Round(float64(t.Before.Tokens-t.After.Tokens)*1000/float64(t.Before.Tokens)) / 10
	}
	return t
}

// pass copies messages from r to w, each line through look; a line
// longer than maxMessage is copied as it comes, its first maxMessage
// bytes given to tooLong (when not nil) first.
func (p *Proxy) pass(r io.Reader, w io.Writer, look func([]byte) []byte, tooLong func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			line = append(line, chunk...)
			if len(line) > p.maxMessage {
				// Too long to hold: on as it comes, to its end.
				if tooLong != nil {
					tooLong(line)
				}
				if _, werr := w.Write(line); werr != nil {
					return werr
				}
				line = line[:0]
				if err := copyLine(br, w); err != nil {
					return err
				}
			}
			continue
		case err != nil && err != io.EOF:
			return err
		}
		msg := chunk
		if len(line) > 0 {
			line = append(line, chunk...)
			msg = line
		}
		if len(msg) > 0 {
			if _, werr := w.Write(look(msg)); werr != nil {
				return werr
			}
		}
		line = line[:0]
		if cap(line) > 1<<20 {
			line = nil // a long message's buffer is not kept
		}
		if err == io.EOF {
			return nil
		}
	}
}

// copyLine copies the rest of a line from br to w.
func copyLine(br *bufio.Reader, w io.Writer) error {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				return werr
			}
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// fromClient notes the client's tools/call and tools/list requests; the
// message goes on as it is.
func (p *Proxy) fromClient(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"tools/`)) && !bytes.Contains(msg, []byte(`/cancelled"`)) {
		return msg
	}
	m, err := jsonrpc.DecodeMessage(bytes.TrimRight(msg, "\r\n"))
	if err != nil {
		return msg
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return msg
	}
	if req.Method == "notifications/cancelled" {
		// The server need not answer a request cancelled.
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if key, ok := idKey(params.RequestID); ok {
				p.mu.Lock()
				delete(p.pending, key)
				p.mu.Unlock()
			}
		}
		return msg
	}
	if !req.ID.IsValid() || (req.Method != "tools/call" && (req.Method != "tools/list" || !p.describe)) {
		return msg
	}
	// The id as the client wrote it: jsonrpc.ID makes 1.5 the id 1.
	var raw struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &raw) != nil {
		return msg
	}
	key, ok := idKey(raw.ID)
	if !ok {
		return msg
	}
	pend := pending{list: true}
	if req.Method == "tools/call" {
		var params struct {
			Name string `json:"name"`
		}
		json.Unmarshal(req.Params, &params)
		pend = pending{tool: params.Name}
	}
	p.mu.Lock()
	if len(p.pending) < maxPending {
		p.pending[key] = pend
	}
	p.mu.Unlock()
	return msg
}

// idKey is the key of a request's id, given as JSON text: a string's
// value, or a number's. An integer is its digits; any other number, its
// float64 value, so that ids a server writes back in its own way (1.0 as
// 1) meet, and different ids (1.5 and 1) never do. ok is false for any
// other value.
func idKey(raw []byte) (key string, ok bool) {
	raw = jsonv.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		s, err := jsontext.AppendUnquote([]byte{'s'}, raw)
		return string(s), err == nil
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return "", false
	}
	if !bytes.ContainsAny(raw, ".eE") {
		if string(raw) == "-0" {
			raw = raw[1:]
		}
		return "n" + string(raw), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return "", false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return "n" + strconv.FormatInt(int64(f), 10), true
	}
	return "f" + strconv.FormatFloat(f, 'g', -1, 64), true
}

// take removes the request whose id is raw from those waiting, and
// returns it.
func (p *Proxy) take(raw []byte) (pending, bool) {
	key, ok := idKey(raw)
	if !ok {
		return pending{}, false
	}
	p.mu.Lock()
	pend, ok := p.pending[key]
	delete(p.pending, key)
	p.mu.Unlock()
	return pend, ok
}

// tooLong forgets the request that a message too long to look into (its
// first bytes, prefix) answers, when its id comes before its result, and
// logs a tools/call's result as left alone.
func (p *Proxy) tooLong(prefix []byte) {
	d := jsontext.NewDecoder(bytes.NewReader(prefix))
	if d.PeekKind() != '{' {
		return
	}
	d.ReadToken()
	// The prefix ends inside a member: this stops there, or at the id.
	eachMember(d, func(name string) error {
		if name != "id" {
			return d.SkipValue()
		}
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		if pend, ok := p.take(v); ok && !pend.list {
			p.record(Call{Tool: pend.tool, ID: bytes.Clone(v), Choice: "unchanged", Why: fmt.Sprintf("a message over %d bytes, passed on as it came", p.maxMessage)})
		}
		return errShape // the id found: no more to read
	})
}

// answerRead is what readAnswer finds in a message from the server.
type answerRead struct {
	id, result span // the id's value, and the result's (the ':' and white space before it included, or not)
	sh         shape
	shapeErr   error // scanResult's, for the result
	answer     bool  // a "result" or "error" member was met: not a request
	valid      bool  // one JSON object on the line, and nothing after it
}

// readAnswer reads the id and the result's shape of msg, a line from the
// server: quickAnswer's one pass in the common case, decodeAnswer's
// otherwise.
func (rw *Rewriter) readAnswer(msg []byte) answerRead {
	if q, ok := rw.quickAnswer(msg); ok {
		return answerRead{id: q.id, result: q.result, sh: q.sh, answer: true, valid: true}
	}
	return decodeAnswer(msg)
}

// decodeAnswer is readAnswer by a decoder, in one pass that stops at the
// first member that tells the message is not an answer ("method").
func decodeAnswer(msg []byte) answerRead {
	var a answerRead
	d := jsontext.NewDecoder(bytes.NewReader(msg))
	if d.PeekKind() != '{' {
		return a
	}
	d.ReadToken()
	a.valid = eachMember(d, func(name string) error {
		switch name {
		case "id":
			v, err := d.ReadValue()
			if err != nil {
				return err
			}
			end := int(d.InputOffset())
			a.id = span{end - len(v), end}
		case "method":
			return errShape // a request or a notification
		case "result":
			a.answer = true
			start := int(d.InputOffset())
			a.shapeErr = scanResult(d, &a.sh)
			a.result = span{start, int(d.InputOffset())}
			if a.shapeErr != errShape {
				return a.shapeErr // nil, or not valid JSON
			}
		case "error":
			a.answer = true
			return d.SkipValue()
		default:
			return d.SkipValue()
		}
		return nil
	}) == nil && atEnd(d) // one JSON value on the line, and nothing after it
	return a
}

// fromServer rewrites the result of a response to a request fromClient
// noted; any other message goes on as it is.
func (p *Proxy) fromServer(msg []byte) []byte {
	p.mu.Lock()
	waiting := len(p.pending) > 0
	p.mu.Unlock()
	if !waiting {
		return msg
	}
	a := p.rw.readAnswer(msg)
	if a.id.end == 0 {
		return msg
	}
	if !a.valid {
		// A broken answer: passed on as it came, its request forgotten.
		if !a.answer {
			return msg
		}
		if pend, ok := p.take(a.id.of(msg)); ok && !pend.list {
			p.record(Call{Tool: pend.tool, ID: bytes.Clone(a.id.of(msg)), Choice: "unchanged", Why: "not valid JSON"})
		}
		return msg
	}
	pend, ok := p.take(a.id.of(msg))
	if !ok {
		return msg
	}
	if pend.list {
		if a.result.end == 0 {
			return msg
		}
		// The result's value, without the ':' and white space before it.
		a.result.start += bytes.IndexAny(msg[a.result.start:a.result.end], "{[\"tfn-0123456789")
		return splice(msg, []edit{{a.result, p.rw.Tools(a.result.of(msg))}})
	}
	call := Call{Choice: "unchanged", Why: "an error response"}
	out := msg
	if a.result.end > 0 {
		out, call = p.rw.rewriteTexts(msg, a.sh, a.shapeErr)
	}
	call.Tool, call.ID = pend.tool, jsontext.Value(bytes.Clone(a.id.of(msg)))
	p.record(call)
	return out
}

// record adds a call to the totals and logs it.
func (p *Proxy) record(c Call) {
	p.mu.Lock()
	p.totals.Calls++
	if c.Rewritten {
		p.totals.Rewritten++
	}
	p.totals.Before.Bytes += c.Before.Bytes
	p.totals.Before.Tokens += c.Before.Tokens
	p.totals.After.Bytes += c.After.Bytes
	p.totals.After.Tokens += c.After.Tokens
	p.mu.Unlock()
	p.writeLog(c)
}

func (p *Proxy) writeTotals() { p.writeLog(p.Totals()) }

func (p *Proxy) writeLog(v any) {
	if p.log == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p.log.Write(append(b, '\n'))
}

// Tools adds DescribeLine to the description of each tool in result, the
// JSON of a ListToolsResult; every other byte stays.
func (rw *Rewriter) Tools(result []byte) []byte {
	var tools span
	if members(result, func(name string, v span) {
		if name == "tools" {
			tools = v
		}
	}) != nil || tools.end == 0 {
		return result
	}
	var edits []edit
	elements(result, tools, func(tool span) {
		b := tool.of(result)
		var desc span
		n := 0
		if members(b, func(name string, v span) {
			n++
			if name == "description" {
				desc = v
			}
		}) != nil {
			return
		}
		if desc.end == 0 {
			member := []byte(`,"description":`)
			if n == 0 {
				member = member[1:]
			}
			q, _ := jsontext.AppendQuote(member, DescribeLine)
			at := tool.end - 1 // before the object's '}'
			edits = append(edits, edit{span{at, at}, q})
			return
		}
		text, err := jsontext.AppendUnquote(nil, desc.of(b))
		if err != nil {
			return
		}
		if len(text) > 0 {
			text = append(text, '\n')
		}
		q, err := jsontext.AppendQuote(nil, append(text, DescribeLine...))
		if err != nil {
			return
		}
		edits = append(edits, edit{desc.shift(tool.start), q})
	})
	if len(edits) == 0 {
		return result
	}
	return splice(result, edits)
}
