package toon

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/netip"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// TestUnmarshalConformance runs the 538 fixtures of spec v4.1.1 through
// Unmarshal into an interface: a decode fixture's TOON must give the value
// that encoding/json decodes from its expected JSON (or a *SyntaxError
// where the fixture wants an error), and an encode fixture's expected TOON
// must give the value of its input JSON. Both are compared with and
// without UseNumber, and a Decoder (a chunk per line) must do the same.
// The fixtures are the newest version's (v4.1.1, a superset of v4.0's
// cases), with v4.4's changes (v44Changes) as errors.
func TestUnmarshalConformance(t *testing.T) {
	newest := specVersions[len(specVersions)-1]
	dir := specDir(t, newest.name, newest.dir)
	n := 0
	for _, category := range []string{"encode", "decode"} {
		files := loadFixtures(t, dir, category)
		for file, fxs := range files {
			for _, fx := range fxs {
				n++
				var toonText string
				var want []byte
				opts := UnmarshalOptions{IndentSize: fx.Options.IndentSize, NonStrict: fx.Options.Strict != nil && !*fx.Options.Strict}
				if category == "decode" {
					if err := stdjson.Unmarshal(fx.Input, &toonText); err != nil {
						t.Fatal(err)
					}
					want = fx.Expected
				} else {
					if fx.ShouldError {
						continue
					}
					if err := stdjson.Unmarshal(fx.Expected, &toonText); err != nil {
						t.Fatal(err)
					}
					want = fx.Input
				}
				if category == "decode" && v44Changes[fx.Name] {
					fx.ShouldError = true
				}
				name := category + "/" + file + "/" + fx.Name
				for _, useNumber := range []bool{false, true} {
					opts.UseNumber = useNumber
					var got, viaDec any
					err := opts.Unmarshal([]byte(toonText), &got)
					derr := decodeChunked(toonText, opts, &viaDec)
					if (err == nil) != (derr == nil) || err != nil && err.Error() != derr.Error() {
						t.Errorf("%s: Unmarshal error %v, the Decoder's %v", name, err, derr)
					}
					if fx.ShouldError {
						var se *SyntaxError
						if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
							t.Errorf("%s: Unmarshal(%q) = %v, %v; want a *SyntaxError with a position", name, toonText, got, err)
						}
						continue
					}
					if err != nil {
						t.Errorf("%s: Unmarshal(%q): %v", name, toonText, err)
						continue
					}
					var exp any
					dec := stdjson.NewDecoder(bytes.NewReader(want))
					if useNumber {
						dec.UseNumber()
					}
					if err := dec.Decode(&exp); err != nil {
						t.Fatalf("%s: expected JSON: %v", name, err)
					}
					if useNumber {
						exp = canonNumbers(exp)
					}
					if !reflect.DeepEqual(got, exp) {
						t.Errorf("%s (UseNumber %v): Unmarshal(%q)\n got: %#v\nwant: %#v", name, useNumber, toonText, got, exp)
					}
					if !reflect.DeepEqual(viaDec, exp) {
						t.Errorf("%s (UseNumber %v): a Decoder read %q as %#v", name, useNumber, toonText, viaDec)
					}
				}
			}
		}
	}
	if n != newest.cases {
		t.Errorf("ran %d fixture cases, want the %d of spec %s", n, newest.cases, newest.name)
	}
}

// canonNumbers puts the json.Numbers of v in the form Unmarshal gives:
// TOON's canonical form (§2: 1.0 is 1, 1e3 is 1000), an integer from 1e21
// up in plain digits.
func canonNumbers(v any) any {
	switch x := v.(type) {
	case stdjson.Number:
		return stdjson.Number(plainInteger(AppendNumber(nil, []byte(x))))
	case map[string]any:
		for k, e := range x {
			x[k] = canonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonNumbers(e)
		}
	}
	return v
}

// decodeToJSON is the oracle of the differential tests: Decode to JSON,
// its integers written with an exponent put in plain digits (see
// plainInteger), then encoding/json.
func decodeToJSON(doc []byte, opts UnmarshalOptions, v any) error {
	var buf bytes.Buffer
	if err := toJSON(&buf, bytes.NewReader(doc), opts.decodeOptions()); err != nil {
		return err
	}
	dec := stdjson.NewDecoder(bytes.NewReader(plainIntegers(buf.Bytes())))
	if opts.UseNumber {
		dec.UseNumber()
	}
	if opts.DisallowUnknownFields {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(v)
}

// plainIntegers rewrites the numbers of the JSON text js with
// plainInteger.
func plainIntegers(js []byte) []byte {
	var out []byte
	for i := 0; i < len(js); {
		c := js[i]
		switch {
		case c == '"':
			e := jsonv.SkipValue(js, i)
			out = append(out, js[i:e]...)
			i = e
		case c == '-' || c >= '0' && c <= '9':
			e := jsonv.SkipValue(js, i)
			out = append(out, plainInteger(js[i:e])...)
			i = e
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

type textKey struct{ a, b string }

func (k *textKey) UnmarshalText(b []byte) error {
	s := string(b)
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return fmt.Errorf("no slash in %q", s)
	}
	k.a, k.b = s[:i], s[i+1:]
	return nil
}

type rawJSON struct{ Got string }

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	r.Got = string(b)
	return nil
}

type Inner struct {
	X int `json:"x"`
	Y string
}

type Embedded struct {
	E1 string `json:"e1"`
	E2 int
}

type user struct {
	ID     int64            `json:"id"`
	Name   string           `json:"name"`
	Email  *string          `json:"email,omitempty"`
	Tags   []string         `json:"tags"`
	Scores [3]float64       `json:"scores"`
	Meta   map[string]any   `json:"meta"`
	Counts map[int]uint8    `json:"counts"`
	Pairs  map[textKey]bool `json:"pairs"`
	Inner  Inner            `json:"inner"`
	Inners []Inner          `json:"inners"`
	PInner *Inner           `json:"pinner"`
	Any    any              `json:"any"`
	When   time.Time        `json:"when"`
	Num    stdjson.Number   `json:"num"`
	Big    *big.Int         `json:"big"`
	Raw    rawJSON          `json:"raw"`
	Addr   netip.Addr       `json:"addr"`
	Bytes  []byte           `json:"bytes"`
	Str    int              `json:"str,string"`
	Skip   string           `json:"-"`
	//lint:ignore SA5008 the tag under test
	Dash   string       `json:"-,"`
	U8     uint8        `json:"u8"`
	I8     int8         `json:"i8"`
	F32    float32      `json:"f32"`
	Ptrs   []*int       `json:"ptrs"`
	Nested [][]int      `json:"nested"`
	Iface  fmt.Stringer `json:"iface"`
	//lint:ignore U1000 skipped, as the test checks
	private int
	*Embedded
}

// differentialDocs are TOON documents for the differential tests:
// objects that fit user, objects that do not, tables, nesting, nulls.
var differentialDocs = []string{
	"id: 7\nname: Ada\nemail: ada@example.com\ntags[2]: a,b\nscores[3]: 1,2.5,-3\n",
	"id: 9007199254740993\nfull_name: Bob\nNAME: Carol\n",
	"meta:\n  a: 1\n  b[2]: x,true\n  c:\n    d: null\ncounts:\n  \"1\": 2\n  \"300\": 3\n",
	"pairs:\n  a/b: true\n  nope: false\n",
	"inners[3]{x,Y}:\n  1,one\n  2,two\n  \"3\",three\n",
	"inner:\n  x: 1.5\n  Y: 2\npinner:\n  x: 4\n",
	"pinner: null\nany[2]:\n  - a: 1\n  - [2]: 1,2\n",
	"when: 2024-05-06T07:08:09Z\nnum: 12345678901234567890123\nbig: 123456789012345678901234567890\n",
	"raw:\n  a[2]: 1,2\naddr: 10.0.0.1\nbytes: aGVsbG8=\nstr: \"42\"\n",
	"Skip: s\n\"-\": dash\nu8: 256\ni8: -129\nf32: 1e40\n",
	"u8: 255\ni8: -128\nf32: 3.5\nptrs[3]: 1,null,3\nnested[2]:\n  - [2]: 1,2\n  - [0]:\n",
	"iface: x\n",
	"e1: emb\nE2: 5\n",
	"tags: notalist\nscores[4]: 1,2,3,4\n",
	"scores[1]: 9\ntags[0]:\n",
	"id: \"7\"\nname: 5\n",
	"id: 1.0\nu8: -1\n",
	"id: 1e3\n",
	"when: yesterday\n",
	"bytes: not base64!\n",
	"counts:\n  x: 1\n",
	"inners[2]:\n  - x: 1\n    Y: a\n  - 5\n",
	"[3]: 1,2,3\n",
	"hello\n",
	"",
	"id: -0\nf32: -0.0\n",
	"meta:\n  k: \"tab\\there \\\"q\\\" \\\\ \\n\"\n",
	"name: \"\u00e9t\u00e9 \U0001F600\"\n",
	"inner:\n  X: 3\n  x: 4\n",
}

// TestUnmarshalMatchesJSON decodes each differential document into a
// user, an interface and a map, with Unmarshal and with the oracle
// (Decode to JSON, then encoding/json): the values stored, and whether an
// error is given, must agree.
func TestUnmarshalMatchesJSON(t *testing.T) {
	targets := []func() any{
		func() any { return new(user) },
		func() any { return new(any) },
		func() any { return new(map[string]any) },
		func() any { return new([]int) },
		func() any { return new(string) },
		func() any {
			return &user{Tags: []string{"old", "old2", "old3"}, Scores: [3]float64{7, 8, 9}, Meta: map[string]any{"keep": true}}
		},
	}
	for _, doc := range differentialDocs {
		for ti, mk := range targets {
			for _, useNumber := range []bool{false, true} {
				opts := UnmarshalOptions{UseNumber: useNumber}
				got, want := mk(), mk()
				gerr := opts.Unmarshal([]byte(doc), got)
				werr := decodeToJSON([]byte(doc), opts, want)
				if (gerr == nil) != (werr == nil) {
					t.Errorf("doc %q target %d: Unmarshal error %v, encoding/json %v", doc, ti, gerr, werr)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("doc %q target %d:\n got: %+v\nwant: %+v", doc, ti, got, want)
				}
				// A Decoder, its JSON form in chunks of one line each,
				// stores the same and gives the same error, with the
				// same position.
				viaDec := mk()
				derr := decodeChunked(doc, opts, viaDec)
				if (derr == nil) != (gerr == nil) || gerr != nil && gerr.Error() != derr.Error() || !reflect.DeepEqual(viaDec, got) {
					t.Errorf("doc %q target %d: Decoder stored %+v (%v), Unmarshal %+v (%v)", doc, ti, viaDec, derr, got, gerr)
				}
				var te *UnmarshalTypeError
				var je *stdjson.UnmarshalTypeError
				if errors.As(werr, &je) && !errors.As(gerr, &te) {
					t.Errorf("doc %q target %d: error %v (%T), want an *UnmarshalTypeError", doc, ti, gerr, gerr)
				}
			}
		}
	}
}

// TestUnmarshalTags: the toon tag comes before the json tag, and names
// match case-insensitively when none matches exactly.
func TestUnmarshalTags(t *testing.T) {
	type tagged struct {
		A string `toon:"a" json:"x"`
		B string `json:"b"`
		C string `toon:",omitempty" json:"c"`
		D string `toon:"-" json:"d"`
	}
	var v tagged
	if err := Unmarshal([]byte("a: p\nx: q\nB: r\nc: s\nC: t\nd: u\n"), &v); err != nil {
		t.Fatal(err)
	}
	if want := (tagged{A: "p", B: "r", C: "t"}); v != want {
		t.Errorf("got %+v, want %+v", v, want)
	}
}

// decodeChunked decodes doc with a Decoder that stores the JSON form of
// each line as it comes, the smallest chunks.
func decodeChunked(doc string, opts UnmarshalOptions, v any) error {
	defer func(n int) { decoderChunk = n }(decoderChunk)
	decoderChunk = 1
	d := NewDecoder(iotest.OneByteReader(strings.NewReader(doc)))
	d.SetOptions(opts)
	return d.Decode(v)
}

func TestUnmarshalSyntaxError(t *testing.T) {
	doc := "a: 1\nb:\n  c[2]: x\n"
	var v any = "untouched"
	err := Unmarshal([]byte(doc), &v)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Unmarshal: %v (%T), want a *SyntaxError", err, err)
	}
	if v != "untouched" {
		t.Errorf("a malformed document stored %#v", v)
	}
	if se.Line != 3 || se.Column < 1 {
		t.Errorf("at %d:%d, want line 3", se.Line, se.Column)
	}
	// The message is the byte-level decoder's, and its excerpt is there.
	var je *jsonv.SyntaxError
	derr := toJSON(io.Discard, strings.NewReader(doc), decodeOptions{})
	if !errors.As(err, &je) || err.Error() != derr.Error() {
		t.Errorf("Unmarshal error %q, Decode's %q", err, derr)
	}
}

func TestUnmarshalTypeErrorPath(t *testing.T) {
	doc := "id: 1\ninners[2]{x,Y}:\n  1,a\n  two,b\ntags[1]: ok\n"
	var u user
	err := Unmarshal([]byte(doc), &u)
	var te *UnmarshalTypeError
	if !errors.As(err, &te) {
		t.Fatalf("Unmarshal: %v (%T), want an *UnmarshalTypeError", err, err)
	}
	if te.Field != "inners[1].x" || te.Value != "string" || te.Type != reflect.TypeFor[int]() || te.Line != 4 || te.Column != 3 {
		t.Errorf("got %+v (%v)", te, err)
	}
	// The rest is stored, as encoding/json does.
	if u.ID != 1 || len(u.Inners) != 2 || u.Inners[1].Y != "b" || !slices.Equal(u.Tags, []string{"ok"}) {
		t.Errorf("stored %+v", u)
	}
	want := "4:3: toon: cannot unmarshal string into Go value inners[1].x of type int"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestUnmarshalUnknownFields(t *testing.T) {
	doc := "id: 1\ninner:\n  x: 2\n  zz: 3\n"
	var u user
	err := UnmarshalOptions{DisallowUnknownFields: true}.Unmarshal([]byte(doc), &u)
	var fe *UnmarshalFieldError
	if !errors.As(err, &fe) || fe.Key != "zz" || fe.Field != "inner.zz" || fe.Line != 4 {
		t.Fatalf("got %v (%+v)", err, fe)
	}
	if err := Unmarshal([]byte(doc), &u); err != nil || u.Inner.X != 2 {
		t.Errorf("without the option: %v, %+v", err, u.Inner)
	}
}

func TestUnmarshalInvalidTarget(t *testing.T) {
	var ie *InvalidUnmarshalError
	for _, v := range []any{nil, 3, (*int)(nil)} {
		if err := Unmarshal([]byte("a: 1"), v); !errors.As(err, &ie) {
			t.Errorf("Unmarshal into %#v: %v", v, err)
		}
	}
}

func TestDecoder(t *testing.T) {
	d := NewDecoder(strings.NewReader("n: 12345678901234567890\nf: 1.50\n"))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v["n"] != stdjson.Number("12345678901234567890") || v["f"] != stdjson.Number("1.5") {
		t.Errorf("got %#v", v)
	}
	if err := d.Decode(&v); err != io.EOF {
		t.Errorf("second Decode: %v, want io.EOF", err)
	}
	// An empty input is the empty object.
	var e any
	if err := NewDecoder(strings.NewReader("")).Decode(&e); err != nil || !reflect.DeepEqual(e, map[string]any{}) {
		t.Errorf("empty input: %#v, %v", e, err)
	}
	// A syntax error stays the Decoder's answer.
	bad := NewDecoder(strings.NewReader("a:\n   b: 1\n"))
	err1, err2 := bad.Decode(&e), bad.Decode(&e)
	var se *SyntaxError
	if !errors.As(err1, &se) || err2 != err1 {
		t.Errorf("bad input: %v then %v", err1, err2)
	}
}

// nestedDoc is a document of n objects nested by key "e", the deepest
// holding a: 1.
func nestedDoc(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%se:\n", strings.Repeat("  ", i))
	}
	fmt.Fprintf(&b, "%sa: 1\n", strings.Repeat("  ", n))
	return b.Bytes()
}

// TestUnmarshalHostile: deep nesting is stored without a stack overflow
// up to the decoder's limit and is a *SyntaxError past it; a declared
// length sizes nothing; an over-long line is refused.
func TestUnmarshalHostile(t *testing.T) {
	deep := nestedDoc(maxDecodeNesting - 1)
	var ft fuzzTarget
	if err := Unmarshal(deep, &ft); err != nil {
		t.Fatalf("depth %d: %v", maxDecodeNesting-1, err)
	}
	n := 0
	for p := &ft; p.E != nil; p = p.E {
		n++
	}
	if n != maxDecodeNesting-1 {
		t.Errorf("stored %d levels", n)
	}
	var a any
	if err := Unmarshal(deep, &a); err != nil {
		t.Fatal(err)
	}
	var se *SyntaxError
	if err := Unmarshal(nestedDoc(maxDecodeNesting+1), &a); !errors.As(err, &se) {
		t.Errorf("past the limit: %v", err)
	}
	if err := NewDecoder(bytes.NewReader(nestedDoc(maxDecodeNesting + 1))).Decode(&ft); !errors.As(err, &se) {
		t.Errorf("past the limit, a Decoder: %v", err)
	}

	// A count of a billion is only checked against what comes.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var xs []int
	err := Unmarshal([]byte("[999999999]: 1,2,3\n"), &xs)
	runtime.ReadMemStats(&after)
	if !errors.As(err, &se) || xs != nil {
		t.Errorf("declared length: %v, %v", err, xs)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("a declared length of 999999999 allocated %d bytes", grew)
	}

	long := append([]byte("a: "), bytes.Repeat([]byte("x"), 5000)...)
	if err := (UnmarshalOptions{MaxLineSize: 4096}).Unmarshal(long, &a); !errors.As(err, &se) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("over-long line: %v", err)
	}
}

func TestPlainInteger(t *testing.T) {
	for in, want := range map[string]string{
		"1e+21":          "1000000000000000000000",
		"-1.5e+22":       "-15000000000000000000000",
		"1.2345e+4":      "12345",
		"1.23456e+4":     "1.23456e+4",
		"12":             "12",
		"1.5":            "1.5",
		"1e-7":           "1e-7",
		"1e+400":         "1" + strings.Repeat("0", 400),
		"1e+401":         "1e+401",
		"1e+99999999999": "1e+99999999999",
	} {
		if got := string(plainInteger([]byte(in))); got != want {
			t.Errorf("plainInteger(%s) = %s, want %s", in, got, want)
		}
	}
	// A *big.Int from 1e21 up round-trips: Marshal writes it with an
	// exponent, as §2 has it.
	n, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	doc, err := Marshal(map[string]*big.Int{"n": n})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]*big.Int
	if err := Unmarshal(doc, &back); err != nil || back["n"].Cmp(n) != 0 {
		t.Errorf("%s: %v, %v", doc, back, err)
	}
}

// TestDecoderLarge: a Decoder reading a document of many chunks stores
// what Unmarshal stores, and gives the same type error, with its line,
// for a value near the end.
func TestDecoderLarge(t *testing.T) {
	users := benchUsers(5000)
	js, err := stdjson.Marshal(users)
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := FromJSON(&doc, js, MarshalOptions{}); err != nil {
		t.Fatal(err)
	}
	if doc.Len() < 4*decodeFlushSize {
		t.Fatalf("the document is %d bytes: make it longer", doc.Len())
	}
	var got []benchUser
	if err := NewDecoder(bytes.NewReader(doc.Bytes())).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, users) {
		t.Fatal("the Decoder stored other users")
	}

	// The email of a user near the end becomes a number.
	lines := strings.Split(doc.String(), "\n")
	k := len(lines) - 1
	for !strings.HasPrefix(strings.TrimSpace(lines[k]), "email: ") {
		k--
	}
	lines[k] = lines[k][:strings.Index(lines[k], "email: ")] + "email: 12"
	bad := []byte(strings.Join(lines, "\n"))
	var a, b []benchUser
	uerr := Unmarshal(bad, &a)
	derr := NewDecoder(bytes.NewReader(bad)).Decode(&b)
	var te *UnmarshalTypeError
	if !errors.As(derr, &te) || te.Line != k+1 || !strings.HasSuffix(te.Field, ".email") {
		t.Fatalf("Decoder: %v", derr)
	}
	if uerr == nil || uerr.Error() != derr.Error() || !reflect.DeepEqual(a, b) {
		t.Errorf("Unmarshal: %v; Decoder: %v", uerr, derr)
	}
}

// TestUnmarshalMaxSize: a document over MaxSize is refused, by Unmarshal
// at once and by a Decoder once it reads past the bound; one at the bound
// is read.
func TestUnmarshalMaxSize(t *testing.T) {
	doc := []byte("a: 1\nb[3]: x,y,z\n") // 18 bytes
	opts := UnmarshalOptions{MaxSize: int64(len(doc))}
	var v any
	if err := opts.Unmarshal(doc, &v); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	d := NewDecoder(bytes.NewReader(doc))
	d.SetOptions(opts)
	if err := d.Decode(&v); err != nil {
		t.Errorf("Decoder at the bound: %v", err)
	}
	opts.MaxSize--
	if err := opts.Unmarshal(doc, &v); !errors.Is(err, ErrTooLarge) {
		t.Errorf("past the bound: %v", err)
	}
	// An endless input stops.
	d = NewDecoder(io.MultiReader(strings.NewReader("k[1000000000]:\n"), endless("  - x\n")))
	d.SetOptions(UnmarshalOptions{MaxSize: 1 << 20})
	if err := d.Decode(&v); !errors.Is(err, ErrTooLarge) || err.Error() != "the document passes the limit of 1048576 bytes" {
		t.Errorf("endless input: %v", err)
	}
}

// endlessReader repeats s without end.
type endlessReader struct {
	s   string
	off int
}

func endless(s string) *endlessReader { return &endlessReader{s: s} }

func (e *endlessReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.s[e.off:])
		n += c
		e.off = (e.off + c) % len(e.s)
	}
	return n, nil
}

// sampledReader reads r and notes the largest live heap seen every MiB.
type sampledReader struct {
	r       io.Reader
	n, next int64
	peak    uint64
}

func (s *sampledReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	if s.n >= s.next {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
		s.next = s.n + 1<<20
	}
	return n, err
}

// TestDecoderConstantMemory: a Decoder reading 40 MiB of list items into
// a value that keeps none of them ([0]int skips them) holds no more than
// a few MiB of heap.
func TestDecoderConstantMemory(t *testing.T) {
	if testing.Short() || raceflag.Enabled {
		t.Skip("40 MiB of input: not in -short or -race runs")
	}
	const items = 4 << 20 // "  - 12345\n" is 10 bytes
	in := io.MultiReader(strings.NewReader(fmt.Sprintf("[%d]:\n", items)), io.LimitReader(endless("  - 12345\n"), items*10))
	sr := &sampledReader{r: in}
	var v [0]int
	runtime.GC()
	if err := NewDecoder(sr).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if sr.n != items*10+int64(len(fmt.Sprintf("[%d]:\n", items))) {
		t.Fatalf("read %d bytes", sr.n)
	}
	if sr.peak > 16<<20 {
		t.Errorf("the heap reached %d bytes while 40 MiB were decoded", sr.peak)
	}
	t.Logf("%d bytes read, heap peak %d bytes", sr.n, sr.peak)
}

// TestUnmarshalConcurrent: goroutines decode at once, into types whose
// decoders are being made and through the pooled decoder state, each
// getting its own value (clean under -race).
func TestUnmarshalConcurrent(t *testing.T) {
	type c1 struct {
		A int      `toon:"a"`
		B []string `toon:"b"`
		N *c1      `toon:"n"`
	}
	type c2 struct {
		Rows []struct {
			X int    `toon:"x"`
			Y string `toon:"y"`
		} `toon:"rows"`
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := g*100 + i
				doc := fmt.Sprintf("a: %d\nb[2]: x%d,y\nn:\n  a: %d\n", k, k, -k)
				var v c1
				var err error
				if i%2 == 0 {
					err = Unmarshal([]byte(doc), &v)
				} else {
					err = NewDecoder(strings.NewReader(doc)).Decode(&v)
				}
				if err != nil || v.A != k || v.B[0] != fmt.Sprint("x", k) || v.N == nil || v.N.A != -k {
					errs <- fmt.Errorf("goroutine %d: %+v, %v", g, v, err)
					return
				}
				var w c2
				doc = fmt.Sprintf("rows[2]{x,y}:\n  %d,a\n  2,b\n", k)
				if err := Unmarshal([]byte(doc), &w); err != nil || len(w.Rows) != 2 || w.Rows[0].X != k {
					errs <- fmt.Errorf("goroutine %d: %+v, %v", g, w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
