package sign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

type pyVector struct {
	Name   string  `json:"name"`
	Input  string  `json:"input"`
	Output *string `json:"output"`
	Error  *string `json:"error"`
	HMAC   *string `json:"hmac_sha256"`
}

func loadVectors(t testing.TB) (key string, cases []pyVector) {
	b, err := os.ReadFile("../../testdata/sign/python-json-dumps-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Key   string     `json:"hmac_key"`
		Count int        `json:"count"`
		Cases []pyVector `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != f.Count || f.Count != 210 {
		t.Fatalf("%d cases, the file says %d", len(f.Cases), f.Count)
	}
	return f.Key, f.Cases
}

// TestPythonVectors checks the canonical form of each of CPython 3.11's
// 210 cases byte for byte, its HMAC, and that what Python rejects is
// rejected.
func TestPythonVectors(t *testing.T) {
	key, cases := loadVectors(t)
	passed := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Canonical(nil, []byte(c.Input), Style{SortKeys: true})
			if c.Error != nil {
				if err == nil {
					t.Fatalf("accepted; Python says %s (we wrote %.80q)", *c.Error, got)
				}
				passed++
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v; Python wrote %.80q", err, *c.Output)
			}
			if string(got) != *c.Output {
				t.Fatalf("\ngot  %.200q\nwant %.200q", got, *c.Output)
			}
			m := hmac.New(sha256.New, []byte(key))
			m.Write(got)
			if h := hex.EncodeToString(m.Sum(nil)); c.HMAC == nil || h != *c.HMAC {
				t.Fatalf("hmac %s, want %v", h, c.HMAC)
			}
			passed++
		})
	}
	t.Logf("python json.dumps vectors: %d of %d passed", passed, len(cases))
}

func TestCanonicalErrorsAtPythonOffsets(t *testing.T) {
	_, cases := loadVectors(t)
	for _, c := range cases {
		if c.Error == nil || !strings.Contains(*c.Error, "(char ") {
			continue
		}
		_, err := Canonical(nil, []byte(c.Input), Style{SortKeys: true})
		pe, ok := err.(*parseError)
		if !ok {
			t.Errorf("%s: %v is not a parse error", c.Name, err)
			continue
		}
		var want int
		e := *c.Error
		if _, serr := fmt.Sscanf(e[strings.LastIndex(e, "(char "):], "(char %d)", &want); serr != nil {
			t.Fatal(serr)
		}
		if pe.off != want {
			t.Errorf("%s: error %q at byte %d, Python says %s", c.Name, pe.msg, pe.off, e)
		}
	}
}

// TestNameOrder checks json.dumps's order of names, and the value a
// repeated name keeps, where names share their first bytes, hold NUL,
// non-ASCII characters, lone surrogates and escapes of other names, and
// in objects of more members than the small-object paths take. The
// outputs are CPython 3's.
func TestNameOrder(t *testing.T) {
	var many strings.Builder
	many.WriteString("{")
	for i := 33; i >= 0; i-- {
		fmt.Fprintf(&many, `"m%02d":%d,`, i, 33-i)
	}
	many.WriteString(`"m\u0030\u0035":99,"m33":100}`)
	cases := []struct {
		in           string
		st           Style
		sorted, kept string
	}{
		{`{"ab":1,"ab\u0000":2,"a":3,"ab\u0000\u0000":4,"\u0000":5,"":6,"b":7}`, Style{},
			`{"": 6, "\u0000": 5, "a": 3, "ab": 1, "ab\u0000": 2, "ab\u0000\u0000": 4, "b": 7}`,
			`{"ab": 1, "ab\u0000": 2, "a": 3, "ab\u0000\u0000": 4, "\u0000": 5, "": 6, "b": 7}`},
		{`{"abcdefgh1":1,"abcdefgh":2,"abcdefgh0":3,"abcdefgi":4,"abcdefg":5,"abcdefgh\u0000":6}`, Style{},
			`{"abcdefg": 5, "abcdefgh": 2, "abcdefgh\u0000": 6, "abcdefgh0": 3, "abcdefgh1": 1, "abcdefgi": 4}`,
			`{"abcdefgh1": 1, "abcdefgh": 2, "abcdefgh0": 3, "abcdefgi": 4, "abcdefg": 5, "abcdefgh\u0000": 6}`},
		{`{"z":1,"\u00e9":2,"\ud800":3,"\ue000":4,"\ud83d\ude00":5,"\u007f":6,"~":7}`, Style{},
			`{"z": 1, "~": 7, "\u007f": 6, "\u00e9": 2, "\ud800": 3, "\ue000": 4, "\ud83d\ude00": 5}`,
			`{"z": 1, "\u00e9": 2, "\ud800": 3, "\ue000": 4, "\ud83d\ude00": 5, "\u007f": 6, "~": 7}`},
		{`{"k":0,"j":1,"i":2,"h":3,"g":4,"f":5,"e":6,"d":7,"c":8,"b":9,"a":10,"\u0061":11,"l":12,"m":13,"n":14,"o":15,"p":16,"a":17,"k":18,"q":19}`, Style{},
			`{"a": 17, "b": 9, "c": 8, "d": 7, "e": 6, "f": 5, "g": 4, "h": 3, "i": 2, "j": 1, "k": 18, "l": 12, "m": 13, "n": 14, "o": 15, "p": 16, "q": 19}`,
			`{"k": 18, "j": 1, "i": 2, "h": 3, "g": 4, "f": 5, "e": 6, "d": 7, "c": 8, "b": 9, "a": 17, "l": 12, "m": 13, "n": 14, "o": 15, "p": 16, "q": 19}`},
		{`{"b":1,"a":2,"b":3}`, Style{}, `{"a": 2, "b": 3}`, `{"b": 3, "a": 2}`},
		{`{"b":1,"a":2,"\u0062":3,"a":4,"c":5}`, Style{}, `{"a": 4, "b": 3, "c": 5}`, `{"b": 3, "a": 4, "c": 5}`},
		{many.String(), Style{Compact: true},
			`{"m00":33,"m01":32,"m02":31,"m03":30,"m04":29,"m05":99,"m06":27,"m07":26,"m08":25,"m09":24,"m10":23,"m11":22,"m12":21,"m13":20,"m14":19,"m15":18,"m16":17,"m17":16,"m18":15,"m19":14,"m20":13,"m21":12,"m22":11,"m23":10,"m24":9,"m25":8,"m26":7,"m27":6,"m28":5,"m29":4,"m30":3,"m31":2,"m32":1,"m33":100}`,
			`{"m33":100,"m32":1,"m31":2,"m30":3,"m29":4,"m28":5,"m27":6,"m26":7,"m25":8,"m24":9,"m23":10,"m22":11,"m21":12,"m20":13,"m19":14,"m18":15,"m17":16,"m16":17,"m15":18,"m14":19,"m13":20,"m12":21,"m11":22,"m10":23,"m09":24,"m08":25,"m07":26,"m06":27,"m05":99,"m04":29,"m03":30,"m02":31,"m01":32,"m00":33}`},
	}
	for _, c := range cases {
		for _, sorted := range []bool{true, false} {
			st, want := c.st, c.kept
			if st.SortKeys = sorted; sorted {
				want = c.sorted
			}
			// The input alone, and at the start of a longer buffer (names
			// followed by 8 bytes or more are read 8 bytes at a time).
			for _, in := range []string{c.in, c.in + "        "} {
				got, err := Canonical(nil, []byte(in), st)
				if err != nil || string(got) != want {
					t.Errorf("%.60s sort_keys=%v:\ngot  %s (%v)\nwant %s", in, sorted, got, err, want)
				}
			}
		}
	}
}
