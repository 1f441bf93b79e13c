package validate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// libraryDateTime is the schema library's own "date-time" format check, as
// the slow path runs it.
var libraryDateTime = sync.OnceValue(func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("dt.json", map[string]any{"format": "date-time"}); err != nil {
		panic(err)
	}
	return c.MustCompile("dt.json")
})

func libraryIsDateTime(s string) bool { return libraryDateTime().Validate(s) == nil }

// variants are s, and s with each byte replaced by each byte of alphabet,
// removed, or doubled.
func variants(s, alphabet string) []string {
	out := []string{s}
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(alphabet); j++ {
			out = append(out, s[:i]+alphabet[j:j+1]+s[i+1:])
		}
		out = append(out, s[:i]+s[i+1:], s[:i+1]+s[i:])
	}
	return out
}

// dateTimeInputs are times of every shape the library tells apart: every
// day of leap and common years, every field at and past its bounds, signed
// and one-digit numbers, fractions, zones, leap seconds, and each of those
// with any byte replaced, removed or doubled.
func dateTimeInputs() []string {
	var in []string
	for _, y := range []string{"0000", "1900", "2000", "2024", "2026", "2100", "9999"} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				in = append(in, fmt.Sprintf("%s-%02d-%02dT12:00:00Z", y, m, d))
			}
		}
	}
	for _, tm := range []string{"00:00:00", "23:59:59", "23:59:60", "24:00:00", "23:60:00", "12:30:61", "22:59:60", "+1:+2:+3", "-0:-0:-0", "-1:00:00", "1:2:3", " 1:00:00", "0x:00:00"} {
		for _, zone := range []string{"Z", "z", "+00:00", "-00:00", "+01:00", "-01:00", "+23:59", "-23:59", "+24:00", "+00:60", "+1:00", "++1:00", "+-0:-0", "+01:+5", "-01:-0", "+0100", "+01:00:00", "", "ZZ", "+01:0", "+:100", "+0:100", "+01::0"} {
			for _, frac := range []string{"", ".5", ".123456789", ".", ".x", ",5", ".0000000000000000000001"} {
				in = append(in, "2026-01-19T"+tm+frac+zone, "2026-01-19t"+tm+frac+zone)
			}
		}
	}
	for _, s := range []string{"2026-01-19T04:21:04Z", "2026-01-19T04:21:04.5+02:00", "2016-12-31T23:59:60Z", "2017-01-01T00:59:60+01:00", "2016-12-31T22:59:60-01:00", "2025-12-05T10:30:00.000Z"} {
		in = append(in, variants(s, "0123456789-+:.TtZz x\u00e9")...)
	}
	return in
}

// isDateTime answers as the library's format checker does.
func TestIsDateTimeIsTheLibrarysCheck(t *testing.T) {
	valid := 0
	for _, s := range dateTimeInputs() {
		want := libraryIsDateTime(s)
		if got := isDateTime([]byte(s)); got != want {
			t.Errorf("isDateTime(%q) = %v, the library says %v", s, got, want)
		}
		if want {
			valid++
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid times among the inputs", valid)
	}
}

func FuzzIsDateTime(f *testing.F) {
	for _, s := range []string{"2026-01-19T04:21:04Z", "2016-12-31T23:59:60Z", "2024-02-29T+1:-0:00.5-00:00", "2017-01-01T00:59:60+01:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isDateTime([]byte(s)), libraryIsDateTime(s); got != want {
			t.Fatalf("isDateTime(%q) = %v, the library says %v", s, got, want)
		}
	})
}

// patternInputs are strings near each pattern's matches.
var patternInputs = map[string][]string{
	uuidPattern:                       {"550e8400-e29b-41d4-a716-446655440001", "550E8400E29B41D4A716446655440001", "urn:uuid:{550e8400-e29b-41d4-a716-446655440001}", "{550e8400e29b-41d4a716-446655440001", "550e8400-e29b-41d4-a716-446655440001}", "urn:uuid:550e8400-e29b-41d4-a716-446655440001\n"},
	`^[0-9a-f]{64}$`:                  {strings.Repeat("0a", 32), strings.Repeat("f9", 32) + "\n"},
	`^bytes [0-9]+-[0-9]+ of [0-9]+$`: {"bytes 0-10 of 20", "bytes 123456789012345678901234567890-1 of 2", "bytes 1-2 of 3\n"},
}

// Each hand-written pattern matches what Go's regexp (the library's
// engine) matches.
func TestKnownPatternsAreTheirRegexps(t *testing.T) {
	if len(patternInputs) != len(knownPatterns) {
		t.Fatalf("%d patterns checked by hand, %d tested", len(knownPatterns), len(patternInputs))
	}
	for p, match := range knownPatterns {
		re := regexp.MustCompile(p)
		matched := 0
		for _, s := range patternInputs[p] {
			for _, v := range variants(s, "0aFg-{}:urn \n") {
				want := re.MatchString(v)
				if got := match([]byte(v)); got != want {
					t.Errorf("%s: %q: %v, the regexp says %v", p, v, got, want)
				}
				if want {
					matched++
				}
			}
		}
		if matched < 20 {
			t.Errorf("%s: only %d inputs match", p, matched)
		}
	}
}

func FuzzKnownPatterns(f *testing.F) {
	for _, ins := range patternInputs {
		for _, s := range ins {
			f.Add(s)
		}
	}
	var res []*regexp.Regexp
	var matches []func([]byte) bool
	for p, m := range knownPatterns {
		res = append(res, regexp.MustCompile(p))
		matches = append(matches, m)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, re := range res {
			if got, want := matches[i]([]byte(s)), re.MatchString(s); got != want {
				t.Fatalf("%s: %q: %v, the regexp says %v", re, s, got, want)
			}
		}
	})
}
