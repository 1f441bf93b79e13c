package toon

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// encodeToString encodes a JSON text with options and returns the TOON.
func encodeToString(t *testing.T, in string, opts MarshalOptions) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := FromJSON(&out, []byte(in), opts)
	return out.String(), err
}

// TestEncodeExact covers what the spec fixtures do not show: numbers kept
// exactly, escapes in the input, the skip index, wide and reordered tables.
func TestEncodeExact(t *testing.T) {
	tests := []struct {
		name, in, want string
		opts           MarshalOptions
	}{
		{name: "big integer kept", in: `{"n":12345678901234567890}`, want: "n: 12345678901234567890"},
		{name: "long decimal kept", in: `{"x":0.1000000000000000000001}`, want: "x: 0.1000000000000000000001"},
		{name: "beyond float64 kept", in: `[1e400,-1E-400,123456789012345678901234567890]`, want: "[3]: 1e+400,-1e-400,1.2345678901234567890123456789e+29"},
		{name: "canonical forms", in: `[1.50,-0,-0.0,1E2,100e-2,0.0000001,0.000001,1e21,1e20,-5e-7]`, want: "[10]: 1.5,0,0,100,1,1e-7,0.000001,1e+21,100000000000000000000,-5e-7"},
		{name: "unicode escapes decoded", in: `{"k\u00e9y":"caf\u00e9 \ud83d\ude00","\u0041":"\/"}`, want: "\"kéy\": café 😀\nA: /"},
		{name: "escaped quoting decisions", in: `["\u0074rue","\u002d1","a\u003ab","\u0020x","\u0009","\u0000\u001f\u007f"]`, want: `[6]: "true","-1","a:b"," x","\t","\u0000\u001f` + "\x7f\""},
		{name: "control characters", in: `{"s":"\b\f\n\r\t\u0001"}`, want: `s: "\u0008\u000c\n\r\t\u0001"`},
		{name: "prototype keys", in: `{"__proto__":{"constructor":1},"prototype":[{"__proto__":1},{"__proto__":2}]}`, want: "__proto__:\n  constructor: 1\nprototype[2]{__proto__}:\n  1\n  2"},
		{name: "white space around and within", in: " \n\t{ \"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } } \n", want: "a[2]: 1,2\nb:"},
		{name: "empty root object", in: `{}`, want: ""},
		{name: "empty root array", in: `[]`, want: "[]"},
		{name: "root byte order mark string", in: `"\ufeffx"`, want: "\"\ufeffx\""},
		{name: "root empty string", in: `""`, want: `""`},
		{name: "escaped keys in header and rows", in: `[{"a\u0062":1,"c d":2},{"c\u0020d":3,"ab":4}]`, want: "[2]{ab,\"c d\"}:\n  1,2\n  4,3"},
		{name: "nested groups reordered", in: `[{"id":1,"g":{"x":1,"y":{"p":1,"q":2}}},{"g":{"y":{"q":4,"p":3},"x":2},"id":2}]`,
			want: "[2]{id,g{x,y{p,q}}}:\n  1,1,1,2\n  2,2,3,4"},
		{name: "keyed under a list item", in: `[{"m":{"a":{"v":1},"b":{"v":2}},"k":1},"x"]`, want: "[2]:\n  - m[2:]{v}:\n      a: 1\n      b: 2\n    k: 1\n  - x"},
		{name: "tab and indent 4", in: `{"a":{"t":[{"x":"p q","y":"a,b"}],"l":["a\tb","c"]}}`, opts: MarshalOptions{IndentSize: 4, Delimiter: Tab},
			want: "a:\n    t[1\t]{x\ty}:\n        p q\ta,b\n    l[2\t]: \"a\\tb\"\tc"},
		{name: "pipe", in: `{"a":"x|y","b":["x|y","z"]}`, opts: MarshalOptions{Delimiter: Pipe}, want: "a: \"x|y\"\nb[2|]: \"x|y\"|z"},
		{name: "lists in lists", in: `[[1,[2]],[],{},[{}],"x"]`, want: "[5]:\n  - [2]:\n    - 1\n    - [1]: 2\n  - [0]:\n  -\n  - [1]:\n    -\n  - x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeToString(t, tt.in, tt.opts)
			if err != nil {
				t.Fatalf("FromJSON(%s): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("FromJSON(%s)\n got: %q\nwant: %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestEncodeWide checks tables wider than wideFieldLevel, whose fields are
// looked up in a hash table when the rows' orders differ.
func TestEncodeWide(t *testing.T) {
	var in, want strings.Builder
	const width, rows = 40, 30
	r := rand.New(rand.NewPCG(1, 2))
	in.WriteString("[")
	fmt.Fprintf(&want, "[%d]{", rows)
	for f := range width {
		if f > 0 {
			want.WriteByte(',')
		}
		fmt.Fprintf(&want, "f%d", f)
	}
	want.WriteString("}:")
	for row := range rows {
		if row > 0 {
			in.WriteByte(',')
		}
		order := r.Perm(width)
		if row == 0 {
			order = nil
			for f := range width {
				order = append(order, f)
			}
		}
		in.WriteByte('{')
		for k, f := range order {
			if k > 0 {
				in.WriteByte(',')
			}
			fmt.Fprintf(&in, `"f%d":%d`, f, row*1000+f)
		}
		in.WriteByte('}')
		want.WriteString("\n  ")
		for f := range width {
			if f > 0 {
				want.WriteByte(',')
			}
			fmt.Fprintf(&want, "%d", row*1000+f)
		}
	}
	in.WriteString("]")
	got, err := encodeToString(t, in.String(), MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Errorf("wide table:\n got: %.300q\nwant: %.300q", got, want.String())
	}
}

// TestEncodeSpacing checks that white space in the input, which moves every
// offset of the skip index, never changes the output, on documents with
// large containers.
func TestEncodeSpacing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		var b strings.Builder
		genEncodeDoc(r, &b, 0, false)
		compact := b.String()
		b.Reset()
		spaced := spaceOutJSON(r, compact)
		want, err := encodeToString(t, compact, MarshalOptions{})
		if err != nil {
			t.Fatalf("FromJSON(%.200s): %v", compact, err)
		}
		got, err := encodeToString(t, spaced, MarshalOptions{})
		if err != nil {
			t.Fatalf("FromJSON(%.200s): %v", spaced, err)
		}
		if got != want {
			t.Fatalf("white space changed the output of %.200s\n got: %.300q\nwant: %.300q", compact, got, want)
		}
	}
}

// TestEncodeBOM: a UTF-8 byte order mark before the JSON text is skipped,
// as RFC 8259 lets a parser do, on the table path and the general one.
func TestEncodeBOM(t *testing.T) {
	for _, doc := range []string{`{"a": 1, "b": [1, 2]}`, `[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bo"}]`, `"x"`} {
		want, err := encodeToString(t, doc, MarshalOptions{})
		if err != nil {
			t.Fatalf("FromJSON(%s): %v", doc, err)
		}
		got, err := encodeToString(t, "\uFEFF"+doc, MarshalOptions{})
		if err != nil || got != want {
			t.Errorf("FromJSON(BOM %s) = %q, %v; want %q", doc, got, err, want)
		}
	}
}

// TestSkipIndex checks skip and count against a plain scan for every
// container of large generated documents.
func TestSkipIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	indexed := 0
	for range 30 {
		var b strings.Builder
		genEncodeDoc(r, &b, 0, false)
		doc := []byte(spaceOutJSON(r, b.String()))
		e, err := newEncoder(&bytes.Buffer{}, doc, MarshalOptions{}.encodeOptions())
		if err != nil {
			t.Fatal(err)
		}
		indexed += len(e.index)
		quoted := jsonStringMask(doc)
		for p, c := range doc {
			if c != '[' && c != '{' || quoted[p] {
				continue
			}
			end, n := plainContainerEnd(doc, p)
			if got := e.skip(p); got != end {
				t.Fatalf("skip(%d) = %d, want %d", p, got, end)
			}
			if c == '[' {
				if got := e.count(p); got != n {
					t.Fatalf("count(%d) = %d, want %d", p, got, n)
				}
			}
		}
	}
	if indexed == 0 {
		t.Error("no container was indexed: the documents are too small")
	}
}

// jsonStringMask marks the bytes of doc that are within strings.
func jsonStringMask(doc []byte) []bool {
	mask := make([]bool, len(doc))
	in := false
	for i := 0; i < len(doc); i++ {
		mask[i] = in
		switch {
		case in && doc[i] == '\\':
			i++
			mask[i] = true
		case doc[i] == '"':
			in = !in
		}
	}
	return mask
}

// plainContainerEnd returns the end of the container at p and its number of
// elements or members, by a plain scan.
func plainContainerEnd(doc []byte, p int) (end, n int) {
	depth, str, empty := 0, false, true
	for i := p; i < len(doc); i++ {
		c := doc[i]
		switch {
		case str && c == '\\':
			i++
		case c == '"':
			str = !str
			empty = false
		case str:
		case c == '[' || c == '{':
			depth++
			if depth > 1 {
				empty = false
			}
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				if !empty {
					n++
				}
				return i + 1, n
			}
		case c == ',' && depth == 1:
			n++
		case depth == 1 && !isJSONSpace(c):
			empty = false
		}
	}
	return len(doc), n
}

// genEncodeDoc writes a random JSON value with large containers: uniform and
// non-uniform arrays of objects, nested groups, keyed objects, long
// strings.
func genEncodeDoc(r *rand.Rand, b *strings.Builder, depth int, prim bool) {
	if prim || depth > 4 {
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(b, "%d", r.IntN(100000))
		case 1:
			b.WriteString(`"` + strings.Repeat("ab,", r.IntN(80)) + `"`)
		case 2:
			b.WriteString(`"x\"y\\z\u00e9"`)
		case 3:
			b.WriteString("null")
		default:
			fmt.Fprintf(b, "%g", r.Float64()*1000)
		}
		return
	}
	switch r.IntN(4) {
	case 0, 1: // array of objects, uniform or not
		n := r.IntN(40)
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, `{"id":%d,"name":`, i)
			genEncodeDoc(r, b, depth+1, true)
			if r.IntN(8) == 0 {
				b.WriteString(`,"extra":`)
				genEncodeDoc(r, b, depth+1, false)
			} else {
				b.WriteString(`,"g":{"x":1,"y":`)
				genEncodeDoc(r, b, depth+1, true)
				b.WriteString(`}`)
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
	case 2: // object, keyed or not
		n := r.IntN(20)
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, `"k%d":`, i)
			if r.IntN(3) == 0 {
				genEncodeDoc(r, b, depth+1, false)
			} else {
				b.WriteString(`{"a":`)
				genEncodeDoc(r, b, depth+1, true)
				b.WriteString(`,"b":`)
				genEncodeDoc(r, b, depth+1, true)
				b.WriteString(`}`)
			}
		}
		b.WriteByte('}')
	default: // mixed array
		n := r.IntN(10)
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			genEncodeDoc(r, b, depth+1, r.IntN(3) == 0)
		}
		b.WriteByte(']')
	}
}

// spaceOutJSON adds random white space between the tokens of a compact JSON
// text.
func spaceOutJSON(r *rand.Rand, s string) string {
	var b strings.Builder
	str := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		structural := strings.IndexByte(",:{}[]", c) >= 0 || i > 0 && strings.IndexByte(",:{}[]", s[i-1]) >= 0
		if !str && structural && r.IntN(2) == 0 {
			b.WriteString([]string{" ", "\n  ", "\t", "\r\n    "}[r.IntN(4)])
		}
		b.WriteByte(c)
		switch {
		case str && c == '\\':
			i++
			b.WriteByte(s[i])
		case c == '"':
			str = !str
		}
	}
	return b.String()
}

// TestEncodeErrors checks that bad input gives an error, and nothing
// written.
func TestEncodeErrors(t *testing.T) {
	var big strings.Builder
	big.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&big, `"k%d":%d,`, i, i)
	}
	big.WriteString(`"k5\u0030":0}`)
	deep := strings.Repeat("[", maxEncodeDepth+1) + strings.Repeat("]", maxEncodeDepth+1)
	tests := []struct {
		name, in string
		dup      bool
	}{
		{name: "duplicate", in: `{"a":1,"a":2}`, dup: true},
		{name: "duplicate escaped", in: `{"a":1,"b":{"\u0061":1,"a":2}}`, dup: true},
		{name: "duplicate in a large object", in: big.String(), dup: true},
		{name: "duplicate in a table row", in: `[{"a":1,"b":2},{"a":1,"a":2}]`, dup: true},
		{name: "empty input", in: ``},
		{name: "white space only", in: " \n "},
		{name: "unclosed object", in: `{"a":1`},
		{name: "unclosed array", in: `[1,2`},
		{name: "trailing comma", in: `[1,]`},
		{name: "trailing content", in: `[1] 2`},
		{name: "leading zero", in: `01`},
		{name: "bare point", in: `1.`},
		{name: "bad exponent", in: `1e+`},
		{name: "plus sign", in: `+1`},
		{name: "bad literal", in: `tru`},
		{name: "single quotes", in: `'a'`},
		{name: "missing colon", in: `{"a" 1}`},
		{name: "name not a string", in: `{a:1}`},
		{name: "raw control character", in: "\"a\x01b\""},
		{name: "invalid UTF-8", in: "\"a\xffb\""},
		{name: "surrogate in UTF-8", in: "\"\xed\xa0\x80\""},
		{name: "lone high surrogate", in: `"\ud800x"`},
		{name: "lone low surrogate", in: `"\udc00"`},
		{name: "reversed pair", in: `"\udc00\ud800"`},
		{name: "bad escape", in: `"\x"`},
		{name: "short unicode escape", in: `"\u12"`},
		{name: "unterminated string", in: `"abc`},
		{name: "mismatched brackets", in: `[1}`},
		{name: "too deep", in: deep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := FromJSON(&out, []byte(tt.in), MarshalOptions{})
			if err == nil {
				t.Fatalf("FromJSON(%.80q) = %q, want an error", tt.in, out.String())
			}
			if errors.Is(err, errEncodeDuplicateName) != tt.dup {
				t.Errorf("FromJSON(%.80q): error %q, duplicate name: %v, want %v", tt.in, err, !tt.dup, tt.dup)
			}
			if out.Len() > 0 {
				t.Errorf("FromJSON(%.80q) wrote %q before its error", tt.in, out.String())
			}
			if !strings.HasPrefix(err.Error(), "toon: encode: ") || !strings.Contains(err.Error(), "byte ") {
				t.Errorf("error %q: want the toon: encode: prefix and a byte offset", err)
			}
		})
	}
}

// TestEncodeDepthLimit checks the deepest nesting accepted.
func TestEncodeDepthLimit(t *testing.T) {
	// The output grows with the square of the depth (indentation).
	in := strings.Repeat(`{"a":[`, maxEncodeDepth/2) + strings.Repeat(`]}`, maxEncodeDepth/2)
	var w encLineCounter
	if err := FromJSON(&w, []byte(in), MarshalOptions{}); err != nil {
		t.Fatalf("nesting of %d: %v", maxEncodeDepth, err)
	}
	if n := w.lines + 1; n != maxEncodeDepth/2 {
		t.Errorf("nesting of %d: %d lines, want %d", maxEncodeDepth, n, maxEncodeDepth/2)
	}
}

type encLineCounter struct{ lines int }

func (w *encLineCounter) Write(p []byte) (int, error) {
	w.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// TestEncodeOptions checks the options' defaults and errors.
func TestEncodeOptions(t *testing.T) {
	in := `{"a":{"b":["x,y","z"]}}`
	def, err := encodeToString(t, in, MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := encodeToString(t, in, MarshalOptions{IndentSize: 2, Delimiter: Comma})
	if err != nil || def != explicit || def != "a:\n  b[2]: \"x,y\",z" {
		t.Errorf("defaults: %q, explicit: %q, %v", def, explicit, err)
	}
	if _, err := encodeToString(t, in, MarshalOptions{Delimiter: ';'}); err == nil {
		t.Error("delimiter ';' accepted")
	}
	if _, err := encodeToString(t, in, MarshalOptions{IndentSize: -1}); err == nil {
		t.Error("negative indent accepted")
	}
	if err := FromJSON(nil, []byte(in), MarshalOptions{}); err == nil {
		t.Error("nil writer accepted")
	}
	// Wide indentation: no overflow, written in chunks.
	var w encChunkWriter
	if err := FromJSON(&w, []byte(`{"a":{"b":{"c":1}}}`), MarshalOptions{IndentSize: 100000}); err != nil {
		t.Fatal(err)
	}
	if want := len("a:\nb:\nc: 1") + 3*100000; w.size != want || w.max > 2*encodeChunk {
		t.Errorf("indent 100000: %d bytes in writes of up to %d, want %d", w.size, w.max, want)
	}
}

// encFailWriter fails every write.
type encFailWriter struct{ calls int }

func (w *encFailWriter) Write(p []byte) (int, error) {
	w.calls++
	return 0, errors.New("disk full")
}

// TestEncodeWriteError checks that a write error is returned, and that
// writing stops at it.
func TestEncodeWriteError(t *testing.T) {
	for _, tags := range []bool{false, true} {
		var w encFailWriter
		err := FromJSON(&w, encodeBenchRecords(5000, tags), MarshalOptions{})
		if err == nil || err.Error() != "disk full" {
			t.Fatalf("tags %v: error %v, want disk full", tags, err)
		}
		if w.calls != 1 {
			t.Errorf("tags %v: %d writes after the error, want none", tags, w.calls-1)
		}
	}
}

// TestEncodeStreams checks that large output of the general path reaches
// the writer in chunks, not in one piece at the end. (The one-pass table
// form holds its output until the end of the text: see fastTable.)
func TestEncodeStreams(t *testing.T) {
	var w encChunkWriter
	doc := encodeBenchRecords(20000, true)
	if err := FromJSON(&w, doc, MarshalOptions{}); err != nil {
		t.Fatal(err)
	}
	if w.max > 2*encodeChunk || w.n < 2 {
		t.Errorf("%d writes, the largest %d bytes: want chunks of about %d", w.n, w.max, encodeChunk)
	}
}

type encChunkWriter struct{ n, max, size int }

func (w *encChunkWriter) Write(p []byte) (int, error) {
	w.n++
	w.max = max(w.max, len(p))
	w.size += len(p)
	return len(p), nil
}

// TestEncodeAllocs checks that the work per row allocates nothing: the
// allocations of a document do not grow with its rows.
func TestEncodeAllocs(t *testing.T) {
	for _, tags := range []bool{false, true} {
		small, large := encodeBenchRecords(100, tags), encodeBenchRecords(10000, tags)
		a := testing.AllocsPerRun(5, func() { FromJSON(encDiscard{}, small, MarshalOptions{}) })
		b := testing.AllocsPerRun(5, func() { FromJSON(encDiscard{}, large, MarshalOptions{}) })
		if b > a+5 {
			t.Errorf("tags %v: %v allocations for 100 rows, %v for 10000", tags, a, b)
		}
	}
}

type encDiscard struct{}

func (encDiscard) Write(p []byte) (int, error) { return len(p), nil }
