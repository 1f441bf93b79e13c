package validate

import (
	"encoding/binary"
	"math/rand/v2"
)

// idSet maps ids to values in little memory: a canonical UUID is kept as
// its 16 bytes in a uuidTable, any other id as a string in a map. Neither
// looking an id up nor adding a UUID allocates.
type idSet[V any] struct {
	uuids uuidTable[V]
	other map[string]V
}

func (s *idSet[V]) get(id []byte) (V, bool) {
	if k, ok := uuidKey(id); ok {
		return s.uuids.get(k)
	}
	v, seen := s.other[string(id)]
	return v, seen
}

// add keeps v for id unless id has a value already, which it returns.
func (s *idSet[V]) add(id []byte, v V) (V, bool) {
	if k, ok := uuidKey(id); ok {
		return s.uuids.add(k, v)
	}
	if prev, seen := s.other[string(id)]; seen {
		return prev, true
	}
	if s.other == nil {
		s.other = map[string]V{}
	}
	s.other[string(id)] = v
	var zero V
	return zero, false
}

// isCanonicalUUID reports whether s is a UUID in lowercase 8-4-4-4-12 form.
func isCanonicalUUID(s []byte) bool {
	_, ok := uuidKey(s)
	return ok
}

// uuidHexAt is where the two hex digits of each byte of a canonical UUID
// are.
var uuidHexAt = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// lowerHexVal is the value of a lowercase hex digit, -1 for any other byte.
var lowerHexVal = hexTable(false)

// uuidKey is the 16 bytes of a canonical UUID; false for any other text.
func uuidKey(s []byte) ([16]byte, bool) {
	var k [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	var bad int8
	for i, p := range uuidHexAt {
		hi, lo := lowerHexVal[s[p]], lowerHexVal[s[p+1]]
		bad |= hi | lo // -1 sets the sign bit
		k[i] = byte(hi)<<4 | byte(lo)
	}
	return k, bad >= 0
}

// uuidTable is a hash table from UUIDs to values: open addressing with
// linear probing over arrays of keys and values, so that a look-up touches
// one or two cache lines and adding an id that is not there takes the
// same one probe sequence. The hash mixes the key with seeds drawn at
// random, so that ids chosen to collide cannot be made without knowing
// them.
type uuidTable[V any] struct {
	keys   [][16]byte
	vals   []V
	used   []uint64 // a bit a slot
	n      int
	shift  uint // 64 - log2(len(keys))
	s1, s2 uint64
}

func (t *uuidTable[V]) slot(k [16]byte) uint64 {
	x := (binary.LittleEndian.Uint64(k[:8]) ^ t.s1) * 0x9E3779B97F4A7C15
	y := (binary.LittleEndian.Uint64(k[8:]) ^ t.s2) * 0xC2B2AE3D27D4EB4F
	return (x ^ y>>31 ^ y) >> t.shift
}

// find is the slot of k, or of the empty slot where it would go.
func (t *uuidTable[V]) find(k [16]byte) (uint64, bool) {
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		if t.used[i>>6]&(1<<(i&63)) == 0 {
			return i, false
		}
		if t.keys[i] == k {
			return i, true
		}
	}
}

func (t *uuidTable[V]) get(k [16]byte) (V, bool) {
	if t.n == 0 {
		var zero V
		return zero, false
	}
	i, ok := t.find(k)
	return t.vals[i], ok
}

// add keeps v for k unless k has a value already, which it returns.
func (t *uuidTable[V]) add(k [16]byte, v V) (V, bool) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	i, ok := t.find(k)
	if ok {
		return t.vals[i], true
	}
	t.keys[i], t.vals[i] = k, v
	t.used[i>>6] |= 1 << (i & 63)
	t.n++
	var zero V
	return zero, false
}

// grow doubles the table (1024 slots at first).
func (t *uuidTable[V]) grow() {
	keys, vals, used := t.keys, t.vals, t.used
	size := max(2*len(keys), 1024)
	t.keys, t.vals, t.used = make([][16]byte, size), make([]V, size), make([]uint64, size/64)
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	if t.s1 == 0 && t.s2 == 0 {
		t.s1, t.s2 = rand.Uint64(), rand.Uint64()
	}
	for i := range keys {
		if used[i>>6]&(1<<(i&63)) != 0 {
			j, _ := t.find(keys[i])
			t.keys[j], t.vals[j] = keys[i], vals[i]
			t.used[j>>6] |= 1 << (j & 63)
		}
	}
}
