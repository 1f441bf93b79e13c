package mcpproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/internal/toonx"
	_ "github.com/toonkit/toonkit/toon" // toonx's encoder
)

// Options configure a Rewriter (and a Proxy).
type Options struct {
	// Tokenizer counts the tokens that decide a rewrite (tokens.Encodings;
	// "" is o200k_base).
	Tokenizer string
	// MinSaving is the least share of the tokens, in percent, that a
	// rewrite must save; 0 takes any saving.
	MinSaving float64
	// Among are the forms a text may take (internal/stats' formats): nil
	// is TOON with commas, which `encode --to toon` writes; more than one
	// is `convert --to cheapest`'s choice among them.
	Among []string
	// IndentSize is TOON's indentation; 0 means 2.
	IndentSize int
	// Describe adds DescribeLine to each tool's description in the
	// results of tools/list.
	Describe bool
}

// DescribeLine is the line Options.Describe adds to the descriptions of
// the tools.
const DescribeLine = "Its JSON results come as TOON (Token-Oriented Object Notation) when that takes fewer tokens."

// Size is what a text costs.
type Size struct {
	Bytes  int64 `json:"bytes"`
	Tokens int64 `json:"tokens"`
}

// Call is what a Rewriter did with the result of one tools/call: a line
// of the proxy's log.
type Call struct {
	Tool string `json:"tool"`
	// ID is the request's id, as JSON.
	ID jsontext.Value `json:"id"`
	// Rewritten says that some text of the result was rewritten.
	Rewritten bool `json:"rewritten"`
	// Choice is the form the JSON texts took (toon-comma, ...), or
	// "unchanged".
	Choice string `json:"choice"`
	// Why says why a result, or some text of it, was left alone.
	Why string `json:"why,omitempty"`
	// Before and After are the sizes of the result's text content.
	Before Size `json:"before"`
	After  Size `json:"after"`
	// Texts is the number of text blocks in the result, and JSON the
	// number of them that were JSON.
	Texts int `json:"texts"`
	JSON  int `json:"json"`
}

// Rewriter rewrites the JSON text of tool results as TOON. It is not safe
// for concurrent use: its token counters remember the pieces of the texts
// it counted, so that the keys a tool repeats call after call are counted
// once.
type Rewriter struct {
	opts    Options
	among   []string
	counter *tokens.Counter // the texts as they came
	forms   *tokens.Counter // their forms
	buf     bytes.Buffer
	raw     []byte // a text unquoted
	best    []byte // its cheapest form

	// quickAnswer's: the texts unquoted, their strings' spans, the
	// message without them, and its check.
	texts    [][]byte
	cut      []span
	skeleton []byte
	chk      jsonv.Checker
}

// NewRewriter returns a Rewriter, or an error for an unknown tokenizer or
// form.
func NewRewriter(opts Options) (*Rewriter, error) {
	if opts.Tokenizer == "" {
		opts.Tokenizer = tokens.Encodings[0]
	}
	c, err := tokens.NewCounter(opts.Tokenizer)
	if err != nil {
		return nil, err
	}
	among := opts.Among
	if len(among) == 0 {
		among = []string{stats.TOONComma}
	}
	for _, f := range among {
		if !isForm(f) {
			return nil, fmt.Errorf("unknown format %q (supported: %v)", f, stats.Formats)
		}
	}
	if opts.MinSaving < 0 || opts.MinSaving > 100 {
		return nil, fmt.Errorf("the least saving must be from 0 to 100 percent, found %g", opts.MinSaving)
	}
	forms, _ := tokens.NewCounter(opts.Tokenizer)
	return &Rewriter{opts: opts, among: among, counter: c, forms: forms}, nil
}

func isForm(f string) bool {
	for _, g := range stats.Formats {
		if f == g {
			return true
		}
	}
	return false
}

// errShape is a message whose shape is not the one looked for: it is left
// alone.
var errShape = errors.New("not of the shape looked for")

// Result rewrites result, the JSON of a CallToolResult, and says what it
// did. Each text block (content[i] with "type": "text") whose text is a
// JSON object or array becomes the cheapest of the Options' forms when
// that saves at least MinSaving percent of its tokens; every other byte of
// result is kept. A result with "isError": true, and one that is not a
// JSON object holding a content array, are returned as they are.
func (rw *Rewriter) Result(result []byte) ([]byte, Call) {
	if sh, ok := rw.quickResultOnly(result); ok {
		return rw.rewriteTexts(result, sh, nil)
	}
	var sh shape
	d := jsontext.NewDecoder(bytes.NewReader(result))
	err := scanResult(d, &sh)
	if err == nil && !atEnd(d) {
		err = errShape // more after the value
	}
	return rw.rewriteTexts(result, sh, err)
}

// atEnd reports whether d has nothing left but white space: no value
// after the one read, and no byte that is none.
func atEnd(d *jsontext.Decoder) bool {
	_, err := d.ReadToken()
	return err == io.EOF
}

// shape is what scanResult finds in a CallToolResult: its text blocks'
// texts, as spans of the message.
type shape struct {
	content bool // it has a content array
	isError bool
	texts   []span
	raws    [][]byte // the texts unquoted, when quickAnswer read them
}

// scanResult reads the value at d, a CallToolResult, in one pass (each
// byte parsed once: a 100 KB text is read once), and notes its shape. The
// spans are offsets in d's input. It fails when the value is not valid
// JSON (a name twice included) or not an object.
func scanResult(d *jsontext.Decoder, sh *shape) error {
	if d.PeekKind() != '{' {
		if err := d.SkipValue(); err != nil {
			return err
		}
		return errShape
	}
	d.ReadToken()
	return eachMember(d, func(name string) error {
		switch name {
		case "isError":
			v, err := d.ReadValue()
			if err != nil {
				return err
			}
			sh.isError = string(v) == "true"
		case "content":
			if d.PeekKind() != '[' {
				return d.SkipValue()
			}
			sh.content = true
			d.ReadToken()
			for d.PeekKind() != ']' {
				if err := scanBlock(d, sh); err != nil {
					return err
				}
			}
			_, err := d.ReadToken()
			return err
		default:
			return d.SkipValue()
		}
		return nil
	})
}

// scanBlock reads one element of content, and notes it when it is a text
// block.
func scanBlock(d *jsontext.Decoder, sh *shape) error {
	if d.PeekKind() != '{' {
		return d.SkipValue()
	}
	d.ReadToken()
	isText := false
	var text span
	err := eachMember(d, func(name string) error {
		if name != "type" && (name != "text" || d.PeekKind() != '"') {
			return d.SkipValue()
		}
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		if name == "type" {
			isText = string(v) == `"text"`
		} else {
			end := int(d.InputOffset())
			text = span{end - len(v), end}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if isText && text.end > 0 {
		sh.texts = append(sh.texts, text)
	}
	return nil
}

// rewriteTexts is Result for msg, whose result's shape is sh (or which
// could not be read, err).
func (rw *Rewriter) rewriteTexts(msg []byte, sh shape, err error) ([]byte, Call) {
	call := Call{Choice: "unchanged"}
	if err != nil || !sh.content {
		call.Why = "not a tool result with content"
		return msg, call
	}
	var edits []edit
	var choices []string
	for i, text := range sh.texts {
		var raw []byte
		if sh.raws != nil {
			raw = sh.raws[i]
		} else {
			raw, err = jsontext.AppendUnquote(rw.raw[:0], text.of(msg))
			rw.raw = raw // reused for the next text: raw is done with in this one
			if err != nil {
				continue
			}
		}
		call.Texts++
		t := jsonv.TrimSpace(raw)
		isJSON := !sh.isError && len(t) > 0 && (t[0] == '{' || t[0] == '[')
		// The text's tokens are counted while its forms are made and
		// counted (another Counter): the two take about as long.
		counted := make(chan beforeCount, 1)
		if isJSON {
			go func() { n, err := rw.counter.Count(raw); counted <- beforeCount{n, err} }()
		} else {
			n, err := rw.counter.Count(raw)
			counted <- beforeCount{n, err}
		}
		var out []byte
		var form, why string
		var after tokens.Counts
		if isJSON {
			out, form, after, why = rw.cheapest(t)
		}
		bc := <-counted
		if bc.err != nil {
			continue
		}
		before := bc.n
		call.Before.add(before)
		call.After.add(before)
		if !isJSON || why == "not JSON" {
			continue
		}
		call.JSON++
		if out != nil {
			if saved := before.Tokens - after.Tokens; saved <= 0 || float64(saved)*100 < rw.opts.MinSaving*float64(before.Tokens) {
				out, why = nil, fmt.Sprintf("%s would take %d tokens, against %d", form, after.Tokens, before.Tokens)
			}
		}
		if out == nil {
			call.Why = why
			continue
		}
		q, err := jsontext.AppendQuote(nil, out)
		if err != nil {
			continue
		}
		edits = append(edits, edit{text, q})
		if !slices.Contains(choices, form) {
			choices = append(choices, form)
		}
		call.After.Bytes += after.Bytes - before.Bytes
		call.After.Tokens += after.Tokens - before.Tokens
	}
	switch {
	case sh.isError:
		call.Why = "an error result"
		return msg, call
	case len(edits) == 0:
		if call.Why == "" {
			call.Why = "no JSON text"
		}
		return msg, call
	}
	call.Rewritten, call.Why = true, ""
	slices.Sort(choices)
	call.Choice = strings.Join(choices, ",")
	return splice(msg, edits), call
}

func (s *Size) add(c tokens.Counts) { s.Bytes += c.Bytes; s.Tokens += c.Tokens }

type beforeCount struct {
	n   tokens.Counts
	err error
}

// cheapest is t, a JSON object or array, in the cheapest of the forms
// and its counts; nil and why when it has none ("not JSON" when t is not
// valid JSON).
func (rw *Rewriter) cheapest(t []byte) (out []byte, form string, after tokens.Counts, why string) {
	opts := stats.Options{IndentSize: rw.opts.IndentSize}
	best := tokens.Counts{Tokens: -1}
	for _, f := range rw.among {
		rw.buf.Reset()
		var unavailable string
		var err error
		if f == stats.TOONComma && len(rw.among) == 1 {
			// The encoder checks the JSON itself (RFC 8259, no name
			// twice): not checked once more first. It takes NaN and
			// Infinity too, as Python writes them, and makes them null:
			// such a text is not JSON, and stays.
			nonFinite := 0
			err = toonx.FromJSON(&rw.buf, t, toonx.EncodeOptions{IndentSize: rw.opts.IndentSize, NonFinite: func(n int) { nonFinite = n }})
			if err == nil && nonFinite > 0 {
				return nil, "", after, "not JSON"
			}
		} else {
			unavailable, err = stats.Encode(&rw.buf, t, f, opts)
		}
		if err != nil && jsonv.Check(t) != nil {
			return nil, "", after, "not JSON"
		}
		if err != nil || unavailable != "" {
			if why == "" {
				why = f + ": " + firstNonEmpty(unavailable, errText(err))
			}
			continue
		}
		n, err := rw.forms.Count(rw.buf.Bytes())
		if err != nil {
			continue
		}
		if best.Tokens < 0 || n.Tokens < best.Tokens {
			best, form = n, f
			out = append(rw.best[:0], rw.buf.Bytes()...)
			rw.best = out // reused: the caller quotes out before the next call
		}
	}
	if best.Tokens < 0 {
		return nil, "", after, why
	}
	return out, form, best, ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// span is the bytes [start, end) of a value in a message.
type span struct{ start, end int }

func (s span) of(b []byte) []byte {
	if s.end == 0 {
		return nil
	}
	return b[s.start:s.end]
}

func (s span) shift(by int) span { return span{s.start + by, s.end + by} }

// edit replaces the bytes of a span.
type edit struct {
	at   span
	with []byte
}

// splice is b with the edits made, which are in order and do not overlap.
func splice(b []byte, edits []edit) []byte {
	n := len(b)
	for _, e := range edits {
		n += len(e.with) - (e.at.end - e.at.start)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, e := range edits {
		out = append(out, b[last:e.at.start]...)
		out = append(out, e.with...)
		last = e.at.end
	}
	return append(out, b[last:]...)
}

// members calls f with the name and the value's span of each member of
// obj, a JSON object; an error when obj is not one, or repeats a name.
func members(obj []byte, f func(name string, v span)) error {
	d := jsontext.NewDecoder(bytes.NewReader(obj))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return errShape
	}
	return eachMember(d, func(name string) error {
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		end := int(d.InputOffset())
		f(name, span{end - len(v), end})
		return nil
	})
}

// eachMember reads the members of the object at d, whose '{' was read:
// f is given each member's name and reads its value. Then the '}' is
// read. An error of f's ends it, and is returned.
func eachMember(d *jsontext.Decoder, f func(name string) error) error {
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		if err := f(tok.String()); err != nil {
			return err
		}
	}
	_, err := d.ReadToken()
	return err
}

// elements calls f with the span of each element of the array at arr in
// b, spans of b.
func elements(b []byte, arr span, f func(v span)) error {
	d := jsontext.NewDecoder(bytes.NewReader(arr.of(b)))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' {
		return errShape
	}
	for d.PeekKind() != ']' {
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		end := int(d.InputOffset())
		f(span{end - len(v), end}.shift(arr.start))
	}
	_, err := d.ReadToken()
	return err
}
