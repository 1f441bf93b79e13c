package toon

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/toonref"
)

// refDecodeScript decodes each case with the reference library's
// decodeStreamSync and writes the value it builds as JSON text: an object
// keeps each key at its first place with its last value, as the
// reference's own decode() builds a JavaScript object (and as jq keeps
// duplicates), but without JavaScript's reordering of integer-like keys,
// which is the host's and not TOON's. The input bytes are read as UTF-8,
// ill-formed sequences becoming U+FFFD, as a JavaScript caller's string
// would hold them.
const refDecodeScript = `
const {decodeStreamSync} = require(require.resolve("@toon-format/toon", {paths: [process.argv[1]]}));
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
function ser(v) {
  if (v instanceof Map) return "{" + [...v].map(([k, x]) => JSON.stringify(k) + ":" + ser(x)).join(",") + "}";
  if (Array.isArray(v)) return "[" + v.map(ser).join(",") + "]";
  return JSON.stringify(v);
}
function build(events) {
  const stack = []; let root, key;
  const put = (v) => {
    if (stack.length === 0) { root = v; return; }
    const top = stack[stack.length - 1];
    if (Array.isArray(top.c)) top.c.push(v); else { top.c.set(top.k, v); }
  };
  for (const e of events) {
    switch (e.type) {
    case "startObject": { const m = new Map(); put(m); stack.push({c: m}); break; }
    case "startArray": { const a = []; put(a); stack.push({c: a}); break; }
    case "endObject": case "endArray": stack.pop(); break;
    case "key": stack[stack.length - 1].k = e.key; break;
    case "primitive": put(e.value); break;
    }
  }
  return root;
}
const out = cases.map(c => {
  const text = Buffer.from(c.doc, "base64").toString("utf8");
  try {
    return {ok: true, json: ser(build(decodeStreamSync(text.split("\n"), {indent: c.indent, strict: c.strict})))};
  } catch (e) {
    return {ok: false, err: String(e && e.message || e)};
  }
});
process.stdout.write(JSON.stringify(out));
`

type refCase struct {
	Doc    string `json:"doc"` // base64
	Indent int    `json:"indent"`
	Strict bool   `json:"strict"`
}

type refResult struct {
	OK   bool   `json:"ok"`
	JSON string `json:"json"`
	Err  string `json:"err"`
}

// refDecode decodes the cases with the reference library.
func refDecode(t *testing.T, docs [][]byte, indents []int) (strict, lax []refResult) {
	t.Helper()
	var cases []refCase
	for i, d := range docs {
		b := base64.StdEncoding.EncodeToString(d)
		cases = append(cases, refCase{b, indents[i], true}, refCase{b, indents[i], false})
	}
	in, _ := json.Marshal(cases)
	var res []refResult
	if err := json.Unmarshal(toonref.Run(t, refDecodeScript, in), &res); err != nil || len(res) != len(cases) {
		t.Fatalf("reference output: %v (%d results for %d cases)", err, len(res), len(cases))
	}
	for i := 0; i < len(res); i += 2 {
		strict, lax = append(strict, res[i]), append(lax, res[i+1])
	}
	return strict, lax
}

// The deliberate differences from the reference, documented in
// docs/formats/toon.md ("Where toonkit differs from the reference"):
const (
	diffNone    = ""
	diffNumber  = "a number beyond binary64's range stays a number (the reference reads it as a string)"
	diffUTF8    = "ill-formed UTF-8 is an error in strict mode (the reference's caller holds a string, U+FFFD already in it)"
	diffUnknown = "undocumented"
)

// compareDecode compares toonkit's decode of doc with the reference's,
// numbers by their binary64 value (the reference's numbers are binary64;
// toonkit keeps every digit). It returns diffNone when they agree: the
// same value, or both an error.
func compareDecode(doc []byte, strict bool, got []byte, gotErr error, ref refResult) string {
	if gotErr != nil && !ref.OK {
		return diffNone
	}
	if gotErr != nil {
		if strict && !utf8.Valid(doc) {
			return diffUTF8
		}
		return diffUnknown
	}
	if !ref.OK {
		return diffUnknown
	}
	a, err1 := refTokens(got)
	b, err2 := refTokens([]byte(ref.JSON))
	if err1 != nil || err2 != nil || len(a) != len(b) {
		return diffUnknown
	}
	kind := diffNone
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		// 1e400: toonkit's number overflows binary64, the reference
		// kept the token as a string.
		if strings.HasPrefix(a[i], "inf:") && strings.HasPrefix(b[i], "s:") {
			var s string
			if json.Unmarshal([]byte(b[i][2:]), &s) == nil && numberSyntax.MatchString(s) {
				if f, _ := strconv.ParseFloat(s, 64); math.IsInf(f, 0) && "inf:"+strconv.FormatFloat(f, 'g', -1, 64) == a[i] {
					kind = diffNumber
					continue
				}
			}
		}
		return diffUnknown
	}
	return kind
}

var numberSyntax = regexp.MustCompile(`^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$`)

// refTokens lists a JSON text's tokens, each number as the binary64 it
// rounds to ("inf:+Inf" where it overflows).
func refTokens(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []string
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return nil, err
		}
		switch v := tok.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if math.IsInf(f, 0) && err != nil {
				out = append(out, "inf:"+strconv.FormatFloat(f, 'g', -1, 64))
				continue
			}
			if f == 0 {
				f = 0 // -0 is 0 in both
			}
			out = append(out, "n:"+strconv.FormatFloat(f, 'g', -1, 64))
		case string:
			q, _ := json.Marshal(v)
			out = append(out, "s:"+string(q))
		default:
			out = append(out, fmt.Sprintf("%T:%v", v, v))
		}
	}
}

// TestReferenceDecoder is the differential test of issue 33: toonkit's
// decoder against the reference library's (@toon-format/toon, pinned in
// testdata/toonref), in strict and non-strict mode, on the spec's decode
// fixtures of every version and on documents toonkit encodes, each also
// damaged by seeded random edits: lines re-indented (spaces, tabs),
// deleted, duplicated, swapped or made blank; a BOM, trailing spaces,
// CRLF, comment lines, wrong [N], missing colons, cells added or dropped,
// spaces inside headers and after "- ", quoted keys with colons and
// ill-formed UTF-8. Both must reach the same outcome: the same value, or
// both an error. The only differences allowed are the documented ones
// (diffNumber, diffUTF8), which are counted.
func TestReferenceDecoder(t *testing.T) {
	docs, indents := refDiffCorpus(t)
	strict, lax := refDecode(t, docs, indents)
	counts := map[string]int{}
	var failures []string
	for i, doc := range docs {
		for _, mode := range []struct {
			strict bool
			ref    refResult
		}{{true, strict[i]}, {false, lax[i]}} {
			var out bytes.Buffer
			err := toJSON(&out, bytes.NewReader(doc), decodeOptions{IndentSize: indents[i], NonStrict: !mode.strict})
			d := compareDecode(doc, mode.strict, out.Bytes(), err, mode.ref)
			counts[d]++
			if d == diffUnknown && len(failures) < 12 {
				got := out.String()
				if err != nil {
					got = "error: " + err.Error()
				}
				want := mode.ref.JSON
				if !mode.ref.OK {
					want = "error: " + mode.ref.Err
				}
				failures = append(failures, fmt.Sprintf("strict=%v indent=%d %q\n   toonkit: %s\n reference: %s", mode.strict, indents[i], doc, strings.TrimSpace(got), want))
			}
		}
	}
	t.Logf("reference decoder @toon-format/toon@%s: %d documents x 2 modes: %d agree, %d %s, %d %s, %d undocumented",
		toonref.Version, len(docs), counts[diffNone], counts[diffNumber], diffNumber, counts[diffUTF8], diffUTF8, counts[diffUnknown])
	for _, f := range failures {
		t.Error(f)
	}
	if counts[diffUnknown] > len(failures) {
		t.Errorf("... and %d more undocumented differences", counts[diffUnknown]-len(failures))
	}
	if len(docs) < 2000 {
		t.Errorf("the corpus has %d documents, want at least 2000", len(docs))
	}
}

// refDiffCorpus is TestReferenceDecoder's documents and their indent
// sizes: every decode fixture's input, documents encoded from docGen's
// values (indents 2 and 4, every delimiter), and a damaged copy of each,
// more for the short ones.
func refDiffCorpus(t *testing.T) ([][]byte, []int) {
	t.Helper()
	var seeds [][]byte
	var seedIndent []int
	for _, in := range decFixtureInputs(t) {
		seeds, seedIndent = append(seeds, []byte(in)), append(seedIndent, 2)
	}
	r := rand.New(rand.NewPCG(33, 1))
	delims := []Delimiter{Comma, Tab, Pipe}
	for i := 0; i < 400; i++ {
		g := &docGen{r: r}
		v := g.object(nil, 0)
		if i%5 == 0 {
			v = g.value(nil, 0)
		}
		ind := 2 + 2*(i%2)
		var b bytes.Buffer
		if err := FromJSON(&b, v, MarshalOptions{Delimiter: delims[i%3], IndentSize: ind}); err != nil {
			t.Fatalf("FromJSON(%s): %v", v, err)
		}
		seeds, seedIndent = append(seeds, b.Bytes()), append(seedIndent, ind)
	}
	for _, h := range handSeeds {
		seeds, seedIndent = append(seeds, []byte(h)), append(seedIndent, 2)
	}
	docs := append([][]byte{}, seeds...)
	indents := append([]int{}, seedIndent...)
	for i := 0; len(docs) < 2*len(seeds)+1000; i++ {
		s := i % len(seeds)
		docs = append(docs, mutate(r, seeds[s], seedIndent[s]))
		indents = append(indents, seedIndent[s])
	}
	return docs, indents
}

// handSeeds are documents of the forms the generated ones lack.
var handSeeds = []string{
	"# a comment\nname: Ada\n  # indented comment\nage: 3",
	"users[2]{id,name}:\n  1,Ada\n  # between rows\n  2,Bob",
	"u[2:]{x,y}:\n  a: 1,2\n  b: 3,4",
	"[2:]{x}:\n  a: 1\n  b: 2",
	"items[2]{a{b,c},d}:\n  1,2,3\n  4,5,6",
	"\"a:b\": 1\n\"c[2]\": x\n\"d\"[2]: 1,2",
	"list[3]:\n  - a\n  -   b\n  - k: v\n    m: n",
	"m:\n  n:\n    o: 1\n  p: 2\nq: 3",
	"[3]:\n  - [2]: 1,2\n  - {}\n  - \"x\"",
	"a[2\t]: 1\t2\nb[2|]: 1|2",
	"s: \"\\u00e9\\n\\t\"\nt: \"\uFEFFbom inside\"",
	"nums[3]: 1e400,-0,12345678901234567890",
	"items[2]{a{b,c}|d}:\n  1,2,3\n  4,5,6",
	"t[2|]{a|b}:\n  1|2\n  3|4\nu[1\t]{a\tb}:\n  1\t2",
	"t[1]: a\"b,c\"\nu[1]{x,y}:\n  a\"b,c\",d\nv[1]{a\"b,c\"}:\n  1",
	"a\"b: c\": 1\nk[1]{K\"9}:\n  1",
	"e: \xe2\x82\nf: \xf0\x9f\x98x\ng: \xed\xa0\x80",
}

// mutate returns doc damaged by one to three seeded random edits.
func mutate(r *rand.Rand, doc []byte, indent int) []byte {
	lines := bytes.Split(append([]byte{}, doc...), []byte("\n"))
	pick := func() int { return r.IntN(len(lines)) }
	for n := 1 + r.IntN(3); n > 0; n-- {
		i := pick()
		l := lines[i]
		switch r.IntN(23) {
		case 0: // one space more or less
			if len(l) > 0 && l[0] == ' ' && r.IntN(2) == 0 {
				lines[i] = l[1:]
			} else {
				lines[i] = append([]byte(" "), l...)
			}
		case 1: // one level more
			lines[i] = append(bytes.Repeat([]byte(" "), indent), l...)
		case 2: // spaces to a tab, or a tab added
			sp := len(l) - len(bytes.TrimLeft(l, " "))
			if sp >= indent {
				lines[i] = append(append([]byte("\t"), l[:sp-indent]...), l[sp:]...)
			} else {
				lines[i] = append([]byte("\t"), l...)
			}
		case 3: // deleted
			if len(lines) > 1 {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 4: // duplicated
			lines = append(lines[:i+1], append([][]byte{append([]byte{}, l...)}, lines[i+1:]...)...)
		case 5: // swapped with the next
			if i+1 < len(lines) {
				lines[i], lines[i+1] = lines[i+1], lines[i]
			}
		case 6: // a blank line: empty, spaces, or a tab
			blank := [][]byte{{}, []byte("  "), []byte("\t"), []byte(" \t ")}[r.IntN(4)]
			lines = append(lines[:i], append([][]byte{blank}, lines[i:]...)...)
		case 7: // a comment line
			c := [][]byte{[]byte("# note"), []byte("  # note"), []byte("\t# note"), []byte("#")}[r.IntN(4)]
			lines = append(lines[:i], append([][]byte{c}, lines[i:]...)...)
		case 8: // trailing spaces or a trailing tab
			lines[i] = append(l, [][]byte{[]byte("  "), []byte("\t"), []byte(" ")}[r.IntN(3)]...)
		case 9: // CRLF on every line, or on one
			if r.IntN(2) == 0 {
				for j := range lines {
					lines[j] = append(lines[j], '\r')
				}
			} else {
				lines[i] = append(l, '\r')
			}
		case 10: // a BOM
			lines[0] = append([]byte("\uFEFF"), lines[0]...)
		case 11: // a wrong [N]
			lines[i] = wrongCount(r, l)
		case 12: // a colon removed
			if j := bytes.IndexByte(l, ':'); j >= 0 {
				lines[i] = append(append([]byte{}, l[:j]...), l[j+1:]...)
			}
		case 13: // a cell added or dropped
			if j := bytes.LastIndexAny(l, ",|\t"); j >= 0 && r.IntN(2) == 0 {
				lines[i] = l[:j]
			} else {
				lines[i] = append(l, []byte{",|\t"[r.IntN(3)], 'x'}...)
			}
		case 14: // a space before "[" or "{", or inside a header
			if j := bytes.IndexAny(l, "[{]"); j >= 0 {
				lines[i] = append(append(append([]byte{}, l[:j]...), ' '), l[j:]...)
			}
		case 15: // spaces after "- "
			if j := bytes.Index(l, []byte("- ")); j >= 0 {
				lines[i] = append(append(append([]byte{}, l[:j+2]...), "  "...), l[j+2:]...)
			}
		case 16: // a key quoted, with a colon in it
			sp := len(l) - len(bytes.TrimLeft(l, " "))
			if j := bytes.IndexByte(l, ':'); j > sp {
				lines[i] = append(append(append([]byte{}, l[:sp]...), `"k:`+string(l[sp:j])+`"`...), l[j:]...)
			}
		case 17: // ill-formed UTF-8: a stray byte
			j := r.IntN(len(l) + 1)
			lines[i] = append(append(append([]byte{}, l[:j]...), []byte{0xff, 0x80, 0xc3}[r.IntN(3)]), l[j:]...)
		case 18: // a line dedented to the left margin
			lines[i] = bytes.TrimLeft(l, " ")
		case 19: // a key-value line or a row inserted at this line's indentation
			sp := len(l) - len(bytes.TrimLeft(l, " "))
			ins := [][]byte{[]byte("extra: 1"), []byte("1,2"), []byte("- x"), []byte("z")}[r.IntN(4)]
			lines = append(lines[:i], append([][]byte{append(append([]byte{}, l[:sp]...), ins...)}, lines[i:]...)...)
		case 20: // a space before a nested field group, or after "{"
			if j := bytes.LastIndexByte(l, '{'); j > 0 {
				lines[i] = append(append(append([]byte{}, l[:j+r.IntN(2)]...), ' '), l[j+r.IntN(2):]...)
			}
		case 21: // a header's delimiter changed
			if j := bytes.IndexAny(l, "]"); j > 0 {
				d := []string{"", "|", "\t"}[r.IntN(3)]
				k := j
				if l[j-1] == '|' || l[j-1] == '\t' {
					k = j - 1
				}
				lines[i] = append(append(append([]byte{}, l[:k]...), d...), l[j:]...)
			}
		case 22: // a stray double quote
			j := r.IntN(len(l) + 1)
			lines[i] = append(append(append([]byte{}, l[:j]...), '"'), l[j:]...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

var countRe = regexp.MustCompile(`\[(\d+)`)

// wrongCount changes the first [N] of line l by one up or down.
func wrongCount(r *rand.Rand, l []byte) []byte {
	m := countRe.FindSubmatchIndex(l)
	if m == nil {
		return l
	}
	n, _ := strconv.Atoi(string(l[m[2]:m[3]]))
	if n == 0 || r.IntN(2) == 0 {
		n++
	} else {
		n--
	}
	return append(append(append([]byte{}, l[:m[2]]...), strconv.Itoa(n)...), l[m[3]:]...)
}
