package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/tokenvectors"
)

type vector = tokenvectors.Vector

func loadVectors(t testing.TB) []vector { return tokenvectors.Load(t) }

// countPieces writes text to a fresh Counter in pieces of n bytes.
func countPieces(t testing.TB, enc, text string, n int) Counts {
	c, err := NewCounter(enc)
	if err != nil {
		t.Fatal(err)
	}
	for len(text) > 0 {
		k := min(n, len(text))
		c.Write([]byte(text[:k]))
		text = text[k:]
	}
	got, err := c.Counts()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// The counts are tiktoken's (vectors from js-tiktoken, made by
// scripts/gen-token-vectors.sh), however the text is cut into chunks.
func TestCountsMatchTiktoken(t *testing.T) {
	vs := loadVectors(t)
	if len(vs) < 20 {
		t.Fatalf("only %d vectors", len(vs))
	}
	defer func(c int) { chunk = c }(chunk)
	for _, size := range []int{64 << 10, 50, 7} {
		chunk = size
		for _, v := range vs {
			for _, piece := range []int{1, 13, 1 << 20} {
				got := countPieces(t, v.Encoding, v.Text, piece)
				want := Counts{Bytes: int64(len(v.Text)), Chars: int64(utf8.RuneCountInString(v.Text)), Tokens: v.Tokens}
				if got != want {
					t.Errorf("%s, chunk %d, pieces of %d, %.40q: %+v, want %+v", v.Encoding, size, piece, v.Text, got, want)
				}
			}
		}
	}
}

// FuzzSafeCut: counting in chunks cut where lastSafeCut says gives the
// count of the whole text.
func FuzzSafeCut(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add(v.Text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		for _, enc := range Encodings {
			c, _ := NewCounter(enc)
			whole, _ := c.enc.Count(text)
			defer func(c int) { chunk = c }(chunk)
			chunk = 8
			got := countPieces(t, enc, text, 3)
			if got.Tokens != int64(whole) {
				t.Fatalf("%s: %q counts %d in chunks, %d whole", enc, text, got.Tokens, whole)
			}
		}
	})
}

func TestUnknownTokenizer(t *testing.T) {
	if _, err := NewCounter("p50k"); err == nil || !strings.Contains(err.Error(), "o200k_base, cl100k_base") {
		t.Fatalf("err = %v", err)
	}
}
