// Package mcpserve is `toonkit mcp serve`: a Model Context Protocol
// server, on the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// whose tools are toonkit's own: encode (JSON to TOON), decode (TOON to
// JSON), stats (what a document costs in each format, and the cheapest),
// query (a jq filter over JSON or TOON) and validate (TOON's strict rules, a
// protocol's rules, or a JSON Schema).
//
// Each tool takes its data as a string argument and answers with text.
// Inputs and outputs are bounded (Options): what passes a bound, and any
// input toonkit rejects, is a tool error (isError) with toonkit's message,
// its position included.
package mcpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/query"
	"github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/internal/validate"
	"github.com/toonkit/toonkit/toon"
)

// Options configure the server.
type Options struct {
	// Version is the server's version in initialize's serverInfo.
	Version string
	// MaxInput bounds each string argument, MaxOutput each result's text,
	// in bytes; 0 means DefaultMax.
	MaxInput, MaxOutput int
}

// DefaultMax is the default bound of an input and of an output: 8 MiB.
const DefaultMax = 8 << 20

// NewServer returns the server with its five tools.
func NewServer(opts Options) *mcp.Server {
	if opts.MaxInput <= 0 {
		opts.MaxInput = DefaultMax
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMax
	}
	t := &tools{opts}
	s := mcp.NewServer(&mcp.Implementation{Name: "toonkit", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "toonkit's tools for TOON (Token-Oriented Object Notation): encode JSON as TOON to save tokens, decode it back, compare what a document costs in each format, query JSON or TOON with jq, validate TOON and agent protocols.",
	})
	mcp.AddTool(s, &mcp.Tool{Name: "encode", Description: "Encode a JSON value as TOON, the compact form of JSON for language models (the value stays exact).", InputSchema: schemaFor[EncodeArgs]("delimiter", "comma", "tab", "pipe")}, t.encode)
	mcp.AddTool(s, &mcp.Tool{Name: "decode", Description: "Decode a TOON document to compact JSON (strict mode unless strict is false)."}, t.decode)
	mcp.AddTool(s, &mcp.Tool{Name: "stats", Description: "Count a JSON value's bytes and LLM tokens in each format (JSON, TOON with each delimiter) and say which is cheapest."}, t.stats)
	mcp.AddTool(s, &mcp.Tool{Name: "query", Description: "Run a jq filter over a JSON or TOON input; each result is one line of compact JSON.", InputSchema: schemaFor[QueryArgs]("input_format", "json", "toon")}, t.query)
	mcp.AddTool(s, &mcp.Tool{Name: "validate", Description: "Validate TOON by its strict rules, an agent protocol's messages (as: chiffon, trace, narratoria, tabular), or JSON or TOON against a JSON Schema; each finding is one line with its position and code."}, t.validate)
	return s
}

// schemaFor is the input schema the SDK infers for T, with the values of
// one string property limited to an enumeration.
func schemaFor[T any](prop string, values ...string) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	if p := s.Properties[prop]; p != nil {
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
	return s
}

type tools struct{ opts Options }

// EncodeArgs are the encode tool's arguments.
type EncodeArgs struct {
	JSON      string `json:"json" jsonschema:"the JSON value to encode"`
	Delimiter string `json:"delimiter,omitempty" jsonschema:"the delimiter of arrays and tables: comma (the default), tab or pipe"`
	Indent    int    `json:"indent,omitempty" jsonschema:"spaces per indentation level, 1 to 16 (default 2)"`
}

// DecodeArgs are the decode tool's.
type DecodeArgs struct {
	TOON   string `json:"toon" jsonschema:"the TOON document to decode"`
	Indent int    `json:"indent,omitempty" jsonschema:"spaces per indentation level the document uses, 1 to 16 (default 2)"`
	Strict *bool  `json:"strict,omitempty" jsonschema:"strict mode, as the TOON spec defines it (default true)"`
}

// StatsArgs are the stats tool's.
type StatsArgs struct {
	JSON      string `json:"json" jsonschema:"the JSON value to measure"`
	Tokenizer string `json:"tokenizer,omitempty" jsonschema:"o200k_base (the default) or cl100k_base"`
}

// QueryArgs are the query tool's. Its results are lines of compact JSON,
// with no newline after the last.
type QueryArgs struct {
	Filter      string `json:"filter" jsonschema:"the jq filter"`
	Input       string `json:"input" jsonschema:"the data: one JSON value, JSON values one after another, or a TOON document"`
	InputFormat string `json:"input_format,omitempty" jsonschema:"json or toon (default: toon when the input does not start as JSON does)"`
}

// ValidateArgs are the validate tool's.
type ValidateArgs struct {
	Input  string `json:"input" jsonschema:"the document or messages to validate"`
	As     string `json:"as,omitempty" jsonschema:"what the input is: toon, chiffon, trace, narratoria or tabular (default: toon, or json with a schema when the input starts as JSON does)"`
	Schema string `json:"schema,omitempty" jsonschema:"a JSON Schema (as text) that the input's value must meet"`
}

// result is a tool's answer, s, unless it passes MaxOutput.
func (t *tools) result(s string) (*mcp.CallToolResult, any, error) {
	if len(s) > t.opts.MaxOutput {
		return nil, nil, fmt.Errorf("%w of %d bytes", errOutput, t.opts.MaxOutput)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil, nil
}

// bounded checks the string arguments against MaxInput.
func (t *tools) bounded(args map[string]string) error {
	for name, v := range args {
		if len(v) > t.opts.MaxInput {
			return fmt.Errorf("%s: %d bytes pass the limit of %d", name, len(v), t.opts.MaxInput)
		}
	}
	return nil
}

// capped is a writer that fails past MaxOutput bytes: it has Write
// alone (no WriteString, no ReadFrom), so that every writer's path to it
// is checked.
type capped struct {
	buf bytes.Buffer
	max int
}

var errOutput = errors.New("the result passes the output limit")

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, fmt.Errorf("%w of %d bytes", errOutput, c.max)
	}
	return c.buf.Write(p)
}

func (c *capped) Bytes() []byte  { return c.buf.Bytes() }
func (c *capped) String() string { return c.buf.String() }

func (t *tools) out() *capped { return &capped{max: t.opts.MaxOutput} }

func (t *tools) encode(_ context.Context, _ *mcp.CallToolRequest, a EncodeArgs) (*mcp.CallToolResult, any, error) {
	if err := t.bounded(map[string]string{"json": a.JSON}); err != nil {
		return nil, nil, err
	}
	mo := toon.MarshalOptions{IndentSize: a.Indent}
	if err := checkIndent(a.Indent); err != nil {
		return nil, nil, err
	}
	switch a.Delimiter {
	case "", "comma":
	case "tab":
		mo.Delimiter = toon.Tab
	case "pipe":
		mo.Delimiter = toon.Pipe
	default:
		return nil, nil, fmt.Errorf("delimiter: unknown delimiter %q (supported: comma, tab, pipe)", a.Delimiter)
	}
	if err := t.oneValue(a.JSON); err != nil {
		return nil, nil, fmt.Errorf("json: %w", err)
	}
	w := t.out()
	if err := toon.FromJSON(w, []byte(a.JSON), mo); err != nil {
		return nil, nil, fmt.Errorf("json: %w", err)
	}
	return t.result(w.String())
}

// checkIndent checks an indent argument: 0 (the default, 2) or 1 to 16.
func checkIndent(n int) error {
	if n != 0 && (n < 1 || n > 16) {
		return fmt.Errorf("indent: must be from 1 to 16, found %d", n)
	}
	return nil
}

func (t *tools) decode(_ context.Context, _ *mcp.CallToolRequest, a DecodeArgs) (*mcp.CallToolResult, any, error) {
	if err := t.bounded(map[string]string{"toon": a.TOON}); err != nil {
		return nil, nil, err
	}
	if err := checkIndent(a.Indent); err != nil {
		return nil, nil, err
	}
	uo := toon.UnmarshalOptions{IndentSize: a.Indent, NonStrict: a.Strict != nil && !*a.Strict}
	w := t.out()
	if err := toon.ToJSON(w, strings.NewReader(a.TOON), uo); err != nil {
		return nil, nil, fmt.Errorf("toon: %w", err)
	}
	js, err := jsonv.AppendCompact(nil, w.Bytes())
	if err != nil {
		return nil, nil, fmt.Errorf("toon: %w", err)
	}
	return t.result(string(js))
}

func (t *tools) stats(_ context.Context, _ *mcp.CallToolRequest, a StatsArgs) (*mcp.CallToolResult, any, error) {
	if err := t.bounded(map[string]string{"json": a.JSON}); err != nil {
		return nil, nil, err
	}
	tk := a.Tokenizer
	if tk == "" {
		tk = tokens.Encodings[0]
	}
	if _, err := tokens.NewCounter(tk); err != nil {
		return nil, nil, fmt.Errorf("tokenizer: %w", err)
	}
	if err := t.oneValue(a.JSON); err != nil {
		return nil, nil, fmt.Errorf("json: %w", err)
	}
	rep, err := stats.Measure([]byte(a.JSON), stats.Options{Tokenizers: []string{tk}})
	if err != nil {
		return nil, nil, fmt.Errorf("json: %w", err)
	}
	return t.result(string(rep.AppendJSON(nil)))
}

func (t *tools) query(ctx context.Context, _ *mcp.CallToolRequest, a QueryArgs) (*mcp.CallToolResult, any, error) {
	if err := t.bounded(map[string]string{"filter": a.Filter, "input": a.Input}); err != nil {
		return nil, nil, err
	}
	q, err := query.Compile(a.Filter, query.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("filter: %w", err)
	}
	input := []byte(a.Input)
	switch a.InputFormat {
	case "toon":
	case "json":
	case "":
		if looksJSON(input) {
			a.InputFormat = "json"
		} else {
			a.InputFormat = "toon"
		}
	default:
		return nil, nil, fmt.Errorf("input_format: unknown format %q (supported: json, toon)", a.InputFormat)
	}
	if a.InputFormat == "toon" {
		var js bytes.Buffer
		if err := toon.ToJSON(&js, bytes.NewReader(input), toon.UnmarshalOptions{}); err != nil {
			return nil, nil, fmt.Errorf("input: %w", err)
		}
		input = js.Bytes()
	}
	order := q.NewOrder()
	dec := &query.Decoder{Order: order}
	st := query.NewStream(bytes.NewReader(input), dec, t.opts.MaxInput)
	enc := query.Encoder{Order: order}
	w := t.out()
	var line []byte
	for {
		v, err := st.Next()
		if err != nil {
			if errors.Is(err, query.ErrInvalid) {
				rest, ropts := st.Rest()
				_, _, err = jsonv.NewReader(rest, ropts).Next()
				return nil, nil, fmt.Errorf("input: %w", err)
			}
			if err == io.EOF {
				break
			}
			return nil, nil, fmt.Errorf("input: %w", err)
		}
		iter := q.Run(ctx, v)
		for {
			r, ok := iter.Next()
			if !ok {
				break
			}
			if e, isErr := r.(error); isErr {
				return nil, nil, fmt.Errorf("filter: %s", query.Message(e))
			}
			line = append(enc.Append(line[:0], r), '\n')
			if _, err := w.Write(line); err != nil {
				return nil, nil, err
			}
		}
	}
	return t.result(strings.TrimSuffix(w.String(), "\n"))
}

// oneValue checks that s is one JSON value, as toonkit's readers do: an
// error says where (line:col), with an excerpt.
func (t *tools) oneValue(s string) error {
	r := jsonv.NewReader(strings.NewReader(s), jsonv.Options{MaxValueSize: int64(t.opts.MaxInput)})
	if _, _, err := r.Next(); err != nil {
		if err == io.EOF {
			return errors.New("no value (the text is empty)")
		}
		return err
	}
	if _, pos, err := r.Next(); err != io.EOF {
		if err != nil {
			return err
		}
		return fmt.Errorf("%d:%d: a second value after the first (one value is taken)", pos.Line, pos.Column)
	}
	return nil
}

// looksJSON reports whether b starts as JSON does: '{', '"', or a '['
// that is not a TOON root array's header ("[2]{a,b}:", "[3]: 1,2,3").
func looksJSON(b []byte) bool {
	t := jsonv.TrimSpace(b)
	return len(t) > 0 && t[0] == '"' || codec.DetectWhole(b).Format == codec.JSON
}

func (t *tools) validate(_ context.Context, _ *mcp.CallToolRequest, a ValidateArgs) (*mcp.CallToolResult, any, error) {
	if err := t.bounded(map[string]string{"input": a.Input, "schema": a.Schema}); err != nil {
		return nil, nil, err
	}
	const name = "input"
	w := t.out()
	var findings int
	var werr error // the output's limit passed: the report would be cut short
	emit := func(f validate.Finding) bool {
		findings++
		werr = validate.WriteText(w, f, nil)
		return werr == nil
	}
	in := []byte(a.Input)
	format := codec.Format(a.As)
	if format == "" {
		format = codec.TOON
		if looksJSON(in) {
			format = codec.JSON
		}
	}
	if a.Schema != "" {
		if format != codec.TOON && format != codec.JSON {
			return nil, nil, fmt.Errorf("as: with a schema, the input is toon or json, not %q", a.As)
		}
		us, err := validate.UserSchemaOf("schema.json", []byte(a.Schema))
		if err != nil {
			return nil, nil, fmt.Errorf("schema: %w", err)
		}
		if format == codec.TOON {
			// TOON's own rules first, as validate --schema does.
			if _, err := validate.TOON(bytes.NewReader(in), name, validate.Options{}, emit); err != nil {
				return nil, nil, err
			}
		}
		if findings == 0 {
			if _, err := us.Validate(bytes.NewReader(in), name, validate.UserOptions{Format: format, MaxFrameSize: t.opts.MaxInput, Again: format == codec.TOON}, emit); err != nil {
				return nil, nil, err
			}
		}
	} else {
		switch format {
		case codec.TOON, codec.Chiffon, codec.Trace, codec.Narratoria, codec.Tabular:
		case codec.JSON:
			return nil, nil, errors.New("as: say what the JSON is (chiffon, trace or narratoria), or give a schema")
		default:
			return nil, nil, fmt.Errorf("as: unknown format %q (supported: toon, chiffon, trace, narratoria, tabular)", a.As)
		}
		if _, err := validate.Check(bytes.NewReader(in), name, format, validate.Options{MaxFrameSize: t.opts.MaxInput}, capture.Options{}, emit); err != nil {
			return nil, nil, err
		}
	}
	if werr != nil {
		return nil, nil, werr
	}
	if findings == 0 {
		return t.result("valid: no findings\n")
	}
	return t.result(w.String())
}
