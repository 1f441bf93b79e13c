package sign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/toonkit/toonkit/internal/needs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// python3 is the CPython interpreter, or a skip when there is none: these
// tests compare toonkit with CPython itself, beyond the stored vectors.
func python3(t *testing.T) string {
	return needs.Program(t, "python3", "the comparison with CPython is skipped (the stored CPython vectors still run)")
}

// randomDoc is a JSON document meant to find where toonkit and CPython
// differ: floats from random bits and from random decimal literals,
// integers of any size, strings of random code points (raw and escaped,
// lone surrogates too), names out of order and repeated, nesting.
func randomDoc(r *rand.Rand, depth int) string {
	switch k := r.IntN(10); {
	case depth > 3 || k < 4:
		return randomScalar(r)
	case k < 7:
		var b strings.Builder
		b.WriteByte('[')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(randomDoc(r, depth+1))
		}
		return b.String() + "]"
	default:
		var b strings.Builder
		b.WriteByte('{')
		for i := range r.IntN(7) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(randomString(r, 3))
			b.WriteString(": ")
			b.WriteString(randomDoc(r, depth+1))
		}
		return b.String() + "}"
	}
}

func randomScalar(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "NaN"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case 1:
		// A decimal literal with up to 25 digits and an exponent.
		digits := strconv.FormatUint(r.Uint64(), 10) + strconv.Itoa(r.IntN(1e6))
		digits = digits[:1+r.IntN(len(digits)-1)]
		lit := digits[:1]
		if len(digits) > 1 {
			lit += "." + digits[1:]
		}
		return fmt.Sprintf("%s%se%d", []string{"", "-"}[r.IntN(2)], lit, r.IntN(660)-330)
	case 2:
		return fmt.Sprintf("%d.%0*d", r.IntN(1e7)-5e6, 1+r.IntN(6), r.IntN(1e6))
	case 3:
		n := strconv.FormatUint(r.Uint64(), 10)
		for range r.IntN(3) {
			n += strconv.FormatUint(r.Uint64(), 10)
		}
		return []string{"", "-"}[r.IntN(2)] + strings.TrimLeft(n, "0") + "1"
	case 4:
		return []string{"true", "false", "null", "0", "-0", "-0.0", "Infinity", "-Infinity", "1E400", "1e-400"}[r.IntN(10)]
	default:
		return randomString(r, 12)
	}
}

func randomString(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(n + 1) {
		var c rune
		switch r.IntN(6) {
		case 0:
			c = rune(r.IntN(0x80))
		case 1:
			c = rune(0x80 + r.IntN(0x780))
		case 2:
			c = rune(0x800 + r.IntN(0xF800))
		case 3:
			c = rune(0x10000 + r.IntN(0x100000))
		default:
			c = rune(0x20 + r.IntN(0x5F))
		}
		switch {
		case c >= 0xD800 && c < 0xE000 || r.IntN(4) == 0 || c < 0x20 || c == '"' || c == '\\':
			if c >= 0x10000 {
				hi, lo := 0xD800+(c-0x10000)>>10, 0xDC00+(c-0x10000)&0x3FF
				fmt.Fprintf(&b, `\u%04X\u%04x`, hi, lo)
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestCanonicalMatchesCPython writes thousands of random documents in each
// json.dumps style and compares with what CPython writes, byte for byte.
func TestCanonicalMatchesCPython(t *testing.T) {
	py := python3(t)
	r := rand.New(rand.NewPCG(5, uint64(os.Getpid())))
	docs := make([]string, 4000)
	for i := range docs {
		docs[i] = randomDoc(r, 0)
	}
	in, _ := json.Marshal(docs)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "docs.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys
docs = json.load(open(sys.argv[1]))
out = []
for d in docs:
    v = json.loads(d)
    out.append([json.dumps(v, sort_keys=True), json.dumps(v), json.dumps(v, sort_keys=True, separators=(',', ':'))])
json.dump(out, open(sys.argv[2], 'w'))
`
	cmd := exec.Command(py, "-c", script, filepath.Join(dir, "docs.json"), filepath.Join(dir, "out.json"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	styles := []Style{{SortKeys: true}, {}, {SortKeys: true, Compact: true}}
	bad := 0
	for i, d := range docs {
		for k, st := range styles {
			got, err := Canonical(nil, []byte(d), st)
			if err != nil || string(got) != want[i][k] {
				bad++
				if bad <= 5 {
					t.Errorf("%+v of %s:\ngot  %s (%v)\nwant %s", st, d, got, err, want[i][k])
				}
			}
		}
	}
	t.Logf("%d documents, 3 styles each: %d differ from CPython", len(docs), bad)
}

// TestPythonVerifiesToonkit signs logs with toonkit and has Python, with
// the spec's generate_signature and the backend's schemes, check them (and
// that each event has the signature in both places, equal).
func TestPythonVerifiesToonkit(t *testing.T) {
	needs.Slow(t, "runs the spec's Python verifier over many streams")
	py := python3(t)
	dir := t.TempDir()
	raw, err := os.ReadFile("../../testdata/sign/python-spec.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	// Signed in meta.signature only by Python: toonkit signs it again with
	// its key and scheme, in both places, which --verify wants equal.
	metaOnly, err := os.ReadFile("../../testdata/sign/python-meta-only-spec.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string][]byte{"unsigned": []byte(unsignedLog), "python": sigMember.ReplaceAll(raw, nil), "array": []byte(prettyArray), "meta-only": metaOnly}
	for name, log := range logs {
		for i, scheme := range Schemes {
			signed := signBytes(t, "k\u00e9y", Scheme(i), log)
			path := filepath.Join(dir, name+"-"+scheme)
			if err := os.WriteFile(path, signed, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(py, "../../scripts/gen-sign-vectors.py", "--verify", "k\u00e9y", scheme, path).CombinedOutput()
			if err != nil || !bytes.HasPrefix(out, []byte("ok ")) {
				t.Errorf("%s, %s: python says %v\n%s", name, scheme, err, out)
			}
		}
	}
}
