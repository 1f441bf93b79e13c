package keys

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A keyring line may end in retired=TIME; a key without one after a
// retired key takes its time (Ring.Retired); older rings read as before.
func TestKeyringRetired(t *testing.T) {
	ring, err := ParseKeyring([]byte("cur 11111111\nq3 22222222 retired=2026-10-01T00:00:00Z\nq2 33333333\nq1 44444444 retired=2026-07-01T02:00:00+02:00\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ring.Retired() {
		if r.IsZero() {
			got = append(got, "-")
		} else {
			got = append(got, r.UTC().Format(time.RFC3339))
		}
	}
	if want := "- 2026-10-01T00:00:00Z 2026-10-01T00:00:00Z 2026-07-01T00:00:00Z"; strings.Join(got, " ") != want {
		t.Fatalf("%s, want %s", strings.Join(got, " "), want)
	}
	for _, c := range []struct{ in, want string }{
		{"cur 11111111\nq3 22222222 retired=October\n", "line 2: retired=October is not an RFC 3339 time (retired=2026-10-01T00:00:00Z)"},
		{"cur 11111111\nq3 22222222 retired=2026-07-01T00:00:00Z\nq2 33333333 retired=2026-10-01T00:00:00Z\n",
			"line 3: the key q2 is retired at 2026-10-01T00:00:00Z, after the newer key q3 (line 2) at 2026-07-01T00:00:00Z: keys are given newest first"},
		{"cur 11111111 stale=1\n", "line 1: more than an id and a key: a key holds no white space"},
	} {
		_, err := ParseKeyring([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
}

// The first key given is the current one: a retirement time on it is an
// error.
func TestLoadRetiredFirst(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "ring", "q3 22222222 retired=2026-10-01T00:00:00Z\n", 0o600)
	_, err := Load([]Source{{Kind: Keyring, Name: p}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "is the current key, the first given, and it is retired at 2026-10-01T00:00:00Z") {
		t.Fatalf("%v", err)
	}
}
