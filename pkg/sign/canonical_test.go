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
