package toon

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// TestSpecExamples converts the spec's examples/conversions both ways to the
// given files exactly, decodes every valid example, and requires each
// invalid example to fail with the error its README names.
func TestSpecExamples(t *testing.T) {
	dir := filepath.Join(specRoot(t), "examples")
	jsons, _ := filepath.Glob(filepath.Join(dir, "conversions", "*.json"))
	if len(jsons) == 0 {
		t.Fatalf("no conversions in %s", dir)
	}
	for _, jf := range jsons {
		name := strings.TrimSuffix(filepath.Base(jf), ".json")
		js, tn := read(t, jf), read(t, strings.TrimSuffix(jf, ".json")+".toon")
		var enc bytes.Buffer
		if err := FromJSON(&enc, js, MarshalOptions{}); err != nil {
			t.Errorf("%s: encode: %v", name, err)
		} else if !bytes.Equal(enc.Bytes(), tn) {
			t.Errorf("%s: encode:\n got: %q\nwant: %q", name, enc.Bytes(), tn)
		}
		var dec bytes.Buffer
		if err := toJSON(&dec, bytes.NewReader(tn), decodeOptions{JSONIndent: "  "}); err != nil {
			t.Errorf("%s: decode: %v", name, err)
		} else if !bytes.Equal(dec.Bytes(), js) {
			t.Errorf("%s: decode:\n got: %q\nwant: %q", name, dec.Bytes(), js)
		}
	}

	valid, _ := filepath.Glob(filepath.Join(dir, "valid", "*.toon"))
	if len(valid) == 0 {
		t.Fatalf("no valid examples in %s", dir)
	}
	for _, f := range valid {
		var dec bytes.Buffer
		if err := toJSON(&dec, bytes.NewReader(read(t, f)), decodeOptions{}); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		// And it survives a round trip through the encoder.
		var enc, again bytes.Buffer
		if err := FromJSON(&enc, dec.Bytes(), MarshalOptions{}); err != nil {
			t.Errorf("%s: encode of its JSON: %v", filepath.Base(f), err)
			continue
		}
		if err := toJSON(&again, &enc, decodeOptions{}); err != nil || !bytes.Equal(again.Bytes(), dec.Bytes()) {
			t.Errorf("%s: decode(encode(x)) = %s, %v; want %s", filepath.Base(f), again.Bytes(), err, dec.Bytes())
		}
	}

	// The invalid examples, with the line:column and the gist of the error
	// the README gives for each.
	for file, want := range map[string]struct {
		pos string
		msg string
	}{
		"length-mismatch.toon":          {"1:", `declares 3 .*found 2`},
		"multiple-root-primitives.toon": {"1:", `colon`},
		"delimiter-mismatch.toon":       {"1:", `delimiter`},
	} {
		err := toJSON(&bytes.Buffer{}, bytes.NewReader(read(t, filepath.Join(dir, "invalid", file))), decodeOptions{})
		var se *jsonv.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a syntax error", file, err)
			continue
		}
		if !strings.HasPrefix(se.Pos.String(), want.pos) || !regexp.MustCompile(want.msg).MatchString(se.Msg) {
			t.Errorf("%s: error at %s: %q, want %s… matching %q", file, se.Pos, se.Msg, want.pos, want.msg)
		}
	}
	if invalid, _ := filepath.Glob(filepath.Join(dir, "invalid", "*.toon")); len(invalid) != 3 {
		t.Errorf("%d invalid examples, want the 3 this test knows", len(invalid))
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
