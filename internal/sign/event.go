// Package sign signs and verifies AOP trace events with HMAC-SHA256, the
// way the Python services that follow the spec do, so that each side
// verifies the other's signatures: the message is made of the event's
// fields and Python's json.dumps of its payload, which Canonical
// reproduces byte for byte.
package sign

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scheme is how the signed message is made from an event.
type Scheme int

const (
	// SchemeSpec is the spec's: run_id + seq + t + actor + type +
	// json.dumps(payload, sort_keys=True).
	SchemeSpec Scheme = iota
	// SchemePayload is run_id + seq + json.dumps(payload): members in
	// their order, default separators.
	SchemePayload
	// SchemePayloadCompact is run_id + seq + json.dumps(payload,
	// sort_keys=True, separators=(',', ':')).
	SchemePayloadCompact
	// SchemeEventCompact is run_id + seq + json.dumps(the event without
	// meta and without its top-level signature, sort_keys=True,
	// separators=(',', ':')).
	SchemeEventCompact
)

// Schemes are the schemes' names, in Scheme order.
var Schemes = []string{"spec", "payload", "payload-compact", "event-compact"}

func (s Scheme) String() string { return Schemes[s] }

// ParseScheme reads a scheme's name.
func ParseScheme(name string) (Scheme, error) {
	for i, n := range Schemes {
		if n == name {
			return Scheme(i), nil
		}
	}
	return 0, fmt.Errorf("unknown scheme %q (want %s)", name, strings.Join(Schemes, ", "))
}

// ErrEmptyKey is a key of no bytes.
var ErrEmptyKey = errors.New("the key is empty")

// FieldError is an event that lacks a field the signature needs, or has
// it with the wrong type. Offset is where in the event it was looked for.
type FieldError struct {
	Pointer string // "/meta/run_id"
	Offset  int
	Msg     string
}

func (e *FieldError) Error() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Pointer + ": " + e.Msg
}

// Event is one trace event, parsed. Its fields point into the bytes it was
// parsed from and into the Signer's state: it is valid until the Signer
// parses the next one.
type Event struct {
	Raw                   []byte
	RunID, T, Actor, Type []byte // decoded
	Seq                   []byte // the decimal form Python prints
	// SeqN is seq as an int64; SeqOK is false when it does not fit.
	SeqN  int64
	SeqOK bool
	// Signature is meta.signature and TopSignature the top-level
	// signature, when they are strings; HasSig and HasTop say whether
	// each member is there at all (a null is no signature: not there).
	Signature, TopSignature []byte
	HasSig, HasTop          bool

	tape    []node
	payload int32 // tape index of the payload value
	meta    int32 // tape index of the meta object
	metaSig int32 // tape index of the (last) meta.signature name, or -1
	topSig  int32 // tape index of the (last) top-level signature name, or -1
}

// Signer makes and checks the signatures of one scheme: it signs with one
// key and verifies with that key and the keys added to it (AddKey: the keys
// of a log signed across key rotations). It is not safe for concurrent use.
type Signer struct {
	scheme Scheme
	mac    hash.Hash   // the first key's: the one that signs
	macs   []hash.Hash // with keys added, every key's, mac first
	hint   int         // the key that Match tries first: the last matched
	p      parser
	w      writer
	msg    []byte
	sum    [sha256.Size]byte
	hex    [2 * sha256.Size]byte
	ev     Event
}

// NewSigner returns a Signer for key (the salt key's UTF-8 bytes).
func NewSigner(key []byte, scheme Scheme) (*Signer, error) {
	if len(key) == 0 {
		return nil, ErrEmptyKey
	}
	return &Signer{scheme: scheme, mac: hmac.New(sha256.New, key)}, nil
}

// Parse parses one event (a whole JSON document). An event that is not
// one, or that has a member name twice in one of its objects (at any
// depth: readers that keep the first copy would see another event than
// json.loads, which keeps the last), is a *FieldError.
func (s *Signer) Parse(raw []byte) (*Event, error) {
	if err := s.p.parseDocument(raw); err != nil {
		return nil, err
	}
	return s.event(raw, s.p.tape)
}

// event reads the fields of the event on the tape, an object with no name
// twice in one of its objects (duplicate).
func (s *Signer) event(raw []byte, t []node) (*Event, error) {
	if t[0].kind == kObject && t[0].flags&fRepeat != 0 {
		if e := duplicate(raw, t); e != nil {
			return nil, e
		}
	}
	return s.fields(raw, t)
}

// fields reads the fields of the event on the tape, the last copy of a
// name repeated (as json.loads does).
func (s *Signer) fields(raw []byte, t []node) (*Event, error) {
	ev := &s.ev
	*ev = Event{Raw: raw, tape: t, payload: -1, meta: -1, metaSig: -1, topSig: -1}
	if t[0].kind != kObject {
		return nil, &FieldError{Pointer: "", Offset: int(t[0].start), Msg: "not a trace event: want a JSON object, found " + kindName(t[0].kind)}
	}
	var seq, tt, actor, typ int32 = -1, -1, -1, -1
	for j := int32(1); j < t[0].next; j = t[j+1].next {
		switch string(rawKey(raw, t, j)) {
		case "seq":
			seq = j + 1
		case "t":
			tt = j + 1
		case "actor":
			actor = j + 1
		case "type":
			typ = j + 1
		case "payload":
			ev.payload = j + 1
		case "meta":
			ev.meta = j + 1
		case "signature":
			ev.topSig = j
		}
	}
	missing := func(ptr string) error {
		return &FieldError{Pointer: ptr, Offset: 0, Msg: "missing: a trace event has seq, t, actor, type, payload and meta.run_id"}
	}
	if ev.meta < 0 {
		return nil, missing("/meta")
	}
	if t[ev.meta].kind != kObject {
		return nil, &FieldError{Pointer: "/meta", Offset: int(t[ev.meta].start), Msg: "want an object, found " + kindName(t[ev.meta].kind)}
	}
	run := int32(-1)
	for j := ev.meta + 1; j < t[ev.meta].next; j = t[j+1].next {
		switch string(rawKey(raw, t, j)) {
		case "run_id":
			run = j + 1
		case "signature":
			ev.metaSig = j
		}
	}
	var err error
	str := func(ptr string, at int32, dst *[]byte) {
		if err != nil {
			return
		}
		if at < 0 {
			err = missing(ptr)
			return
		}
		n := &t[at]
		if n.kind != kString {
			err = &FieldError{Pointer: ptr, Offset: int(n.start), Msg: "want a string, found " + kindName(n.kind)}
			return
		}
		v := raw[n.start:n.end]
		if n.flags&fEscape != 0 {
			v = decodeString(nil, v)
			if !utf8.Valid(v) {
				// Python's str.encode() fails on a lone surrogate.
				err = &FieldError{Pointer: ptr, Offset: int(n.start), Msg: "holds a lone surrogate (\\ud800-\\udfff), which cannot be encoded as UTF-8 to be signed"}
				return
			}
		}
		*dst = v
	}
	str("/meta/run_id", run, &ev.RunID)
	if err == nil {
		if seq < 0 {
			return nil, missing("/seq")
		}
		if n := &t[seq]; n.kind != kInt {
			return nil, &FieldError{Pointer: "/seq", Offset: int(n.start), Msg: "want an integer, found " + kindName(n.kind)}
		}
		lit := raw[t[seq].start:t[seq].end]
		if string(lit) == "-0" {
			lit = lit[1:]
		}
		ev.Seq = lit
		ev.SeqN, ev.SeqOK = parseInt64(lit)
	}
	str("/t", tt, &ev.T)
	str("/actor", actor, &ev.Actor)
	str("/type", typ, &ev.Type)
	if err == nil && ev.payload < 0 {
		err = missing("/payload")
	}
	if err != nil {
		return nil, err
	}
	sig := func(name int32, dst *[]byte, has *bool) {
		if name < 0 || t[name+1].kind == kNull {
			return
		}
		*has = true
		if n := &t[name+1]; n.kind == kString && n.flags&fEscape == 0 {
			*dst = raw[n.start:n.end]
		} else if n.kind == kString {
			*dst = decodeString(nil, raw[n.start:n.end])
		}
	}
	sig(ev.metaSig, &ev.Signature, &ev.HasSig)
	sig(ev.topSig, &ev.TopSignature, &ev.HasTop)
	return ev, nil
}

// parseInt64 reads a JSON integer that fits in an int64.
func parseInt64(lit []byte) (int64, bool) {
	if len(lit) > 0 && len(lit) < 19 && lit[0] != '-' {
		var n int64
		for _, c := range lit {
			n = n*10 + int64(c-'0')
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(lit), 10, 64)
	return n, err == nil
}

// rawKey is the name at tape index j: raw, or decoded when it holds escapes.
func rawKey(raw []byte, t []node, j int32) []byte {
	n := &t[j]
	if n.flags&fEscape != 0 {
		return decodeString(nil, raw[n.start:n.end])
	}
	return raw[n.start:n.end]
}

func kindName(k kind) string {
	switch k {
	case kNull:
		return "null"
	case kTrue, kFalse:
		return "a boolean"
	case kInt, kFloat, kNaN, kInf, kNegInf:
		return "a number"
	case kString:
		return "a string"
	case kArray:
		return "an array"
	}
	return "an object"
}

// Message returns the exact bytes the scheme signs for ev, valid until the
// next call.
func (s *Signer) Message(ev *Event) []byte {
	m := append(s.msg[:0], ev.RunID...)
	m = append(m, ev.Seq...)
	s.w = writer{src: ev.Raw, tape: ev.tape, mem: s.w.mem[:0], names: s.w.names[:0]}
	switch s.scheme {
	case SchemeSpec:
		m = append(m, ev.T...)
		m = append(m, ev.Actor...)
		m = append(m, ev.Type...)
		s.w.style = Style{SortKeys: true}
		m = s.w.value(m, ev.payload)
	case SchemePayload:
		s.w.style = Style{}
		m = s.w.value(m, ev.payload)
	case SchemePayloadCompact:
		s.w.style = Style{SortKeys: true, Compact: true}
		m = s.w.value(m, ev.payload)
	case SchemeEventCompact:
		s.w.style = Style{SortKeys: true, Compact: true}
		s.w.skip = func(k []byte) bool { return string(k) == "meta" || string(k) == "signature" }
		m = s.w.value(m, 0)
	}
	s.msg = m
	return m
}

// Sign returns the signature of ev: the lowercase hex HMAC-SHA256 of its
// message, valid until the next call.
func (s *Signer) Sign(ev *Event) []byte {
	s.mac.Reset()
	s.mac.Write(s.Message(ev))
	s.mac.Sum(s.sum[:0])
	for i, b := range s.sum {
		*(*[2]byte)(s.hex[2*i:]) = hexPairs[b]
	}
	return s.hex[:]
}

// hexPairs are the lowercase hex digits of each byte: two bytes copied at
// once rather than two looked up (encoding/hex).
var hexPairs = func() (t [256][2]byte) {
	for b := range t {
		t[b] = [2]byte{hexDigits[b>>4], hexDigits[b&15]}
	}
	return
}()

// Valid reports whether sig is ev's signature with one of the Signer's
// keys, comparing in constant time.
func (s *Signer) Valid(ev *Event, sig []byte) bool {
	return s.Match(ev, sig) >= 0
}

// AddKey adds a key that Valid and Match accept, after the keys before it
// (the first key, the newest, signs; the keys added are older keys,
// newest first).
func (s *Signer) AddKey(key []byte) error {
	if len(key) == 0 {
		return ErrEmptyKey
	}
	if s.macs == nil {
		s.macs = []hash.Hash{s.mac}
	}
	s.macs = append(s.macs, hmac.New(sha256.New, key))
	return nil
}

// Keys is the number of the Signer's keys.
func (s *Signer) Keys() int { return max(1, len(s.macs)) }

// Match returns the index of the key (0 the first, then in the order
// added) that sig is ev's signature with, or -1 when none; the message is
// made once, and the key that matched the event before is tried first, so
// that a log of one key costs one HMAC an event whatever the keys. After it
// Sum is the HMAC of ev's message with the key that matched, or with the
// first key when none did.
func (s *Signer) Match(ev *Event, sig []byte) int {
	if s.macs == nil {
		if hmac.Equal(s.Sign(ev), sig) {
			return 0
		}
		return -1
	}
	msg := s.Message(ev)
	if s.with(s.hint, msg, sig) {
		return s.hint
	}
	for i := range s.macs {
		if i != s.hint && s.with(i, msg, sig) {
			s.hint = i
			return i
		}
	}
	s.with(0, msg, nil)
	return -1
}

// with computes the HMAC of msg with the key i into sum and hex, and
// reports whether it is sig.
func (s *Signer) with(i int, msg, sig []byte) bool {
	m := s.macs[i]
	m.Reset()
	m.Write(msg)
	m.Sum(s.sum[:0])
	for i, b := range s.sum {
		*(*[2]byte)(s.hex[2*i:]) = hexPairs[b]
	}
	return hmac.Equal(s.hex[:], sig)
}

// Sum is the raw HMAC-SHA256 computed last (by Sign, Valid or Match): an
// event's right signature's 32 bytes.
func (s *Signer) Sum() [sha256.Size]byte { return s.sum }

// NewKey returns a new random salt key: 256 bits from crypto/rand, as 64
// lowercase hex digits (the bytes the key file holds, before its line
// break).
func NewKey() []byte {
	var k [32]byte
	rand.Read(k[:]) // never fails (crypto/rand)
	return []byte(hex.EncodeToString(k[:]))
}
