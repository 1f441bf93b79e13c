package isotime_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/isotime"
)

func ExampleAppend() {
	t := time.Date(2026, 1, 2, 3, 4, 5, 4000004, time.FixedZone("", 3600))
	fmt.Println(string(isotime.Append(nil, t, 9)))
	fmt.Println(string(isotime.Append(nil, t, 3)))
	// Output:
	// 2026-01-02T02:04:05.004000004Z
	// 2026-01-02T02:04:05.004Z
}

// Append agrees with time's own layout for every digit count, in and out
// of the years it writes by hand.
func TestAppendAgreesWithLayout(t *testing.T) {
	times := []time.Time{
		time.Unix(0, 0), time.Unix(1767323045, 999999999), time.Unix(-1, 1),
		time.Date(9999, 12, 31, 23, 59, 59, 123456789, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 5, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
	}
	for _, tm := range times {
		for digits := 1; digits <= 9; digits++ {
			layout := "2006-01-02T15:04:05." + "000000000"[:digits] + "Z07:00"
			if got, want := string(isotime.Append([]byte("x"), tm, digits)), "x"+tm.UTC().Format(layout); got != want {
				t.Errorf("Append(%v, %d) = %q, want %q", tm, digits, got, want)
			}
		}
	}
}
