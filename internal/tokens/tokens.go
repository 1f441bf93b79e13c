// Package tokens counts the bytes, characters and LLM tokens of a text
// written to it, with OpenAI's tokenizers (o200k_base, cl100k_base) run
// offline by github.com/tiktoken-go/tokenizer. A tokenizer is loaded only
// when a Counter is made, so that commands that do not count start fast.
package tokens

import (
	"fmt"
	"hash/maphash"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// The tokenizers toonkit offers; the first is the default.
var Encodings = []string{string(tokenizer.O200kBase), string(tokenizer.Cl100kBase)}

// Counts are the sizes of one text.
type Counts struct {
	Bytes, Chars, Tokens int64
}

// Counter counts what is written to it. It holds at most a chunk of the
// text at a time: the text is cut only where no token can span the cut (see
// safeCut), so the count is that of the whole text.
//
// Between two such cuts lies a piece (a word and what leads up to it, in
// JSON and TOON mostly a key or a short value with its punctuation): a
// piece met a second time is counted alone and its count remembered, so
// that the keys and values a document repeats are counted once; pieces met
// once are counted together, in chunks. Memory stays bounded: the
// remembered pieces are forgotten when there are too many.
type Counter struct {
	enc    tokenizer.Codec
	pend   []byte
	counts Counts
	err    error

	known map[string]int32    // the counts of pieces met again
	seen  map[uint64]struct{} // hashes of pieces met once
	seed  maphash.Seed
	miss  []byte // pieces met once, to count together
}

// chunk is half the size at which pending text is counted (a variable for
// the tests).
var chunk = 64 << 10

// The bounds of the remembered pieces.
const (
	maxPiece = 48      // longer pieces are counted with the others
	maxKnown = 1 << 16 // pieces whose count is remembered
	maxSeen  = 1 << 18 // pieces met once that are remembered
)

// NewCounter returns a Counter with the named tokenizer.
func NewCounter(encoding string) (*Counter, error) {
	ok := false
	for _, e := range Encodings {
		ok = ok || e == encoding
	}
	if !ok {
		return nil, fmt.Errorf("unknown tokenizer %q (supported: %s, %s)", encoding, Encodings[0], Encodings[1])
	}
	enc, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, err
	}
	return &Counter{enc: enc, known: map[string]int32{}, seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}, nil
}

// Write counts p. It fails only when the tokenizer does.
func (c *Counter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.counts.Bytes += int64(len(p))
	c.pend = append(c.pend, p...)
	if len(c.pend) >= 2*chunk {
		c.pieces(false)
	}
	return len(p), c.err
}

// Count counts text on its own, as a new Counter would, and leaves the
// totals as they were before: a caller that counts many texts (the results
// of one tool, call after call) keeps one Counter, whose pieces met again
// are counted once for all the texts.
func (c *Counter) Count(text []byte) (Counts, error) {
	if _, err := c.Counts(); err != nil { // what was written before, into the totals
		return Counts{}, err
	}
	saved := c.counts
	c.counts = Counts{}
	c.Write(text)
	n, err := c.Counts()
	c.counts = saved
	return n, err
}

// Counts counts what is pending and returns the totals so far.
func (c *Counter) Counts() (Counts, error) {
	c.pieces(true)
	c.countMisses()
	return c.counts, c.err
}

// pieces counts the pending text up to its last safe cut (all of it when
// final), piece by piece.
func (c *Counter) pieces(final bool) {
	b := c.pend
	start := 0
	// As safeCut, the last byte is not a piece's first: a cut is made
	// only before a byte that has another after it, or at the end.
	for p := 1; p < len(b)-1; p++ {
		if safeCut(b[p-1], b[p]) {
			c.piece(b[start:p])
			start = p
		}
	}
	if final && start < len(b) {
		c.piece(b[start:])
		start = len(b)
	}
	c.counts.Chars += int64(utf8.RuneCount(b[:start]))
	c.pend = append(c.pend[:0], b[start:]...)
	if len(c.miss) >= chunk {
		c.countMisses()
	}
}

// piece counts a piece of text that ends at a safe cut (or the text's end).
func (c *Counter) piece(b []byte) {
	if c.err != nil {
		return
	}
	if len(b) <= maxPiece {
		if n, ok := c.known[string(b)]; ok {
			c.counts.Tokens += int64(n)
			return
		}
		h := maphash.Bytes(c.seed, b)
		if _, ok := c.seen[h]; ok {
			n, err := c.enc.Count(string(b))
			if len(c.known) >= maxKnown {
				clear(c.known)
			}
			c.known[string(b)] = int32(n)
			c.counts.Tokens += int64(n)
			c.err = err
			return
		}
		if len(c.seen) >= maxSeen {
			clear(c.seen)
		}
		c.seen[h] = struct{}{}
	}
	// Counted with the pieces before it, when the two meet at a safe cut.
	if m := c.miss; len(m) > 0 && !safeCut(m[len(m)-1], b[0]) {
		c.countMisses()
	}
	c.miss = append(c.miss, b...)
}

// countMisses counts the pieces met once.
func (c *Counter) countMisses() {
	if c.err != nil || len(c.miss) == 0 {
		return
	}
	n, err := c.enc.Count(string(c.miss))
	c.counts.Tokens += int64(n)
	c.err = err
	c.miss = c.miss[:0]
}

// safeCut reports whether a text may be cut between the bytes prev and
// next: the tokenizers' pre-tokenising patterns cannot match across there
// (so that counting the text before and after apart gives the count of
// the whole).
//
// Both patterns (o200k_base and cl100k_base) match an ASCII letter only
// within a run of letters (with one optional leading non-letter, and an
// optional 's 't 're 've 'm 'll 'd after), and an ASCII digit only within a
// run of at most three digits that ends where the digits do. So after a
// letter or digit, before an ASCII character that is none of a letter, a
// digit and an apostrophe, every match ends and the next one begins. Also
// after a line feed, before an ASCII character that is neither white space
// nor '/' (the only characters a match may take after a line feed).
func safeCut(prev, next byte) bool {
	if next >= utf8.RuneSelf {
		return false
	}
	switch {
	case isAlnum(prev) && !isAlnum(next) && next != '\'':
		return true
	case prev == '\n' && next != '/' && next != ' ' && next != '\t' && next != '\r' && next != '\n' && next != '\v' && next != '\f':
		return true
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Cuts returns the first and the last place in b, strictly inside it,
// where the text may be cut so that the counts of the two sides add up to
// that of the whole, whatever comes before and after b: texts counted
// apart (on several goroutines) and joined at such places count as the
// whole. It returns -1, -1 when b has no such place.
func Cuts(b []byte) (first, last int) {
	first, last = -1, -1
	for p := 1; p < len(b); p++ {
		if safeCut(b[p-1], b[p]) {
			first = p
			break
		}
	}
	if first < 0 {
		return -1, -1
	}
	for p := len(b) - 1; p >= first; p-- {
		if safeCut(b[p-1], b[p]) {
			return first, p
		}
	}
	return first, first
}
