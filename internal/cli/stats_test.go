package cli

import "testing"

// A saving reads as people expect: rounded to one decimal, zero never
// signed, a dearer output negative, nothing to compare against a dash.
func TestSavingText(t *testing.T) {
	for _, c := range []struct {
		a, b int64
		want string
	}{
		{100, 50, "50.0%"},
		{100, 100, "0.0%"},
		{10000, 10004, "0.0%"}, // -0.04%: was -0.0%
		{10000, 10007, "-0.1%"},
		{100, 150, "-50.0%"},
		{3, 0, "100.0%"},
		{0, 5, "-"},
	} {
		if got := savingText(c.a, c.b); got != c.want {
			t.Errorf("savingText(%d, %d) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
