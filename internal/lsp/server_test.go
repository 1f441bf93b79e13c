package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toonkit/toonkit/internal/toonfmt"
)

const docURI = protocol.DocumentURI("untitled:doc.toon")

func codes(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code.(string))
	}
	return out
}

func TestLifecycle(t *testing.T) {
	c := newClient(t, Options{Version: "v9"}, nil)
	if err := c.try("textDocument/definition", map[string]any{}, nil); !isCode(err, jsonrpc2.MethodNotFound) {
		t.Errorf("an unknown request: %v, want MethodNotFound", err)
	}
	if err := c.try(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: docID("file:///nowhere.toon")}}, nil); !isCode(err, jsonrpc2.InvalidParams) {
		t.Errorf("hover on a document not open: %v, want InvalidParams", err)
	}
	if err := c.try(protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{}}, nil); !isCode(err, jsonrpc2.InvalidRequest) {
		t.Errorf("a second initialize: %v, want InvalidRequest", err)
	}
	if err := c.shutdown(); err != nil {
		t.Fatalf("Serve after shutdown and exit: %v", err)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := newClient(t, Options{}, nil)
	c.notify("exit", nil)
	if err := <-c.done; !errors.Is(err, ErrNoShutdown) {
		t.Fatalf("Serve: %v, want ErrNoShutdown", err)
	}
}

func TestNotInitialized(t *testing.T) {
	tc := newRaw(t)
	if err := tc.try(protocol.MethodTextDocumentHover, map[string]any{}, nil); !isCode(err, jsonrpc2.ServerNotInitialized) {
		t.Fatalf("a request before initialize: %v, want ServerNotInitialized (-32002)", err)
	}
}

func TestInitializeResult(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{nil, "utf-16"},
		{[]string{"utf-32", "utf-16"}, "utf-16"},
		{[]string{"utf-16", "utf-8"}, "utf-8"},
	} {
		tr := newRaw(t)
		var res struct {
			Capabilities map[string]any `json:"capabilities"`
			ServerInfo   map[string]any `json:"serverInfo"`
		}
		tr.call(protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{"general": map[string]any{"positionEncodings": tc.offered}}}, &res)
		if got := res.Capabilities["positionEncoding"]; got != tc.want {
			t.Errorf("offered %v: positionEncoding %v, want %s", tc.offered, got, tc.want)
		}
		sync := res.Capabilities["textDocumentSync"].(map[string]any)
		if sync["change"] != float64(protocol.TextDocumentSyncKindIncremental) || sync["openClose"] != true {
			t.Errorf("textDocumentSync %v, want incremental with open and close", sync)
		}
		for _, k := range []string{"hoverProvider", "documentSymbolProvider", "foldingRangeProvider", "selectionRangeProvider", "documentFormattingProvider", "documentRangeFormattingProvider", "codeActionProvider", "executeCommandProvider"} {
			if res.Capabilities[k] == nil {
				t.Errorf("no %s", k)
			}
		}
		if res.ServerInfo["name"] != "toonkit" {
			t.Errorf("serverInfo %v", res.ServerInfo)
		}
	}
}

// newRaw is a session that is not initialized yet.
func newRaw(t *testing.T) *client {
	t.Helper()
	return newClientNoInit(t)
}

func isCode(err error, code jsonrpc2.Code) bool {
	var je *jsonrpc2.Error
	return errors.As(err, &je) && je.Code == code
}

func TestDiagnosticsAsYouType(t *testing.T) {
	c := newClient(t, Options{}, nil)
	// Every problem, each with its code, from its column to its line's end.
	ds := c.open(docURI, "users[2]{id,name}:\n  1,Ann\n  2,Bob\n  3,Cy\nnums [3]: 1,2,3\nok: true\n")
	if got := codes(ds); strings.Join(got, " ") != "TOON002 TOON004" {
		t.Fatalf("codes %v, want TOON002 TOON004: %+v", got, ds)
	}
	if r := ds[0].Range; r != *rng(3, 2, 3, 6) || ds[0].Severity != protocol.DiagnosticSeverityError || ds[0].Source != "toonkit" {
		t.Errorf("the count's diagnostic: %+v", ds[0])
	}
	if !strings.Contains(ds[0].Message, "array declares 2 rows") {
		t.Errorf("message %q", ds[0].Message)
	}
	// An edit that fixes the count: one problem left.
	c.edit(docURI, 2, rng(0, 6, 0, 7), "3")
	if got := codes(c.wait(docURI, 2)); strings.Join(got, " ") != "TOON004" {
		t.Fatalf("after fixing [2]: %v", got)
	}
	// An insertion at 0:0 is not the whole text.
	c.edit(docURI, 3, rng(0, 0, 0, 0), "# users\n")
	if got := codes(c.wait(docURI, 3)); strings.Join(got, " ") != "TOON004" {
		t.Fatalf("after a comment at the start: %v", got)
	}
	c.edit(docURI, 4, rng(5, 4, 5, 5), "")
	if ds := c.wait(docURI, 4); len(ds) != 0 {
		t.Fatalf("a fixed document: %+v, want none", ds)
	}
}

func TestDiagnosticRangesCountUTF16(t *testing.T) {
	// 😀 is two UTF-16 units and four UTF-8 bytes; é one and two.
	doc := "a: \"😀é\"\nb: \"😀 unterminated\n"
	for _, tc := range []struct {
		encodings []string
		want      protocol.Range
	}{
		{nil, *rng(1, 3, 1, 19)},
		{[]string{"utf-8"}, *rng(1, 3, 1, 21)},
	} {
		c := newClient(t, Options{}, map[string]any{"capabilities": map[string]any{"general": map[string]any{"positionEncodings": tc.encodings}}})
		ds := c.open(docURI, doc)
		if len(ds) != 1 || ds[0].Range != tc.want {
			t.Errorf("%v: %+v, want one at %+v", tc.encodings, ds, tc.want)
		}
		// An edit in the units the client counts in: the closing quote
		// at the line's end (after 😀: 19 UTF-16 units, 21 bytes).
		end := tc.want.End
		c.edit(docURI, 2, &protocol.Range{Start: end, End: end}, `"`)
		if ds := c.wait(docURI, 2); len(ds) != 0 {
			t.Errorf("%v: a closed string: %+v", tc.encodings, ds)
		}
	}
}

func TestSchemaDiagnostics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("users.schema.json", `{"type":"object","properties":{"users":{"type":"array","items":{"type":"object","properties":{"age":{"type":"integer","minimum":0}}}}}}`)
	p := write("users.toon", "")
	u := uri.File(p)
	c := newClient(t, Options{}, nil)
	ds := c.open(u, "#:schema users.schema.json\nusers[2]{name,age}:\n  Ann,31\n  Bob,-4\n")
	if len(ds) != 1 || ds[0].Code != "SCH001" || ds[0].Range.Start.Line != 3 || !strings.HasPrefix(ds[0].Message, "/users/1/age: ") {
		t.Fatalf("schema findings %+v, want SCH001 on line 4 at /users/1/age", ds)
	}
	// A TOON problem comes first; the schema is not read then.
	c.edit(u, 2, rng(3, 2, 3, 8), "Bob,-4,x")
	if got := codes(c.wait(u, 2)); strings.Join(got, " ") != "TOON003" {
		t.Fatalf("a row with three cells: %v", got)
	}
	// A schema that is not there: TK002 at the comment.
	c.edit(u, 3, nil, "#:schema missing.json\nusers[0]:\n")
	ds = c.wait(u, 3)
	if len(ds) != 1 || ds[0].Code != "TK002" || ds[0].Range.Start.Line != 0 {
		t.Fatalf("a missing schema: %+v", ds)
	}
	// The schema file is read again when it changes.
	c.edit(u, 4, nil, "#:schema users.schema.json\nusers[1]{age}:\n  -1\n")
	if got := codes(c.wait(u, 4)); strings.Join(got, " ") != "SCH001" {
		t.Fatalf("%v", got)
	}
	write("users.schema.json", `{"type":"object"}`+strings.Repeat(" ", 10))
	c.edit(u, 5, nil, "#:schema users.schema.json\nusers[1]{age}:\n  -1\n")
	if ds := c.wait(u, 5); len(ds) != 0 {
		t.Fatalf("after the schema changed: %+v", ds)
	}
}

func TestCloseClearsDiagnostics(t *testing.T) {
	c := newClient(t, Options{}, nil)
	if ds := c.open(docURI, "a: \"x\n"); len(ds) != 1 {
		t.Fatalf("%+v", ds)
	}
	c.notify(protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{TextDocument: docID(docURI)})
	var sym []protocol.DocumentSymbol
	if err := c.try(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: docID(docURI)}, &sym); !isCode(err, jsonrpc2.InvalidParams) {
		t.Fatalf("symbols of a closed document: %v", err)
	}
	c.mu.Lock()
	ps := c.diags[docURI]
	c.mu.Unlock()
	if last := ps[len(ps)-1]; last.Version != nil || len(last.Diagnostics) != 0 {
		t.Fatalf("the last diagnostics after close: %+v, want none", last)
	}
}

// applyEdits applies LSP text edits (UTF-16 positions) to src.
func applyEdits(t *testing.T, src string, edits []protocol.TextEdit) string {
	t.Helper()
	tx := newText([]byte(src))
	var ue []udiff.Edit
	for _, e := range edits {
		ue = append(ue, udiff.Edit{Start: tx.offset(e.Range.Start, utf16Units), End: tx.offset(e.Range.End, utf16Units), New: e.NewText})
	}
	sort.SliceStable(ue, func(i, j int) bool { return ue[i].Start < ue[j].Start })
	out, err := udiff.Apply(src, ue)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFormatting(t *testing.T) {
	src := "# tools\ntools[2]:\n    - name: search\n        # seconds\n        timeout: 30\n    - name: \"fetch\"\n        timeout: 10.0\nx: 1\nnote:   \"hi\"\n"
	c := newClient(t, Options{}, nil)
	c.open(docURI, src)
	var edits []protocol.TextEdit
	c.call(protocol.MethodTextDocumentFormatting, protocol.DocumentFormattingParams{TextDocument: docID(docURI)}, &edits)
	want, err := toonfmt.Format([]byte(src), toonfmt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := applyEdits(t, src, edits); got != string(want) {
		t.Fatalf("formatted:\n%s\nwant (toonkit fmt):\n%s", got, want)
	}
	// A range: the last line only.
	c.call(protocol.MethodTextDocumentRangeFormatting, protocol.DocumentRangeFormattingParams{TextDocument: docID(docURI), Range: *rng(8, 0, 8, 3)}, &edits)
	got := applyEdits(t, src, edits)
	if wantR := strings.Replace(src, "note:   \"hi\"", "note: hi", 1); got != wantR {
		t.Fatalf("range formatted:\n%s\nwant:\n%s", got, wantR)
	}
	// A malformed document: an error with the position, no edits.
	c.edit(docURI, 2, nil, "a: 1\nb: \"x\n")
	err = c.try(protocol.MethodTextDocumentFormatting, protocol.DocumentFormattingParams{TextDocument: docID(docURI)}, &edits)
	if err == nil || !strings.Contains(err.Error(), "2:4: unterminated string") {
		t.Fatalf("formatting a malformed document: %v", err)
	}
}

func hoverText(t *testing.T, c *client, line, char uint32) string {
	t.Helper()
	var h *protocol.Hover
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: docID(docURI), Position: pos(line, char)}}, &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

func TestHover(t *testing.T) {
	c := newClient(t, Options{}, nil)
	c.open(docURI, "config:\n  \"max tokens\": 4096\n  tags[3|]: a|b\nusers[2]{id,profile{name}}:\n  1,Ann\n  2,Bob\n  3,Cy\nitems[1]:\n  - sku: A1\n    qty: 2\n")
	for _, tc := range []struct {
		line, char uint32
		want       []string
	}{
		{0, 2, []string{"**config**: object", "`.config`", "`/config`"}},
		{1, 4, []string{"**max tokens**: number", "`.config.\"max tokens\"`", "`/config/max tokens`"}},
		{1, 17, []string{"**max tokens**: number"}},
		{2, 3, []string{"**tags**: array", "declared [3], found 2 values (they differ)"}},
		{2, 14, []string{"value 1 of `.config.tags`", "string"}},
		{3, 10, []string{"declared [2], found 3 rows (they differ)", "fields: `id`, `profile.name`"}},
		{5, 4, []string{"field **profile.name**, row 1: string", "`.users[1].profile.name`"}},
		{5, 2, []string{"field **id**, row 1: number", "`/users/1/id`"}},
		{8, 4, []string{"**sku**: string", "`.items[0].sku`"}},
		{9, 5, []string{"**qty**: number", "`.items[0].qty`"}},
		{8, 2, []string{"item 0: object", "`.items[0]`"}},
	} {
		got := hoverText(t, c, tc.line, tc.char)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("hover at %d:%d: %q, want %q in it", tc.line, tc.char, got, w)
			}
		}
	}
}

func TestSymbolsFoldingSelection(t *testing.T) {
	c := newClient(t, Options{}, nil)
	src := "# a\n# b\nconfig:\n  model: gpt\n  tags[2]: a,b\nusers[2]{id,name}:\n  1,Ann\n  2,Bob\nitems[1]:\n  - sku: A1\n    qty: 2\n"
	c.open(docURI, src)
	var syms []protocol.DocumentSymbol
	c.call(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: docID(docURI)}, &syms)
	var outline func([]protocol.DocumentSymbol, string) []string
	outline = func(ss []protocol.DocumentSymbol, pre string) []string {
		var out []string
		for _, s := range ss {
			out = append(out, pre+s.Name+" "+s.Detail)
			out = append(out, outline(s.Children, pre+"  ")...)
		}
		return out
	}
	want := "config object|  model string|  tags array [2]|users array [2]{id,name}|items array [1]|  [0] object|    sku string|    qty number"
	if got := strings.Join(outline(syms, ""), "|"); got != want {
		t.Errorf("symbols\n%s\nwant\n%s", got, want)
	}
	if syms[1].Range != *rng(5, 0, 7, 7) || syms[1].SelectionRange != *rng(5, 0, 5, 5) {
		t.Errorf("users' ranges %+v %+v", syms[1].Range, syms[1].SelectionRange)
	}
	var folds []protocol.FoldingRange
	c.call(protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": docID(docURI)}, &folds)
	var got []string
	for _, f := range folds {
		got = append(got, strings.TrimSpace(string(rune('0'+f.StartLine))+"-"+string(rune('0'+f.EndLine))+" "+string(f.Kind)))
	}
	sort.Strings(got)
	if g := strings.Join(got, ","); g != "0-1 comment,2-4,5-7,8-:,9-:" {
		t.Errorf("folds %s", g)
	}
	var sel []protocol.SelectionRange
	c.call("textDocument/selectionRange", protocol.SelectionRangeParams{TextDocument: docID(docURI), Positions: []protocol.Position{pos(7, 4)}}, &sel)
	var chain []string
	for s := &sel[0]; s != nil; s = s.Parent {
		tx := newText([]byte(src))
		chain = append(chain, string(tx.src[tx.offset(s.Range.Start, utf16Units):tx.offset(s.Range.End, utf16Units)]))
	}
	if g := strings.Join(chain, "|"); g != "Bob|2,Bob|users[2]{id,name}:\n  1,Ann\n  2,Bob|"+src {
		t.Errorf("selection ranges %q", g)
	}
}

func actions(t *testing.T, c *client, line, char uint32, diags []protocol.Diagnostic) []protocol.CodeAction {
	t.Helper()
	var as []protocol.CodeAction
	c.call(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{TextDocument: docID(docURI), Range: *rng(line, char, line, char), Context: protocol.CodeActionContext{Diagnostics: diags}}, &as)
	return as
}

func decodeJSON(t *testing.T, src string) string {
	t.Helper()
	j, err := toJSON([]byte(src), 0, 0)
	if err != nil {
		t.Fatalf("%v:\n%s", err, src)
	}
	return string(j)
}

func TestCodeActions(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		line, char uint32
		title      string
		want       string // the document after the action
	}{
		{"count", "users[2]{id}:\n  1\n  2\n  3\n", 0, 3, "Set the count to 3, as many as there are", "users[3]{id}:\n  1\n  2\n  3\n"},
		{"count inline", "tags[4]: a,b\n", 0, 0, "Set the count to 2, as many as there are", "tags[2]: a,b\n"},
		{"count list", "xs[0]:\n  - 1\n  - a: 2\n", 0, 0, "Set the count to 2, as many as there are", "xs[2]:\n  - 1\n  - a: 2\n"},
		{"quote delimiter", "note: a,b\n", 0, 7, `Quote a,b as a string: "a,b"`, "note: \"a,b\"\n"},
		{"quote numeric", "zip: 01234\n", 0, 6, `Quote 01234 as a string: "01234"`, "zip: \"01234\"\n"},
		{"quote broken", "say: \"hi\n", 0, 6, `Quote "hi as a string: "\"hi"`, "say: \"\\\"hi\"\n"},
		{"list to table", "a: 1\nusers[2]:\n  - id: 1\n    name: Ann\n  - id: 2\n    name: \"Bob, Jr\"\n", 1, 2, "Write the array as a table",
			"a: 1\nusers[2]{id,name}:\n  1,Ann\n  2,\"Bob, Jr\"\n"},
		{"table to list", "users[2|]{id|name}:\n  1|Ann\n  2|Bob, Jr\nz: 0", 0, 1, "Write the table as a list",
			"users[2|]:\n  - id: 1\n    name: Ann\n  - id: 2\n    name: Bob, Jr\nz: 0"},
		{"nested table to list", "o:\n  users[1]{id,p{n}}:\n    1,Ann\n", 1, 4, "Write the table as a list",
			"o:\n  users[1]:\n    - id: 1\n      p:\n        n: Ann\n"},
		{"root table to list", "[2]{a}:\n  1\n  2\n", 0, 0, "Write the table as a list", "[2]:\n  - a: 1\n  - a: 2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, Options{}, nil)
			ds := c.open(docURI, tc.src)
			var found *protocol.CodeAction
			var titles []string
			for _, a := range actions(t, c, tc.line, tc.char, ds) {
				titles = append(titles, a.Title)
				if a.Title == tc.title {
					found = &a
				}
			}
			if found == nil {
				t.Fatalf("actions %q, want %q", titles, tc.title)
			}
			got := applyEdits(t, tc.src, found.Edit.Changes[docURI])
			if got != tc.want {
				t.Fatalf("after %q:\n%s\nwant:\n%s", tc.title, got, tc.want)
			}
			if strings.HasPrefix(tc.name, "count") {
				if len(found.Diagnostics) == 0 {
					t.Errorf("the fix has no diagnostics, want the TOON002s")
				}
				for _, d := range found.Diagnostics {
					if d.Code != "TOON002" {
						t.Errorf("the fix's diagnostics %+v, want the TOON002s", found.Diagnostics)
					}
				}
				return
			}
			if strings.Contains(tc.name, "table") && decodeJSON(t, got) != decodeJSON(t, tc.src) {
				t.Errorf("the value changed")
			}
		})
	}
}

func TestNoCodeActions(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		line, char uint32
	}{
		{"a number", "n: 12\n", 0, 4},
		{"a plain string", "s: hello world\n", 0, 4},
		{"a good quoted string", "s: \"a,b\"\n", 0, 4},
		{"a list that is no table", "xs[2]:\n  - a: 1\n  - b: 2\n", 0, 0},
		{"a list with a comment", "xs[2]:\n  # first\n  - a: 1\n  - a: 2\n", 0, 0},
		{"a right count", "xs[2]: 1,2\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, Options{}, nil)
			c.open(docURI, tc.src)
			if as := actions(t, c, tc.line, tc.char, nil); len(as) != 0 {
				t.Fatalf("actions %+v, want none", as)
			}
		})
	}
}

func TestShowJSON(t *testing.T) {
	c := newClient(t, Options{}, nil)
	c.open(docURI, "users[2]{id,name}:\n  1,Ann\n  2,Bob\n")
	var got string
	c.call(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: CommandShowJSON, Arguments: []any{string(docURI)}}, &got)
	want := "{\n  \"users\": [\n    {\n      \"id\": 1,\n      \"name\": \"Ann\"\n    },\n    {\n      \"id\": 2,\n      \"name\": \"Bob\"\n    }\n  ]\n}\n"
	if got != want {
		t.Fatalf("showJSON %q, want %q", got, want)
	}
	var v any
	if json.Unmarshal([]byte(got), &v) != nil {
		t.Fatal("not JSON")
	}
	var again string
	c.call(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: CommandShowJSON}, &again)
	if again != want {
		t.Fatalf("showJSON with no argument (one document open): %q", again)
	}
	c.edit(docURI, 2, nil, "a: \"x\n")
	if err := c.try(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: CommandShowJSON, Arguments: []any{string(docURI)}}, &got); err == nil || !strings.Contains(err.Error(), "1:4: unterminated string") {
		t.Fatalf("showJSON of a malformed document: %v", err)
	}
	if err := c.try(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: "nope"}, &got); !isCode(err, jsonrpc2.InvalidParams) {
		t.Fatalf("an unknown command: %v", err)
	}
}

func TestTextEdits(t *testing.T) {
	tx := newText([]byte("ab\r\n😀x\n"))
	if got := string(tx.line(0)); got != "ab" {
		t.Errorf("line 0 %q", got)
	}
	for _, tc := range []struct {
		p    protocol.Position
		want int
	}{
		{pos(0, 0), 0}, {pos(0, 2), 2}, {pos(0, 99), 2}, {pos(1, 0), 4}, {pos(1, 1), 4}, {pos(1, 2), 8}, {pos(1, 3), 9}, {pos(2, 0), 10}, {pos(9, 0), 10},
	} {
		if got := tx.offset(tc.p, utf16Units); got != tc.want {
			t.Errorf("offset(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
	if p := tx.position(8, utf16Units); p != pos(1, 2) {
		t.Errorf("position(8) = %v", p)
	}
	t2, err := tx.apply([]change{{Range: rng(1, 2, 1, 3), Text: "y"}, {Range: rng(0, 0, 0, 0), Text: "# "}}, utf16Units)
	if err != nil || string(t2.src) != "# ab\r\n😀y\n" {
		t.Fatalf("apply: %q %v", t2.src, err)
	}
	if _, err := tx.apply([]change{{Range: rng(1, 2, 0, 1)}}, utf16Units); err == nil {
		t.Fatal("a range that ends before it starts: no error")
	}
	if !bytes.Equal(tx.src, []byte("ab\r\n😀x\n")) {
		t.Fatal("apply changed the text it was given")
	}
}
