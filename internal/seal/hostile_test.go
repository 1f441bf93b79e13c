package seal_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// signRaw sets the "hmac" of a seal document written by hand: the HMAC of
// its canonical bytes without it, as a key holder would.
func signRaw(t testing.TB, doc string, key []byte) []byte {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	delete(m, "hmac")
	j, _ := json.Marshal(m)
	body, err := sign.Canonical(nil, j, sign.Style{SortKeys: true, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	h := hmac.New(sha256.New, key)
	h.Write(body)
	return []byte(strings.Replace(doc, `"hmac":""`, `"hmac":"`+hex.EncodeToString(h.Sum(nil))+`"`, 1))
}

// A seal with every 0 and a valid HMAC is reported as what it is, not as
// an HMAC mismatch (issue 31 §5); so is a sealed_at that is no RFC 3339
// UTC time.
func TestParseEveryAndSealedAt(t *testing.T) {
	doc := string(sealOf(t, signedLog(t)))
	unsign := func(s string) string {
		i := strings.Index(s, `"hmac":"`)
		return s[:i] + `"hmac":""` + s[i+8+64+1:]
	}
	for _, c := range []struct{ from, to, want string }{
		{`"every":16`, `"every":0`, "every is 0: every must be at least 1"},
		{`"sealed_at":"2026-01-02T03:04:05Z"`, `"sealed_at":"yesterday"`, `sealed_at "yesterday" is not a time in RFC 3339, UTC`},
		{`"sealed_at":"2026-01-02T03:04:05Z"`, `"sealed_at":"2026-01-02T04:04:05+01:00"`, `is not a time in RFC 3339, UTC`},
	} {
		edited := signRaw(t, unsign(strings.Replace(doc, c.from, c.to, 1)), testKey)
		_, err := seal.Parse(edited, testKey)
		if err == nil || errors.Is(err, seal.ErrHMAC) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
	}
}

// A member given twice, at the top or in a run, is no seal, whatever its
// HMAC: CPython would read the last, a reader of another language the
// first.
func TestParseDuplicateMembers(t *testing.T) {
	doc := string(sealOf(t, signedLog(t)))
	for _, d := range []string{
		strings.Replace(doc, `{"every":16,`, `{"every":16,"every":16,`, 1),
		strings.Replace(doc, `"count":4,`, `"count":4,"count":3,`, 1),
		strings.Replace(doc, `"format":"toonkit-seal/3",`, `"format":"toonkit-seal/3","format":"toonkit-seal/3",`, 1),
	} {
		_, err := seal.Parse([]byte(d), testKey)
		if err == nil || errors.Is(err, seal.ErrHMAC) || !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("%v", err)
		}
	}
}

// A huge seal with a bad HMAC is rejected as an HMAC mismatch without its
// runs decoded into Go values (issue 31 §4): the allocations do not grow
// with the number of runs, and the bytes allocated stay within a few
// times the file's size.
func TestParseHugeBadHMAC(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"every":16,"format":"toonkit-seal/3","hmac":"` + strings.Repeat("0", 64) + `","log_chain":"` + strings.Repeat("0", 64) + `","runs":[`)
	const runs = 40000
	for i := range runs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"chain":"%s","checkpoints":["0000000000"],"count":1,"first_seq":1,"first_t":"t","last_seq":1,"last_t":"t","run_id":"run-%d"}`, strings.Repeat("0", 64), i)
	}
	b.WriteString(`],"scheme":"spec","sealed_at":"2026-01-02T03:04:05Z"}`)
	data := []byte(b.String())
	var err error
	allocs := testing.AllocsPerRun(2, func() { _, err = seal.Parse(data, testKey) })
	if !errors.Is(err, seal.ErrHMAC) {
		t.Fatalf("%v, want ErrHMAC", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	seal.Parse(data, testKey)
	runtime.ReadMemStats(&after)
	bytes := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes of seal: %.0f allocations, %d bytes allocated", len(data), allocs, bytes)
	if allocs > runs/10 || bytes > uint64(len(data))/2 {
		t.Fatalf("%.0f allocations and %d bytes for a seal of %d runs, %d bytes: the runs were held as Go values", allocs, bytes, runs, len(data))
	}
}

// ReadLimit refuses a seal over its limit without reading past it.
func TestReadLimit(t *testing.T) {
	doc := sealOf(t, signedLog(t))
	if b, err := seal.ReadLimit(bytes.NewReader(doc), int64(len(doc))); err != nil || !bytes.Equal(b, doc) {
		t.Fatalf("at the limit: %v", err)
	}
	big := append(append([]byte{}, doc...), bytes.Repeat([]byte(" "), 1<<20)...)
	r := bytes.NewReader(big)
	_, err := seal.ReadLimit(r, int64(len(doc)))
	var tl *seal.TooLargeError
	if !errors.As(err, &tl) || tl.Limit != int64(len(doc)) {
		t.Fatalf("%v", err)
	}
	if read := len(big) - r.Len(); read > len(doc)+1 {
		t.Fatalf("read %d bytes of a seal over the limit of %d", read, len(doc))
	}
	if _, err := seal.ReadLimit(strings.NewReader("x"), 0); err != nil {
		t.Fatalf("limit 0 is MaxSize: %v", err)
	}
}

// A seal is not made of a log that verify rejects: repeats (replays),
// steps back and gaps are refused at their event, by FromLog (seal) and
// by Append (sign --seal).
func TestSealRefusesReplays(t *testing.T) {
	log := signedLog(t)
	l := strings.SplitAfter(string(log), "\n")
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	for _, c := range []struct {
		name, log, want string
	}{
		{"replay", string(log) + l[1] + l[2], ":9:1: event 9: seq 2 (run 550e8400-e29b-41d4-a716-000000000000): repeated"},
		{"step back", l[0] + l[2] + l[1] + strings.Join(l[3:], ""), ":3:1: event 3: seq 2 (run 550e8400-e29b-41d4-a716-000000000000): out of order"},
		{"gap", l[0] + strings.Join(l[2:], ""), ":2:1: event 2: seq 3 (run 550e8400-e29b-41d4-a716-000000000000): an event is missing between seq 1 and 3"},
	} {
		_, err := seal.FromLog(strings.NewReader(c.log), s, 0)
		var le *seal.LogError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromLog, %s: %v, want %q", c.name, err, c.want)
		}
	}
	// Append, as sign --seal feeds it.
	var b seal.Builder
	var mac [32]byte
	add := func(run string, seq int) error {
		return b.Append([]byte(run), []byte(fmt.Sprint(seq)), []byte("t"), &mac)
	}
	for _, seq := range []int{3, 4, 5} {
		if err := add("a", seq); err != nil {
			t.Fatal(err)
		}
	}
	if err := add("b", 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		seq  int
		want string
	}{
		{5, "seq 5 (run a): repeated: the run is at seq 5 already (a replay)"},
		{4, "seq 4 (run a): out of order: it comes after seq 5"},
		{8, "seq 8 (run a): a gap: it comes after seq 5 (2 events missing)"},
	} {
		var se *seal.SeqError
		if err := add("a", c.seq); !errors.As(err, &se) || err.Error() != c.want {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if err := b.Append([]byte("a"), []byte("99999999999999999999"), []byte("t"), &mac); err == nil {
		t.Error("a seq beyond 64 bits was sealed")
	}
	if err := add("a", 6); err != nil {
		t.Fatalf("after the refusals: %v", err)
	}
	if sl, _ := b.Seal(testKey, sign.SchemeSpec, time.Unix(0, 0)); sl.Runs[0].Count != 4 {
		t.Fatalf("refused events were added: %+v", sl.Runs[0])
	}
}

// toonkit-seal/3's log chain catches runs reordered, interleaved or split,
// that each run's own chain cannot; a toonkit-seal/2 seal states the order
// of the runs' first events only, and accepts runs interleaved or split
// (documented).
func TestLogChainOrder(t *testing.T) {
	log := signedLog(t)
	l := strings.SplitAfter(string(log), "\n")[:8]
	sl, err := seal.Parse(sealOf(t, log), testKey)
	if err != nil {
		t.Fatal(err)
	}
	v2 := *sl
	v2.Format, v2.LogChain = seal.Format2, ""
	v2.Sign(testKey)
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	const r0, r1 = "550e8400-e29b-41d4-a716-000000000000", "550e8400-e29b-41d4-a716-000000000001"
	for _, c := range []struct {
		name string
		log  []string
		want string
	}{
		{"intact", l, ""},
		{"runs reordered", append(append([]string{}, l[4:]...), l[:4]...), r1 + ": the runs are in another order than the seal's: the log's run 1 (by its first event) is this one, the seal's is " + r0},
		{"interleaved", []string{l[0], l[4], l[1], l[5], l[2], l[6], l[3], l[7]}, ": the log's events are in another order than the seal's, across runs"},
		{"split", []string{l[0], l[1], l[4], l[2], l[3], l[5], l[6], l[7]}, ": the log's events are in another order than the seal's, across runs"},
	} {
		b, err := anyLog(strings.NewReader(strings.Join(c.log, "")), s)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range b.Compare(sl) {
			got = append(got, f.RunID+": "+f.Msg)
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		// toonkit-seal/2 states the order of the runs' first events only.
		b2, _ := anyLog(strings.NewReader(strings.Join(c.log, "")), s)
		if fs := b2.Compare(&v2); (len(fs) > 0) != (c.name == "runs reordered") {
			t.Errorf("%s, toonkit-seal/2: %+v", c.name, fs)
		}
	}
}

// ParseKey names the key a seal verifies with, so that verify can fail a
// seal made with a key rotated out.
func TestParseKey(t *testing.T) {
	doc := sealOf(t, signedLog(t))
	old, cur := testKey, []byte("the-current-key-0123")
	if _, k, err := seal.ParseKey(doc, cur, old); err != nil || k != 1 {
		t.Fatalf("%d %v, want 1", k, err)
	}
	if _, k, err := seal.ParseKey(doc, old, cur); err != nil || k != 0 {
		t.Fatalf("%d %v, want 0", k, err)
	}
	if _, k, err := seal.ParseKey(doc, cur); !errors.Is(err, seal.ErrHMAC) || k != -1 {
		t.Fatalf("%d %v, want ErrHMAC", k, err)
	}
}
