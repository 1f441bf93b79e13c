package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// decSeeds are inputs for FuzzDecode beside the spec's fixtures.
var decSeeds = []string{
	"",
	"a: 1\nb:\n  c[2]: x,\"y\"\n  d[1]{e,f{g}}:\n    1,2\nh: []",
	"[2]:\n  - a: 1\n    b[1]:\n      - [2|]: x|y\n  -",
	"[2:]{v}:\n  k: 1\n  \"q\": \"x\\u0041\"",
	"items[2\t]{a\tb}:\n  1\t2\n  3\t4",
	"a:\n   b: 1\n\tc: 2\n# c\n\nd[x]: 1",
	"\uFEFFk: \xff\r\n",
	"hello",
	"- x",
	"[]",
	"x[1]{a,a{b}}:\n  1,2",
	"\"\x7f\xff\"0", // non-strict: the offset of an error after replaced UTF-8
}

// FuzzDecode: any input, in strict and non-strict mode, with and without
// Elements, never panics; what decodes is valid JSON (NDJSON for Elements),
// and an error is a positioned syntax error inside the input.
func FuzzDecode(f *testing.F) {
	for _, s := range decSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	for _, in := range decFixtureInputs(f) {
		f.Add([]byte(in), uint8(0))
		f.Add([]byte(in), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		decCheck(t, in, mode)
	})
}

// decCheck decodes in with the options that mode picks and checks the
// result.
func decCheck(t *testing.T, in []byte, mode uint8) {
	opts := decodeOptions{
		NonStrict:   mode&1 != 0,
		IndentSize:  int(mode>>3&3) + 1,
		MaxLineSize: 1 << 16,
	}
	if mode&2 != 0 {
		opts.JSONIndent = "  "
	}
	opts.Elements = mode&4 != 0
	var out bytes.Buffer
	err := toJSON(&out, bytes.NewReader(in), opts)
	if err != nil {
		var se *jsonv.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("toJSON(%q, %+v): %v is not a *jsonv.SyntaxError", in, opts, err)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		if se.Pos.Line < 1 || se.Pos.Line > lines || se.Pos.Column < 1 || se.Pos.Offset < 0 || se.Pos.Offset > int64(len(in)) {
			t.Fatalf("toJSON(%q, %+v): error %v outside the input (offset %d)", in, opts, err, se.Pos.Offset)
		}
		return
	}
	got := out.Bytes()
	if opts.Elements {
		for line := range bytes.Lines(got) {
			if !bytes.HasSuffix(line, []byte("\n")) || !json.Valid(line) || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("toJSON(%q, %+v): NDJSON line %q", in, opts, line)
			}
		}
		return
	}
	if !json.Valid(got) || !bytes.HasSuffix(got, []byte("\n")) {
		t.Fatalf("toJSON(%q, %+v) = %q: not one JSON value and a newline", in, opts, got)
	}
	if opts.JSONIndent != "" {
		// The indented form is the compact one, indented.
		compact := opts
		compact.JSONIndent = ""
		var c, want bytes.Buffer
		if err := toJSON(&c, bytes.NewReader(in), compact); err != nil {
			t.Fatalf("toJSON(%q) fails only when compact: %v", in, err)
		}
		if err := json.Indent(&want, bytes.TrimSuffix(c.Bytes(), []byte("\n")), "", "  "); err != nil {
			t.Fatal(err)
		}
		want.WriteByte('\n')
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("toJSON(%q) indented\n got: %q\nwant: %q", in, got, want.Bytes())
		}
	}
}

// decFixtureInputs returns the inputs of the spec's decode fixtures (every
// version's), the seeds of the fuzz targets.
func decFixtureInputs(tb testing.TB) []string {
	tb.Helper()
	var files []string
	for _, v := range specVersions {
		dir := filepath.Join(specDir(tb, v.name, v.dir), "decode")
		fs, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(fs) == 0 {
			tb.Fatalf("no decode fixtures in %s", dir)
		}
		files = append(files, fs...)
	}
	var ins []string
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var ff struct {
			Tests []struct {
				Input json.RawMessage `json:"input"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(b, &ff); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		for _, tc := range ff.Tests {
			var s string
			if json.Unmarshal(tc.Input, &s) == nil {
				ins = append(ins, s)
			}
		}
	}
	return ins
}
