package seal_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// TestCompareAttacks: each attack of issue 22 §4 on a signed log, every
// event still validly signed, is caught and named; the cases are named in
// the words (the seal edited: TestSealEdited).
func TestCompareAttacks(t *testing.T) {
	log := signedLog(t)
	sl, err := seal.Parse(sealOf(t, log), testKey)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.SplitAfter(string(log), "\n")
	l = l[:len(l)-1] // the "" after the last line break
	// Another log: the same runs and seqs, another payload, signed with the key.
	other := strings.SplitAfter(string(signedLog(t, func(s string) string { return strings.Replace(s, "create_ticket", "delete_ticket", 1) })), "\n")
	if other[1] == l[1] {
		t.Fatal("the other log is the same")
	}
	const r0, r1 = "550e8400-e29b-41d4-a716-000000000000", "550e8400-e29b-41d4-a716-000000000001"
	added := strings.SplitAfter(string(signedLog(t, func(s string) string { return strings.ReplaceAll(s, r0, "another-run") })), "\n")[0]
	cases := []struct {
		name string
		log  []string
		want []string
	}{
		{"intact", l, nil},
		{"tail cut", l[:7], []string{r1 + ": the log ends at seq 7, the seal at seq 8 (1 event removed from the end)", r1 + ": the log has 3 events of the run, the seal 4"}},
		{"head cut", l[2:], []string{r0 + ": the log starts at seq 3, the seal at seq 1 (2 events removed from the start)", r0 + ": the log has 2 events of the run, the seal 4"}},
		{"whole run removed", l[:4], []string{r1 + ": missing from the log (the seal has 4 events, seq 5 to 8)"}},
		{"run added", append(append([]string{}, l...), added), []string{"another-run: not in the seal (the log has 1 event, seq 1 to 1)"}},
		{"two events swapped (both signatures valid)", []string{l[0], l[2], l[1], l[3], l[4], l[5], l[6], l[7]}, []string{r0 + ": the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count"}},
		{"an event replaced by a validly signed event from another log", []string{l[0], other[1], l[2], l[3], l[4], l[5], l[6], l[7]}, []string{r0 + ": the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count"}},
	}
	for _, c := range cases {
		s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
		b, err := anyLog(strings.NewReader(strings.Join(c.log, "")), s)
		if err != nil {
			t.Fatalf("%s: %v (every event is validly signed)", c.name, err)
		}
		var got []string
		for _, f := range b.Compare(sl) {
			got = append(got, f.RunID+": "+f.Msg)
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

// A seal made at -j 4 by sign.SignStream's Signed is the seal FromLog makes
// of the signed log.
func TestSignStreamSeal(t *testing.T) {
	raw := bytes.Repeat(signedLog(t), 50)
	for _, w := range []int{1, 4} {
		s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
		var b seal.Builder
		var out bytes.Buffer
		h := sign.StreamHandler{Output: func(p []byte) error { out.Write(p); return nil }, Bad: func(e *sign.EventError) error { return e },
			Signed: func(run, seq, t []byte, d *[32]byte) error { b.Add(run, seq, t, d); return nil }}
		if _, err := sign.SignStream(t.Context(), bytes.NewReader(raw), s, sign.StreamOptions{Workers: w, BatchBytes: 3000}, h); err != nil {
			t.Fatal(err)
		}
		at := time.Unix(0, 0)
		a, _ := b.Seal(testKey, sign.SchemeSpec, at)
		fb, err := anyLog(&out, s)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := fb.Seal(testKey, sign.SchemeSpec, at)
		x, _ := a.Marshal()
		y, _ := want.Marshal()
		if !bytes.Equal(x, y) || a.Runs[0].Count != 200 {
			t.Fatalf("workers=%d:\n%s\n%s", w, x, y)
		}
	}
}

// sign.Log's Signed, at 1 and 4 workers, gives the chain FromLog gives,
// unsigned events included.
func TestVerifySeal(t *testing.T) {
	raw := bytes.Repeat(signedLog(t), 50)
	raw = append(raw, `{"seq":9,"t":"x","actor":"a","type":"b","payload":{},"meta":{"run_id":"u"}}`+"\n"...)
	var want []byte
	for _, w := range []int{1, 4} {
		s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
		var b seal.Builder
		l := &sign.Log{Signer: s, Emit: func(sign.Problem) {}, Signed: func(_ sign.Where, run, seq, t []byte, d *[32]byte) { b.Add(run, seq, t, d) }}
		if err := l.Verify(t.Context(), bytes.NewReader(raw), "f", sign.VerifyOptions{Workers: w, BatchBytes: 3000}); err != nil {
			t.Fatal(err)
		}
		a, _ := b.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0))
		got, _ := a.Marshal()
		if want == nil {
			want = got
		}
		if !bytes.Equal(got, want) || len(a.Runs) != 3 || a.Runs[2].RunID != "u" || a.Runs[0].Count != 200 {
			t.Fatalf("workers=%d: %s", w, got)
		}
	}
}

// A seal resumed and given the rest of the log is the seal of the whole
// log; the log cut where it was first sealed differs from it.
func TestResume(t *testing.T) {
	log := signedLog(t)
	l := strings.SplitAfter(string(log), "\n")
	first, rest := strings.Join(l[:6], ""), strings.Join(l[6:], "")
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	at := time.Unix(0, 0)
	b1, _ := seal.FromLog(strings.NewReader(first), s, 0)
	s1, _ := b1.Seal(testKey, sign.SchemeSpec, at)
	b, err := seal.Resume(s1)
	if err != nil {
		t.Fatal(err)
	}
	// Add the rest through the resumed Builder.
	bb, _ := seal.Resume(s1)
	rd := sign.NewReader(strings.NewReader(rest), 0)
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		ev, _ := s.Event(rec)
		var mac [32]byte
		hexDecode(t, mac[:], s.Sign(ev))
		bb.Add(ev.RunID, ev.Seq, ev.T, &mac)
	}
	whole, _ := seal.FromLog(strings.NewReader(string(log)), s, 0)
	w, _ := whole.Seal(testKey, sign.SchemeSpec, at)
	got, _ := bb.Seal(testKey, sign.SchemeSpec, at)
	x, _ := got.Marshal()
	y, _ := w.Marshal()
	if !bytes.Equal(x, y) {
		t.Fatalf("resumed:\n%s\nwhole:\n%s", x, y)
	}
	if fs := b.Compare(w); len(fs) == 0 {
		t.Fatal("the first part matches the whole log's seal")
	}
}

func hexDecode(t *testing.T, dst, src []byte) {
	if _, err := hex.Decode(dst, src); err != nil {
		t.Fatal(err)
	}
}

// TestSealEdited: the seal edited (issue 22 §4), in any member, is refused
// by its own HMAC before anything else is judged, as is a seal made with
// another key.
func TestSealEdited(t *testing.T) {
	doc := string(sealOf(t, signedLog(t)))
	sl, _ := seal.Parse([]byte(doc), testKey)
	for _, edit := range [][2]string{
		{`"count":4`, `"count":3`}, {`"last_seq":8`, `"last_seq":7`}, {`"first_seq":1`, `"first_seq":2`},
		{`"scheme":"spec"`, `"scheme":"payload"`}, {`"every":16`, `"every":32`}, {`"sealed_at":"2026`, `"sealed_at":"2027`},
		{`"run_id":"550e8400-e29b-41d4-a716-000000000001"`, `"run_id":"550e8400-e29b-41d4-a716-000000000002"`},
		{`"checkpoints":["` + sl.Runs[0].Checkpoints[0], `"checkpoints":["0000000000`},
		{sl.Runs[1].Chain, strings.Repeat("0", 64)},
	} {
		e := strings.Replace(doc, edit[0], edit[1], 1)
		if e == doc {
			t.Fatalf("no %s in the seal", edit[0])
		}
		if _, err := seal.Parse([]byte(e), testKey); !errors.Is(err, seal.ErrHMAC) {
			t.Errorf("%s -> %s: %v", edit[0], edit[1], err)
		}
	}
	if _, err := seal.Parse([]byte(doc), []byte("another key")); !errors.Is(err, seal.ErrHMAC) {
		t.Errorf("another key: %v", err)
	}
}

// anyLog is the Builder of a log's events as verify sees them, whatever
// verify says of the log (FromLog refuses to seal a log it rejects): what
// the attacks on a seal are checked with.
func anyLog(in io.Reader, s *sign.Signer) (*seal.Builder, error) {
	var b seal.Builder
	l := &sign.Log{Signer: s, Emit: func(sign.Problem) {}, Signed: func(_ sign.Where, run, seq, t []byte, d *[32]byte) { b.Add(run, seq, t, d) }}
	return &b, l.Verify(context.Background(), in, "", sign.VerifyOptions{Workers: 1})
}
