// Package seal writes and reads the seal of a signed AOP audit log: one
// JSON document that states, for each run of the log, its run_id, its first
// and last seq and event time, its event count and a SHA-256 hash chain
// over its events' signed canonical bytes, in order, with checkpoints of
// the chain along the way; the scheme the events are signed with, the time
// of sealing, and an HMAC-SHA256 over the seal's own canonical bytes with
// the log's key. Per-event signatures cannot show that events were cut
// from the end or the start of a log, that a whole run was removed, or
// that events were swapped; the seal does, and its checkpoints say where
// the log first departs from it.
//
// The format is docs/formats/seal.md. In short, for each run:
//
//	link_0 = SHA-256("toonkit-seal/1 chain")
//	link_i = SHA-256(link_{i-1} || HMAC-SHA256(key, message_i))
//
// where message_i is what the scheme signs for the run's i-th event
// (sign.Signer.Message): its HMAC is the 32 bytes of its right signature,
// which signing and verifying compute anyway, so that the chain costs two
// SHA-256 blocks an event. The run's chain is the last link, in hex; its
// checkpoints are the first 10 hex digits of link_1 to link_16, then of
// every 16th link. The seal's HMAC is over json.dumps(seal without
// "hmac", sort_keys=True, separators=(",", ":")) as CPython writes it.
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

// Format is the value of the "format" member of the seals toonkit writes:
// a seal of this format keeps checkpoints of each run's chain as well as
// its last link.
const Format = "toonkit-seal/2"

// Format1 is the format of the first seals, which keep the last link of
// each run's chain only: toonkit reads them, and extends them in their
// format (sign --seal --append).
const Format1 = "toonkit-seal/1"

// ChainPrefix is hashed to make the first link of every run's chain (in
// both formats: the chain is the same).
const ChainPrefix = "toonkit-seal/1 chain"

// Every is the "every" of the seals toonkit writes: a run's checkpoints
// are the links after each of its first Every events, then after every
// Every-th event (16, 32, 48…). A checkpoint is the first
// CheckpointDigits hex digits of its link: 13 bytes of JSON, 1001 bytes
// for a run of 1000 events, 0.8 KiB per 1000 events of a longer one, and
// every link of a run of at most 16.
const Every = 16

// CheckpointDigits is the length of a checkpoint: the first 10 hex digits
// (40 bits) of its link. A checkpoint only says where a log departs from
// its seal; the verdict rests on the whole last link (chain).
const CheckpointDigits = 10

const cpBytes = CheckpointDigits / 2

// IsCheckpoint reports whether a seal with the given every keeps the link
// after the n-th event of a run (n from 1).
func IsCheckpoint(n, every int64) bool { return every > 0 && (n <= every || n%every == 0) }

// checkpoints is how many checkpoints a run of n events has.
func checkpoints(n, every int64) int64 {
	if n <= every {
		return n
	}
	return n/every + every - 1
}

// Run is what a seal states of one run.
type Run struct {
	RunID    string      `json:"run_id"`
	FirstSeq json.Number `json:"first_seq"`
	LastSeq  json.Number `json:"last_seq"`
	Count    int64       `json:"count"`
	FirstT   string      `json:"first_t"`
	LastT    string      `json:"last_t"`
	Chain    string      `json:"chain"` // the last link, 64 lowercase hex digits
	// Checkpoints (toonkit-seal/2) are the first CheckpointDigits hex
	// digits of the links after the events IsCheckpoint names, in order.
	Checkpoints []string `json:"checkpoints,omitempty"`
}

// Seal is a seal document.
type Seal struct {
	Format   string `json:"format"`
	Scheme   string `json:"scheme"`
	Every    int64  `json:"every,omitempty"` // toonkit-seal/2: the spacing of the runs' checkpoints (IsCheckpoint)
	SealedAt string `json:"sealed_at"`       // RFC 3339, UTC
	Runs     []Run  `json:"runs"`            // in the order of their first event in the log
	HMAC     string `json:"hmac,omitempty"`
}

// Link0 is the first link of every chain.
func Link0() [sha256.Size]byte { return sha256.Sum256([]byte(ChainPrefix)) }

// Next is the link after link for an event whose message has the
// HMAC-SHA256 d.
func Next(link, d *[sha256.Size]byte) [sha256.Size]byte {
	var b [2 * sha256.Size]byte
	copy(b[:], link[:])
	copy(b[sha256.Size:], d[:])
	return sha256.Sum256(b[:])
}

// Builder makes a seal from a log's events, given in order. The zero
// Builder is ready to use.
type Builder struct {
	runs  []*runState
	index map[string]int
	last  int   // the run of the last event, -1 for none
	every int64 // the checkpoints' spacing; 0: Every
	v1    bool  // a toonkit-seal/1 seal resumed: no checkpoints
	watch *watching
	// checkCps: Compare compares the checkpoints (For).
	checkCps bool
}

type runState struct {
	id, firstSeq, firstT string
	lastSeq, lastT       []byte
	count                int64
	link                 [sha256.Size]byte
	cps                  []byte // the checkpoints, cpBytes each
	w                    *runWatch
}

func (b *Builder) spacing() int64 {
	switch {
	case b.v1:
		return 0
	case b.every == 0:
		return Every
	}
	return b.every
}

// Add adds an event of run runID with seq (the decimal form Python
// prints), time t, and mac, the HMAC-SHA256 of the message its scheme
// signs (its signature's bytes). It keeps none of the slices.
func (b *Builder) Add(runID, seq, t []byte, mac *[sha256.Size]byte) {
	b.add(runID, seq, t, mac)
}

func (b *Builder) add(runID, seq, t []byte, mac *[sha256.Size]byte) *runState {
	var r *runState
	if len(b.runs) > 0 && b.runs[b.last].id == string(runID) {
		r = b.runs[b.last]
	} else if k, ok := b.index[string(runID)]; ok {
		r, b.last = b.runs[k], k
	} else {
		if b.index == nil {
			b.index = map[string]int{}
		}
		b.last = len(b.runs)
		b.index[string(runID)] = b.last
		r = &runState{id: string(runID), firstSeq: string(seq), firstT: string(t), link: Link0()}
		if b.watch != nil {
			r.w = b.watch.run(r.id)
		}
		b.runs = append(b.runs, r)
	}
	r.lastSeq, r.lastT = append(r.lastSeq[:0], seq...), append(r.lastT[:0], t...)
	r.count++
	r.link = Next(&r.link, mac)
	if IsCheckpoint(r.count, b.spacing()) {
		r.cps = append(r.cps, r.link[:cpBytes]...)
	}
	return r
}

func (r *runState) run() Run {
	return Run{RunID: r.id, FirstSeq: json.Number(r.firstSeq), LastSeq: json.Number(r.lastSeq), Count: r.count,
		FirstT: r.firstT, LastT: string(r.lastT), Chain: hex.EncodeToString(r.link[:]), Checkpoints: cpStrings(r.cps)}
}

func cpStrings(cps []byte) []string {
	if len(cps) == 0 {
		return nil
	}
	s := make([]string, 0, len(cps)/cpBytes)
	for i := 0; i < len(cps); i += cpBytes {
		s = append(s, hex.EncodeToString(cps[i:i+cpBytes]))
	}
	return s
}

// Seal is the seal of the events added, signed with key.
func (b *Builder) Seal(key []byte, scheme sign.Scheme, at time.Time) (*Seal, error) {
	s := &Seal{Format: Format, Scheme: scheme.String(), Every: b.spacing(), SealedAt: at.UTC().Format(time.RFC3339), Runs: make([]Run, len(b.runs))}
	if b.v1 {
		s.Format = Format1
	}
	for i, r := range b.runs {
		s.Runs[i] = r.run()
	}
	if s.Runs == nil {
		s.Runs = []Run{}
	}
	if err := s.Sign(key); err != nil {
		return nil, err
	}
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

// Sign sets the seal's HMAC: that of its canonical bytes with key.
func (s *Seal) Sign(key []byte) error {
	mac, err := s.mac(key)
	if err == nil {
		s.HMAC = mac
	}
	return err
}

// Document is the seal file (Marshal) of the events added, signed with
// key (Seal).
func (b *Builder) Document(key []byte, scheme sign.Scheme, at time.Time) ([]byte, error) {
	s, err := b.Seal(key, scheme, at)
	if err != nil {
		return nil, err
	}
	return s.Marshal()
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
// that does not verify is ErrHMAC, whatever else is wrong with it. With
// several keys (a log signed across key rotations) the seal verifies with
// any of them.
func Parse(data []byte, keys ...[]byte) (*Seal, error) {
	s, err := parse(data)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		mac, err := s.mac(key)
		if err != nil {
			return nil, err
		}
		if hmac.Equal([]byte(mac), []byte(s.HMAC)) {
			return s, s.check()
		}
	}
	return nil, ErrHMAC
}

// SchemeError is a seal of another scheme than the log's.
type SchemeError struct{ Seal, Log string }

func (e *SchemeError) Error() string {
	return fmt.Sprintf("the seal is of the scheme %s, not %s", e.Seal, e.Log)
}

// ParseFor is Parse for a log signed with scheme: a seal of another
// scheme is a *SchemeError.
func ParseFor(data []byte, scheme sign.Scheme, keys ...[]byte) (*Seal, error) {
	s, err := Parse(data, keys...)
	if err == nil && s.Scheme != scheme.String() {
		return nil, &SchemeError{Seal: s.Scheme, Log: scheme.String()}
	}
	return s, err
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
	var format string
	if err := json.Unmarshal(raw["format"], &format); err != nil || format != Format && format != Format1 {
		return nil, fmt.Errorf("not a seal of a known format: %s (want %q or %q)", raw["format"], Format, Format1)
	}
	v2 := format == Format
	if _, ok := raw["every"]; ok != v2 {
		return nil, fmt.Errorf("not a seal: a %s seal has %s \"every\" member", format, map[bool]string{true: "an", false: "no"}[v2])
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
	// json.Number takes a quoted number too: a seq is a JSON number.
	var runs []map[string]json.RawMessage
	if err := json.Unmarshal(raw["runs"], &runs); err != nil {
		return nil, fmt.Errorf("not a seal: runs: %w", err)
	}
	for i, r := range runs {
		for _, k := range []string{"first_seq", "last_seq"} {
			if v := bytes.TrimSpace(r[k]); len(v) == 0 || v[0] == '"' {
				return nil, fmt.Errorf("not a seal: runs[%d].%s is not a number", i, k)
			}
		}
		if _, ok := r["checkpoints"]; ok != v2 {
			return nil, fmt.Errorf("not a seal: runs[%d]: a %s run has %s \"checkpoints\" member", i, format, map[bool]string{true: "a", false: "no"}[v2])
		}
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
	if s.Format == Format && s.Every < 1 {
		return fmt.Errorf("every is %d: checkpoints are at least 1 event apart", s.Every)
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
		case s.Format == Format && int64(len(r.Checkpoints)) != checkpoints(r.Count, s.Every):
			return fmt.Errorf("runs[%d]: %d checkpoints: a run of %s has %d, every %d", i, len(r.Checkpoints), events(r.Count), checkpoints(r.Count, s.Every), s.Every)
		}
		for _, c := range r.Checkpoints {
			if len(c) != CheckpointDigits || !isLowerHex(c) {
				return fmt.Errorf("runs[%d]: a checkpoint is not %d lowercase hex digits", i, CheckpointDigits)
			}
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

// Resume is a Builder that goes on from the seal s, as if the events it
// seals had been added: the events added next extend its runs' chains and
// counts, or start new runs after them (sign --seal --append, for a log
// that grows). s is read by Parse, its HMAC checked.
func Resume(s *Seal) (*Builder, error) {
	b := &Builder{index: make(map[string]int, len(s.Runs)), every: s.Every, v1: s.Format == Format1}
	for i, r := range s.Runs {
		st := &runState{id: r.RunID, firstSeq: string(r.FirstSeq), firstT: r.FirstT,
			lastSeq: []byte(r.LastSeq), lastT: []byte(r.LastT), count: r.Count}
		if n, err := hex.Decode(st.link[:], []byte(r.Chain)); err != nil || n != sha256.Size {
			return nil, fmt.Errorf("runs[%d]: chain is not 64 lowercase hex digits", i)
		}
		for _, c := range r.Checkpoints {
			var err error
			if st.cps, err = hex.AppendDecode(st.cps, []byte(c)); err != nil || len(c) != CheckpointDigits {
				return nil, fmt.Errorf("runs[%d]: a checkpoint is not %d lowercase hex digits", i, CheckpointDigits)
			}
		}
		if _, ok := b.index[r.RunID]; ok {
			return nil, fmt.Errorf("runs[%d]: run %s is sealed twice", i, r.RunID)
		}
		b.index[r.RunID] = len(b.runs)
		b.runs = append(b.runs, st)
	}
	return b, nil
}
