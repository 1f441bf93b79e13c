package toon

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestAppendNumber(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"-0.0", "0"}, {"0e5", "0"}, {"-0E-3", "0"},
		{"42", "42"}, {"-7", "-7"}, {"3.14", "3.14"}, {"1.5000", "1.5"}, {"1.0", "1"},
		{"-1E+03", "-1000"}, {"1e6", "1000000"}, {"1e-6", "0.000001"}, {"1e-7", "1e-7"},
		{"1.5e-7", "1.5e-7"}, {"0.0000015", "0.0000015"}, {"0.00000015", "1.5e-7"},
		{"1e20", "100000000000000000000"}, {"1e21", "1e+21"}, {"123e19", "1.23e+21"},
		{"999999999999999999999", "999999999999999999999"}, {"1000000000000000000000", "1e+21"},
		{"12345678901234567890", "12345678901234567890"},
		{"0.3333333333333333", "0.3333333333333333"}, {"00012.500", "12.5"},
		{"1.00000000000000000001", "1.00000000000000000001"}, {"120", "120"},
		{"0.000120", "0.00012"}, {"12.34e1", "123.4"}, {"12.34e-1", "1.234"},
		{"-5e-324", "-5e-324"}, {"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"1e99999999999999", "1e99999999999999"},
		{"10.0e100", "1e+101"}, {"100.00e99", "1e+101"}, {"10.0e-100", "1e-99"}, {"120.0e30", "1.2e+32"},
		{"-10.0e21", "-1e+22"}, {"10.0", "10"}, {"100.0e-2", "1"},
	} {
		if got := string(AppendNumber(nil, []byte(c.in))); got != c.want {
			t.Errorf("AppendNumber(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The canonical form is the one JavaScript's Number#toString gives for a
// float64 whose shortest digits are the literal's; Go's 'g'-free formatting
// with the same digits stands in for it here.
func TestAppendNumberMatchesShortestFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		lit := strconv.FormatFloat(f, 'e', -1, 64)
		got := string(AppendNumber(nil, []byte(lit)))
		if want := jsNumber(f); got != want {
			t.Fatalf("AppendNumber(%s) = %s, want %s", lit, got, want)
		}
		back, err := strconv.ParseFloat(got, 64)
		if err != nil || back != f && !(f == 0 && back == 0) {
			t.Fatalf("AppendNumber(%s) = %s reads back as %v", lit, got, back)
		}
	}
}

// jsNumber is ECMAScript's Number::toString(x) for finite x.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde+XX
	mant, exp, _ := cut(s, 'e')
	e, _ := strconv.Atoi(exp)
	if e >= 0 {
		return mant + "e+" + strconv.Itoa(e)
	}
	return mant + "e" + strconv.Itoa(e)
}

func cut(s string, c byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func TestIsNumber(t *testing.T) {
	for tok, want := range map[string]bool{
		"42": true, "-3.14": true, "1e-6": true, "-1E+9": true, "0.5": true, "0e1": true, "-0": true, "-0.5": true,
		"05": false, "-05": false, "0001": false, ".5": false, "1.": false, "+5": false, "Infinity": false,
		"NaN": false, "0x10": false, "1_000": false, "": false, "-": false, "1e": false, "1e+": false, "١٢": false,
	} {
		if got := IsNumber([]byte(tok)); got != want {
			t.Errorf("IsNumber(%q) = %v", tok, got)
		}
	}
	for tok, want := range map[string]bool{"05": true, "+1": true, "-05": true, "1e-6": true, "00": true, "0": true, "a1": false, "1a": false, "+": false} {
		if got := IsNumericLike([]byte(tok)); got != want {
			t.Errorf("IsNumericLike(%q) = %v", tok, got)
		}
	}
}
