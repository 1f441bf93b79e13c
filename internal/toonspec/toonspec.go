// Package toonspec reads the TOON specification's conformance fixtures
// that testdata/toon-spec holds (v4.0, v4.1.0 and v4.1.1, each under its
// MIT license), for the tests of the packages that read or write TOON.
package toonspec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Case is one fixture case.
type Case struct {
	File     string // the fixture file, as found
	Category string // "encode" or "decode"
	Name     string
	// Input is a decode case's TOON text or an encode case's JSON value;
	// Expected the other way round.
	Input, Expected any
	ShouldError     bool
	Options         map[string]any
}

// Text is the case's TOON text: a decode case's input, an encode case's
// expected output ("" and false when it has none).
func (c Case) Text() (string, bool) {
	v := c.Input
	if c.Category == "encode" {
		v = c.Expected
	}
	s, ok := v.(string)
	return s, ok
}

// NonStrict reports whether the case reads its text in non-strict mode.
func (c Case) NonStrict() bool {
	s, ok := c.Options["strict"].(bool)
	return ok && !s
}

// Delimiter is the case's delimiter option ("" for none).
func (c Case) Delimiter() string {
	s, _ := c.Options["delimiter"].(string)
	return s
}

// Load reads every case under root (testdata/toon-spec, from the caller's
// package: "../../testdata/toon-spec" for internal/NAME), files in name
// order. No fixture at all is an error: a test that found none would pass
// without checking anything.
func Load(root string) ([]Case, error) {
	var files []string
	for _, pattern := range []string{"*/tests/fixtures/*/*.json", "*/*/*.json"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	var cases []Case
	for _, f := range files {
		category := filepath.Base(filepath.Dir(f))
		if category != "encode" && category != "decode" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var fx struct {
			Tests []Case `json:"tests"`
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, c := range fx.Tests {
			c.File, c.Category = f, category
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no TOON spec fixtures under %s", root)
	}
	return cases, nil
}

// Decode are the decode cases of cases, Encode the encode ones.
func Decode(cases []Case) []Case { return only(cases, "decode") }

// Encode are the encode cases of cases.
func Encode(cases []Case) []Case { return only(cases, "encode") }

func only(cases []Case, category string) []Case {
	var out []Case
	for _, c := range cases {
		if strings.EqualFold(c.Category, category) {
			out = append(out, c)
		}
	}
	return out
}
