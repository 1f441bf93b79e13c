// Package tokens counts the bytes, characters and LLM tokens of a text
// written to it, with OpenAI's tokenizers (o200k_base, cl100k_base) run
// offline by github.com/tiktoken-go/tokenizer. A tokenizer is loaded only
// when a Counter is made, so that commands that do not count start fast.
package tokens

import (
	"encoding/binary"
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

	table pieceTable
	seed  maphash.Seed
	hash  func(seed maphash.Seed, b []byte) uint64 // maphash.Bytes (the tests' own, to make hashes meet)
	miss  []byte                                   // pieces met once, to count together
}

// chunk is half the size at which pending text is counted (a variable for
// the tests).
var chunk = 64 << 10

// The bounds of the remembered pieces.
const (
	maxPiece = 48      // longer pieces are counted with the others
	maxSlots = 1 << 19 // the table's slots: at most half of them hold a piece
	maxBytes = 4 << 20 // the bytes of the pieces whose count is remembered
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
	return &Counter{enc: enc, seed: maphash.MakeSeed(), hash: maphash.Bytes}, nil
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
	if len(b) > 2 {
		after := cutClass[b[0]] >> 8
		for p := 1; p < len(b)-1; p++ {
			k := cutClass[b[p]]
			if after&k != 0 {
				c.piece(b[start:p])
				start = p
			}
			after = k >> 8
		}
	}
	if final && start < len(b) {
		c.piece(b[start:])
		start = len(b)
	}
	c.counts.Chars += int64(runeCount(b[:start]))
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
		switch s, met := c.table.find(c.hash(c.seed, b)|1, b); met {
		case pieceKnown:
			c.counts.Tokens += int64(s.count)
			return
		case pieceOnce:
			// Met once before (by its hash): counted alone from now on.
			n, err := c.enc.Count(string(b))
			c.counts.Tokens += int64(n)
			c.err = err
			c.table.remember(s, b, n)
			return
		}
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
func safeCut(prev, next byte) bool { return cutClass[prev]>>8&cutClass[next] != 0 }

// cutClass is, for each byte, its class (one bit: cutAlnum and the others)
// in the low byte, and in the high byte the classes of the bytes before
// which a text may be cut after it (safeCut).
var cutClass = func() (t [256]uint16) {
	const (
		cutAlnum = 1 << iota
		cutApostrophe
		cutLineFeed
		cutSpace // white space but a line feed, and '/'
		cutOther // the other ASCII characters
		// and none for the bytes of a character beyond ASCII
	)
	for i := range t {
		c := byte(i)
		switch {
		case c >= utf8.RuneSelf:
			t[i] = 0
		case isAlnum(c):
			t[i] = cutAlnum | (cutLineFeed|cutSpace|cutOther)<<8
		case c == '\'':
			t[i] = cutApostrophe
		case c == '\n':
			t[i] = cutLineFeed | (cutAlnum|cutApostrophe|cutOther)<<8
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '/':
			t[i] = cutSpace
		default:
			t[i] = cutOther
		}
	}
	return t
}()

// runeCount is utf8.RuneCount(p), eight bytes at a time where they are
// ASCII.
func runeCount(p []byte) int {
	n, i := 0, 0
	for i < len(p) {
		for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
			i, n = i+8, n+8
		}
		switch {
		case i >= len(p):
		case p[i] < utf8.RuneSelf:
			i, n = i+1, n+1
		default:
			_, size := utf8.DecodeRune(p[i:])
			i, n = i+size, n+1
		}
	}
	return n
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

// pieceTable remembers the pieces met: the hash of each piece met once,
// and of each met again its bytes and its count, so that a count is only
// ever given for the same bytes. It is a hash table of open addressing
// (one hash a piece, no allocation once grown), forgotten whole when it
// is full.
type pieceTable struct {
	slots []pieceSlot // a power of two of them, or none
	bytes []byte      // the bytes of the pieces whose count is kept
	used  int
}

type pieceSlot struct {
	hash  uint64 // odd; 0: the slot is free
	off   uint32 // where the piece's bytes are in bytes
	n     uint8  // their length; 0: the piece was met once (its hash only)
	count uint8  // its tokens (no more than its bytes)
}

// What find knows of a piece.
const (
	pieceNew   = iota // met for the first time: its hash is kept now
	pieceOnce         // met once before (by its hash): its count is not known
	pieceKnown        // its count is known
)

// find returns the slot of the piece b, of hash h (odd), and what is known
// of it (pieceNew, pieceOnce, pieceKnown).
func (t *pieceTable) find(h uint64, b []byte) (*pieceSlot, int) {
	if 2*(t.used+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch {
		case s.hash == 0:
			s.hash = h
			t.used++
			return s, pieceNew
		case s.hash != h:
		case s.n == 0:
			return s, pieceOnce
		case int(s.n) == len(b) && string(t.bytes[s.off:int(s.off)+len(b)]) == string(b):
			return s, pieceKnown
		}
		// Another piece of the same hash: on to the next slot.
	}
}

// remember keeps the count n of b in its slot s (as find gave it).
func (t *pieceTable) remember(s *pieceSlot, b []byte, n int) {
	if len(t.bytes)+len(b) > maxBytes {
		t.forget()
		return
	}
	s.off, s.n, s.count = uint32(len(t.bytes)), uint8(len(b)), uint8(n)
	t.bytes = append(t.bytes, b...)
}

// grow doubles the table, or forgets it when it is as large as it may be.
func (t *pieceTable) grow() {
	if len(t.slots) >= maxSlots {
		t.forget()
		return
	}
	old := t.slots
	t.slots = make([]pieceSlot, max(2*len(old), 1024))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.hash == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].hash != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

func (t *pieceTable) forget() {
	clear(t.slots)
	t.bytes = t.bytes[:0]
	t.used = 0
}
