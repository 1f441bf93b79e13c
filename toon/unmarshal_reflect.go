package toon

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// This file stores a document in Go values. ToJSON turns the TOON
// document into compact JSON (its one grammar); a decoder cached per Go
// type then reads that JSON, which is valid and compact by construction,
// straight into the value, with no check of its syntax and no JSON
// library in between.

// ureader reads the compact JSON form of a document: all of it in buf,
// or (a Decoder) in chunks that src gives, each one ending between two
// tokens as ToJSON writes them.
type ureader struct {
	buf             []byte
	pos             int
	base            int64                 // offset of buf[0] in the JSON form
	src             func() ([]byte, bool) // the next chunk; nil: buf is all
	keep            int                   // with src: buf[keep:] is kept on a refill; -1: buf[pos:]
	lines           *lineTable            // with src: the lines of what buf holds
	useNumber       bool
	disallowUnknown bool

	// saved is the first type or field error; the decoding goes on past
	// it, as encoding/json's does. pend: its path is still being built,
	// each container on the way up adding its segment.
	saved error
	segs  *[]pathSeg
	pend  bool

	scratch []byte
	keys    map[string]string // the member names made into strings, for anyValue
}

// key returns the member name b as a string, the same string for the
// same short name: the keys of an array of objects are made once.
func (r *ureader) key(b []byte) string {
	if len(b) > 32 {
		return string(b)
	}
	if s, ok := r.keys[string(b)]; ok {
		return s
	}
	s := string(b)
	if r.keys == nil {
		r.keys = make(map[string]string)
	}
	if len(r.keys) < 1024 {
		r.keys[s] = s
	}
	return s
}

// errTruncated stops a ureader whose source ended inside a value: ToJSON
// has met an error, which is the answer.
var errTruncated = errors.New("toon: JSON form ends early")

// more appends the next chunk of the source to buf, dropping what has
// been read; false at the end of the source.
func (r *ureader) more() bool {
	if r.src == nil {
		return false
	}
	chunk, ok := r.src()
	if !ok {
		return false
	}
	from := r.pos
	if r.keep >= 0 && r.keep < from {
		from = r.keep
	}
	n := copy(r.buf, r.buf[from:])
	r.buf = append(r.buf[:n], chunk...)
	r.base += int64(from)
	r.pos -= from
	if r.lines != nil {
		r.lines.drop(r.base)
	}
	if r.keep >= 0 {
		r.keep -= from
	}
	return true
}

// peek is the byte at the reader's position, the first of a token.
func (r *ureader) peek() byte {
	for r.pos >= len(r.buf) {
		if !r.more() {
			panic(errTruncated)
		}
	}
	return r.buf[r.pos]
}

// lit moves past a literal of n bytes (true, null, false).
func (r *ureader) lit(n int) {
	for len(r.buf)-r.pos < n {
		if !r.more() {
			panic(errTruncated)
		}
	}
	r.pos += n
}

// offset is the offset of the reader's position in the JSON form.
func (r *ureader) offset() int64 { return r.base + int64(r.pos) }

// pathSeg is a segment of a field path: a key, or an array index.
type pathSeg struct {
	key string
	idx int // -1 for a key
}

func pathString(segs []pathSeg) string {
	var b []byte
	for i := len(segs) - 1; i >= 0; i-- { // segments come innermost first
		s := segs[i]
		if s.idx >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.idx), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, s.key...)
	}
	return string(b)
}

// typeError notes a value that does not fit t, at the reader's position,
// and skips it.
func (r *ureader) typeError(what string, t reflect.Type, err error) {
	if r.saved == nil {
		e := &UnmarshalTypeError{Value: what, Type: t, Err: err, jsonOff: r.offset()}
		e.Line, e.Column = r.lineOf(e.jsonOff)
		r.saved, r.segs, r.pend = e, &e.segs, true
	}
	r.skip()
}

// typeErrorAt is typeError for a value already read, which started at off.
func (r *ureader) typeErrorAt(what string, t reflect.Type, err error, off int64) {
	if r.saved == nil {
		e := &UnmarshalTypeError{Value: what, Type: t, Err: err, jsonOff: off}
		e.Line, e.Column = r.lineOf(off)
		r.saved, r.segs, r.pend = e, &e.segs, true
	}
}

// lineOf is the line and column of the JSON form's byte at off, for a
// Decoder (Unmarshal finds them again afterwards).
func (r *ureader) lineOf(off int64) (line, col int) {
	if r.lines == nil {
		return 0, 0
	}
	return r.lines.find(off)
}

// addSeg adds a segment to the path of the pending error.
func (r *ureader) addSeg(key string, idx int) {
	*r.segs = append(*r.segs, pathSeg{key, idx})
}

// kindOf names the JSON value at the reader's position for an error.
func (r *ureader) kindOf() string {
	switch r.peek() {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	tok := r.number()
	r.pos -= len(tok)
	return "number " + string(tok)
}

// skip moves past the value at the reader's position.
func (r *ureader) skip() {
	switch r.peek() {
	case '"':
		r.pos = r.stringEnd() + 1
		return
	case 't', 'n':
		r.lit(4)
		return
	case 'f':
		r.lit(5)
		return
	case '{', '[':
	default:
		r.number()
		return
	}
	r.pos++
	for depth := 1; depth > 0; {
		switch r.peek() {
		case '"':
			r.pos = r.stringEnd() + 1
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		r.pos++
	}
}

// raw returns the value at the reader's position and moves past it. The
// bytes are valid until the reader reads on.
func (r *ureader) raw() []byte {
	r.peek()
	r.keep = r.pos
	r.skip()
	b := r.buf[r.keep:r.pos]
	r.keep = -1
	return b
}

// stringEnd is the index in buf of the closing quote of the string at the
// reader's position, read into buf.
func (r *ureader) stringEnd() int {
	for i := r.pos + 1; ; {
		if i >= len(r.buf) {
			at := i - r.pos
			if !r.more() {
				panic(errTruncated)
			}
			i = r.pos + at
			continue
		}
		switch r.buf[i] {
		case '"':
			return i
		case '\\':
			i += 2
		default:
			i++
		}
	}
}

// stringBytes reads the string at the reader's position (its opening
// quote) and returns its content, unescaped: in the buffer when it has no
// escape, else in scratch; valid until the reader reads on.
func (r *ureader) stringBytes() []byte {
	start := r.pos + 1
	if n := bytes.IndexByte(r.buf[start:], '"'); n >= 0 && bytes.IndexByte(r.buf[start:start+n], '\\') < 0 {
		r.pos = start + n + 1
		return r.buf[start : start+n]
	}
	end := r.stringEnd()
	start = r.pos + 1
	r.pos = end + 1
	s := r.buf[start:end]
	if bytes.IndexByte(s, '\\') < 0 {
		return s
	}
	b := r.scratch[:0]
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c != '\\':
			b = append(b, c)
			i++
		case s[i+1] == 'u':
			c, n := jsonv.DecodeEscape(s[i:])
			if n == 0 { // not from ToJSON; keep it as it is
				b = append(b, s[i])
				i++
				continue
			}
			if c >= 0xD800 && c < 0xE000 { // a lone surrogate
				c = utf8.RuneError
			}
			b = utf8.AppendRune(b, c)
			i += n
		default:
			b = append(b, jsonv.ShortEscape(s[i+1]))
			i += 2
		}
	}
	r.scratch = b
	return b
}

// number reads the number at the reader's position.
func (r *ureader) number() []byte {
	i := r.pos
	for {
		if i >= len(r.buf) {
			at := i - r.pos
			if !r.more() {
				break // a number may end the document
			}
			i = r.pos + at
			continue
		}
		c := r.buf[i]
		if c >= '0' && c <= '9' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+' {
			i++
			continue
		}
		break
	}
	start := r.pos
	r.pos = i
	return r.buf[start:i]
}

// decFunc stores the JSON value at the reader's position in v, which is
// settable, and moves past it.
type decFunc func(r *ureader, v reflect.Value) error

var decCache sync.Map // reflect.Type → decFunc

// decoderFor returns the decoder of type t, made once.
func decoderFor(t reflect.Type) decFunc {
	if f, ok := decCache.Load(t); ok {
		return f.(decFunc)
	}
	// A recursive type meets itself while its decoder is being made:
	// it gets an indirect one that waits for the real one.
	var (
		wg sync.WaitGroup
		f  decFunc
	)
	wg.Add(1)
	fi, loaded := decCache.LoadOrStore(t, decFunc(func(r *ureader, v reflect.Value) error {
		wg.Wait()
		return f(r, v)
	}))
	if loaded {
		return fi.(decFunc)
	}
	f = newDecFunc(t)
	wg.Done()
	decCache.Store(t, f)
	return f
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func newDecFunc(t reflect.Type) decFunc {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		if pt.Implements(jsonUnmarshalerType) {
			return decodeJSONUnmarshaler
		}
		if pt.Implements(textUnmarshalerType) {
			return textDecoder(t)
		}
	}
	if t == numberType {
		return decodeNumber
	}
	switch t.Kind() {
	case reflect.Bool:
		return decodeBool
	case reflect.String:
		return decodeString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	case reflect.Interface:
		return decodeInterface
	case reflect.Pointer:
		return pointerDecoder(t)
	case reflect.Slice:
		return sliceDecoder(t)
	case reflect.Array:
		return arrayDecoder(t)
	case reflect.Map:
		return mapDecoder(t)
	case reflect.Struct:
		return structDecoder(t)
	}
	return func(r *ureader, v reflect.Value) error {
		if r.peek() == 'n' {
			r.lit(4)
			return nil
		}
		r.typeError(r.kindOf(), v.Type(), nil)
		return nil
	}
}

func decodeJSONUnmarshaler(r *ureader, v reflect.Value) error {
	var raw []byte
	if c := r.peek(); c == '-' || c >= '0' && c <= '9' {
		raw = plainInteger(r.number()) // *big.Int reads no exponent
	} else {
		raw = r.raw()
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		return err
	}
	return nil
}

func textDecoder(t reflect.Type) decFunc {
	// A []byte with UnmarshalText still reads an array as bytes.
	var elems decFunc
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		if t.Kind() == reflect.Slice {
			elems = sliceDecoder(t)
		} else {
			elems = arrayDecoder(t)
		}
	}
	return func(r *ureader, v reflect.Value) error {
		switch r.peek() {
		case '"':
			off := r.offset()
			s := r.stringBytes()
			if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(s); err != nil {
				r.typeErrorAt("string", v.Type(), err, off)
			}
			return nil
		case 'n':
			r.lit(4)
			return nil
		case '[':
			if elems != nil {
				return elems(r, v)
			}
		}
		r.typeError(r.kindOf(), v.Type(), nil)
		return nil
	}
}

func decodeNumber(r *ureader, v reflect.Value) error {
	switch c := r.peek(); {
	case c == '-' || c >= '0' && c <= '9':
		v.SetString(string(plainInteger(r.number())))
		return nil
	case c == '"':
		off := r.offset()
		s := r.stringBytes()
		if !isJSONNumber(s) {
			r.typeErrorAt("string", v.Type(), nil, off)
			return nil
		}
		v.SetString(string(s))
		return nil
	case c == 'n':
		r.lit(4)
		return nil
	}
	r.typeError(r.kindOf(), v.Type(), nil)
	return nil
}

// isJSONNumber reports whether s is a JSON number, as json.Number holds.
func isJSONNumber(s []byte) bool {
	return len(s) > 0 && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid(s)
}

func decodeBool(r *ureader, v reflect.Value) error {
	switch r.peek() {
	case 't':
		v.SetBool(true)
		r.lit(4)
		return nil
	case 'f':
		v.SetBool(false)
		r.lit(5)
		return nil
	case 'n':
		r.lit(4)
		return nil
	}
	r.typeError(r.kindOf(), v.Type(), nil)
	return nil
}

func decodeString(r *ureader, v reflect.Value) error {
	switch r.peek() {
	case '"':
		v.SetString(string(r.stringBytes()))
		return nil
	case 'n':
		r.lit(4)
		return nil
	}
	r.typeError(r.kindOf(), v.Type(), nil)
	return nil
}

// parseInt reads a JSON integer without fraction or exponent; false if
// b is not one or does not fit 64 bits.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// maxPlainDigits bounds the integers that plainInteger writes out.
const maxPlainDigits = 400

// plainInteger returns the canonical number tok (§2) in plain digits when
// it is an integer written with an exponent (1e+21 and up), as the
// document's producer most likely wrote it and as *big.Int and
// json.Number.Int64 read it; else, or past maxPlainDigits digits, tok.
func plainInteger(tok []byte) []byte {
	e := bytes.IndexByte(tok, 'e')
	if e < 0 || e+1 >= len(tok) || tok[e+1] != '+' {
		return tok
	}
	exp, ok := parseUint(tok[e+2:])
	mant := tok[:e]
	neg := len(mant) > 0 && mant[0] == '-'
	if neg {
		mant = mant[1:]
	}
	frac := 0
	if dot := bytes.IndexByte(mant, '.'); dot >= 0 {
		frac = len(mant) - dot - 1
	}
	if !ok || exp < uint64(frac) || exp > maxPlainDigits {
		return tok
	}
	out := make([]byte, 0, 1+len(mant)+int(exp))
	if neg {
		out = append(out, '-')
	}
	for _, c := range mant {
		if c != '.' {
			out = append(out, c)
		}
	}
	for range int(exp) - frac {
		out = append(out, '0')
	}
	return out
}

// numberStart reports whether a number stands at the reader's position,
// for a decoder of numbers: null is skipped, another kind is a type error.
func (r *ureader) numberStart(v reflect.Value) bool {
	c := r.peek()
	if c == '-' || c >= '0' && c <= '9' {
		return true
	}
	if c == 'n' {
		r.lit(4)
	} else {
		r.typeError(r.kindOf(), v.Type(), nil)
	}
	return false
}

func decodeInt(r *ureader, v reflect.Value) error {
	if !r.numberStart(v) {
		return nil
	}
	off := r.offset()
	tok := r.number()
	neg := tok[0] == '-'
	u, ok := parseUint(tok[b2i(neg):])
	var n int64
	if ok {
		if neg {
			ok = u <= 1<<63
			n = int64(-u)
		} else {
			ok = u < 1<<63
			n = int64(u)
		}
	}
	if !ok || v.OverflowInt(n) {
		r.typeErrorAt("number "+string(tok), v.Type(), nil, off)
		return nil
	}
	v.SetInt(n)
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func decodeUint(r *ureader, v reflect.Value) error {
	if !r.numberStart(v) {
		return nil
	}
	off := r.offset()
	tok := r.number()
	u, ok := parseUint(tok)
	if !ok || v.OverflowUint(u) {
		r.typeErrorAt("number "+string(tok), v.Type(), nil, off)
		return nil
	}
	v.SetUint(u)
	return nil
}

func decodeFloat(r *ureader, v reflect.Value) error {
	if !r.numberStart(v) {
		return nil
	}
	off := r.offset()
	tok := r.number()
	f, err := strconv.ParseFloat(string(tok), v.Type().Bits())
	if err != nil || v.OverflowFloat(f) {
		r.typeErrorAt("number "+string(tok), v.Type(), nil, off)
		return nil
	}
	v.SetFloat(f)
	return nil
}

func decodeInterface(r *ureader, v reflect.Value) error {
	if r.peek() == 'n' {
		r.lit(4)
		v.SetZero()
		return nil
	}
	// A non-nil pointer in the interface is decoded into, as
	// encoding/json does.
	if !v.IsNil() {
		if e := v.Elem(); e.Kind() == reflect.Pointer && !e.IsNil() {
			return decoderFor(e.Type().Elem())(r, e.Elem())
		}
	}
	if v.NumMethod() > 0 {
		r.typeError(r.kindOf(), v.Type(), nil)
		return nil
	}
	x, err := r.anyValue()
	if err != nil {
		return err
	}
	if x == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(x))
	}
	return nil
}

// anyValue reads a value as encoding/json decodes it into an interface.
func (r *ureader) anyValue() (any, error) {
	switch c := r.peek(); c {
	case '{':
		m := make(map[string]any)
		r.pos++
		if r.peek() == '}' {
			r.pos++
			return m, nil
		}
		for {
			k := r.key(r.stringBytes())
			r.lit(1) // ':'
			x, err := r.anyValue()
			if err != nil {
				return nil, err
			}
			m[k] = x
			if r.peek() == '}' {
				r.pos++
				return m, nil
			}
			r.pos++ // ','
		}
	case '[':
		a := make([]any, 0, 4)
		r.pos++
		if r.peek() == ']' {
			r.pos++
			return a, nil
		}
		for {
			x, err := r.anyValue()
			if err != nil {
				return nil, err
			}
			a = append(a, x)
			if r.peek() == ']' {
				r.pos++
				return a, nil
			}
			r.pos++ // ','
		}
	case '"':
		return string(r.stringBytes()), nil
	case 't':
		r.lit(4)
		return true, nil
	case 'f':
		r.lit(5)
		return false, nil
	case 'n':
		r.lit(4)
		return nil, nil
	}
	off := r.offset()
	tok := r.number()
	if r.useNumber {
		return json.Number(plainInteger(tok)), nil
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		r.typeErrorAt("number "+string(tok), reflect.TypeFor[float64](), nil, off)
		return nil, nil
	}
	return f, nil
}

func pointerDecoder(t reflect.Type) decFunc {
	elem := t.Elem()
	var ef decFunc
	var once sync.Once
	return func(r *ureader, v reflect.Value) error {
		if r.peek() == 'n' {
			r.lit(4)
			v.SetZero()
			return nil
		}
		once.Do(func() { ef = decoderFor(elem) })
		if v.IsNil() {
			v.Set(reflect.New(elem))
		}
		return ef(r, v.Elem())
	}
}

// container is the start of an array or object for decoders that take
// one: false (the value skipped, an error noted) if the value is another
// kind; null is left alone, as encoding/json leaves it.
func (r *ureader) container(open byte, v reflect.Value) bool {
	c := r.peek()
	if c == open {
		r.pos++
		return true
	}
	if c == 'n' {
		r.lit(4)
		switch v.Kind() {
		case reflect.Slice, reflect.Map:
			v.SetZero()
		}
		return false
	}
	r.typeError(r.kindOf(), v.Type(), nil)
	return false
}

func sliceDecoder(t reflect.Type) decFunc {
	elem := t.Elem()
	byteSlice := elem.Kind() == reflect.Uint8 &&
		!reflect.PointerTo(elem).Implements(jsonUnmarshalerType) &&
		!reflect.PointerTo(elem).Implements(textUnmarshalerType)
	var ef decFunc
	var once sync.Once
	return func(r *ureader, v reflect.Value) error {
		if byteSlice && r.peek() == '"' {
			off := r.offset()
			s := r.stringBytes()
			b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
			n, err := base64.StdEncoding.Decode(b, s)
			if err != nil {
				r.typeErrorAt("string", t, err, off)
				return nil
			}
			v.SetBytes(b[:n])
			return nil
		}
		if !r.container('[', v) {
			return nil
		}
		once.Do(func() { ef = decoderFor(elem) })
		// Elements past the old length are zeroed where the old capacity
		// held them; what Grow adds is zero.
		i, old, stale := 0, v.Len(), v.Cap()
		bubbled := false
		if r.peek() != ']' {
			for {
				if i >= v.Cap() {
					v.Grow(1)
				}
				if i >= v.Len() {
					v.SetLen(i + 1)
				}
				e := v.Index(i)
				if i >= old && i < stale {
					e.SetZero()
				}
				if err := ef(r, e); err != nil {
					return err
				}
				if r.pend {
					r.addSeg("", i)
					r.pend, bubbled = false, true
				}
				i++
				if r.peek() == ']' {
					break
				}
				r.pos++ // ','
			}
		}
		r.pos++
		if i < v.Len() {
			v.SetLen(i)
		}
		if v.IsNil() {
			v.Set(reflect.MakeSlice(t, 0, 0))
		}
		r.pend = bubbled
		return nil
	}
}

func arrayDecoder(t reflect.Type) decFunc {
	elem := t.Elem()
	var ef decFunc
	var once sync.Once
	return func(r *ureader, v reflect.Value) error {
		if !r.container('[', v) {
			return nil
		}
		once.Do(func() { ef = decoderFor(elem) })
		i, n := 0, v.Len()
		bubbled := false
		if r.peek() != ']' {
			for {
				if i < n {
					if err := ef(r, v.Index(i)); err != nil {
						return err
					}
					if r.pend {
						r.addSeg("", i)
						r.pend, bubbled = false, true
					}
				} else {
					r.skip()
				}
				i++
				if r.peek() == ']' {
					break
				}
				r.pos++
			}
		}
		r.pos++
		for ; i < n; i++ {
			v.Index(i).SetZero()
		}
		r.pend = bubbled
		return nil
	}
}

func mapDecoder(t reflect.Type) decFunc {
	kt, et := t.Key(), t.Elem()
	keyText := reflect.PointerTo(kt).Implements(textUnmarshalerType)
	switch kt.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		if !keyText {
			return func(r *ureader, v reflect.Value) error {
				if r.peek() == 'n' {
					r.lit(4)
					v.SetZero()
					return nil
				}
				r.typeError(r.kindOf(), t, nil)
				return nil
			}
		}
	}
	var ef decFunc
	var once sync.Once
	return func(r *ureader, v reflect.Value) error {
		if !r.container('{', v) {
			return nil
		}
		once.Do(func() { ef = decoderFor(et) })
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		bubbled := false
		if r.peek() != '}' {
			ev := reflect.New(et).Elem()
			for {
				koff := r.offset()
				kb := r.stringBytes()
				r.lit(1) // ':'
				kv, ok := mapKey(r, kt, keyText, kb, koff)
				if !ok {
					r.skip()
				} else {
					ev.SetZero()
					if err := ef(r, ev); err != nil {
						return err
					}
					if r.pend {
						r.addSeg(keyString(kv), -1)
						r.pend, bubbled = false, true
					}
					v.SetMapIndex(kv, ev)
				}
				if r.peek() == '}' {
					break
				}
				r.pos++
			}
		}
		r.pos++
		r.pend = bubbled
		return nil
	}
}

// keyString is a map key for a field path.
func keyString(kv reflect.Value) string {
	if kv.Kind() == reflect.String {
		return kv.String()
	}
	return fmt.Sprint(kv.Interface())
}

// mapKey converts a member name to a map key of type kt.
func mapKey(r *ureader, kt reflect.Type, text bool, kb []byte, off int64) (reflect.Value, bool) {
	if text {
		kv := reflect.New(kt)
		if err := kv.Interface().(encoding.TextUnmarshaler).UnmarshalText(kb); err != nil {
			r.typeErrorAt("string", kt, err, off)
			return reflect.Value{}, false
		}
		return kv.Elem(), true
	}
	kv := reflect.New(kt).Elem()
	switch kt.Kind() {
	case reflect.String:
		kv.SetString(r.key(kb))
		return kv, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(kb), 10, 64)
		if err != nil || kv.OverflowInt(n) {
			r.typeErrorAt("number "+string(kb), kt, nil, off)
			return reflect.Value{}, false
		}
		kv.SetInt(n)
	default:
		n, err := strconv.ParseUint(string(kb), 10, 64)
		if err != nil || kv.OverflowUint(n) {
			r.typeErrorAt("number "+string(kb), kt, nil, off)
			return reflect.Value{}, false
		}
		kv.SetUint(n)
	}
	return kv, true
}

// ufield is a struct field with its decoder.
type ufield struct {
	*field
	dec  decFunc
	once sync.Once
}

func structDecoder(t reflect.Type) decFunc {
	sf := cachedFields(t)
	fs := make([]ufield, len(sf.list))
	for i := range sf.list {
		fs[i].field = &sf.list[i]
	}
	return func(r *ureader, v reflect.Value) error {
		if !r.container('{', v) {
			return nil
		}
		bubbled := false
		next := 0 // the field expected next: members mostly come in order
		if r.peek() != '}' {
			for {
				koff := r.offset()
				kb := r.stringBytes()
				r.lit(1) // ':'
				var f *ufield
				if next < len(fs) && fs[next].name == string(kb) {
					f = &fs[next]
					next++
				} else if fd, ok := sf.lookup(kb); ok {
					i := indexOfField(sf, fd)
					f = &fs[i]
					next = i + 1
				}
				if f == nil {
					if r.disallowUnknown && r.saved == nil {
						e := &UnmarshalFieldError{Key: string(kb), Type: t, jsonOff: koff}
						e.Line, e.Column = r.lineOf(koff)
						e.segs = append(e.segs, pathSeg{e.Key, -1})
						r.saved, r.segs, bubbled = e, &e.segs, true
					}
					r.skip()
				} else {
					if err := r.storeField(f, v); err != nil {
						return err
					}
					if r.pend {
						r.addSeg(f.name, -1)
						r.pend, bubbled = false, true
					}
				}
				if r.peek() == '}' {
					break
				}
				r.pos++
			}
		}
		r.pos++
		r.pend = bubbled
		return nil
	}
}

// indexOfField is the index in sf.list of fd, which points into it.
func indexOfField(sf *structFields, fd *field) int {
	for i := range sf.list {
		if &sf.list[i] == fd {
			return i
		}
	}
	return -1
}

// storeField decodes the value at the reader's position into field f of
// the struct v, making the embedded structs on its way as needed.
func (r *ureader) storeField(f *ufield, v reflect.Value) error {
	fv := v
	if len(f.index) == 1 {
		fv = v.Field(f.index[0])
	} else {
		for k, i := range f.index {
			if k > 0 && fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					if !fv.CanSet() {
						// A nil pointer to an unexported embedded
						// struct cannot be made.
						r.typeError(r.kindOf(), fv.Type().Elem(), errors.New("cannot set embedded pointer to unexported struct"))
						return nil
					}
					fv.Set(reflect.New(fv.Type().Elem()))
				}
				fv = fv.Elem()
			}
			fv = fv.Field(i)
		}
	}
	f.once.Do(func() { f.dec = decoderFor(f.typ) })
	if f.quoted && r.peek() == '"' {
		return r.storeQuoted(f, fv)
	}
	return f.dec(r, fv)
}

// storeQuoted decodes a field with the string option: its value is a
// string that holds the JSON literal.
func (r *ureader) storeQuoted(f *ufield, fv reflect.Value) error {
	off := r.offset()
	s := r.stringBytes()
	inner := strings.TrimSpace(string(s))
	switch k := fv.Kind(); {
	case k == reflect.String:
		// encoding/json: the string holds a quoted string.
		if uq, err := strconv.Unquote(inner); err == nil && len(inner) > 0 && inner[0] == '"' {
			fv.SetString(uq)
			return nil
		}
	default:
		if inner == "null" {
			return nil
		}
		if json.Valid([]byte(inner)) && inner != "" && inner[0] != '"' && inner[0] != '{' && inner[0] != '[' {
			sub := ureader{buf: []byte(inner), useNumber: r.useNumber}
			if err := f.dec(&sub, fv); err != nil {
				return err
			}
			if sub.saved == nil {
				return nil
			}
		}
	}
	r.typeErrorAt("string", fv.Type(), nil, off)
	return nil
}

// jsonBuf holds the JSON form of a document for Unmarshal.
type jsonBuf struct{ b []byte }

// jsonBufPool keeps the buffers of the JSON form, up to maxPooledJSON.
var jsonBufPool sync.Pool

const maxPooledJSON = 64 << 20

// getJSONBuf returns an empty buffer for the JSON form of a document of n
// bytes, which is mostly a little longer than the TOON.
func getJSONBuf(n int) *jsonBuf {
	want := n + n/4 + 512
	if w, ok := jsonBufPool.Get().(*jsonBuf); ok {
		if cap(w.b) >= want {
			w.b = w.b[:0]
			return w
		}
	}
	return &jsonBuf{b: make([]byte, 0, want)}
}

func putJSONBuf(w *jsonBuf) {
	if cap(w.b) <= maxPooledJSON {
		jsonBufPool.Put(w)
	}
}
