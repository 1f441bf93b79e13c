package keys

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/sign"
)

func TestParseKeyring(t *testing.T) {
	ring, err := ParseKeyring([]byte("# newest first\r\n\n  2026-q4\t9f86d081884c7d65 \r\n2026-q3 60303ae22b998861\n   # indented comment\nold k3y-with-#"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Key{{ID: "2026-q4", Secret: []byte("9f86d081884c7d65"), From: "3"}, {ID: "2026-q3", Secret: []byte("60303ae22b998861"), From: "4"}, {ID: "old", Secret: []byte("k3y-with-#"), From: "6"}}
	if len(ring) != len(want) {
		t.Fatalf("%d keys, want %d", len(ring), len(want))
	}
	for i, k := range ring {
		if k.ID != want[i].ID || string(k.Secret) != string(want[i].Secret) || k.From != want[i].From {
			t.Errorf("key %d: %q %q %q, want %q %q %q", i, k.ID, k.Secret, k.From, want[i].ID, want[i].Secret, want[i].From)
		}
	}
	if ring, err := ParseKeyring([]byte("# nothing\n\n")); err != nil || len(ring) != 0 {
		t.Fatalf("comments only: %v %v", ring, err)
	}
}

func TestParseKeyringErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a 12345678\nlonely\n", "line 2: the id lonely has no key after it"},
		{"a key with space\n", "line 1: more than an id and a key: a key holds no white space"},
		{"a 12345678\n\nb 1\na 87654321\n", "line 4: the id a is given twice (line 1 too)"},
		{"a 1234\x005678\n", "line 1: a control character"},
		{"ok 1\na\rb 2\n", "line 2: a control character"},
		{"\xff 12345678\n", "line 1: not UTF-8"},
		{"a\u00a0b 12345678\n", "line 1: more than an id and a key: a key holds no white space"}, // U+00A0 is white space
		{"a\u200bb 12345678\n", "line 1: the id holds a character that cannot be printed"},
	} {
		_, err := ParseKeyring([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
}

// write makes a file of mode perm in dir.
func write(t *testing.T, dir, name, content string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

func TestLoadOrderAndIDs(t *testing.T) {
	dir := t.TempDir()
	kf := write(t, dir, "old.key", "old-key-bytes-0001\r\n", 0o600)
	ring := write(t, dir, "ring", "q4 newest-key-00001\nq3 older-key-000001\n", 0o600)
	env := func(n string) (string, bool) { return map[string]string{"NOW": "env-key-00000001"}[n], n == "NOW" }
	var warnings []string
	r, err := Load([]Source{{Env, "NOW"}, {Keyring, ring}, {File, kf}}, Options{LookupEnv: env,
		Warn: func(m, h string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.IDs(), " "); got != "NOW q4 q3 "+kf {
		t.Fatalf("ids %s", got)
	}
	if string(r[3].Secret) != "old-key-bytes-0001" || r[1].From != ring+":1" || r[0].From != "--key-env NOW" {
		t.Fatalf("%q %q %q", r[3].Secret, r[1].From, r[0].From)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings %q", warnings)
	}
	// The same key again: left out, with a warning; the same id: an error.
	same := write(t, dir, "same.key", "older-key-000001\n", 0o600)
	r, err = Load([]Source{{Keyring, ring}, {File, same}}, Options{Warn: func(m, h string) { warnings = append(warnings, m) }})
	if err != nil || len(r) != 2 || len(warnings) != 1 || warnings[0] != "the key "+same+" (--key-file "+same+") is the key q3 ("+ring+":2): it is left out" {
		t.Fatalf("%v %v %q", r, err, warnings)
	}
	_, err = Load([]Source{{Keyring, ring}, {Keyring, ring}}, Options{})
	if err == nil || err.Error() != "two keys are named q4: "+ring+":1 and "+ring+":1" {
		t.Fatalf("%v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	empty := write(t, dir, "empty", "\n", 0o600)
	bad := write(t, dir, "bad.ring", "# x\nid\n", 0o600)
	none := write(t, dir, "none.ring", "# no key yet\n", 0o600)
	env := func(n string) (string, bool) { return "", n == "EMPTY" }
	for _, c := range []struct {
		src  Source
		want string
		io   bool
	}{
		{Source{Env, "UNSET"}, "the environment variable UNSET is not set", false},
		{Source{Env, "EMPTY"}, "the environment variable EMPTY is empty", false},
		{Source{File, empty}, "the key file " + empty + " is empty", false},
		{Source{File, filepath.Join(dir, "missing")}, "cannot read the key file " + filepath.Join(dir, "missing") + ": no such file or directory", true},
		{Source{File, dir}, "cannot read the key file " + dir + ": it is a directory", true},
		{Source{Keyring, bad}, bad + ":2: the id id has no key after it", false},
		{Source{Keyring, none}, "the keyring " + none + " holds no key", false},
	} {
		_, err := Load([]Source{c.src}, Options{LookupEnv: env})
		var ke *Error
		if !errors.As(err, &ke) || ke.Msg != c.want || ke.IO != c.io {
			t.Errorf("%v: %v, want %s (io %v)", c.src, err, c.want, c.io)
		}
	}
	if _, err := Load(nil, Options{}); err == nil || !strings.HasPrefix(err.Error(), "a key is needed") {
		t.Fatal(err)
	}
}

func TestLoadWarnsOfExposedFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := t.TempDir()
	kf := write(t, dir, "k", "a-key-of-16-bytes", 0o644)
	ring := write(t, dir, "ring", "id a-key-of-another-16", 0o640)
	var got []string
	_, err := Load([]Source{{File, kf}, {Keyring, ring}}, Options{Warn: func(m, h string) { got = append(got, m+" / "+h) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"the key file " + kf + " is readable by group or others (mode 0644) / chmod 600 " + kf,
		"the keyring " + ring + " is readable by group or others (mode 0640) / chmod 600 " + ring}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%q", got)
	}
}

func TestCheckSigning(t *testing.T) {
	for _, c := range []struct {
		key        string
		allow      bool
		warn, fail bool
	}{
		{"0123456789abcdef", false, false, false},
		{"test-key", false, true, false}, // the Python vectors' key: 8 bytes
		{"1234567", false, false, true},
		{"1234567", true, true, false},
		{"Q", true, true, false},
	} {
		w, err := CheckSigning(Key{ID: "id", Secret: []byte(c.key)}, c.allow)
		if (w != "") != c.warn || (err != nil) != c.fail {
			t.Errorf("%q allow %v: %q %v", c.key, c.allow, w, err)
		}
		if strings.Contains(w, c.key) || err != nil && strings.Contains(err.Error(), c.key) {
			t.Errorf("the key's bytes in %q %v", w, err)
		}
	}
}

// A Ring's Signer signs with the first key and verifies with each.
func TestRingSigner(t *testing.T) {
	ring := Ring{{ID: "new", Secret: []byte("new-key-00000000")}, {ID: "old", Secret: []byte("old-key-00000000")}}
	ev := []byte(`{"seq":1,"t":"","actor":"a","type":"n","payload":{},"meta":{"run_id":"r"}}`)
	sig := func(key []byte) []byte {
		s, _ := sign.NewSigner(key, sign.SchemeSpec)
		e, err := s.Parse(ev)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), s.Sign(e)...)
	}
	s, err := ring.Signer(sign.SchemeSpec)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := s.Parse(ev)
	if string(s.Sign(e)) != string(sig(ring[0].Secret)) {
		t.Fatal("not signed with the first key")
	}
	if s.Match(e, sig(ring[1].Secret)) != 1 || s.Match(e, sig(ring[0].Secret)) != 0 || s.Match(e, sig([]byte("another"))) != -1 {
		t.Fatal("Match")
	}
}
