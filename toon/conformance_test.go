package toon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// specDir returns the official spec folder (SPEC.md, tests/, examples/):
// $TOON_SPEC_DIR, or the copy in testdata/toon-spec/v4.0 (see its README).
// A folder without the fixtures fails the test: a clone runs them all.
func specDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("TOON_SPEC_DIR")
	if d == "" {
		d = filepath.Join("..", "testdata", "toon-spec", "v4.0")
	}
	if _, err := os.Stat(filepath.Join(d, "tests", "fixtures")); err != nil {
		t.Fatalf("toon conformance: the TOON v4 spec folder is not there: %v", err)
	}
	return d
}

type fixtureFile struct {
	Category string    `json:"category"`
	Tests    []fixture `json:"tests"`
}

type fixture struct {
	Name        string         `json:"name"`
	Input       jsontext.Value `json:"input"`
	Expected    jsontext.Value `json:"expected"`
	ShouldError bool           `json:"shouldError"`
	Options     struct {
		Delimiter  string `json:"delimiter"`
		IndentSize int    `json:"indentSize"`
		Strict     *bool  `json:"strict"`
	} `json:"options"`
}

func loadFixtures(t *testing.T, dir, category string) map[string][]fixture {
	files, err := filepath.Glob(filepath.Join(dir, "tests", "fixtures", category, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s fixtures in %s", category, dir)
	}
	out := map[string][]fixture{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ff fixtureFile
		if err := json.Unmarshal(b, &ff); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = ff.Tests
	}
	return out
}

// TestConformance runs every case of the spec's fixtures: all must pass,
// the optional non-strict leniencies included.
func TestConformance(t *testing.T) {
	dir := specDir(t)
	passed, failed := 0, 0
	count := func(ok bool) {
		if ok {
			passed++
		} else {
			failed++
		}
	}
	for _, category := range []string{"encode", "decode"} {
		files := loadFixtures(t, dir, category)
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, file := range names {
			for _, fx := range files[file] {
				t.Run(category+"/"+file+"/"+fx.Name, func(t *testing.T) {
					if category == "encode" {
						count(runEncodeFixture(t, fx))
					} else {
						count(runDecodeFixture(t, fx))
					}
				})
			}
		}
	}
	t.Logf("toon conformance: %d passed, %d failed", passed, failed)
	fmt.Printf("toon conformance: %d passed, %d failed\n", passed, failed)
	if passed+failed != 516 {
		t.Errorf("ran %d fixture cases, want the 516 of spec v4.0", passed+failed)
	}
}

func runEncodeFixture(t *testing.T, fx fixture) bool {
	t.Helper()
	opts := MarshalOptions{IndentSize: fx.Options.IndentSize}
	if fx.Options.Delimiter != "" {
		opts.Delimiter = Delimiter(fx.Options.Delimiter[0])
	}
	var want string
	if err := json.Unmarshal(fx.Expected, &want); err != nil {
		t.Errorf("expected is not a string: %s", fx.Expected)
		return false
	}
	var out bytes.Buffer
	if err := FromJSON(&out, fx.Input, opts); err != nil {
		t.Errorf("FromJSON(%s): %v", fx.Input, err)
		return false
	}
	if out.String() != want {
		t.Errorf("FromJSON(%s)\n got: %q\nwant: %q", fx.Input, out.String(), want)
		return false
	}
	return true
}

func runDecodeFixture(t *testing.T, fx fixture) bool {
	t.Helper()
	var in string
	if err := json.Unmarshal(fx.Input, &in); err != nil {
		t.Errorf("input is not a string: %s", fx.Input)
		return false
	}
	opts := decodeOptions{IndentSize: fx.Options.IndentSize, NonStrict: fx.Options.Strict != nil && !*fx.Options.Strict}
	var out bytes.Buffer
	err := toJSON(&out, strings.NewReader(in), opts)
	if fx.ShouldError {
		if err == nil {
			t.Errorf("toJSON(%q) = %s, want an error", in, out.String())
			return false
		}
		return checkSyntaxError(t, in, err)
	}
	if err != nil {
		t.Errorf("toJSON(%q): %v", in, err)
		return false
	}
	if !sameJSON(t, out.Bytes(), fx.Expected) {
		t.Errorf("toJSON(%q)\n got: %s\nwant: %s", in, out.Bytes(), fx.Expected)
		return false
	}
	return true
}

// checkSyntaxError requires a decode error to be a positioned syntax error
// that points into the input.
func checkSyntaxError(t *testing.T, in string, err error) bool {
	t.Helper()
	var se *jsonv.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("toJSON(%q): error %q (%T) is not a *jsonv.SyntaxError with a position", in, err, err)
		return false
	}
	lines := strings.Count(in, "\n") + 1
	if se.Pos.Line < 1 || se.Pos.Line > lines || se.Pos.Column < 1 {
		t.Errorf("toJSON(%q): error %q at %d:%d, outside the input", in, err, se.Pos.Line, se.Pos.Column)
		return false
	}
	return true
}

// sameJSON reports whether two JSON texts hold the same value under the
// JSON-model equality of §2: member order kept, numbers by value.
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	a, err := tokens(got)
	if err != nil {
		t.Errorf("output is not JSON: %v: %s", err, got)
		return false
	}
	b, err := tokens(want)
	if err != nil {
		t.Fatalf("expected is not JSON: %v", err)
	}
	return slices.Equal(a, b)
}

// tokens lists a JSON text's tokens, numbers in canonical form.
func tokens(b []byte) ([]string, error) {
	d := jsontext.NewDecoder(bytes.NewReader(b))
	var out []string
	for {
		tok, err := d.ReadToken()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok.Kind() {
		case '0':
			out = append(out, "n:"+string(AppendNumber(nil, []byte(tok.String()))))
		case '"':
			out = append(out, "s:"+tok.String())
		default:
			out = append(out, tok.Kind().String()+tok.String())
		}
	}
}
