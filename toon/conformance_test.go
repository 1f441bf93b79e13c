package toon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// specVersions are the spec's published fixture sets that the package is
// tested against, newest last, with their case counts: the copies in
// testdata/toon-spec (see its README), or $TOON_SPEC_DIR for v4.0 (a folder
// with tests/fixtures). A folder without the fixtures fails the test: a
// fresh clone runs them all.
var specVersions = []struct {
	name, dir string // dir holds decode/ and encode/
	cases     int
}{
	{"v4.0", filepath.Join("v4.0", "tests", "fixtures"), 516},
	{"v4.1.0", "v4.1.0", 537},
	{"v4.1.1", "v4.1.1", 538},
}

// specRoot returns the v4.0 spec folder (SPEC.md, examples/, tests/):
// $TOON_SPEC_DIR, or the copy in testdata/toon-spec/v4.0.
func specRoot(t testing.TB) string {
	t.Helper()
	if env := os.Getenv("TOON_SPEC_DIR"); env != "" {
		return env
	}
	return filepath.Join("..", "testdata", "toon-spec", "v4.0")
}

// specDir returns the folder of the version's decode/ and encode/ fixtures.
func specDir(t testing.TB, version, dir string) string {
	t.Helper()
	d := filepath.Join("..", "testdata", "toon-spec", dir)
	if version == "v4.0" {
		d = filepath.Join(specRoot(t), "tests", "fixtures")
	}
	if _, err := os.Stat(filepath.Join(d, "decode")); err != nil {
		t.Fatalf("toon conformance: the TOON %s fixtures are not there: %v", version, err)
	}
	return d
}

// v44Changes are the v4.1 fixture cases whose rule the reference library
// 4.4.0 changed, by their names. v4.1 read these malformed lines, in
// non-strict mode, as literal keys (or skipped them); v4.4 makes each an
// error in both modes, and toonkit follows v4.4: the test requires an error
// where the fixture expects a value.
var v44Changes = map[string]bool{
	"falls through to a key-value line on a header delimiter mismatch":               true, // a[2|]{x,y}: 1|2
	"skips an entry-depth line without a colon in non-strict mode":                   true, // u[2:]{x}: / a: 1 / boom
	"treats extra brackets after valid array segment as literal key (non-strict)":    true, // foo[1][bar]: 10
	"treats bracket segment without a length as literal key (non-strict)":            true, // key[]: 1,2
	"treats non-integer bracket content as literal key (non-strict)":                 true, // foo[bar][1]: 20
	"treats text between bracket segment and colon as literal key (non-strict)":      true, // foo[2]extra: a,b
	"falls through to a key-value line when whitespace precedes the bracket segment": true, // foo [2]: bar,baz
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
	files, err := filepath.Glob(filepath.Join(dir, category, "*.json"))
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

// eachFixture calls f with every fixture of the version folder dir: the
// encode fixtures, then the decode ones, files in name order.
func eachFixture(t *testing.T, dir string, f func(category, file string, fx fixture)) {
	t.Helper()
	for _, category := range []string{"encode", "decode"} {
		files := loadFixtures(t, dir, category)
		for _, file := range slices.Sorted(maps.Keys(files)) {
			for _, fx := range files[file] {
				f(category, file, fx)
			}
		}
	}
}

// TestConformance runs every case of the spec's fixtures, v4.0, v4.1.0 and
// v4.1.1: all must pass, the optional non-strict leniencies included, but
// for the cases of v44Changes, where toonkit follows the reference
// library's v4.4 and must refuse the document.
func TestConformance(t *testing.T) {
	for _, v := range specVersions {
		t.Run(v.name, func(t *testing.T) {
			dir := specDir(t, v.name, v.dir)
			passed, failed, v44 := 0, 0, 0
			count := func(ok bool) {
				if ok {
					passed++
				} else {
					failed++
				}
			}
			eachFixture(t, dir, func(category, file string, fx fixture) {
				t.Run(category+"/"+file+"/"+fx.Name, func(t *testing.T) {
					switch {
					case category == "encode":
						count(runEncodeFixture(t, fx))
					case v44Changes[fx.Name] && !fx.ShouldError:
						v44++
						fx.ShouldError = true
						count(runDecodeFixture(t, fx))
					default:
						count(runDecodeFixture(t, fx))
					}
				})
			})
			t.Logf("toon conformance %s: %d passed (%d of them as v4.4 rules), %d failed", v.name, passed, v44, failed)
			fmt.Printf("toon conformance %s: %d passed (%d as v4.4 rules), %d failed\n", v.name, passed, v44, failed)
			if passed+failed != v.cases {
				t.Errorf("ran %d fixture cases, want the %d of spec %s", passed+failed, v.cases, v.name)
			}
		})
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
