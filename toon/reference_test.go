package toon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/needs"
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

// TestReferenceEncoderRealFiles encodes real JSON files, those the
// machine's packages ship (Go's tree, /usr/share, /usr/lib: up to 300 of
// up to 256 KiB, spread over the list in name order), with toonkit and with
// the reference library: the TOON must be byte for byte the same, but
// where a file holds a number that a JavaScript number does not keep
// exactly (toonkit keeps every digit: a documented difference, counted).
// Files that are not JSON, or that repeat a member name, which toonkit
// refuses, are counted and left out. It takes seconds (the walk, and the
// reference on big files): make test-slow runs it.
func TestReferenceEncoderRealFiles(t *testing.T) {
	needs.Slow(t, "300 real JSON files through the reference encoder")
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	var all []string
	for _, root := range []string{strings.TrimSpace(string(goroot)), "/usr/share", "/usr/lib"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if info, err := d.Info(); err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".json") && info.Size() <= 256<<10 {
				all = append(all, p)
			}
			return nil
		})
	}
	sort.Strings(all)
	step := max(1, len(all)/300)
	var files []string
	var docs []string
	skipped := 0
	for i := 0; i < len(all); i += step {
		b, err := os.ReadFile(all[i])
		if err != nil || !utf8.Valid(b) || FromJSON(io.Discard, b, MarshalOptions{}) != nil || !json.Valid(b) {
			skipped++
			continue
		}
		files, docs = append(files, all[i]), append(docs, string(b))
	}
	if len(files) < 20 {
		t.Fatalf("only %d JSON files found under Go's tree, /usr/share and /usr/lib", len(files))
	}
	in, _ := json.Marshal(docs)
	out := toonref.Run(t, `
const {encode} = require(require.resolve("@toon-format/toon", {paths: [process.argv[1]]}));
const docs = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(docs.map(d => encode(JSON.parse(d)))));
`, in)
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(docs) {
		t.Fatalf("node output: %v (%d results for %d files)", err, len(want), len(docs))
	}
	same, inexact := 0, 0
	for i, doc := range docs {
		var got bytes.Buffer
		if err := FromJSON(&got, []byte(doc), MarshalOptions{}); err != nil {
			t.Fatalf("%s: %v", files[i], err)
		}
		switch {
		case got.String() == want[i]:
			same++
		case !jsExactNumbers([]byte(doc)):
			inexact++
		default:
			t.Errorf("%s: toonkit's TOON differs from the reference's\n got: %.300q\nwant: %.300q", files[i], got.String(), want[i])
		}
	}
	t.Logf("reference encoder on %d real JSON files: %d byte for byte the same, %d differ only by numbers JavaScript rounds; %d files left out (not JSON, or a repeated member name)", len(files), same, inexact, skipped)
}

// jsExactNumbers reports whether every number of the JSON text doc is
// written by JavaScript as toonkit writes it (its binary64 value prints as
// the canonical decimal of its digits).
func jsExactNumbers(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		if n, ok := tok.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || jsNumber(f) != string(AppendNumber(nil, []byte(n))) {
				return false
			}
		}
	}
}
