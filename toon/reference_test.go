package toon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/toonkit/toonkit/internal/toonref"
)

// TestReferenceEncoder compares Encode byte for byte with the reference
// library, @toon-format/toon (pinned in testdata/toonref, installed by
// internal/toonref), on generated documents with every delimiter and two
// indent sizes. It needs node and npm; without them it skips, saying so
// (it fails under TOONKIT_CI, which .ci/run sets).
func TestReferenceEncoder(t *testing.T) {
	type tc struct {
		Doc       string `json:"doc"`
		Delimiter string `json:"delimiter"`
		Indent    int    `json:"indent"`
	}
	r := rand.New(rand.NewPCG(4, 0))
	var cases []tc
	delims := []string{",", "\t", "|"}
	for i := 0; i < 3000; i++ {
		g := &docGen{r: r}
		var doc []byte
		if i%7 == 0 {
			doc = g.value(nil, 0)
		} else {
			doc = g.object(nil, 0)
		}
		cases = append(cases, tc{Doc: string(doc), Delimiter: delims[i%3], Indent: 2 + 2*(i/3%2)})
	}
	in, _ := json.Marshal(cases)
	script := `
const {encode} = require(require.resolve("@toon-format/toon", {paths: [process.argv[1]]}));
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(c => encode(JSON.parse(c.doc), {delimiter: c.delimiter, indent: c.indent}));
process.stdout.write(JSON.stringify(out));
`
	out := toonref.Run(t, script, in)
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(cases) {
		t.Fatalf("node output: %v (%d results for %d cases)", err, len(want), len(cases))
	}
	diff := 0
	for i, c := range cases {
		var got bytes.Buffer
		err := FromJSON(&got, []byte(c.Doc), MarshalOptions{Delimiter: Delimiter(c.Delimiter[0]), IndentSize: c.Indent})
		if err != nil {
			t.Errorf("case %d: Encode: %v\n%s", i, err, c.Doc)
			diff++
			continue
		}
		if got.String() != want[i] {
			diff++
			if diff <= 5 {
				t.Errorf("case %d (delimiter %q, indent %d): differs from the reference\ninput: %s\n got: %q\nwant: %q",
					i, c.Delimiter, c.Indent, c.Doc, got.String(), want[i])
			}
		}
	}
	t.Logf("reference encoder @toon-format/toon@%s: %d documents, %d differ", toonref.Version, len(cases), diff)
}

// docGen writes random JSON documents that exercise the encoder's choices:
// uniform and nested-uniform arrays of objects (tabular), objects of
// uniform objects (keyed), mixed arrays, arrays of arrays, empty values,
// and strings and keys that need quotes. Numbers are those a float64
// holds exactly, in JavaScript's form, so the reference agrees on them.
type docGen struct{ r *rand.Rand }

var trickyStrings = []string{
	"", " ", "a b", " lead", "trail ", "\ttab", "true", "false", "null", "42", "-3.14", "05", "1e5", "+1", "1E-7",
	"-", "- item", "-x", "#", "#tag", "a:b", "a,b", "a|b", "a\tb", "line\nbreak", "cr\rhere", "quote\"d", "back\\slash",
	"[x]", "{y}", "café", "你好", "🚀 go", "ctl\x01\x1f", "plain", "Ada Lovelace", "x.y", "é", "[]", "a - b", "a#b",
	"\uFEFFbom", "\uFEFF", "a\uFEFF", "\u00a0nbsp", "\u2028sep",
}

var trickyKeys = []string{
	"id", "name", "a", "b", "c", "x.y", "_k", "K9", "my-key", "two words", "", "1st", "a:b", "#k", "-k", "é",
	"__proto__", "constructor", "quote\"k", "tab\tk", "a,b", "a|b", "[k]", "{k}",
	"\uFEFFk",
}

func (g *docGen) str(dst []byte) []byte {
	s := trickyStrings[g.r.IntN(len(trickyStrings))]
	if g.r.IntN(4) == 0 {
		s = fmt.Sprintf("w%d %s", g.r.IntN(100), s)
	}
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

func (g *docGen) number(dst []byte) []byte {
	switch g.r.IntN(5) {
	case 0:
		return strconv.AppendInt(dst, g.r.Int64N(1<<53)-1<<52, 10)
	case 1:
		return strconv.AppendInt(dst, int64(g.r.IntN(200))-100, 10)
	case 2:
		f := math.Float64frombits(g.r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1.5
		}
		return append(dst, jsNumber(f)...)
	case 3:
		return append(dst, jsNumber(float64(g.r.IntN(100000))/100)...)
	}
	return append(dst, jsNumber(g.r.NormFloat64()*1e-7)...)
}

func (g *docGen) primitive(dst []byte) []byte {
	switch g.r.IntN(6) {
	case 0, 1:
		return g.str(dst)
	case 2, 3:
		return g.number(dst)
	case 4:
		return append(dst, []string{"true", "false"}[g.r.IntN(2)]...)
	}
	return append(dst, "null"...)
}

func (g *docGen) keys(n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		k := trickyKeys[g.r.IntN(len(trickyKeys))]
		if g.r.IntN(3) == 0 {
			k = fmt.Sprintf("k%d", g.r.IntN(50))
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func appendKey(dst []byte, k string) []byte {
	b, _ := json.Marshal(k)
	dst = append(dst, b...)
	return append(dst, ':')
}

func (g *docGen) value(dst []byte, depth int) []byte {
	if depth > 3 {
		return g.primitive(dst)
	}
	switch g.r.IntN(9) {
	case 0, 1, 2:
		return g.primitive(dst)
	case 3:
		return g.object(dst, depth+1)
	case 4:
		return g.uniform(dst, depth+1, false)
	case 5:
		return g.uniform(dst, depth+1, true)
	case 6:
		return g.primitives(dst)
	}
	return g.mixed(dst, depth+1)
}

func (g *docGen) object(dst []byte, depth int) []byte {
	dst = append(dst, '{')
	for i, k := range g.keys(g.r.IntN(5)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendKey(dst, k)
		dst = g.value(dst, depth+1)
	}
	return append(dst, '}')
}

func (g *docGen) primitives(dst []byte) []byte {
	dst = append(dst, '[')
	for i, n := 0, g.r.IntN(5); i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = g.primitive(dst)
	}
	return append(dst, ']')
}

// uniform writes an array of objects with one key set (keyed: an object
// of such objects), with nested-uniform columns now and then, shuffled
// key orders, and sometimes one element that breaks the uniformity.
func (g *docGen) uniform(dst []byte, depth int, keyed bool) []byte {
	keys := g.keys(1 + g.r.IntN(3))
	nested := map[string][]string{}
	for _, k := range keys {
		if g.r.IntN(4) == 0 {
			nested[k] = g.keys(1 + g.r.IntN(2))
		}
	}
	n := g.r.IntN(4)
	entries := g.keys(n)
	open, end := byte('['), byte(']')
	if keyed {
		open, end = '{', '}'
	}
	dst = append(dst, open)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		if keyed {
			dst = appendKey(dst, entries[i])
		}
		order := append([]string(nil), keys...)
		if g.r.IntN(3) == 0 {
			g.r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		dst = append(dst, '{')
		for j, k := range order {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendKey(dst, k)
			switch {
			case g.r.IntN(25) == 0:
				dst = g.value(dst, depth+1) // breaks uniformity, maybe
			case nested[k] != nil:
				dst = append(dst, '{')
				for m, sk := range nested[k] {
					if m > 0 {
						dst = append(dst, ',')
					}
					dst = appendKey(dst, sk)
					dst = g.primitive(dst)
				}
				dst = append(dst, '}')
			default:
				dst = g.primitive(dst)
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, end)
}

func (g *docGen) mixed(dst []byte, depth int) []byte {
	dst = append(dst, '[')
	for i, n := 0, g.r.IntN(4); i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch g.r.IntN(4) {
		case 0:
			dst = g.primitives(dst)
		case 1:
			dst = append(dst, "{}"...)
		default:
			dst = g.value(dst, depth+1)
		}
	}
	return append(dst, ']')
}
