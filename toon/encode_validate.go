package toon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// maxEncodeDepth bounds the nesting of arrays and objects FromJSON accepts.
const maxEncodeDepth = 10000

// skipIndexThreshold is the least size from which a container goes into the
// skip index: a container is indexed when its bytes, less those of the
// indexed containers within it, reach skipThreshold of the input's size.
// Every indexed container owns that many bytes of its own, so the index
// holds at most one entry per skipThreshold bytes of input, and skipping any
// value scans fewer than skipThreshold bytes (plus one look-up per indexed
// container within it).
const skipIndexThreshold = 512

// skipIndexEntries is the most entries the skip index of an input larger
// than skipIndexThreshold*skipIndexEntries bytes holds (6 MiB of them): its
// threshold grows with the input instead.
const skipIndexEntries = 1 << 18

// skipThreshold is the skip index's threshold for an input of n bytes.
func skipThreshold(n int) int { return max(skipIndexThreshold, n/skipIndexEntries) }

// smallObjectNames is the most members an object may have for its names to be
// checked for duplicates pairwise; larger objects sort hashes of them.
const smallObjectNames = 16

// skipSpan is one container of the skip index: its offsets and its number of
// elements or members.
type skipSpan struct{ start, end, count int }

// errEncodeDuplicateName is matched (errors.Is) by the error of an object that
// holds a member name twice.
var errEncodeDuplicateName = errors.New("duplicate member name")

// encodeInputError is a JSON text FromJSON does not accept, at a byte offset.
type encodeInputError struct {
	off int
	msg string
	err error // errEncodeDuplicateName, or nil
}

func (e *encodeInputError) Error() string {
	return fmt.Sprintf("toon: encode: invalid JSON input at byte %d: %s", e.off, e.msg)
}

func (e *encodeInputError) Unwrap() error { return e.err }

// Input gives the error's offset, its reason and whether it is a repeated
// member name (toonx.InputError).
func (e *encodeInputError) Input() (off int, msg string, duplicateName bool) {
	return e.off, e.msg, e.err == errEncodeDuplicateName
}

// jsonFrame is an open container of the validator.
type jsonFrame struct {
	start  int  // offset of the bracket
	inner  int  // bytes of the outermost indexed containers within it
	count  int  // elements or members so far
	names  int  // index in jsonValidator.names of the object's first name
	obj    bool // an object, not an array
	hashed bool // the names are held as hashes (more than smallObjectNames)
	spill  bool // the names are in jsonValidator.spill (beyond 4 GiB)
	// bloom has a bit set for each name of a small object (nameBloomBit): a
	// name whose bit is clear is new without comparing it.
	bloom uint64
}

// jsonValidator checks one JSON text (RFC 8259: valid UTF-8, no raw control
// characters in strings) and that no object holds a name twice; it rejects
// escaped lone surrogates, which TOON cannot carry (§7.1), and nesting
// deeper than maxEncodeDepth. On the way it builds the skip index.
type jsonValidator struct {
	in    []byte
	stack []jsonFrame
	// names holds one entry per member name of the open objects: the
	// name's offset from its object's start in the low 32 bits and, above
	// them, its raw length and escape flag (bit 63) in a small object, or
	// a hash of its decoded value in a large one.
	names []uint64
	index []skipSpan
	// spill holds the decoded names of the open objects whose name
	// offsets do not fit the 32 bits of names (beyond 4 GiB), by start.
	spill map[int]map[string]struct{}
	seed  maphash.Seed
	a, b  []byte // scratch for decoded names
	// nonFinite, when not nil, makes NaN, Infinity and -Infinity values
	// (json.loads reads them, json.dumps writes them) valid, and counts
	// them.
	nonFinite *int
	// release, when not nil, is told of the offset reached after each
	// value (toonx.EncodeOptions.Release).
	release   *releaser
	releaseAt int // the offset from which release is due (the pass only moves on)
	threshold int // skipThreshold(len(in)) unless set
}

// released calls Release at offset i, when there is one, and sets the
// offset of the next call.
func (v *jsonValidator) released(i int) {
	v.releaseAt = math.MaxInt
	if v.release != nil {
		v.release.call(i)
		v.releaseAt = i + v.release.every
	}
}

// validateJSON checks in and returns its skip index, sorted by start. With
// nonFinite not nil, NaN, Infinity and -Infinity are values too, counted
// in *nonFinite.
func validateJSON(in []byte, nonFinite *int) ([]skipSpan, error) {
	v := jsonValidator{in: in, seed: maphash.MakeSeed(), nonFinite: nonFinite}
	return v.check()
}

// check runs the validator and returns the skip index, sorted by start.
func (v *jsonValidator) check() ([]skipSpan, error) {
	if v.threshold == 0 {
		v.threshold = skipThreshold(len(v.in))
	}
	v.release.reset(0)
	v.releaseAt = math.MaxInt
	if v.release != nil {
		v.releaseAt = v.release.every
	}
	if err := v.run(); err != nil {
		return nil, err
	}
	slices.SortFunc(v.index, func(a, b skipSpan) int { return a.start - b.start })
	return v.index, nil
}

func (v *jsonValidator) fail(off int, format string, args ...any) error {
	return &encodeInputError{off: off, msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at i for an error message.
func (v *jsonValidator) describe(i int) string {
	if i >= len(v.in) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(v.in[i:])
	return fmt.Sprintf("character %q", r)
}

func (v *jsonValidator) ws(i int) int {
	for i < len(v.in) && isJSONSpace(v.in[i]) {
		i++
	}
	return i
}

// run validates the whole text: one value with optional white space
// around it.
func (v *jsonValidator) run() error {
	in := v.in
	i := v.ws(0)
	for {
		// A value starts at i.
		if i >= len(in) {
			return v.fail(i, "unexpected end of input")
		}
		var err error
		switch c := in[i]; c {
		case '{', '[':
			if len(v.stack) >= maxEncodeDepth {
				return v.fail(i, "nesting deeper than %d", maxEncodeDepth)
			}
			v.stack = append(v.stack, jsonFrame{start: i, obj: c == '{', names: len(v.names)})
			i = v.ws(i + 1)
			if i < len(in) && in[i] == c+2 { // '}' or ']'
				i = v.close(i)
				break
			}
			if c == '{' {
				if i, err = v.name(i); err != nil {
					return err
				}
			}
			continue
		case '"':
			i, _, err = v.str(i)
		case 't':
			i, err = v.literal(i, "true")
		case 'f':
			i, err = v.literal(i, "false")
		case 'n':
			i, err = v.literal(i, "null")
		case 'N', 'I':
			i, err = v.nonFiniteValue(i)
		default:
			if c == '-' && i+1 < len(in) && in[i+1] == 'I' {
				i, err = v.nonFiniteValue(i)
				break
			}
			i, err = v.num(i)
		}
		if err != nil {
			return err
		}
		// A value ended at i: close containers until another value is due.
		for {
			i = v.ws(i)
			if len(v.stack) == 0 {
				if i < len(in) {
					return v.fail(i, "unexpected %s after the top-level value", v.describe(i))
				}
				return nil
			}
			top := &v.stack[len(v.stack)-1]
			top.count++
			if i >= v.releaseAt {
				v.released(i)
			}
			if i >= len(in) {
				return v.fail(i, "unexpected end of input")
			}
			if in[i] == ',' {
				i = v.ws(i + 1)
				if top.obj {
					if i, err = v.name(i); err != nil {
						return err
					}
				}
				break
			}
			if top.obj && in[i] == '}' || !top.obj && in[i] == ']' {
				if i, err = v.closeChecked(i); err != nil {
					return err
				}
				continue
			}
			if top.obj {
				return v.fail(i, "unexpected %s after an object member (want ',' or '}')", v.describe(i))
			}
			return v.fail(i, "unexpected %s after an array element (want ',' or ']')", v.describe(i))
		}
	}
}

// closeChecked closes the innermost container at its closing bracket i,
// checking its names for duplicates.
func (v *jsonValidator) closeChecked(i int) (int, error) {
	f := &v.stack[len(v.stack)-1]
	if f.obj && f.hashed {
		if err := v.checkHashed(f); err != nil {
			return 0, err
		}
	}
	return v.close(i), nil
}

// close pops the innermost container, which ends at its closing bracket i,
// indexes it if it is large, and returns the offset past it.
func (v *jsonValidator) close(i int) int {
	f := v.stack[len(v.stack)-1]
	v.stack = v.stack[:len(v.stack)-1]
	v.names = v.names[:f.names]
	if f.spill {
		delete(v.spill, f.start)
	}
	end := i + 1
	size := end - f.start
	var parent *jsonFrame
	if len(v.stack) > 0 {
		parent = &v.stack[len(v.stack)-1]
	}
	if size-f.inner >= v.threshold {
		v.index = append(v.index, skipSpan{start: f.start, end: end, count: f.count})
		if parent != nil {
			parent.inner += size
		}
	} else if parent != nil {
		parent.inner += f.inner
	}
	return end
}

// name checks the member name at i, its colon, and that the object has not
// had it before; it returns the offset of the member's value.
func (v *jsonValidator) name(i int) (int, error) {
	if i >= len(v.in) || v.in[i] != '"' {
		return 0, v.fail(i, "unexpected %s (want a member name)", v.describe(i))
	}
	end, escaped, err := v.str(i)
	if err != nil {
		return 0, err
	}
	if err := v.addName(i, end, escaped); err != nil {
		return 0, err
	}
	j := v.ws(end)
	if j >= len(v.in) || v.in[j] != ':' {
		return 0, v.fail(j, "unexpected %s after a member name (want ':')", v.describe(j))
	}
	return v.ws(j + 1), nil
}

// addName records the name v.in[start:end] (quotes included) of the
// innermost object, failing if the object has it already. Small objects
// compare names pairwise as they come; larger ones are checked at their
// end (checkHashed).
func (v *jsonValidator) addName(start, end int, escaped bool) error {
	f := &v.stack[len(v.stack)-1]
	raw := v.in[start+1 : end-1]
	rel := start - f.start
	if !f.hashed && !f.spill && !escaped && uint(rel) <= math.MaxUint32 && len(raw) < 1<<31 {
		// The common case: a small object, a plain name.
		if bit := nameBloomBit(raw); f.bloom&bit == 0 {
			f.bloom |= bit
		} else if err := v.compareSmall(f, start, raw, false); err != nil {
			return err
		}
		return v.pushSmall(f, rel, raw, false)
	}
	if !f.spill && (rel > math.MaxUint32 || len(raw) >= 1<<31) {
		v.toSpill(f)
	}
	if f.spill {
		names := v.spill[f.start]
		name := string(appendJSONUnescaped(nil, raw))
		if _, dup := names[name]; dup {
			return v.dupError(start, raw)
		}
		names[name] = struct{}{}
		return nil
	}
	if f.hashed {
		v.names = append(v.names, v.hash(raw, escaped)<<32|uint64(rel))
		return nil
	}
	v.a = appendJSONUnescaped(v.a[:0], raw)
	if bit := nameBloomBit(v.a); f.bloom&bit == 0 {
		f.bloom |= bit
	} else if err := v.compareSmall(f, start, raw, true); err != nil {
		return err
	}
	return v.pushSmall(f, rel, raw, true)
}

// compareSmall fails if the small object f has the name raw already.
func (v *jsonValidator) compareSmall(f *jsonFrame, start int, raw []byte, escaped bool) error {
	for _, n := range v.names[f.names:] {
		if v.sameSmall(f.start, n, raw, escaped) {
			return v.dupError(start, raw)
		}
	}
	return nil
}

// pushSmall records a name of the small object f, and turns f into a
// large one (names held as hashes) past smallObjectNames names.
func (v *jsonValidator) pushSmall(f *jsonFrame, rel int, raw []byte, escaped bool) error {
	entry := uint64(rel) | uint64(len(raw))<<32
	if escaped {
		entry |= 1 << 63
	}
	v.names = append(v.names, entry)
	if len(v.names)-f.names > smallObjectNames {
		for k := f.names; k < len(v.names); k++ {
			n := v.names[k]
			r, esc := v.rawName(f.start, n)
			v.names[k] = v.hash(r, esc)<<32 | n&math.MaxUint32
		}
		f.hashed = true
	}
	return nil
}

// nameBloomBit is a (decoded) name's bit in a small object's bloom filter.
func nameBloomBit(name []byte) uint64 {
	if len(name) == 0 {
		return 1
	}
	return 1 << ((uint(len(name))*7 + uint(name[0]) + uint(name[len(name)-1])*3) & 63)
}

// toSpill moves the names of f into a map (names past 4 GiB).
func (v *jsonValidator) toSpill(f *jsonFrame) {
	names := map[string]struct{}{}
	for _, n := range v.names[f.names:] {
		r, _ := v.rawName(f.start, n)
		names[string(appendJSONUnescaped(nil, r))] = struct{}{}
	}
	if v.spill == nil {
		v.spill = map[int]map[string]struct{}{}
	}
	v.spill[f.start] = names
	v.names = v.names[:f.names]
	f.spill, f.hashed = true, false
}

// rawName returns the raw name (between its quotes) of the entry n of the
// object at objStart, and whether it holds an escape.
func (v *jsonValidator) rawName(objStart int, n uint64) ([]byte, bool) {
	p := objStart + int(n&math.MaxUint32)
	end, escaped := jsonStringEnd(v.in, p)
	return v.in[p+1 : end-1], escaped
}

// sameSmall reports whether the small-object entry n names raw.
func (v *jsonValidator) sameSmall(objStart int, n uint64, raw []byte, escaped bool) bool {
	nEsc := n>>63 != 0
	if !escaped && !nEsc {
		if int(n>>32&(1<<31-1)) != len(raw) {
			return false
		}
		p := objStart + int(n&math.MaxUint32) + 1
		return bytes.Equal(v.in[p:p+len(raw)], raw)
	}
	r, _ := v.rawName(objStart, n)
	return v.sameDecoded(r, raw)
}

// sameDecoded reports whether two raw names have the same value.
func (v *jsonValidator) sameDecoded(x, y []byte) bool {
	v.a = appendJSONUnescaped(v.a[:0], x)
	v.b = appendJSONUnescaped(v.b[:0], y)
	return bytes.Equal(v.a, v.b)
}

// hash is a 32-bit hash of a raw name's value.
func (v *jsonValidator) hash(raw []byte, escaped bool) uint64 {
	if escaped {
		v.a = appendJSONUnescaped(v.a[:0], raw)
		raw = v.a
	}
	return maphash.Bytes(v.seed, raw) >> 32
}

// checkHashed checks the names of a large object for duplicates: sorted by
// hash, equal names are neighbours.
func (v *jsonValidator) checkHashed(f *jsonFrame) error {
	names := v.names[f.names:]
	radixSortHashes(names, 56)
	collisions := 0
	for k := 1; k < len(names); k++ {
		if names[k]>>32 != names[k-1]>>32 {
			continue
		}
		// Equal hashes: compare this name with each before it in the run.
		// The names are read from anywhere in the object, and a page
		// fault may map a large folio (2 MiB) around it: with Release, the
		// pages read so are let go of every other name.
		if collisions++; v.release != nil && collisions%2 == 0 {
			v.release.fn()
		}
		x, _ := v.rawName(f.start, names[k])
		for m := k - 1; m >= 0 && names[m]>>32 == names[k]>>32; m-- {
			y, _ := v.rawName(f.start, names[m])
			if v.sameDecoded(x, y) {
				p := f.start + int(max(names[k], names[m])&math.MaxUint32)
				return v.dupError(p, x)
			}
		}
	}
	return nil
}

// radixSortHashes sorts a in place by the byte at shift and the bits below it
// (an American flag sort, one byte at a time from the top, small parts by
// comparison). On uniform hashes it takes linear time, and keeps the 256
// write positions of a pass in cache.
func radixSortHashes(a []uint64, shift uint) {
	if len(a) <= 64 || shift < 32 {
		slices.Sort(a)
		return
	}
	var next, end [256]int
	for _, x := range a {
		end[x>>shift&0xFF]++
	}
	sum := 0
	for b := range end {
		next[b] = sum
		sum += end[b]
		end[b] = sum
	}
	for b := range 256 {
		for next[b] < end[b] {
			x := a[next[b]]
			d := x >> shift & 0xFF
			if int(d) == b {
				next[b]++
				continue
			}
			a[next[b]], a[next[d]] = a[next[d]], x
			next[d]++
		}
	}
	start := 0
	for b := range 256 {
		radixSortHashes(a[start:end[b]], shift-8)
		start = end[b]
	}
}

func (v *jsonValidator) dupError(off int, raw []byte) error {
	return &encodeInputError{off: off, msg: fmt.Sprintf("duplicate member name %q", appendJSONUnescaped(nil, raw)), err: errEncodeDuplicateName}
}

// str checks the string at i and returns the offset past it and whether it
// holds an escape.
func (v *jsonValidator) str(i int) (int, bool, error) {
	in := v.in
	escaped := false
	j := i + 1
	for {
		// Pass over 8 plain bytes at a time: none of '"', '\\', a control
		// character or a non-ASCII byte.
		for j+8 <= len(in) {
			x := binary.LittleEndian.Uint64(in[j:])
			m := (x | (x-swarOnes*0x20)&^x | swarHasByte(x, '"') | swarHasByte(x, '\\')) & swarHighs
			if m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
		}
		if j >= len(in) {
			return 0, false, v.fail(i, "unterminated string")
		}
		switch c := in[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			n, err := v.escape(j)
			if err != nil {
				return 0, false, err
			}
			j += n
		case c < 0x20:
			return 0, false, v.fail(j, "control character U+%04X in a string (must be escaped)", c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(in[j:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, v.fail(j, "invalid UTF-8")
			}
			j += size
		default:
			j++
		}
	}
}

// escape checks the escape sequence at j and returns its length.
func (v *jsonValidator) escape(j int) (int, error) {
	in := v.in
	if j+1 >= len(in) {
		return 0, v.fail(j, "unterminated string")
	}
	switch in[j+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		r, ok := jsonv.Hex4(in[j:])
		if !ok {
			return 0, v.fail(j, "invalid \\u escape")
		}
		if r < 0xD800 || r >= 0xE000 {
			return 6, nil
		}
		if r < 0xDC00 {
			if lo, ok := jsonv.Hex4(in[j+6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 12, nil
			}
		}
		return 0, v.fail(j, "lone surrogate \\u%04x: a string must be valid Unicode to be encoded in TOON", r)
	}
	return 0, v.fail(j, "invalid escape \\%c", rune(in[j+1]))
}

// literal checks the literal word at i.
func (v *jsonValidator) literal(i int, word string) (int, error) {
	if len(v.in)-i < len(word) || string(v.in[i:i+len(word)]) != word {
		return 0, v.fail(i, "unexpected %s (want a value)", v.describe(i))
	}
	return i + len(word), nil
}

// nonFiniteValue checks the NaN, Infinity or -Infinity at i, which only
// json.loads's grammar has (as JSON, they are not values: the error is
// that of num).
func (v *jsonValidator) nonFiniteValue(i int) (int, error) {
	if n := nonFiniteLen(v.in[i:]); n > 0 && v.nonFinite != nil {
		*v.nonFinite++
		return i + n, nil
	}
	if v.in[i] == '-' {
		return v.num(i)
	}
	return 0, v.fail(i, "unexpected %s (want a value)", v.describe(i))
}

// nonFiniteLen is the length of the NaN, Infinity or -Infinity that b
// starts with, as json.loads reads them (case matters), or 0.
func nonFiniteLen(b []byte) int {
	for _, w := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if len(b) >= len(w) && string(b[:len(w)]) == w {
			return len(w)
		}
	}
	return 0
}

// num checks the number at i (RFC 8259 grammar).
func (v *jsonValidator) num(i int) (int, error) {
	in := v.in
	j := i
	if in[j] == '-' {
		j++
	}
	switch {
	case j < len(in) && in[j] == '0':
		j++
	case j < len(in) && in[j] >= '1' && in[j] <= '9':
		j = jsonDigits(in, j)
	default:
		return 0, v.fail(j, "unexpected %s (want a value)", v.describe(j))
	}
	if j < len(in) && in[j] == '.' {
		k := jsonDigits(in, j+1)
		if k == j+1 {
			return 0, v.fail(k, "unexpected %s in a number (want a digit)", v.describe(k))
		}
		j = k
	}
	if j < len(in) && (in[j] == 'e' || in[j] == 'E') {
		j++
		if j < len(in) && (in[j] == '+' || in[j] == '-') {
			j++
		}
		k := jsonDigits(in, j)
		if k == j {
			return 0, v.fail(k, "unexpected %s in a number (want a digit)", v.describe(k))
		}
		j = k
	}
	return j, nil
}

// jsonDigits returns the offset of the first byte at or after j that is not an
// ASCII digit.
func jsonDigits(b []byte, j int) int {
	for j < len(b) && isDigit(b[j]) {
		j++
	}
	return j
}
