package toon

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// tree is a JSON value with member order kept, for comparisons.
type tree struct {
	kind byte // 'n' null, 't' true, 'f' false, '0' number (canonical), '"' string, '{', '['
	text string
	keys []string
	vals []*tree
}

func parseTree(b []byte) (*tree, error) {
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(false))
	t, err := readTree(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, fmt.Errorf("more than one value")
	}
	return t, nil
}

func readTree(d *jsontext.Decoder) (*tree, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch k := tok.Kind(); k {
	case '{', '[':
		t := &tree{kind: byte(k)}
		for d.PeekKind() != '}' && d.PeekKind() != ']' {
			if k == '{' {
				name, err := d.ReadToken()
				if err != nil {
					return nil, err
				}
				t.keys = append(t.keys, name.String())
			}
			v, err := readTree(d)
			if err != nil {
				return nil, err
			}
			t.vals = append(t.vals, v)
		}
		_, err := d.ReadToken()
		return t, err
	case '0':
		return &tree{kind: '0', text: string(AppendNumber(nil, []byte(tok.String())))}, nil
	case '"':
		return &tree{kind: '"', text: tok.String()}, nil
	default:
		return &tree{kind: byte(k)}, nil
	}
}

func (t *tree) equal(u *tree) bool {
	if t.kind != u.kind || t.text != u.text || !slices.Equal(t.keys, u.keys) || len(t.vals) != len(u.vals) {
		return false
	}
	for i := range t.vals {
		if !t.vals[i].equal(u.vals[i]) {
			return false
		}
	}
	return true
}

// sameKeySet reports whether objects all have one non-empty set of keys.
func sameKeySet(objs []*tree) bool {
	if len(objs) == 0 {
		return false
	}
	first := slices.Sorted(slices.Values(objs[0].keys))
	for _, o := range objs {
		if o.kind != '{' || len(o.keys) == 0 || !slices.Equal(slices.Sorted(slices.Values(o.keys)), first) {
			return false
		}
	}
	return true
}

// normalize applies §2's equality rule for tabular forms: where the
// elements of an array (or the entry values of an object) are objects with
// one key set, their keys take the first one's order, the order a tabular
// or keyed header gives them. Applied to both sides of a round trip, it
// leaves every other order compared as it is.
func (t *tree) normalize() {
	for _, v := range t.vals {
		v.normalize()
	}
	if !sameKeySet(t.vals) || t.kind == '{' && len(t.vals) < 2 {
		return
	}
	order := t.vals[0].keys
	for _, o := range t.vals[1:] {
		vals := make([]*tree, len(order))
		for i, k := range order {
			vals[i] = o.vals[slices.Index(o.keys, k)]
		}
		o.keys, o.vals = slices.Clone(order), vals
	}
}

// roundTrip checks decode(encode(doc)) = doc under §2's equality, for
// every delimiter and two indent sizes; it returns a description of the
// first failure.
func roundTrip(doc []byte) string {
	in, err := parseTree(doc)
	if err != nil {
		// Not JSON without duplicate names: the encoder, which checks its
		// input itself (the CLI's fast path), must refuse it too.
		if FromJSON(io.Discard, doc, MarshalOptions{}) == nil {
			return fmt.Sprintf("Encode accepted %q, which jsontext refuses: %v", doc, err)
		}
		return ""
	}
	in.normalize()
	for _, opts := range []MarshalOptions{{}, {Delimiter: Tab, IndentSize: 4}, {Delimiter: Pipe, IndentSize: 1}} {
		var enc, dec bytes.Buffer
		if err := FromJSON(&enc, doc, opts); err != nil {
			return fmt.Sprintf("FromJSON(%s, %+v): %v", doc, opts, err)
		}
		if err := toJSON(&dec, bytes.NewReader(enc.Bytes()), decodeOptions{IndentSize: opts.IndentSize}); err != nil {
			return fmt.Sprintf("toJSON(FromJSON(%s, %+v) = %q): %v", doc, opts, enc.Bytes(), err)
		}
		out, err := parseTree(dec.Bytes())
		if err != nil {
			return fmt.Sprintf("Decode wrote invalid JSON %q: %v", dec.Bytes(), err)
		}
		if out.normalize(); !out.equal(in) {
			return fmt.Sprintf("decode(encode(x)) != x with %+v\n    x: %s\n toon: %q\n back: %s", opts, doc, enc.Bytes(), dec.Bytes())
		}
	}
	return ""
}

// TestRoundTripGenerated runs the round trip on generated documents full
// of the cases the encoder has to choose between (see docGen).
func TestRoundTripGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		g := &docGen{r: r}
		doc := g.value(nil, 0)
		if i%2 == 0 {
			doc = g.object(nil, 0)
		}
		if msg := roundTrip(doc); msg != "" {
			t.Fatal(msg)
		}
	}
	for _, doc := range []string{
		`12345678901234567890`, `[0.1000000000000000000001, 1e400, -0, 1E+3]`, `{"a":{"b":{"c":{}}}}`, `"\ud83d\ude80 \u0000"`,
		`{"__proto__":{"constructor":1}}`, `[[],[[]],{}]`, `{"":""}`, `[{"a":1,"b":2},{"b":3,"a":4}]`, strings.Repeat("[", 200) + strings.Repeat("]", 200),
	} {
		if msg := roundTrip([]byte(doc)); msg != "" {
			t.Error(msg)
		}
	}
}

// FuzzRoundTrip: decode(encode(x)) = x for any JSON x (§2 equality), and
// neither side panics.
func FuzzRoundTrip(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 50; i++ {
		g := &docGen{r: r}
		f.Add(g.object(nil, 0))
	}
	f.Add([]byte(`[{"a":1,"b":{"c":"x"}},{"b":{"c":"y"},"a":2}]`))
	f.Add([]byte(`{"k":{"x":{"a":1},"y":{"a":2}}}`))
	for _, bad := range []string{`{"a":1,"a":2}`, `[1,]`, "\"\xff\"", `"\ud800"`, `01`, `{"a" 1}`, `[1] [2]`, `nul`} {
		f.Add([]byte(bad))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if msg := roundTrip(doc); msg != "" {
			t.Fatal(msg)
		}
	})
}
