// Package tokenvectors loads testdata/tokens/vectors.json, the published
// token counts of fixed texts (js-tiktoken's, made by
// scripts/gen-token-vectors.sh), for the tests of the packages that count
// tokens.
package tokenvectors

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Vector is a text and its token count by one tokenizer.
type Vector struct {
	Encoding string
	Text     string
	Tokens   int64
}

// Load reads the vectors, found from this file's place in the module.
func Load(tb testing.TB) []Vector {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "tokens", "vectors.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var f struct{ Vectors []Vector }
	if err := json.Unmarshal(b, &f); err != nil {
		tb.Fatal(err)
	}
	return f.Vectors
}
