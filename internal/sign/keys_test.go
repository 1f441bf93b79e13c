package sign

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// twoKeys is a Signer of the keys given, the first signing.
func twoKeys(t testing.TB, keys ...string) *Signer {
	t.Helper()
	s := mustSigner(t, keys[0], SchemeSpec)
	for _, k := range keys[1:] {
		if err := s.AddKey([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// rotated is unsignedLog, its first n lines signed with first and the rest
// with then.
func rotated(t testing.TB, first, then string, n int) []byte {
	lines := strings.SplitAfter(unsignedLog, "\n")
	a := signBytes(t, first, SchemeSpec, []byte(strings.Join(lines[:n], "")))
	b := signBytes(t, then, SchemeSpec, []byte(strings.Join(lines[n:], "")))
	return append(a, b...)
}

// A log signed half with one key and half with another verifies with both
// keys, in either order, and fails with either alone, naming the events
// the other signed.
func TestRotatedLog(t *testing.T) {
	log := rotated(t, "old-key-0000000000", "new-key-0000000000", 3)
	l := &Log{Signer: twoKeys(t, "new-key-0000000000", "old-key-0000000000"), KeyIDs: []string{"new", "old"}}
	if problems, _ := verifyLog(t, l, log); len(problems) != 0 {
		t.Fatalf("%q", problems)
	}
	if got, want := fmt.Sprint(l.RunKeys()), "[{run-a [{1 old 2} {0 new 3}]} {run-b [{1 old 1}]}]"; got != want {
		t.Fatalf("RunKeys %s, want %s", got, want)
	}
	// Keys given oldest first: every event verifies, and the run that
	// goes from the one to the other goes back, in that order.
	l = &Log{Signer: twoKeys(t, "old-key-0000000000", "new-key-0000000000"), KeyIDs: []string{"old", "new"}}
	if problems, _ := verifyLog(t, l, log); len(problems) != 1 || !strings.HasPrefix(problems[0], "4: SIG005 signed with the key new, older than the key old") || l.Events != 6 {
		t.Fatalf("%q", problems)
	}
	mismatch := func(lines ...int) []string {
		var p []string
		for _, l := range lines {
			p = append(p, fmt.Sprintf("%d: %s signature mismatch", l, CodeMismatch))
		}
		return p
	}
	for key, want := range map[string][]string{"old-key-0000000000": mismatch(4, 5, 6), "new-key-0000000000": mismatch(1, 2, 3)} {
		l := &Log{Signer: mustSigner(t, key, SchemeSpec)}
		problems, _ := verifyLog(t, l, log)
		if !reflect.DeepEqual(problems, want) {
			t.Fatalf("%s alone: %q, want %q", key, problems, want)
		}
		if l.RunKeys() != nil {
			t.Fatal("RunKeys with one key")
		}
	}
}

// A run that goes back to an older key after a newer one signed is
// flagged, once, at the first event that does; a run that moves to the
// newer key is not.
func TestKeyBack(t *testing.T) {
	log := rotated(t, "new-key-0000000000", "old-key-0000000000", 3)
	l := &Log{Signer: twoKeys(t, "new-key-0000000000", "old-key-0000000000"), KeyIDs: []string{"2026-q4", "2026-q3"}}
	problems, _ := verifyLog(t, l, log)
	want := []string{"4: SIG005 signed with the key 2026-q3, older than the key 2026-q4 that signed seq 2 before it (log:3): a key rotated out signs again (keys are given newest first)"}
	if !reflect.DeepEqual(problems, want) || l.Errors != 1 {
		t.Fatalf("%q, want %q", problems, want)
	}
	// Without ids, the keys are numbered.
	l = &Log{Signer: twoKeys(t, "new-key-0000000000", "old-key-0000000000")}
	problems, _ = verifyLog(t, l, log)
	if len(problems) != 1 || !strings.Contains(problems[0], "the key key 2, older than the key key 1") {
		t.Fatalf("%q", problems)
	}
}

// Match tries each key, the one that matched last first; Sum is then the
// HMAC of the key that matched (what a seal's chain takes), or of the first
// key when none did.
func TestMatchSum(t *testing.T) {
	log := rotated(t, "k-one-0000000000", "k-two-0000000000", 3)
	s := twoKeys(t, "k-zero-000000000", "k-one-0000000000", "k-two-0000000000")
	var got []int
	eachRecord(t, log, func(rec *Record) {
		ev, err := s.Event(rec)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Match(ev, ev.Signature))
		sum := s.Sum()
		if hex.EncodeToString(sum[:]) != string(ev.Signature) {
			t.Fatalf("Sum is not the matching key's")
		}
		zero := mustSigner(t, "k-zero-000000000", SchemeSpec)
		right := zero.Sign(ev)
		if s.Match(ev, []byte("0f")) != -1 || s.Sum() != zero.Sum() || string(right) == string(ev.Signature) {
			t.Fatal("no match: Sum is not the first key's")
		}
	})
	if fmt.Sprint(got) != "[1 1 1 2 2 2]" {
		t.Fatalf("%v", got)
	}
	if s.Keys() != 3 || mustSigner(t, "k", SchemeSpec).Keys() != 1 || s.AddKey(nil) != ErrEmptyKey {
		t.Fatal("Keys, AddKey")
	}
}

// With several keys, -j's problems, counts and keys of each run are one
// worker's.
func TestRotatedWorkersMatchOne(t *testing.T) {
	log := genSignedLog(t, 3000, 7)
	cut := bytes.IndexByte(log[len(log)/2:], '\n') + len(log)/2 + 1
	log = append(log[:cut:cut], signBytes(t, "rotated-in-key-0", SchemeSpec, log[cut:])...)
	run := func(workers int) string {
		var out strings.Builder
		l := &Log{Signer: twoKeys(t, "rotated-in-key-0", "test-key"), KeyIDs: []string{"new", "old"},
			Emit: func(p Problem) { fmt.Fprintln(&out, p.Line, p.Code, p.Msg) }}
		if err := l.Verify(context.Background(), bytes.NewReader(log), "log", VerifyOptions{Workers: workers, BatchBytes: 4096}); err != nil {
			t.Fatal(err)
		}
		l.Finish()
		fmt.Fprintln(&out, l.Events, l.Errors, l.RunKeys())
		return out.String()
	}
	one := run(1)
	if !strings.Contains(one, "{1 old") || !strings.Contains(one, "{0 new") {
		t.Fatalf("not a rotated log: %s", one)
	}
	if four := run(4); four != one {
		t.Fatalf("-j 4:\n%s\none worker:\n%s", four, one)
	}
}
