package toon

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
)

// maxDecodeNesting bounds the nesting of a decoded document: open objects and
// arrays, nested field groups of a tabular header included. A deeper
// document is an error, never a stack overflow.
const maxDecodeNesting = 10000

// defaultDecodeMaxLine bounds one input line when UnmarshalOptions.MaxLineSize
// is 0.
const defaultDecodeMaxLine = 64 << 20

// decodeFlushSize is the size of the output buffer at which it is written out.
const decodeFlushSize = 64 << 10

// ToJSON reads one TOON document from r and writes its JSON value to w as
// it goes, followed by a newline. A malformed document gives a
// *SyntaxError with the line and column (it unwraps to the error with an
// excerpt of the line and a caret);
// what was written before it is to be discarded by the caller.
//
// The input is read line by line and the output written as it is made, in
// memory that grows only with the nesting depth, the width of one header
// line and, for the strict duplicate-key check, the key set of each open
// object. In non-strict mode duplicate keys resolve last-write-wins (the
// key keeps the place of its first occurrence, as a JavaScript object
// does), which a stream cannot undo once written: there the output of an
// object is held until the object closes (a root object: the whole
// document); the elements of a root array, tabular rows among them, are
// still written as they come.
//
// The rules are those of the reference library @toon-format/toon 4.4.0,
// which toonkit follows where the v4.1 spec read a malformed line as a
// literal key:
//   - An unquoted colon or bracket is one outside a quoted part, a double
//     quote opening a part that the next unescaped one closes (B.3).
//   - An unquoted "[" before a line's first colon starts an array header,
//     whose key it ends: `my-key[2]: a,b` is an array; `foo [2]: bar`,
//     `foo[2]extra: x`, `key[]: 1` and every other malformed header are
//     errors in both modes.
//   - A lone primitive must be the document's only line. The first line
//     of a document is not indented, in both modes. A line of spaces is
//     blank; in strict mode a tab in any indentation is an error, a blank
//     line's included (§12).
//   - Control characters inside quotes are data (JSON-escaped on output).
//   - Every row and entry row has a cell for each leaf field, in both
//     modes.
//   - Non-strict mode recovers in five ways only, and never skips a line:
//     declared counts are advisory; the last duplicate key wins; a tab in
//     the indentation is one level and spaces count in whole levels,
//     rounded down (depth = floor(spaces/IndentSize) + tabs); blank lines
//     inside arrays are skipped; a block whose first line is indented too
//     deep is read at that depth. Ill-formed UTF-8 becomes U+FFFD there
//     (strict: an error).
func ToJSON(w io.Writer, r io.Reader, opts UnmarshalOptions) error {
	if opts.MaxSize > 0 {
		r = &limitedReader{r: r, n: opts.MaxSize, limit: opts.MaxSize}
	}
	return wrapSyntaxError(toJSON(w, r, opts.decodeOptions()))
}

// toJSON is ToJSON with the options of toonx.DecodeOptions, OnLine among
// them; a malformed document gives a *jsonv.SyntaxError.
func toJSON(w io.Writer, r io.Reader, opts decodeOptions) error {
	return newDecoder(w, r, opts).decode()
}

func (d *decoder) decode() error {
	if err := d.run(); err != nil {
		return err
	}
	return d.flush()
}

// lineCtx is a line of the input, for error positions.
type lineCtx struct {
	num  int    // 1-based line number
	off  int64  // offset of its first byte in the input
	text []byte // the line without its line end
	orig []byte // non-strict: the line as read, when text has ill-formed UTF-8 replaced
}

// Root states: what the first content line has decided.
const (
	rootNone    = iota // no content line yet
	rootPending        // a lone primitive, unless another line follows
	rootStarted        // a root value is being written or is complete
)

// decoder is the state of one ToJSON.
type decoder struct {
	w          io.Writer
	in         inbuf.Buffer
	maxLine    int
	indentSize int
	strict     bool
	indent     string // JSON indentation unit; "" for compact
	elements   bool
	keepDups   bool // tests only, non-strict: write every duplicate key, no last-write-wins

	ln     lineCtx   // the current line
	num    int       // lines read
	depth  int       // depth of the current line
	col0   int       // byte offset of its content (after the indentation)
	fixed  []byte    // the current line with ill-formed UTF-8 replaced (non-strict)
	depths [64]int16 // depth of an indentation of i spaces; -1: not a multiple (strict)

	out   []byte // JSON not yet written to w
	nlBuf []byte // "\n" followed by indentation units
	werr  error

	stack     []scope
	openSpans int // array scopes whose first item has been read
	openObjs  int // object scopes (non-strict: their output is held)

	blankNum int   // first blank line since the last content line, 0 if none
	blankOff int64 // its offset

	rootState int
	rootLine  []byte // the lone primitive line
	rootNum   int
	rootOff   int64
	rootCol   int
	rootKind  string // "array" or "keyed object": a root that ends before the input

	// scratch, reused from line to line
	spans   []cellSpan
	keyBuf  []byte
	valBuf  []byte
	fields  []fieldEntry
	names   []byte
	scratch []byte
	kl      keyLine

	// onLine, when set, is told of each content line handled: the
	// offset in the whole output of the end of the JSON it wrote, its
	// number and the byte column of its content; true stops the decoding
	// with errLineHook. Unmarshal's error positions come from it.
	onLine  func(end int64, line, col int) bool
	written int64 // bytes flushed to w

	flushAt int // the size of output at which it is written out
}

func newDecoder(w io.Writer, r io.Reader, opts decodeOptions) *decoder {
	d := newDecoderState(nil, w, opts)
	d.out = make([]byte, 0, decodeFlushSize+decodeFlushSize/4)
	d.in = inbuf.Buffer{R: r, First: 32 << 10, Steady: 256 << 10, Max: min(d.maxLine+(32<<10), math.MaxInt32)}
	return d
}

// newBytesDecoder is a decoder of the document data, read in place,
// that makes the whole JSON form in out, writing nothing out. Its state
// comes from a pool, where putBytesDecoder returns it.
func newBytesDecoder(data []byte, opts decodeOptions, out []byte) *decoder {
	old, _ := bytesDecoders.Get().(*decoder)
	d := newDecoderState(old, io.Discard, opts)
	d.out, d.flushAt = out, math.MaxInt
	d.in = inbuf.Buffer{Buf: data, End: len(data), EOF: true, Max: len(data)}
	return d
}

// newStreamDecoder is a decoder for a Decoder: its state from the pool
// of newBytesDecoder, its buffers small at first (a message is mostly
// short), growing with the input as ToJSON's do.
func newStreamDecoder(w io.Writer, r io.Reader, opts decodeOptions) *decoder {
	old, _ := bytesDecoders.Get().(*decoder)
	d := newDecoderState(old, w, opts)
	d.out = make([]byte, 0, 4<<10)
	d.in = inbuf.Buffer{R: r, First: 4 << 10, Steady: 256 << 10, Max: min(d.maxLine+(32<<10), math.MaxInt32)}
	return d
}

// bytesDecoders keeps the state of newBytesDecoder's decoders: the
// struct, its scopes and their key sets, which a small document would
// otherwise allocate anew each time.
var bytesDecoders sync.Pool

// putBytesDecoder returns the state of a decoder made by newBytesDecoder
// or newStreamDecoder to their pool.
func putBytesDecoder(d *decoder) {
	if cap(d.stack) > 64 {
		return
	}
	d.in, d.out, d.ln, d.rootLine, d.onLine = inbuf.Buffer{}, nil, lineCtx{}, nil, nil
	bytesDecoders.Put(d)
}

// newDecoderState is a decoder without its input and output buffers,
// reusing the scopes of old if it is not nil.
func newDecoderState(old *decoder, w io.Writer, opts decodeOptions) *decoder {
	maxLine := opts.MaxLineSize
	if maxLine <= 0 {
		maxLine = defaultDecodeMaxLine
	}
	size := opts.IndentSize
	if size <= 0 {
		size = DefaultIndentSize
	}
	var stack []scope
	d := old
	if d == nil {
		d = new(decoder)
	} else {
		stack = d.stack[:0]
	}
	*d = decoder{
		stack:      stack,
		w:          w,
		maxLine:    maxLine,
		indentSize: size,
		strict:     !opts.NonStrict,
		indent:     opts.JSONIndent,
		elements:   opts.Elements,
		nlBuf:      []byte{'\n'},
		flushAt:    decodeFlushSize,
	}
	if d.elements {
		d.indent = ""
	}
	if f := opts.OnLine; f != nil {
		d.onLine = func(end int64, line, col int) bool { f(end, line, col+1); return false }
	}
	for i := range d.depths {
		d.depths[i] = int16(i / size)
		if d.strict && i%size != 0 {
			d.depths[i] = -1
		}
	}
	d.stack = append(d.stack, scope{kind: scopeRoot})
	return d
}

// run decodes the document line by line.
func (d *decoder) run() error {
	for {
		ok, err := d.readLine()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		content, err := d.prepare()
		if err != nil {
			return err
		}
		if !content {
			continue
		}
		if err := d.handle(); err != nil {
			return err
		}
		if d.onLine != nil && d.onLine(d.written+int64(len(d.out)), d.ln.num, d.col0) {
			return errLineHook
		}
		if len(d.out) >= d.flushAt && (d.strict || d.openObjs == 0) {
			if err := d.flush(); err != nil {
				return err
			}
		}
	}
	return d.finish()
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readLine reads the next line into d.ln; false at the end of the input.
func (d *decoder) readLine() (bool, error) {
	at := d.in.Base + int64(d.in.Pos)
	line, _, err := d.in.Line(d.maxLine)
	if err == inbuf.ErrLineTooLong {
		d.num++
		d.ln = lineCtx{num: d.num, off: at}
		return false, d.errAt(0, fmt.Sprintf("line %d is longer than the limit of %d bytes", d.num, d.maxLine))
	}
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	d.num++
	if len(line) > d.maxLine { // inbuf checks only the part not yet buffered
		d.ln = lineCtx{num: d.num, off: at}
		return false, d.errAt(0, fmt.Sprintf("line %d is longer than the limit of %d bytes", d.num, d.maxLine))
	}
	if d.num == 1 && bytes.HasPrefix(line, utf8BOM) {
		line = line[len(utf8BOM):]
		at += int64(len(utf8BOM))
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	d.ln.num, d.ln.off, d.ln.text = d.num, at, line
	if d.ln.orig != nil {
		d.ln.orig = nil
	}
	return true, nil
}

// prepare checks the current line's encoding and indentation and sets
// d.depth and d.col0. It reports false for a blank or comment line (§5.1,
// §12), noting a blank one.
func (d *decoder) prepare() (bool, error) {
	if !utf8.Valid(d.ln.text) {
		if d.strict {
			t := d.ln.text
			i := invalidUTF8At(t)
			return false, d.errAt(i, fmt.Sprintf("invalid UTF-8: byte 0x%02x does not begin a well-formed character", t[i]))
		}
		d.fixLine()
	}
	t := d.ln.text
	i, tab, tabs := 0, -1, 0
	for i < len(t) && t[i] == ' ' {
		i++
	}
	if i < len(t) && t[i] == '\t' {
		tab = i
		for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
			if t[i] == '\t' {
				tabs++
			}
			i++
		}
	}
	if i == len(t) { // blank
		if tab >= 0 && d.strict { // v4.4: a tab in any indentation, a blank line's too
			return false, d.errAt(tab, "tab in indentation: indent with spaces only")
		}
		if d.blankNum == 0 {
			d.blankNum, d.blankOff = d.ln.num, d.ln.off
		}
		return false, nil
	}
	if tab < 0 && t[i] == '#' { // comment
		return false, nil
	}
	if tab >= 0 && d.strict {
		return false, d.errAt(tab, "tab in indentation: indent with spaces only")
	}
	// Non-strict, a tab is one level wherever it stands in the
	// indentation, and the spaces around tabs count together:
	// depth = floor(spaces / IndentSize) + tabs, the reference's rule.
	depth, spaces := -1, i-tabs
	if spaces < len(d.depths) {
		depth = int(d.depths[spaces])
	} else if !d.strict || spaces%d.indentSize == 0 {
		depth = spaces / d.indentSize
	}
	if depth >= 0 {
		depth += tabs
	}
	if depth < 0 {
		return false, d.errAt(i, fmt.Sprintf("indentation of %d %s is not a multiple of %d", i, pluralWord(i, "space", "spaces"), d.indentSize))
	}
	d.depth, d.col0 = depth, i
	return true, nil
}

// fixLine replaces the ill-formed UTF-8 of the current line by U+FFFD
// (appendValidUTF8), keeping the line as read for error offsets.
func (d *decoder) fixLine() {
	if utf8.Valid(d.ln.text) {
		return
	}
	d.fixed = appendValidUTF8(d.fixed[:0], d.ln.text)
	d.ln.orig, d.ln.text = d.ln.text, d.fixed
}

// invalidUTF8At is the index of the first byte of t that does not begin a
// well-formed UTF-8 sequence.
func invalidUTF8At(t []byte) int {
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRune(t[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(t)
}

// appendValidUTF8 appends t with each maximal ill-formed subsequence
// replaced by one U+FFFD: the Unicode Standard's recommended practice
// (§3.9), which WHATWG's decoder, and so a JavaScript caller, and Python's
// errors="replace" follow. A truncated three-byte sequence is one U+FFFD, a
// stray continuation byte one each.
func appendValidUTF8(dst, t []byte) []byte {
	for i := 0; i < len(t); {
		if t[i] < utf8.RuneSelf {
			dst = append(dst, t[i])
			i++
			continue
		}
		n, ok := charLen(t[i:])
		if !ok {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, t[i:i+n]...)
		}
		i += n
	}
	return dst
}

// charLen is the length of the character at the start of t, or of the
// maximal ill-formed subsequence there (ok false): a lead byte and the
// continuation bytes that could still make a well-formed character.
func charLen(t []byte) (n int, ok bool) {
	r, n := utf8.DecodeRune(t)
	if r != utf8.RuneError || n > 1 {
		return n, true
	}
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch b := t[0]; {
	case b >= 0xC2 && b <= 0xDF:
		need = 1
	case b == 0xE0:
		need, lo = 2, 0xA0
	case b == 0xED:
		need, hi = 2, 0x9F
	case b >= 0xE1 && b <= 0xEF:
		need = 2
	case b == 0xF0:
		need, lo = 3, 0x90
	case b == 0xF4:
		need, hi = 3, 0x8F
	case b >= 0xF1 && b <= 0xF3:
		need = 3
	}
	n = 1
	for n <= need && n < len(t) && t[n] >= lo && t[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n, false
}

// finish ends the document at the end of the input.
func (d *decoder) finish() error {
	if d.rootState == rootPending {
		d.ln = lineCtx{num: d.rootNum, off: d.rootOff, text: d.rootLine}
		d.fixLine()
		if err := d.appendToken(trimSP(d.ln.text[d.rootCol:]), d.rootCol); err != nil {
			return err
		}
		if d.onLine != nil {
			d.onLine(d.written+int64(len(d.out)), d.rootNum, d.rootCol)
		}
	}
	for len(d.stack) > 1 {
		if err := d.closeTop(); err != nil {
			return err
		}
	}
	if d.rootState == rootNone {
		d.out = append(d.out, "{}"...)
		d.rootState = rootStarted
	}
	if !d.stack[0].elems {
		d.out = append(d.out, '\n')
	}
	return nil
}

// flush writes the output held.
func (d *decoder) flush() error {
	if d.werr != nil {
		return d.werr
	}
	if len(d.out) > 0 {
		if _, err := d.w.Write(d.out); err != nil {
			d.werr = err
			return err
		}
		d.written += int64(len(d.out))
		d.out = d.out[:0]
	}
	return nil
}

// errAt is a syntax error at byte col of the current line.
func (d *decoder) errAt(col int, msg string) error {
	return syntaxErrorIn(d.ln, col, msg)
}

// syntaxErrorIn is a syntax error at byte col of line ln.
func syntaxErrorIn(ln lineCtx, col int, msg string) error {
	col = min(max(col, 0), len(ln.text))
	runes := utf8.RuneCount(ln.text[:col])
	e := &jsonv.SyntaxError{Msg: msg}
	e.Pos = jsonv.Position{Offset: ln.off + int64(origOffset(ln, col, runes)), Line: max(ln.num, 1), Column: runes + 1}
	e.Excerpt, e.Caret = jsonv.Excerpt(ln.text, col)
	return e
}

// origOffset is the byte offset in the line as read of byte col of
// ln.text, which is the runes-th character: the same unless ill-formed
// UTF-8 was replaced (appendValidUTF8).
func origOffset(ln lineCtx, col, runes int) int {
	if ln.orig == nil {
		return col
	}
	i := 0
	for ; runes > 0 && i < len(ln.orig); runes-- {
		n, _ := charLen(ln.orig[i:])
		i += n
	}
	return i
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quoteForMsg quotes a piece of input for a message, cut to a readable length.
func quoteForMsg(b []byte) string {
	const most = 40
	if len(b) == 0 {
		return "nothing"
	}
	if utf8.RuneCount(b) > most {
		n := 0
		for i := range most {
			_, s := utf8.DecodeRune(b[n:])
			n += s
			_ = i
		}
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// ordinalWord writes 2 as "2nd", 3 as "3rd" and so on.
func ordinalWord(n int) string {
	suffix := "th"
	switch n % 10 {
	case 1:
		suffix = "st"
	case 2:
		suffix = "nd"
	case 3:
		suffix = "rd"
	}
	if n%100 >= 11 && n%100 <= 13 {
		suffix = "th"
	}
	return strconv.Itoa(n) + suffix
}
