package validate

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	mrand "math/rand/v2"
)

// idSet maps ids to values in a few dozen bytes per id, whatever the ids
// (the stream rules keep every id of a stream): a canonical UUID is kept
// as its 16 bytes (one in upper case too, in a table of its own), any
// other id as a digest of 16 bytes (see digester), each kind in its own
// idTable. Looking an id up does not allocate, and adding
// one allocates only when its table grows.
type idSet[V any] struct {
	uuids   idTable[V]
	upper   idTable[V] // UUIDs in the canonical form but upper case, as .NET writes them
	other   idTable[V] // digests of the other ids
	digests digester
}

// table is the table of id and its key there.
func (s *idSet[V]) table(id []byte) (*idTable[V], [16]byte) {
	if k, ok := uuidKey(id); ok {
		return &s.uuids, k
	}
	if k, ok := uuidKeyIn(id, &upperHexVal); ok {
		return &s.upper, k
	}
	return &s.other, s.digests.digest(id)
}

func (s *idSet[V]) get(id []byte) (V, bool) {
	t, k := s.table(id)
	return t.get(k)
}

// add keeps v for id unless id has a value already, which it returns.
func (s *idSet[V]) add(id []byte, v V) (V, bool) {
	t, k := s.table(id)
	return t.add(k, v)
}

// idKey is what idSet.table finds of an id that is a UUID, found ahead
// of the set: on the workers, where the set itself is the writer's.
type idKey struct {
	form uint8 // keyOther: not a UUID in the canonical form; keyLower, keyUpper
	k    [16]byte
}

const (
	keyOther = iota
	keyLower
	keyUpper
)

// keyOf is the key of id in an idSet, as table finds it, but for the
// digest of an id that is not a UUID (which the set makes).
func keyOf(id []byte) idKey {
	if k, ok := uuidKey(id); ok {
		return idKey{keyLower, k}
	}
	if k, ok := uuidKeyIn(id, &upperHexVal); ok {
		return idKey{keyUpper, k}
	}
	return idKey{}
}

// tableOf is table with the key of id found ahead (keyOf).
func (s *idSet[V]) tableOf(id []byte, key idKey) (*idTable[V], [16]byte) {
	switch key.form {
	case keyLower:
		return &s.uuids, key.k
	case keyUpper:
		return &s.upper, key.k
	}
	return &s.other, s.digests.digest(id)
}

// getKeyed is get with the key of id found ahead (keyOf).
func (s *idSet[V]) getKeyed(id []byte, key idKey) (V, bool) {
	t, k := s.tableOf(id, key)
	return t.get(k)
}

// addKeyed is add with the key of id found ahead (keyOf).
func (s *idSet[V]) addKeyed(id []byte, key idKey, v V) (V, bool) {
	t, k := s.tableOf(id, key)
	return t.add(k, v)
}

// digester makes a digest of 16 bytes of any text, to keep in its place
// when the text itself need not be kept: the first 128 bits of SHA-256
// over a 32-byte key drawn at random for the digester, then the text. Two
// distinct texts share a digest with probability 2^-128 (SHA-256 keyed by
// a secret prefix is taken as a random function; the key keeps anyone from
// choosing texts that collide), so among n distinct texts a false
// duplicate comes with probability at most n(n-1)/2 * 2^-128 < n^2 *
// 2^-129: for the 2^31 records a stream can number (an int32 record
// index), below 2^-67, about 10^-20. An id set keeps a canonical UUID as
// it is: no false duplicate at all.
type digester struct {
	mac hash.Hash // SHA-256
	key [32]byte
	sum [sha256.Size]byte
}

// digest is the digest of the text that is parts one after another (the
// caller makes the parts unambiguous: a length before a part of any
// length).
func (d *digester) digest(parts ...[]byte) [16]byte {
	if d.mac == nil {
		d.mac = sha256.New()
		rand.Read(d.key[:])
	}
	d.mac.Reset()
	d.mac.Write(d.key[:])
	for _, p := range parts {
		d.mac.Write(p)
	}
	return [16]byte(d.mac.Sum(d.sum[:0]))
}

// isCanonicalUUID reports whether s is a UUID in lowercase 8-4-4-4-12 form.
func isCanonicalUUID(s []byte) bool {
	_, ok := uuidKey(s)
	return ok
}

// uuidHexAt is where the two hex digits of each byte of a canonical UUID
// are.
var uuidHexAt = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// lowerHexVal is the value of a lowercase hex digit, -1 for any other
// byte; upperHexVal of an upper-case one.
var lowerHexVal, upperHexVal = hexTable(false), upperHexTable()

func upperHexTable() (t [256]int8) {
	t = hexTable(true)
	for c := 'a'; c <= 'f'; c++ {
		t[c] = -1
	}
	return t
}

// uuidKey is the 16 bytes of a canonical UUID; false for any other text.
func uuidKey(s []byte) ([16]byte, bool) { return uuidKeyIn(s, &lowerHexVal) }

// uuidKeyIn is the 16 bytes of a UUID in the canonical 8-4-4-4-12 form
// whose digits hexVal gives; false for any other text.
func uuidKeyIn(s []byte, hexVal *[256]int8) ([16]byte, bool) {
	var k [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	var bad int8
	for i, p := range uuidHexAt {
		hi, lo := hexVal[s[p]], hexVal[s[p+1]]
		bad |= hi | lo // -1 sets the sign bit
		k[i] = byte(hi)<<4 | byte(lo)
	}
	return k, bad >= 0
}

// The segments of an idTable.
const (
	segMin    = 4096 // slots of the smallest segment (and of the first, grown)
	segSteps  = 8    // a segment has segMin + 512*i slots, i < segSteps, at random
	segFirst  = 256  // slots of the first segment at first
	loadNum   = 7    // a segment holds at most 7/8 of its slots
	loadDenom = 8
)

// idTable is a hash table from 16-byte keys to values that grows without
// copying itself: extendible hashing over segments of 4096 to 7680 slots.
// The top bits of a key's hash pick its segment in a directory, the low
// bits its slot there; a full segment splits in two, its keys divided
// between itself and a new segment by one more bit of their hash, in
// place (a scratch copy kept by the table). Nothing is let go but the
// directory and the first segment while it is small (and a segment of
// keys whose hashes share too many first bits: see split), so the table's
// memory is what it holds, with no old copies for the garbage collector:
// about (17+sizeof(V)) / 0.6 bytes a key. The capacities of the segments
// are drawn at random, so that segments that fill at the same pace do not
// all split at once: the memory grows smoothly with the keys.
//
// In a segment: open addressing with linear probing, a tag byte per slot
// (0 empty, else 7 bits of the hash) read before the key, so that a probe
// reads 64 slots' tags per cache line. The hash mixes the key with seeds
// drawn at random, so that keys chosen to collide cannot be made without
// knowing them.
type idTable[V any] struct {
	dir    []*segment[V] // 2^depth entries
	depth  uint8
	n      int
	segs   int // segments in dir
	s1, s2 uint64
	rng    mrand.PCG
	keys   [][16]byte // scratch of a split
	vals   []V
}

// segment is a part of an idTable: the keys whose hash starts with the
// same depth bits.
type segment[V any] struct {
	tags  []uint8
	keys  [][16]byte
	vals  []V
	n     int
	depth uint8
}

func newSegment[V any](slots int, depth uint8) *segment[V] {
	return &segment[V]{tags: make([]uint8, slots), keys: make([][16]byte, slots), vals: make([]V, slots), depth: depth}
}

func (t *idTable[V]) hash(k [16]byte) uint64 {
	return mix64(binary.LittleEndian.Uint64(k[:8]) ^ t.s1 ^ mix64(binary.LittleEndian.Uint64(k[8:])^t.s2))
}

// mix64 is MurmurHash3's finaliser: every bit of x moves every bit of the
// result.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// find is the slot of k in s, or of the empty slot where it would go.
func (s *segment[V]) find(k [16]byte, h uint64) (int, bool) {
	n := uint64(len(s.tags))
	i := (h & 0xffffffff) * n >> 32
	tag := uint8(h>>32) | 0x80
	for {
		switch s.tags[i] {
		case 0:
			return int(i), false
		case tag:
			if s.keys[i] == k {
				return int(i), true
			}
		}
		if i++; i == n {
			i = 0
		}
	}
}

// put adds k, which s does not hold and has room for.
func (s *segment[V]) put(k [16]byte, v V, h uint64) {
	i, _ := s.find(k, h)
	s.tags[i], s.keys[i], s.vals[i] = uint8(h>>32)|0x80, k, v
	s.n++
}

func (s *segment[V]) full() bool { return loadDenom*(s.n+1) > loadNum*len(s.tags) }

func (t *idTable[V]) segment(h uint64) *segment[V] {
	return t.dir[h>>(64-uint(t.depth))] // h>>64 is 0
}

func (t *idTable[V]) get(k [16]byte) (V, bool) {
	if t.n == 0 {
		var zero V
		return zero, false
	}
	h := t.hash(k)
	s := t.segment(h)
	if i, ok := s.find(k, h); ok {
		return s.vals[i], true
	}
	var zero V // (an empty slot's value may be a moved key's)
	return zero, false
}

// add keeps v for k unless k has a value already, which it returns.
func (t *idTable[V]) add(k [16]byte, v V) (V, bool) {
	if t.dir == nil {
		if t.s1 == 0 && t.s2 == 0 { // (tests set them)
			t.s1, t.s2 = mrand.Uint64(), mrand.Uint64()
		}
		t.rng.Seed(mrand.Uint64(), mrand.Uint64())
		t.dir, t.segs = []*segment[V]{newSegment[V](segFirst, 0)}, 1
	}
	h := t.hash(k)
	for {
		s := t.segment(h)
		i, ok := s.find(k, h)
		if ok {
			return s.vals[i], true
		}
		if !s.full() {
			s.tags[i], s.keys[i], s.vals[i] = uint8(h>>32)|0x80, k, v
			s.n++
			t.n++
			var zero V
			return zero, false
		}
		t.split(s, h)
	}
}

// split makes room in the full segment s, where the hash h goes: the
// first segment, while small, is copied into one twice its size; any
// other is split in two. But for keys whose hashes share more first bits
// than chance gives (which the random seeds make as likely as guessing
// them), where splitting would make the directory far larger than its
// segments call for: s is then copied into one twice its size.
func (t *idTable[V]) split(s *segment[V], h uint64) {
	d := s.depth
	if t.depth == 0 && len(s.tags) < segMin || d == t.depth && (len(t.dir) >= 64*t.segs || t.depth >= 32) {
		slots := 2 * len(s.tags)
		if t.depth == 0 {
			slots = min(slots, segMin)
		}
		grown := newSegment[V](slots, d)
		t.each(s, func(k [16]byte, v V) { grown.put(k, v, t.hash(k)) })
		size := uint64(1) << (t.depth - d)
		start := h >> (64 - uint(t.depth)) &^ (size - 1)
		for j := start; j < start+size; j++ {
			t.dir[j] = grown
		}
		return
	}
	if d == t.depth {
		dir := make([]*segment[V], 2*len(t.dir))
		for j := range dir {
			dir[j] = t.dir[j>>1]
		}
		t.dir = dir
		t.depth++
	}
	s.depth = d + 1
	ns := newSegment[V](segMin+512*int(t.rng.Uint64()%segSteps), d+1)
	t.segs++
	// Out to the scratch, then back into s or into ns by the bit after
	// the d that s's keys share.
	t.keys, t.vals = t.keys[:0], t.vals[:0]
	t.each(s, func(k [16]byte, v V) { t.keys, t.vals = append(t.keys, k), append(t.vals, v) })
	clear(s.tags)
	s.n = 0
	for i, k := range t.keys {
		kh := t.hash(k)
		if kh>>(63-d)&1 == 0 {
			s.put(k, t.vals[i], kh)
		} else {
			ns.put(k, t.vals[i], kh)
		}
	}
	// s had the 2^(depth-d) entries of the directory from start on; ns
	// takes the second half of them.
	size := uint64(1) << (t.depth - d)
	start := h >> (64 - uint(t.depth)) &^ (size - 1)
	for j := start + size/2; j < start+size; j++ {
		t.dir[j] = ns
	}
}

// each calls f with each key of s and its value.
func (t *idTable[V]) each(s *segment[V], f func([16]byte, V)) {
	for i, tag := range s.tags {
		if tag != 0 {
			f(s.keys[i], s.vals[i])
		}
	}
}
