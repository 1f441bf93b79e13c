// Package tokens counts the bytes, characters and LLM tokens of a text
// written to it, with OpenAI's tokenizers (o200k_base, cl100k_base) run
// offline by github.com/tiktoken-go/tokenizer. A tokenizer is loaded only
// when a Counter is made, so that commands that do not count start fast.
package tokens

import (
	"fmt"
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
type Counter struct {
	enc    tokenizer.Codec
	pend   []byte
	counts Counts
	err    error
}

// chunk is half the size at which pending text is counted (a variable for
// the tests).
var chunk = 64 << 10

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
	return &Counter{enc: enc}, nil
}

// Write counts p. It fails only when the tokenizer does.
func (c *Counter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.counts.Bytes += int64(len(p))
	c.pend = append(c.pend, p...)
	if len(c.pend) >= 2*chunk {
		if cut := lastSafeCut(c.pend[:len(c.pend)-1]); cut > 0 {
			c.count(c.pend[:cut])
			c.pend = append(c.pend[:0], c.pend[cut:]...)
		}
	}
	return len(p), c.err
}

// Counts counts what is pending and returns the totals so far.
func (c *Counter) Counts() (Counts, error) {
	if len(c.pend) > 0 {
		c.count(c.pend)
		c.pend = c.pend[:0]
	}
	return c.counts, c.err
}

func (c *Counter) count(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.enc.Count(string(b))
	c.counts.Tokens += int64(n)
	c.counts.Chars += int64(utf8.RuneCount(b))
	c.err = err
}

// lastSafeCut returns the last offset p > 0 of b at which the tokenizers'
// pre-tokenising patterns cannot match across (so that counting b[:p] and
// the rest apart gives the count of the whole), or 0 when there is none.
//
// Both patterns (o200k_base and cl100k_base) match an ASCII letter only
// within a run of letters (with one optional leading non-letter, and an
// optional 's 't 're 've 'm 'll 'd after), and an ASCII digit only within a
// run of at most three digits that ends where the digits do. So after a
// letter or digit, before an ASCII character that is none of a letter, a
// digit and an apostrophe, every match ends and the next one begins. Also
// after a line feed, before an ASCII character that is neither white space
// nor '/' (the only characters a match may take after a line feed).
func lastSafeCut(b []byte) int {
	for p := len(b) - 1; p > 0; p-- {
		prev, next := b[p-1], b[p]
		if next >= utf8.RuneSelf {
			continue
		}
		switch {
		case isAlnum(prev) && !isAlnum(next) && next != '\'':
			return p
		case prev == '\n' && next != '/' && next != ' ' && next != '\t' && next != '\r' && next != '\n' && next != '\v' && next != '\f':
			return p
		}
	}
	return 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
