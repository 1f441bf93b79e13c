package tokens

import (
	"fmt"
	"hash/maphash"
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

// FuzzSafeCut: counting in chunks cut where safeCut says gives the
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

// Pieces met again are counted from memory: a text that repeats its keys
// and values (each vector three times over, then all of them again) counts
// as tiktoken counts it whole, however it is cut, also when the remembered
// pieces are forgotten on the way.
func TestCountsRepeatedPieces(t *testing.T) {
	vs := loadVectors(t)
	defer func(c int) { chunk = c }(chunk)
	for _, enc := range Encodings {
		var all strings.Builder
		for _, v := range vs {
			if v.Encoding == enc {
				all.WriteString(strings.Repeat(v.Text+"\n", 3))
			}
		}
		text := all.String() + all.String()
		c, _ := NewCounter(enc)
		whole, _ := c.enc.Count(text)
		for _, size := range []int{64 << 10, 50, 7} {
			chunk = size
			for _, piece := range []int{1, 13, 1 << 20} {
				if got := countPieces(t, enc, text, piece); got.Tokens != int64(whole) || got.Bytes != int64(len(text)) || got.Chars != int64(utf8.RuneCountInString(text)) {
					t.Errorf("%s, chunk %d, pieces of %d: %+v; want %d tokens", enc, size, piece, got, whole)
				}
			}
		}
	}
}

func BenchmarkCounter(b *testing.B) {
	var text strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&text, `{"id":%d,"name":"User %d","email":"user%d@example.com","active":%t,"score":%d.5},`, i, i, i, i%3 == 0, i%97)
	}
	b.SetBytes(int64(text.Len()))
	for b.Loop() {
		c, _ := NewCounter(Encodings[0])
		c.Write([]byte(text.String()))
		c.Counts()
	}
}

// Texts counted apart and joined at the places Cuts gives count as the
// whole: the published vectors, each cut at its first and last place.
func TestCutsAddUp(t *testing.T) {
	cut := 0
	for _, v := range loadVectors(t) {
		first, last := Cuts([]byte(v.Text))
		if first < 0 {
			if last != -1 {
				t.Errorf("%.40q: Cuts = %d, %d", v.Text, first, last)
			}
			continue
		}
		if !(0 < first && first <= last && last < len(v.Text)) {
			t.Fatalf("%.40q: Cuts = %d, %d", v.Text, first, last)
		}
		c, _ := NewCounter(v.Encoding)
		sum := 0
		for _, part := range []string{v.Text[:first], v.Text[first:last], v.Text[last:]} {
			n, err := c.enc.Count(part)
			if err != nil {
				t.Fatal(err)
			}
			sum += n
		}
		if int64(sum) != v.Tokens {
			t.Errorf("%s: %.40q cut at %d and %d counts %d, want %d", v.Encoding, v.Text, first, last, sum, v.Tokens)
		}
		cut++
	}
	if cut < 10 {
		t.Fatalf("only %d vectors had a cut", cut)
	}
	if f, l := Cuts([]byte(`[[],{},[]]`)); f != -1 || l != -1 {
		t.Errorf("Cuts of punctuation alone = %d, %d", f, l)
	}
}

// Count counts each text as tiktoken counts it alone, whatever was counted
// before with the same Counter, and leaves the totals of what was written
// as they were.
func TestCountEachText(t *testing.T) {
	vs := loadVectors(t)
	for _, enc := range Encodings {
		c, _ := NewCounter(enc)
		c.Write([]byte("before "))
		var n int
		for round := range 3 { // the pieces are known from the second round on
			for _, v := range vs {
				if v.Encoding != enc {
					continue
				}
				got, err := c.Count([]byte(v.Text))
				want, _ := c.enc.Count(v.Text)
				if err != nil || got.Tokens != int64(want) || got.Bytes != int64(len(v.Text)) || got.Chars != int64(utf8.RuneCountInString(v.Text)) {
					t.Fatalf("%s, round %d, %q: %+v, %v; want %d tokens", enc, round, v.Text, got, err, want)
				}
				n++
			}
		}
		total, _ := c.Counts()
		if want, _ := c.enc.Count("before "); total.Tokens != int64(want) || total.Bytes != 7 || n == 0 {
			t.Errorf("%s: the totals became %+v after %d texts", enc, total, n)
		}
	}
}

// safeCut's table says what the rule in its doc says, for every pair of
// bytes.
func TestSafeCutTable(t *testing.T) {
	rule := func(prev, next byte) bool {
		if next >= utf8.RuneSelf {
			return false
		}
		space := next == ' ' || next == '\t' || next == '\r' || next == '\n' || next == '\v' || next == '\f' || next == '/'
		return isAlnum(prev) && !isAlnum(next) && next != '\'' || prev == '\n' && !space
	}
	for p := range 256 {
		for n := range 256 {
			if got, want := safeCut(byte(p), byte(n)), rule(byte(p), byte(n)); got != want {
				t.Errorf("safeCut(%q, %q) = %v, want %v", byte(p), byte(n), got, want)
			}
		}
	}
}

// Pieces whose hashes meet are told apart by their bytes: with a hash that
// gives most pieces one of four values, every text still counts as
// tiktoken counts it.
func TestCountsHashesMeet(t *testing.T) {
	vs := loadVectors(t)
	for _, enc := range Encodings {
		c, _ := NewCounter(enc)
		c.hash = func(_ maphash.Seed, b []byte) uint64 { return uint64(len(b) % 4 * 2) }
		for round := range 3 {
			for _, v := range vs {
				if v.Encoding != enc {
					continue
				}
				text := strings.Repeat(v.Text+"\n", 2)
				want, _ := c.enc.Count(text)
				if got, err := c.Count([]byte(text)); err != nil || got.Tokens != int64(want) {
					t.Fatalf("%s, round %d, %.40q: %+v, %v; want %d tokens", enc, round, v.Text, got, err, want)
				}
			}
		}
	}
}

// A text of more pieces than the table keeps (so that it is forgotten on
// the way, more than once) counts as the whole; each piece comes twice, so
// that its count is remembered and used.
func TestCountsTableForgotten(t *testing.T) {
	var b strings.Builder
	for i := range maxSlots {
		fmt.Fprintf(&b, " k%d k%d", i, i)
	}
	text := b.String()
	c, _ := NewCounter(Encodings[0])
	want, _ := c.enc.Count(text)
	c.Write([]byte(text))
	got, _ := c.Counts()
	if got.Tokens != int64(want) {
		t.Fatalf("%d tokens, want %d", got.Tokens, want)
	}
	if c.table.used > maxSlots/2 || len(c.table.slots) > maxSlots {
		t.Fatalf("the table holds %d pieces in %d slots", c.table.used, len(c.table.slots))
	}
}

// BenchmarkCounterWarm counts a 100 KB JSON text again and again with one
// Counter: its pieces are known (as for the results of one tool, call
// after call, in the MCP proxy).
func BenchmarkCounterWarm(b *testing.B) {
	var text strings.Builder
	text.WriteString("{\n  \"items\": [\n")
	for i := 0; text.Len() < 100<<10; i++ {
		fmt.Fprintf(&text, "    {\n      \"id\": %d,\n      \"name\": \"item %d\",\n      \"price\": %d.5,\n      \"in_stock\": %t\n    },\n", i, i, i%97, i%3 == 0)
	}
	c, _ := NewCounter(Encodings[0])
	in := []byte(text.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		c.Count(in)
	}
}

// runeCount counts as utf8.RuneCount, also where the text is not UTF-8.
func FuzzRuneCount(f *testing.F) {
	for _, s := range []string{"", "plain ASCII text of some length", "Zürich, 😀 and \xff\x80 cut\xe2\x82", "\xf0\x9f\x98"} {
		f.Add([]byte(s))
	}
	for _, v := range loadVectors(f) {
		f.Add([]byte(v.Text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range min(len(b), 9) {
			if got, want := runeCount(b[i:]), utf8.RuneCount(b[i:]); got != want {
				t.Fatalf("runeCount(%q) = %d, want %d", b[i:], got, want)
			}
		}
	})
}
