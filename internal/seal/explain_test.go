package seal_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// signLines signs NDJSON events with testKey (spec scheme), one a line.
func signLines(t testing.TB, in string) []string {
	t.Helper()
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	var out bytes.Buffer
	h := sign.StreamHandler{Output: func(b []byte) error { out.Write(b); return nil }, Bad: func(e *sign.EventError) error { return e }}
	if _, err := sign.SignStream(context.Background(), strings.NewReader(in), s, sign.StreamOptions{}, h); err != nil {
		t.Fatal(err)
	}
	l := strings.SplitAfter(out.String(), "\n")
	return l[:len(l)-1]
}

// longRun is a run of n events, seq 1 to n, the payload's note note.
func longRun(t testing.TB, n int, note string) []string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"seq":%d,"t":"2026-01-01T00:00:%02dZ","actor":"agent","type":"note","payload":{"i":%d,"note":%q},"meta":{"run_id":"r"}}`+"\n", i, i%60, i, note)
	}
	return signLines(t, b.String())
}

// explain is the findings of log against the seal sl, by a Builder that
// watched it, as verify --seal --explain gets them: "run: msg; departs".
func explain(t *testing.T, sl *seal.Seal, log []string) []string {
	t.Helper()
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	var b seal.Builder
	b.Watch(sl)
	l := &sign.Log{Signer: s, Emit: func(sign.Problem) {}, Signed: func(w sign.Where, run, seq, t []byte, d *[32]byte) { b.AddAt(w, run, seq, t, d) }}
	if err := l.Verify(t.Context(), strings.NewReader(strings.Join(log, "")), "log", sign.VerifyOptions{Workers: 2, BatchBytes: 2000}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range b.Compare(sl) {
		got = append(got, linkRE.ReplaceAllString(f.RunID+": "+f.Msg+"; "+f.Departs, "(link $1)"))
	}
	return got
}

// linkRE is the first link that differs, shown as "(link N)" in the tests
// (TestExplainLink checks its value).
var linkRE = regexp.MustCompile(`\(the first link that differs, after event (\d+): [0-9a-f]+ in the seal, [0-9a-f]+ in the log\)`)

// TestExplainLink: --explain shows the first link that differs, as the
// seal keeps it (its checkpoint) and as the log's.
func TestExplainLink(t *testing.T) {
	l := longRun(t, 40, "a")
	sl := sealLines(t, l)
	x := append([]string{}, l...)
	x[2], x[3] = x[3], x[2]
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	var b seal.Builder
	b.For(sl, true)
	swapped, _ := anyLog(strings.NewReader(strings.Join(x, "")), s)
	xs, _ := swapped.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0))
	for _, e := range x {
		rd := sign.NewReader(strings.NewReader(e), 0)
		rec, _ := rd.Next()
		ev, _ := s.Event(rec)
		var mac [32]byte
		hexDecode(t, mac[:], s.Sign(ev))
		b.AddAt(sign.Where{File: "log"}, ev.RunID, ev.Seq, ev.T, &mac)
	}
	fs := b.Compare(sl)
	want := fmt.Sprintf("(the first link that differs, after event 3: %s in the seal, %s in the log)", sl.Runs[0].Checkpoints[2], xs.Runs[0].Checkpoints[2])
	if len(fs) != 1 || !strings.Contains(fs[0].Departs, want) {
		t.Fatalf("%+v\nwant %s", fs, want)
	}
}

func sealLines(t *testing.T, log []string) *seal.Seal {
	t.Helper()
	sl, err := seal.Parse(sealOf(t, []byte(strings.Join(log, ""))), testKey)
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// offset is the byte offset of line i (from 0) of log.
func offset(log []string, i int) int {
	return len(strings.Join(log[:i], ""))
}

// TestExplainShortRuns: a seal keeps every link of a run's first 16
// events, so --explain names the exact event where the log departs, for
// each attack of §4.
func TestExplainShortRuns(t *testing.T) {
	const none = "; no later event of the run in the log (of the next 64 at most) is the one the seal has there: it was removed or replaced"
	l := strings.SplitAfter(string(signedLog(t)), "\n")
	l = l[:len(l)-1]
	other := strings.SplitAfter(string(signedLog(t, func(s string) string { return strings.Replace(s, "create_ticket", "delete_ticket", 1) })), "\n")
	sl := sealLines(t, l)
	const r0, r1 = "550e8400-e29b-41d4-a716-000000000000", "550e8400-e29b-41d4-a716-000000000001"
	swapped := []string{l[0], l[2], l[1], l[3], l[4], l[5], l[6], l[7]}
	replaced := []string{l[0], other[1], l[2], l[3], l[4], l[5], l[6], l[7]}
	longer := append(append([]string{}, l...), l[3])
	cases := []struct {
		name string
		log  []string
		want []string
	}{
		{"intact", l, nil},
		{"swapped", swapped, []string{fmt.Sprintf("%s: the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count; "+
			"the log first departs from the seal at event 2 of the run (seq 3, log:2, byte %d): the seal's links agree with the run's first event, not with it (link 2); "+
			"the seal has there the log's event 3 of the run (seq 2, log:3, byte %d)", r0, offset(swapped, 1), offset(swapped, 2))}},
		{"replaced", replaced, []string{fmt.Sprintf("%s: the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count; "+
			"the log first departs from the seal at event 2 of the run (seq 2, log:2, byte %d): the seal's links agree with the run's first event, not with it (link 2)"+none, r0, offset(l, 1))}},
		{"head cut", l[2:], []string{
			r0 + ": the log starts at seq 3, the seal at seq 1 (2 events removed from the start); " +
				"the log first departs from the seal at event 1 of the run (seq 3, log:1, byte 0): it is not the sealed run's first event (link 1)" + none,
			r0 + ": the log has 2 events of the run, the seal 4; "}},
		{"tail cut", l[:7], []string{
			fmt.Sprintf("%s: the log ends at seq 7, the seal at seq 8 (1 event removed from the end); "+
				"the log first departs from the seal after event 3 of the run (seq 7, log:7, byte %d), its last of the run: the seal's links agree with the log up to there, and the seal has 1 event more", r1, offset(l, 6)),
			r1 + ": the log has 3 events of the run, the seal 4; "}},
		{"longer", longer, []string{fmt.Sprintf("%s: the log has 5 events of the run, the seal 4; "+
			"the log first departs from the seal at event 5 of the run (seq 4, log:9, byte %d): the 4 events before it are the sealed run, it and those after are not sealed", r0, offset(l, 8))}},
	}
	for _, c := range cases {
		got := explain(t, sl, c.log)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestExplainLongRun: past its first 16 events a run's seal keeps one link
// in 16. A swap inside a window is recomputed and named exactly; an event
// replaced by another validly signed one is bounded to its window of 16;
// a log cut inside a window is checked up to the last checkpoint.
func TestExplainLongRun(t *testing.T) {
	l := longRun(t, 100, "a")
	other := longRun(t, 100, "b")
	sl := sealLines(t, l)
	if n := len(sl.Runs[0].Checkpoints); n != 16+100/16-1 {
		t.Fatalf("%d checkpoints", n)
	}
	with := func(edit func([]string) []string) []string { return edit(append([]string{}, l...)) }
	at := func(i int) string {
		return fmt.Sprintf("event %d of the run (seq %d, log:%d, byte %d)", i, i, i, offset(l, i-1))
	}
	const none = "; no later event of the run in the log (of the next 64 at most) is the one the seal has there: it was removed or replaced"
	const chain = "r: the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count; "
	cases := []struct {
		name string
		log  []string
		want string
	}{
		{"swapped in a window", with(func(x []string) []string { x[39], x[42] = x[42], x[39]; return x }),
			chain + "the log first departs from the seal at " + strings.Replace(at(40), "seq 40", "seq 43", 1) + ": it and " +
				strings.Replace(at(43), "seq 43", "seq 40", 1) + " are in each other's places (swapped back, they give the seal's link after event 48)"},
		{"replaced", with(func(x []string) []string { x[39] = other[39]; return x }),
			chain + "the log first departs from the seal at one of 16 events, from " + at(33) + " to " + at(48) +
				": the seal's links agree with the run's first 32 events, not after the last of these, and the seal keeps no link between (link 48)"},
		{"swapped across windows", with(func(x []string) []string { x[39], x[59] = x[59], x[39]; return x }),
			chain + "the log first departs from the seal at one of 16 events, from " + at(33) + " to " + at(48) +
				": the seal's links agree with the run's first 32 events, not after the last of these, and the seal keeps no link between (link 48)"},
		{"replaced in the first 16", with(func(x []string) []string { x[9] = other[9]; return x }),
			chain + "the log first departs from the seal at " + at(10) + ": the seal's links agree with the run's first 9 events, not with it (link 10)" + none},
		{"inserted in the first 16", with(func(x []string) []string { return append(x[:9], append([]string{other[9]}, x[9:]...)...) }),
			"r: the log has 101 events of the run, the seal 100; " + "the log first departs from the seal at " + at(10) + ": the seal's links agree with the run's first 9 events, not with it (link 10); the seal has there the log's " +
				fmt.Sprintf("event 11 of the run (seq 10, log:11, byte %d)", offset(l, 9)+len(other[9]))},
		{"inserted in a window", with(func(x []string) []string { return append(x[:39], append([]string{other[39]}, x[39:]...)...) }),
			"r: the log has 101 events of the run, the seal 100; the log first departs from the seal at " + at(40) +
				": the seal does not have it (without it, the log's events give the seal's link after event 48) (link 48)"},
		{"tail cut in a window", l[:70],
			"r: the log ends at seq 70, the seal at seq 100 (30 events removed from the end); the log first departs from the seal at or after " + at(65) +
				", up to its last of the run, " + at(70) + ": the seal's links agree with the run's first 64 events, and the seal keeps no link of the events after them to tell\n" +
				"r: the log has 70 events of the run, the seal 100; "},
	}
	for _, c := range cases {
		got := strings.Join(explain(t, sl, c.log), "\n")
		if got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

// A toonkit-seal/1 seal (the last link of each run only) is read,
// checked, extended in its format, and explained as well as it can be:
// the window is the whole run.
func TestSealFormat1(t *testing.T) {
	l := longRun(t, 20, "a")
	b, err := seal.Resume(&seal.Seal{Format: seal.Format1})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	add := func(b *seal.Builder, lines []string) {
		rd := sign.NewReader(strings.NewReader(strings.Join(lines, "")), 0)
		for {
			rec, err := rd.Next()
			if err != nil {
				return
			}
			ev, _ := s.Event(rec)
			var mac [32]byte
			hexDecode(t, mac[:], s.Sign(ev))
			b.Add(ev.RunID, ev.Seq, ev.T, &mac)
		}
	}
	add(b, l)
	v1, _ := b.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0))
	doc, _ := v1.Marshal()
	if bytes.Contains(doc, []byte("checkpoints")) || bytes.Contains(doc, []byte("every")) || !bytes.Contains(doc, []byte(`"format":"toonkit-seal/1"`)) {
		t.Fatalf("%s", doc)
	}
	sl, err := seal.Parse(doc, testKey)
	if err != nil {
		t.Fatal(err)
	}
	// Its chain is the same as toonkit-seal/2's.
	if v2 := sealLines(t, l); v2.Runs[0].Chain != sl.Runs[0].Chain {
		t.Fatal("the chains differ")
	}
	// Extended, it stays toonkit-seal/1, and is the seal of the whole log.
	more := longRun(t, 25, "a")[20:]
	half, _ := seal.Resume(&seal.Seal{Format: seal.Format1})
	add(half, l[:10])
	hs, _ := half.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0))
	hb, _ := seal.Resume(hs)
	add(hb, append(l[10:], more...))
	whole, _ := seal.Resume(&seal.Seal{Format: seal.Format1})
	add(whole, append(append([]string{}, l...), more...))
	x, _ := hb.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0))
	y, _ := whole.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0))
	xd, _ := x.Marshal()
	yd, _ := y.Marshal()
	if !bytes.Equal(xd, yd) || x.Format != seal.Format1 {
		t.Fatalf("extended:\n%s\nwhole:\n%s", xd, yd)
	}
	// Explained: the window is the whole run, a swap in it recomputed.
	sw := append([]string{}, l...)
	sw[4], sw[5] = sw[5], sw[4]
	got := strings.Join(explain(t, sl, sw), "\n")
	want := fmt.Sprintf("r: the chain differs from the seal's: an event was changed, replaced, or two swapped, with the same seqs and count; "+
		"the log first departs from the seal at event 5 of the run (seq 6, log:5, byte %d): it and event 6 of the run (seq 5, log:6, byte %d) are in each other's places (swapped back, they give the seal's link after event 20)", offset(sw, 4), offset(sw, 5))
	if got != want {
		t.Errorf("swapped:\ngot  %q\nwant %q", got, want)
	}
}

// The seal of a run of 1000 events or more grows by at most 1 KiB per
// 1000 events over the seal of one event.
func TestSealSize(t *testing.T) {
	l := longRun(t, 4000, "a")
	base := len(sealOf(t, []byte(l[0])))
	for _, n := range []int{1000, 4000} {
		doc := sealOf(t, []byte(strings.Join(l[:n], "")))
		if per := float64(len(doc)-base) / float64(n/1000); per > 1024 {
			t.Errorf("%d events: %d bytes more than one event's, %.0f a thousand", n, len(doc)-base, per)
		}
	}
}
