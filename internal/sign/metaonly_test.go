package sign

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestPythonMetaOnlyLogs verifies logs that CPython signed with each scheme
// and stored as many Python services store them: the signature in
// meta.signature only, with no top-level copy, each event a line of
// json.dumps(event) with its defaults (testdata/sign/python-meta-only-*.ndjson,
// written by `python3 scripts/gen-sign-vectors.py --meta-only`; see
// testdata/sign/README.md). Each verifies under its own scheme with no
// problem and fails under the others; a copy with one event changed fails
// at that event, and only there. It uses only what the package had before
// it learnt to verify these logs, so that it runs, and fails, there too.
func TestPythonMetaOnlyLogs(t *testing.T) {
	for i, name := range Schemes {
		raw, err := os.ReadFile("../../testdata/sign/python-meta-only-" + name + ".ndjson")
		if err != nil {
			t.Fatal(err)
		}
		// The log is what it says: meta.signature only, Python's spacing.
		events := 0
		eachRecord(t, raw, func(rec *Record) {
			ev, err := mustSigner(t, "k", SchemeSpec).Event(rec)
			if err != nil {
				t.Fatal(err)
			}
			if !ev.HasSig || ev.HasTop || !bytes.Contains(rec.Raw, []byte(`, "signature": "`)) {
				t.Fatalf("%s: event %d is not signed in meta.signature only: %s", name, rec.Index+1, rec.Raw)
			}
			events++
		})
		if events != 20 {
			t.Fatalf("%s: %d events, want 20", name, events)
		}
		for j := range Schemes {
			problems, n := verifyBytes(t, "test-key", Scheme(j), raw)
			want := 0
			if i != j {
				want = n - sameMessages(t, raw, Scheme(i), Scheme(j))
			}
			if n != events || len(problems) != want {
				t.Errorf("python meta-only %s log under %s: %d events, %d problems, want %d:\n%s",
					name, Schemes[j], n, len(problems), want, strings.Join(problems, "\n"))
			}
		}
		// One byte of the first event's payload changed: a mismatch there.
		const old = `"Process customer refund request"`
		if !bytes.HasPrefix(raw, []byte(`{"seq": 1,`)) || bytes.Count(raw, []byte(old)) != 1 || !bytes.Contains(raw[:bytes.IndexByte(raw, '\n')], []byte(old)) {
			t.Fatalf("%s: the first event is not the one this test changes", name)
		}
		tampered := bytes.Replace(raw, []byte(old), []byte(`"Process customer refund requests"`), 1)
		problems, _ := verifyBytes(t, "test-key", Scheme(i), tampered)
		if got := strings.Join(problems, "\n"); got != "1: SIG001 signature mismatch" {
			t.Errorf("tampered python meta-only %s log: problems\n%s\nwant\n1: SIG001 signature mismatch", name, got)
		}
	}
}
