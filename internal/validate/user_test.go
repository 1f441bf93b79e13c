package validate

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/kado"
)

// writeFiles writes files (name: text) under a new folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// userFindings loads the schema and checks input, returning the findings'
// text lines.
func userFindings(t *testing.T, schema, input string, format codec.Format) []string {
	t.Helper()
	us, err := LoadUserSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := us.Validate(strings.NewReader(input), "in", UserOptions{Format: format}, func(f Finding) bool {
		got = append(got, f.Text())
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// $schema picks the draft: "items" as an array is a tuple in draft-07 and
// 2019-09, and no valid schema in 2020-12, the default.
func TestUserSchemaDrafts(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"d7.json":      `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}`,
		"d2019.json":   `{"$schema": "https://json-schema.org/draft/2019-09/schema", "items": [{"type": "string"}]}`,
		"d2020.json":   `{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"type": "string"}]}`,
		"default.json": `{"items": [{"type": "string"}]}`,
	})
	for _, name := range []string{"d7.json", "d2019.json", "d2020.json"} {
		sameLines(t, userFindings(t, filepath.Join(dir, name), `[1, "a"]`, ""), []string{`in:1:2: error: /0: must be string, found 1 [SCH001]`})
	}
	_, err := LoadUserSchema(filepath.Join(dir, "default.json"))
	var se *SchemaError
	if !errors.As(err, &se) || se.Problem != SchemaInvalid || se.Pointer != "/items" || se.Line != 1 || se.Column != 11 {
		t.Errorf("2020-12 by default: err = %v (%+v), want an invalid schema at 1:11 /items", err, se)
	}
}

// A $ref to a file resolves relative to the file that holds it; the
// schema's x-code and x-message give the finding's code and message.
func TestUserSchemaLocalRefs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"schemas/root.json":      `{"type": "object", "properties": {"tag": {"$ref": "defs/tag.json"}}, "required": ["id"]}`,
		"schemas/defs/tag.json":  `{"$ref": "word.json#/$defs/word"}`,
		"schemas/defs/word.json": `{"$defs": {"word": {"type": "string", "maxLength": 3, "x-code": "TAG001", "x-message": "must be a short tag"}}}`,
	})
	sameLines(t, userFindings(t, filepath.Join(dir, "schemas/root.json"), `{"id": 1, "tag": "long"}`+"\n"+`{"tag": "ok"}`, ""), []string{
		`in:1:18: error: /tag: must be a short tag, found "long" [TAG001]`,
		`in:2:1: error: /id: is required (the field is missing) [SCH001]`,
	})
	// A file with an http $id: its relative $refs are the files at the
	// same place beside it, not fetched; one that is not there is refused.
	dir = writeFiles(t, map[string]string{
		"s/order.json":  `{"$id": "https://example.com/schemas/order.json", "properties": {"item": {"$ref": "item.json"}, "x": {"$ref": "defs/x.json"}}}`,
		"s/item.json":   `{"$id": "https://example.com/schemas/item.json", "type": "integer"}`,
		"s/defs/x.json": `{"type": "string"}`,
		"t/order.json":  `{"$id": "https://example.com/schemas/order.json", "properties": {"item": {"$ref": "item.json"}}}`,
		"t/item.json":   `{"$id": "https://example.com/other/item.json"}`,
	})
	sameLines(t, userFindings(t, filepath.Join(dir, "s/order.json"), `{"item": "a", "x": 1}`, ""), []string{
		`in:1:10: error: /item: must be integer, found "a" [SCH001]`,
		`in:1:20: error: /x: must be string, found 1 [SCH001]`,
	})
	var se *SchemaError
	if _, err := LoadUserSchema(filepath.Join(dir, "t/order.json")); !errors.As(err, &se) || se.Problem != SchemaRemoteRef {
		t.Errorf("a file beside with another $id: err = %v, want a remote ref", err)
	}
	// toonkit's own schemas are there, offline.
	dir = writeFiles(t, map[string]string{"s.json": `{"$ref": "https://toonkit.dev/schemas/binary-status.json"}`})
	sameLines(t, userFindings(t, filepath.Join(dir, "s.json"), `{"status": "x", "progress": 2}`, ""), []string{
		`in:1:29: error: /progress: must be a number from 0 to 1, found 2 [BIN018]`,
	})
}

// A remote $ref is refused, never fetched: the error names the URL and the
// place of the $ref, in the file that holds it.
func TestUserSchemaRemoteRefRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"root.json":   "{\n  \"properties\": {\n    \"a\": {\"$ref\": \"sub/a.json\"}\n  }\n}\n",
		"sub/a.json":  "{\n  \"$ref\": \"https://example.com/schemas/x.json#/$defs/y\"\n}",
		"urn.json":    `{"$id": "urn:example:root", "$defs": {"x": {"$id": "urn:example:x"}}, "properties": {"a": {"$ref": "urn:example:x"}, "b": {"$ref": "urn:example:nope"}}}`,
		"schema.json": `{"$schema": "http://example.com/my-meta", "type": "string"}`,
	})
	cases := []struct{ file, ref, where string }{
		{"root.json", "https://example.com/schemas/x.json", filepath.Join(dir, "sub/a.json") + ":2:11: /$ref"},
		{"urn.json", "urn:example:nope", filepath.Join(dir, "urn.json") + ":1:132: /properties/b/$ref"},
		{"schema.json", "http://example.com/my-meta", filepath.Join(dir, "schema.json") + ":1:13: /$schema"},
	}
	for _, c := range cases {
		_, err := LoadUserSchema(filepath.Join(dir, c.file))
		var se *SchemaError
		if !errors.As(err, &se) || se.Problem != SchemaRemoteRef || se.Ref != c.ref || !strings.HasPrefix(err.Error(), c.where+": ") {
			t.Errorf("%s: err = %v, want a remote ref %s at %s", c.file, err, c.ref, c.where)
		}
	}
}

// Schemas that cannot be used say where.
func TestUserSchemaErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"syntax.json":   "{\n  \"type\": \"object\",,\n}",
		"meta.json":     "{\n  \"type\": \"objekt\"\n}",
		"dangling.json": `{"properties": {"a": {"$ref": "#/$defs/nope"}}}`,
		"regex.json":    `{"properties": {"a": {"pattern": "(("}}}`,
		"noref.json":    `{"$ref": "missing.json"}`,
	})
	cases := []struct {
		file    string
		problem SchemaProblem
		text    string
	}{
		{"syntax.json", SchemaInvalid, "syntax.json:2:20: not JSON: "},
		{"meta.json", SchemaInvalid, `meta.json:2:11: /type: not a valid schema: must be one of "array", "boolean", "integer", "null", "number", "object", "string", found "objekt"`},
		{"dangling.json", SchemaInvalid, "dangling.json:1:31: /properties/a/$ref: "},
		{"regex.json", SchemaInvalid, `regex.json:1:34: /properties/a/pattern: not a valid schema: must be a valid regex, found "(("`},
		{"noref.json", SchemaUnreadable, "noref.json:1:10: /$ref: cannot read "},
		{"absent.json", SchemaUnreadable, "absent.json: "},
	}
	for _, c := range cases {
		_, err := LoadUserSchema(filepath.Join(dir, c.file))
		var se *SchemaError
		if !errors.As(err, &se) || se.Problem != c.problem || !strings.HasPrefix(err.Error(), filepath.Join(dir, c.text)) {
			t.Errorf("%s: err = %v, want problem %d, %q...", c.file, err, c.problem, c.text)
		}
	}
}

// Formats are asserted, as for toonkit's own schemas.
func TestUserSchemaFormatsAsserted(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.json": `{"properties": {"at": {"format": "date-time"}, "mail": {"format": "email"}, "id": {"format": "uuid"}}}`})
	sameLines(t, userFindings(t, filepath.Join(dir, "s.json"),
		`{"at": "2026-02-30T10:00:00Z", "mail": "nobody", "id": "550e8400-e29b-41d4-a716-44665544000"}`+"\n"+
			`{"at": "2026-02-28T10:00:00Z", "mail": "a@b.co", "id": "550e8400-e29b-41d4-a716-446655440000"}`, ""), []string{
		`in:1:8: error: /at: must be a valid date-time, found "2026-02-30T10:00:00Z" [SCH001]`,
		`in:1:40: error: /mail: must be a valid email, found "nobody" [SCH001]`,
		`in:1:56: error: /id: must be a valid uuid, found "550e8400-e29b-41d4-a716-44665544000" [SCH001]`,
	})
}

const positionSchema = `{"type": "object", "properties": {"n": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}}}`

// Positions: the field's line and column in JSON (any formatting, CRLF
// too), NDJSON and TOON, the row's line in a table, the frame and the
// field's byte in frames.
func TestUserSchemaPositions(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.json": positionSchema})
	schema := filepath.Join(dir, "s.json")
	pretty := "{\n  \"n\": 1,\n  \"items\": [\n    \"a\",\n    2\n  ]\n}\n"
	sameLines(t, userFindings(t, schema, pretty, ""), []string{`in:5:5: error: /items/1: must be string, found 2 [SCH001]`})
	sameLines(t, userFindings(t, schema, strings.ReplaceAll(pretty, "\n", "\r\n"), ""), []string{`in:5:5: error: /items/1: must be string, found 2 [SCH001]`})
	sameLines(t, userFindings(t, schema, "{\"n\":1}\r\n{\"n\":\"x\"}\r\n", codec.NDJSON), []string{`in:2:6: error: /n: must be integer, found "x" [SCH001]`})
	// Values one after another, an array one of them (the whole array,
	// not its elements).
	sameLines(t, userFindings(t, schema, `{"n": 1} [{"n": "x"}]`, ""), []string{`in:1:10: error: must be object, found an array of 1 element [SCH001]`})
	sameLines(t, userFindings(t, schema, "n: 1\nitems[3]: a,b,3\n", ""), []string{`in:2:1: error: /items/2: must be string, found 3 [SCH001]`})
	sameLines(t, userFindings(t, schema, "n: 1.5\nitems[1]: a\n", codec.TOON), []string{`in:1:1: error: /n: must be integer, found 1.5 [SCH001]`})
	sameLines(t, userFindings(t, schema, "@toon 1.0\n@keys n,items\n1,\n2.5,\n", ""), []string{
		`in:3:1: error: /items: must be array, found null [SCH001]`,
		`in:4:1: error: /n: must be integer, found 2.5 [SCH001]`,
		`in:4:1: error: /items: must be array, found null [SCH001]`,
	})
	// Frames: the payload field's byte (uncompressed), the frame's rules.
	var frames []byte
	frames, _, _ = kado.AppendFrame(frames, kado.Header{Version: 1, Type: kado.Status, SequenceID: 1}, []byte(`{"n":1}`), kado.CompressNever)
	second := len(frames)
	frames, _, _ = kado.AppendFrame(frames, kado.Header{Version: 1, Type: kado.Status, SequenceID: 2}, []byte(`{"n":1,"items":[7]}`), kado.CompressNever)
	third := len(frames)
	frames = append(frames, 0x09, 0x01, 0, 0)
	got := userFindings(t, schema, string(frames), "")
	sameLines(t, got, []string{
		"in: frame 1 at byte " + strconv.Itoa(second+kado.HeaderSize+16) + ": error: /payload/items/0: must be string, found 7 [SCH001]",
		"in: frame 2 at byte " + strconv.Itoa(third) + ": warning: 4 bytes after the last frame are not a frame [BIN034]",
	})
}

// JSON as CPython's json.dumps writes it (", " and ": ", indent=2, ASCII
// escapes) gives the same findings at the fields' places.
func TestUserSchemaPythonJSON(t *testing.T) {
	py := needs.Program(t, "python3", "it writes the json.dumps input")
	script := `
import json
recs = [{"n": 1, "items": ["caf\u00e9"]}, {"n": "two", "items": ["a", 3]}]
print("\n".join(json.dumps(r) for r in recs))
print(json.dumps(recs[1], indent=2))
`
	out, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{"s.json": positionSchema})
	sameLines(t, userFindings(t, filepath.Join(dir, "s.json"), string(out), ""), []string{
		`in:2:7: error: /n: must be integer, found "two" [SCH001]`,
		`in:2:29: error: /items/1: must be string, found 3 [SCH001]`,
		`in:4:8: error: /n: must be integer, found "two" [SCH001]`,
		`in:7:5: error: /items/1: must be string, found 3 [SCH001]`,
	})
}

// A record that is not JSON is SCH000 at its place; the check stops there.
func TestUserSchemaBadRecord(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.json": positionSchema})
	us, err := LoadUserSchema(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	n, err := us.Validate(strings.NewReader("{\"n\":1}\n{\"n\":}\n"), "in", UserOptions{}, func(f Finding) bool {
		got = append(got, f.Text())
		return true
	})
	if err != nil || n != 1 || len(got) != 1 || !strings.HasPrefix(got[0], "in:2:6: error: ") || !strings.HasSuffix(got[0], "[SCH000]") {
		t.Errorf("n=%d err=%v findings %q", n, err, got)
	}
	// Again (a first pass reported it): nothing.
	got = nil
	us.Validate(strings.NewReader("{\"n\":}\n"), "in", UserOptions{Again: true}, func(f Finding) bool {
		got = append(got, f.Text())
		return true
	})
	if len(got) != 0 {
		t.Errorf("Again: findings %q", got)
	}
	if _, err := us.Validate(bytes.NewReader([]byte("\xd4\xc3\xb2\xa1\x02\x00\x04\x00")), "in", UserOptions{}, func(Finding) bool { return true }); !errors.Is(err, ErrUserFormat) {
		t.Errorf("a capture: err = %v, want ErrUserFormat", err)
	}
}

// FuzzUserSchema: no input makes a user schema's check panic, and every
// finding has a code, a message and a place within the input.
func FuzzUserSchema(f *testing.F) {
	for _, s := range []string{
		`{"n": 1, "items": ["a", 2]}`,
		"{\"n\":\"x\"}\r\n[1]\n",
		"n: 1\nitems[2]: a,3\n",
		"@toon 1.0\n@keys n\n1.5\n",
		"\x01\x04\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00{\"n\":1}",
		"\x01\x04\x02\x00\x00\x00",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(positionSchema), 0o644)
	us, err := LoadUserSchema(filepath.Join(dir, "s.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		us.Validate(bytes.NewReader(in), "in", UserOptions{MaxFrameSize: 1 << 16}, func(fd Finding) bool {
			if fd.Code == "" || fd.Message == "" || fd.File != "in" || fd.Offset < 0 || fd.Offset > int64(len(in)) {
				t.Fatalf("finding %+v", fd)
			}
			return true
		})
	})
}

// A schema with a protocol's rules reads the input twice: a file is read
// again through Reopen, and an input without one (a pipe) is refused
// with a ReadTwiceError after the rules' pass, never read twice from
// where the first pass left it.
func TestRunFileReadsTwice(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.json": `{"type":"object","required":["nope"]}`})
	us, err := LoadUserSchema(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "chiffon.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	run := Run{As: codec.Chiffon, User: us}
	count := func(reopen func() (io.Reader, error)) (int, error) {
		found := 0
		in := Input{Name: "c.ndjson", R: bufio.NewReader(bytes.NewReader(data)), Reopen: reopen}
		_, err := run.File(in, func(f Finding) bool {
			if f.Code == "SCH001" && f.Pointer == "/nope" {
				found++
			}
			return true
		})
		return found, err
	}
	found, err := count(func() (io.Reader, error) { return bytes.NewReader(data), nil })
	if err != nil || found != 6 {
		t.Errorf("with Reopen: %d schema findings, error %v; want 6 (one per record), nil", found, err)
	}
	found, err = count(nil)
	var twice *ReadTwiceError
	if !errors.As(err, &twice) || found != 0 {
		t.Errorf("without Reopen: %d schema findings, error %v; want 0 and a ReadTwiceError", found, err)
	}
}
