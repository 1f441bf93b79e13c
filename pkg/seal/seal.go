// Package seal writes and reads the seal of a signed AOP audit log: one
// JSON document that states, for each run of the log, its run_id, its first
// and last seq and event time, its event count and a SHA-256 hash chain
// over the canonical bytes of its events, in order; the scheme the events
// are signed with, the time of sealing, and an HMAC-SHA256 over the seal's
// own canonical bytes with the log's key. Per-event signatures cannot show
// that events were cut from the end or the start of a log, that a whole run
// was removed, or that events were swapped; the seal does.
//
// The format is docs/formats/seal.md. In short, for each run:
//
//	link_0 = SHA-256("toonkit-seal/1 chain")
//	link_i = SHA-256(link_{i-1} || SHA-256(message_i))
//
// where message_i is what the scheme signs for the run's i-th event
// (sign.Signer.Message), and the run's chain is the last link, in hex.
// The seal's HMAC is over json.dumps(seal without "hmac", sort_keys=True,
// separators=(",", ":")) as CPython writes it.
package seal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/toonkit/toonkit/pkg/sign"
)

// Format is the value of a seal's "format" member.
const Format = "toonkit-seal/1"

// ChainPrefix is hashed to make the first link of every run's chain.
const ChainPrefix = "toonkit-seal/1 chain"

// Run is what a seal states of one run.
type Run struct {
	RunID    string      `json:"run_id"`
	FirstSeq json.Number `json:"first_seq"`
	LastSeq  json.Number `json:"last_seq"`
	Count    int64       `json:"count"`
	FirstT   string      `json:"first_t"`
	LastT    string      `json:"last_t"`
	Chain    string      `json:"chain"` // the last link, 64 lowercase hex digits
}

// Seal is a seal document.
type Seal struct {
	Format   string `json:"format"`
	Scheme   string `json:"scheme"`
	SealedAt string `json:"sealed_at"` // RFC 3339, UTC
	Runs     []Run  `json:"runs"`      // in the order of their first event in the log
	HMAC     string `json:"hmac,omitempty"`
}

// Link0 is the first link of every chain.
func Link0() [sha256.Size]byte { return sha256.Sum256([]byte(ChainPrefix)) }

// Next is the link after link for an event whose message has the SHA-256
// digest d.
func Next(link, d *[sha256.Size]byte) [sha256.Size]byte {
	var b [2 * sha256.Size]byte
	copy(b[:], link[:])
	copy(b[sha256.Size:], d[:])
	return sha256.Sum256(b[:])
}

// Builder makes a seal from a log's events, given in order. The zero
// Builder is ready to use.
type Builder struct {
	runs  []Run
	links [][sha256.Size]byte
	index map[string]int
}

// Add adds an event of run runID with seq (the decimal form Python
// prints), time t, and the SHA-256 digest of the message its scheme signs.
func (b *Builder) Add(runID, seq, t []byte, digest *[sha256.Size]byte) {
	if b.index == nil {
		b.index = map[string]int{}
	}
	k, ok := b.index[string(runID)]
	if !ok {
		k = len(b.runs)
		b.index[string(runID)] = k
		b.runs = append(b.runs, Run{RunID: string(runID), FirstSeq: json.Number(seq), FirstT: string(t)})
		b.links = append(b.links, Link0())
	}
	r := &b.runs[k]
	r.LastSeq, r.LastT = json.Number(seq), string(t)
	r.Count++
	b.links[k] = Next(&b.links[k], digest)
}

// AddMessage adds an event given its signed message (sign.Signer.Message).
func (b *Builder) AddMessage(runID, seq, t, message []byte) {
	d := sha256.Sum256(message)
	b.Add(runID, seq, t, &d)
}

// Seal is the seal of the events added, signed with key.
func (b *Builder) Seal(key []byte, scheme sign.Scheme, at time.Time) (*Seal, error) {
	s := &Seal{Format: Format, Scheme: scheme.String(), SealedAt: at.UTC().Format(time.RFC3339), Runs: make([]Run, len(b.runs))}
	for i, r := range b.runs {
		r.Chain = hex.EncodeToString(b.links[i][:])
		s.Runs[i] = r
	}
	if s.Runs == nil {
		s.Runs = []Run{}
	}
	mac, err := s.mac(key)
	if err != nil {
		return nil, err
	}
	s.HMAC = mac
	return s, nil
}

// Canonical is the bytes the seal's HMAC is over: CPython's
// json.dumps(seal without "hmac", sort_keys=True, separators=(",", ":")).
func (s *Seal) Canonical() ([]byte, error) {
	c := *s
	c.HMAC = ""
	j, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	return sign.Canonical(nil, j, sign.Style{SortKeys: true, Compact: true})
}

func (s *Seal) mac(key []byte) (string, error) {
	if len(key) == 0 {
		return "", sign.ErrEmptyKey
	}
	body, err := s.Canonical()
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil)), nil
}

// Marshal is the seal's file: its canonical bytes with the HMAC, and a
// line break.
func (s *Seal) Marshal() ([]byte, error) {
	j, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	b, err := sign.Canonical(nil, j, sign.Style{SortKeys: true, Compact: true})
	return append(b, '\n'), err
}

// ErrHMAC is a seal whose HMAC does not match its content with the key.
var ErrHMAC = errors.New("the seal's own HMAC does not match: the seal was edited, or made with another key")

// Parse reads a seal strictly (one JSON object, no unknown or missing
// member, the format known, each chain 64 lowercase hex digits, counts
// positive, each run once), then checks its HMAC with key, first: a seal
// that does not verify is ErrHMAC, whatever else is wrong with it.
func Parse(data []byte, key []byte) (*Seal, error) {
	s, err := parse(data)
	if err != nil {
		return nil, err
	}
	mac, err := s.mac(key)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(mac), []byte(s.HMAC)) {
		return nil, ErrHMAC
	}
	return s, s.check()
}

func parse(data []byte) (*Seal, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a seal: %w", err)
	}
	for _, k := range []string{"format", "scheme", "sealed_at", "runs", "hmac"} {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("not a seal: no %q member", k)
		}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	d.UseNumber()
	var s Seal
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a seal: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("not a seal: data after the JSON object")
	}
	if s.Format != Format {
		return nil, fmt.Errorf("not a seal of a known format: %q (want %q)", s.Format, Format)
	}
	if len(s.HMAC) != 64 || !isLowerHex(s.HMAC) {
		return nil, errors.New("not a seal: hmac is not 64 lowercase hex digits")
	}
	return &s, nil
}

// check checks what the HMAC cannot: that the seal makes sense.
func (s *Seal) check() error {
	if _, err := sign.ParseScheme(s.Scheme); err != nil {
		return fmt.Errorf("the seal names an unknown scheme: %v", err)
	}
	seen := map[string]bool{}
	for i, r := range s.Runs {
		switch {
		case seen[r.RunID]:
			return fmt.Errorf("runs[%d]: run %s is sealed twice", i, r.RunID)
		case r.Count < 1:
			return fmt.Errorf("runs[%d]: count %d: a sealed run has at least one event", i, r.Count)
		case len(r.Chain) != 64 || !isLowerHex(r.Chain):
			return fmt.Errorf("runs[%d]: chain is not 64 lowercase hex digits", i)
		case !isInt(string(r.FirstSeq)) || !isInt(string(r.LastSeq)):
			return fmt.Errorf("runs[%d]: first_seq and last_seq are integers", i)
		}
		seen[r.RunID] = true
	}
	return nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
