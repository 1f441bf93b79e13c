// Package seal writes and reads the seal of a signed AOP audit log: one
// JSON document that states, for each run of the log, its run_id, its first
// and last seq and event time, its event count and a SHA-256 hash chain
// over its events' HMACs (of their signed canonical bytes), in order, with
// checkpoints of the chain along the way; a chain over all the log's
// events in the log's order on the same HMACs (toonkit-seal/3's
// log_chain); the scheme the events are signed with, the time of sealing,
// and an HMAC-SHA256 over the seal's own canonical bytes with the log's
// key. Per-event signatures cannot show that events were cut
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
	"hash"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/sign"
)

// Format is the value of the "format" member of the seals toonkit writes:
// a seal of this format keeps checkpoints of each run's chain as well as
// its last link, and a chain over all the log's events in the log's order
// (log_chain), so that runs reordered, interleaved or split differ from
// it.
const Format = "toonkit-seal/3"

// Format2 is the format of the seals with checkpoints but no log_chain:
// toonkit reads them and extends them in their format; they do not state
// the order of the runs' events among each other.
const Format2 = "toonkit-seal/2"

// LogPrefix is hashed to make the first link of the log's chain
// (toonkit-seal/3).
const LogPrefix = "toonkit-seal/3 log"

// MaxSize is the largest seal file read by default (ReadLimit): 64 MiB,
// the seal of some 80 million events.
const MaxSize = 64 << 20

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
	// Checkpoints (toonkit-seal/2 and 3) are the first CheckpointDigits hex
	// digits of the links after the events IsCheckpoint names, in order.
	Checkpoints []string `json:"checkpoints,omitempty"`
}

// Seal is a seal document.
type Seal struct {
	Format   string `json:"format"`
	Scheme   string `json:"scheme"`
	Every    int64  `json:"every,omitempty"` // toonkit-seal/2 and 3: the spacing of the runs' checkpoints (IsCheckpoint)
	SealedAt string `json:"sealed_at"`       // RFC 3339, UTC
	Runs     []Run  `json:"runs"`            // in the order of their first event in the log
	// LogChain (toonkit-seal/3) is the last link of the chain over all
	// the log's events, in the log's order: 64 lowercase hex digits.
	LogChain string `json:"log_chain,omitempty"`
	HMAC     string `json:"hmac,omitempty"`
}

// hasCheckpoints reports whether a seal of the format keeps checkpoints
// (and every).
func hasCheckpoints(format string) bool { return format != Format1 }

// Link0 is the first link of every run's chain.
func Link0() [sha256.Size]byte { return sha256.Sum256([]byte(ChainPrefix)) }

// LogLink0 is the first link of the log's chain (toonkit-seal/3).
func LogLink0() [sha256.Size]byte { return sha256.Sum256([]byte(LogPrefix)) }

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
	v2    bool  // a toonkit-seal/2 seal resumed: no log chain
	// logLink is the log's chain so far, over every event (logInit: it
	// has been started).
	logLink [sha256.Size]byte
	logInit bool
	watch   *watching
	// checkCps: Compare compares the checkpoints (For).
	checkCps bool
}

type runState struct {
	id, firstSeq, firstT string
	lastSeq, lastT       []byte
	lastN                int64 // lastSeq, when it fits in 64 bits (Append)
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

// SeqError is an event that Append refuses: its seq is not the one after
// the last seq of its run, as verify wants.
type SeqError struct {
	Run, Seq string
	Msg      string
}

func (e *SeqError) Error() string { return fmt.Sprintf("seq %s (run %s): %s", e.Seq, e.Run, e.Msg) }

// Append is Add for a log being sealed: an event whose seq is not the one
// after the last of its run (a repeat or replay, a step back, a gap), or
// does not fit in 64 bits, is refused with a *SeqError, and not added, so
// that nothing is sealed that verify rejects. (A run may start at any
// seq; verify warns of one that starts after 1.)
func (b *Builder) Append(runID, seq, t []byte, mac *[sha256.Size]byte) error {
	n, err := strconv.ParseInt(string(seq), 10, 64)
	if err != nil {
		return &SeqError{Run: string(runID), Seq: string(seq), Msg: "seq does not fit in 64 bits: its order cannot be checked"}
	}
	var r *runState
	if len(b.runs) > 0 && b.runs[b.last].id == string(runID) {
		r = b.runs[b.last]
	} else if k, ok := b.index[string(runID)]; ok {
		r = b.runs[k]
	}
	if r != nil && n != r.lastN+1 {
		e := &SeqError{Run: string(runID), Seq: string(seq)}
		switch {
		case n == r.lastN:
			e.Msg = fmt.Sprintf("repeated: the run is at seq %d already (a replay)", r.lastN)
		case n < r.lastN:
			e.Msg = fmt.Sprintf("out of order: it comes after seq %d", r.lastN)
		default:
			e.Msg = fmt.Sprintf("a gap: it comes after seq %d (%s missing)", r.lastN, events(n-r.lastN-1))
		}
		return e
	}
	b.add(runID, seq, t, mac).lastN = n
	return nil
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
	if !b.logInit {
		b.logLink, b.logInit = LogLink0(), true
	}
	b.logLink = Next(&b.logLink, mac)
	if IsCheckpoint(r.count, b.spacing()) {
		r.cps = append(r.cps, r.link[:cpBytes]...)
	}
	return r
}

// logChain is the hex of the log's chain so far.
func (b *Builder) logChain() string {
	if !b.logInit {
		l := LogLink0()
		return hex.EncodeToString(l[:])
	}
	return hex.EncodeToString(b.logLink[:])
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
	switch {
	case b.v1:
		s.Format = Format1
	case b.v2:
		s.Format = Format2
	default:
		s.LogChain = b.logChain()
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

// TooLargeError is a seal file longer than the limit of ReadLimit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the seal is longer than the limit of %d bytes", e.Limit)
}

// ReadLimit reads a seal file from r, of at most limit bytes (MaxSize when
// limit <= 0): a longer one is a *TooLargeError, found without reading
// more than limit+1 bytes.
func ReadLimit(r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxSize
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return b, nil
}

// Parse reads a seal strictly and checks it, in three steps. First, in one
// pass that keeps no Go value of the runs: one JSON object, nothing after
// it, no member twice (in it or in any object it holds), its top-level
// members those of its format, the format known, hmac 64 lowercase hex
// digits. Then its HMAC, with each of keys in turn, over the canonical
// bytes of the document as read: a seal that verifies with none is
// ErrHMAC, whatever else is wrong with it. Then the rest: the runs'
// members, types and values, every at least 1, sealed_at RFC 3339 in UTC,
// each chain 64 lowercase hex digits, counts positive, each run once.
// With several keys (a log signed across key rotations) the seal verifies
// with any of them; ParseKey says which.
func Parse(data []byte, keys ...[]byte) (*Seal, error) {
	s, _, err := ParseKey(data, keys...)
	return s, err
}

// ParseKey is Parse that also returns the index in keys of the key the
// seal verifies with, or -1 when its HMAC does not match. A caller that
// holds a keyring, newest key first, fails a seal of index > 0: made with
// a key rotated out, it may be the work of whoever holds that old key
// (docs/formats/seal.md, "What a seal proves").
func ParseKey(data []byte, keys ...[]byte) (*Seal, int, error) {
	top, err := scan(data)
	if err != nil {
		return nil, -1, err
	}
	macs := make([]hash.Hash, len(keys))
	ws := make([]io.Writer, len(keys))
	for i, key := range keys {
		if len(key) == 0 {
			return nil, -1, sign.ErrEmptyKey
		}
		macs[i] = hmac.New(sha256.New, key)
		ws[i] = macs[i]
	}
	if err := body(data, top, io.MultiWriter(ws...)); err != nil {
		return nil, -1, fmt.Errorf("not a seal: %w", err)
	}
	k := -1
	for i, m := range macs {
		if hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(top.mac)) {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, -1, ErrHMAC
	}
	s, err := parse(data)
	if err == nil {
		err = s.check()
	}
	if err != nil {
		return nil, k, err
	}
	return s, k, nil
}

// SchemeError is a seal of another scheme than the log's.
type SchemeError struct{ Seal, Log string }

func (e *SchemeError) Error() string {
	return fmt.Sprintf("the seal is of the scheme %s, not %s", e.Seal, e.Log)
}

// ParseFor is Parse for a log signed with scheme: a seal of another
// scheme is a *SchemeError.
func ParseFor(data []byte, scheme sign.Scheme, keys ...[]byte) (*Seal, error) {
	s, _, err := ParseKeyFor(data, scheme, keys...)
	return s, err
}

// ParseKeyFor is ParseKey for a log signed with scheme, as ParseFor.
func ParseKeyFor(data []byte, scheme sign.Scheme, keys ...[]byte) (*Seal, int, error) {
	s, k, err := ParseKey(data, keys...)
	if err == nil && s.Scheme != scheme.String() {
		return nil, k, &SchemeError{Seal: s.Scheme, Log: scheme.String()}
	}
	return s, k, err
}

// members are the top-level members of a seal, and the formats that have
// them (all, when none are named).
var members = map[string][]string{
	"format": nil, "scheme": nil, "sealed_at": nil, "runs": nil, "hmac": nil,
	"every":     {Format2, Format},
	"log_chain": {Format},
}

// topLevel is what scan reads of a seal: its top-level members' values
// but runs, and its hmac.
type topLevel struct {
	values map[string]jsontext.Value // runs: nil
	mac    string
}

// scan is the first step of Parse: the seal's structure, read as a
// stream of tokens, the runs skipped but for their syntax and their
// members' names.
func scan(data []byte) (*topLevel, error) {
	d := jsontext.NewDecoder(bytes.NewBuffer(data))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, fmt.Errorf("not a seal: %w", err)
	}
	if tok.Kind() != '{' {
		return nil, errors.New("not a seal: not a JSON object")
	}
	got := map[string]jsontext.Value{}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, fmt.Errorf("not a seal: %w", err)
		}
		name := tok.String()
		if _, ok := members[name]; !ok {
			return nil, fmt.Errorf("not a seal: an unknown member %q", name)
		}
		if name == "runs" {
			if d.PeekKind() != '[' {
				return nil, errors.New("not a seal: runs is not an array")
			}
			err = d.SkipValue()
			got[name] = nil
		} else {
			var v jsontext.Value
			v, err = d.ReadValue()
			got[name] = v.Clone()
		}
		if err != nil {
			return nil, fmt.Errorf("not a seal: %w", err)
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, fmt.Errorf("not a seal: %w", err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, errors.New("not a seal: data after the JSON object")
	}
	var format string
	if err := json.Unmarshal(got["format"], &format); err != nil || format != Format && format != Format2 && format != Format1 {
		return nil, fmt.Errorf("not a seal of a known format: %s (want %q, %q or %q)", got["format"], Format, Format2, Format1)
	}
	for _, k := range []string{"format", "scheme", "sealed_at", "runs", "hmac", "every", "log_chain"} {
		_, ok := got[k]
		want := members[k] == nil || slices.Contains(members[k], format)
		switch {
		case !ok && want && members[k] == nil:
			return nil, fmt.Errorf("not a seal: no %q member", k)
		case ok != want:
			return nil, fmt.Errorf("not a seal: a %s seal has %s %q member", format, map[bool]string{true: "a", false: "no"}[want], k)
		}
	}
	var mac string
	if err := json.Unmarshal(got["hmac"], &mac); err != nil || len(mac) != 64 || !isLowerHex(mac) {
		return nil, errors.New("not a seal: hmac is not 64 lowercase hex digits")
	}
	return &topLevel{values: got, mac: mac}, nil
}

// body writes to w the canonical bytes the seal's HMAC is over (Canonical)
// from the document as read: the canonical form of each top-level value
// but hmac, in the order of their names, and of each run in turn, so that
// one run at a time is held, never a Go value of the seal.
func body(data []byte, top *topLevel, w io.Writer) error {
	names := make([]string, 0, len(top.values))
	for k := range top.values {
		if k != "hmac" {
			names = append(names, k)
		}
	}
	slices.Sort(names) // ASCII: code point order, as sort_keys
	style := sign.Style{SortKeys: true, Compact: true}
	var c sign.Canonicalizer
	buf := []byte{'{'}
	for i, k := range names {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(append(append(buf, '"'), k...), `":`...)
		if k != "runs" {
			var err error
			if buf, err = c.Append(buf, top.values[k], style); err != nil {
				return err
			}
			continue
		}
		// The runs, one by one, from a second pass over the document.
		d := jsontext.NewDecoder(bytes.NewBuffer(data))
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		for {
			tok, err := d.ReadToken()
			if err != nil {
				return err
			}
			if tok.String() == "runs" {
				break
			}
			if err := d.SkipValue(); err != nil {
				return err
			}
		}
		if _, err := d.ReadToken(); err != nil { // [
			return err
		}
		buf = append(buf, '[')
		for n := 0; d.PeekKind() != ']'; n++ {
			v, err := d.ReadValue()
			if err != nil {
				return err
			}
			if n > 0 {
				buf = append(buf, ',')
			}
			if buf, err = c.Append(buf, v, style); err != nil {
				return err
			}
			if len(buf) > 32<<10 {
				w.Write(buf)
				buf = buf[:0]
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, '}')
	_, err := w.Write(buf)
	return err
}

// parse decodes a seal that scan read and whose HMAC matches.
func parse(data []byte) (*Seal, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	d.UseNumber()
	var s Seal
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a seal: %w", err)
	}
	// json.Number takes a quoted number too: a seq is a JSON number.
	var raw struct {
		Runs []map[string]json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a seal: runs: %w", err)
	}
	cps := hasCheckpoints(s.Format)
	for i, r := range raw.Runs {
		for _, k := range []string{"first_seq", "last_seq"} {
			if v := bytes.TrimSpace(r[k]); len(v) == 0 || v[0] == '"' {
				return nil, fmt.Errorf("not a seal: runs[%d].%s is not a number", i, k)
			}
		}
		if _, ok := r["checkpoints"]; ok != cps {
			return nil, fmt.Errorf("not a seal: runs[%d]: a %s run has %s \"checkpoints\" member", i, s.Format, map[bool]string{true: "a", false: "no"}[cps])
		}
	}
	if s.Runs == nil {
		return nil, errors.New("not a seal: runs is not an array")
	}
	return &s, nil
}

// check checks what the HMAC cannot: that the seal makes sense.
func (s *Seal) check() error {
	if _, err := sign.ParseScheme(s.Scheme); err != nil {
		return fmt.Errorf("the seal names an unknown scheme: %v", err)
	}
	if hasCheckpoints(s.Format) && s.Every < 1 {
		return fmt.Errorf("every is %d: every must be at least 1 (the spacing of the checkpoints)", s.Every)
	}
	if t, err := time.Parse(time.RFC3339, s.SealedAt); err != nil || t.UTC().Format(time.RFC3339) != s.SealedAt {
		return fmt.Errorf("sealed_at %q is not a time in RFC 3339, UTC, to the second (2026-01-02T03:04:05Z)", s.SealedAt)
	}
	if s.Format == Format && (len(s.LogChain) != 64 || !isLowerHex(s.LogChain)) {
		return errors.New("log_chain is not 64 lowercase hex digits")
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
		case hasCheckpoints(s.Format) && int64(len(r.Checkpoints)) != checkpoints(r.Count, s.Every):
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
	b := &Builder{index: make(map[string]int, len(s.Runs)), every: s.Every, v1: s.Format == Format1, v2: s.Format == Format2}
	if s.Format == Format {
		if n, err := hex.Decode(b.logLink[:], []byte(s.LogChain)); err != nil || n != sha256.Size {
			return nil, errors.New("log_chain is not 64 lowercase hex digits")
		}
		b.logInit = true
	}
	for i, r := range s.Runs {
		st := &runState{id: r.RunID, firstSeq: string(r.FirstSeq), firstT: r.FirstT,
			lastSeq: []byte(r.LastSeq), lastT: []byte(r.LastT), count: r.Count}
		st.lastN, _ = strconv.ParseInt(string(r.LastSeq), 10, 64)
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
