package validate

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// allocated is the bytes f allocates (runtime.MemStats.TotalAlloc: what
// the garbage collector is given to manage, so what the process's memory
// grows by, old copies of a growing table included).
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// uuids is n random canonical UUIDs, 36 bytes each, in one allocation.
func uuids(n int, rng *rand.Rand) []byte {
	out := make([]byte, 0, 36*n)
	var b [16]byte
	for range n {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		h := hex.EncodeToString(b[:])
		out = fmt.Appendf(out, "%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
	}
	return out
}

// An id set takes a few dozen bytes per id, old copies of its table
// included, at any count of ids (a table that doubles and copies itself
// took 80-100 bytes, and twice that just after a growth).
func TestIDSetMemoryPerID(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 600000
	ids := uuids(n, rng)
	id := func(i int) []byte { return ids[36*i : 36*i+36] }
	// The counts where a doubling table has just grown, or not.
	for _, count := range []int{100000, 200000, 400000, 600000} {
		var s32 idSet[int32]
		var s64 idSet[uint64]
		b32 := allocated(func() {
			for i := range count {
				s32.add(id(i), int32(i))
			}
		})
		b64 := allocated(func() {
			for i := range count {
				s64.add(id(i), uint64(i))
			}
		})
		per32, per64 := float64(b32)/float64(count), float64(b64)/float64(count)
		t.Logf("%d ids: %.1f bytes an id (int32), %.1f (uint64)", count, per32, per64)
		// A slot is 16+4+1 or 16+8+1 bytes; a segment holds 7/8 of its
		// slots at most and half of that at least.
		if per32 > 48 || per64 > 56 {
			t.Errorf("%d ids: %.1f bytes an id with int32 values (want <= 48), %.1f with uint64 (want <= 56)", count, per32, per64)
		}
		if v, ok := s32.get(id(count - 1)); !ok || v != int32(count-1) {
			t.Fatalf("the last id: %d %v", v, ok)
		}
	}
}

// An id that is not a canonical UUID is kept as a digest of 16 bytes,
// however long it is; the set still tells each id apart.
func TestIDSetKeepsDigests(t *testing.T) {
	const n = 50000
	pad := strings.Repeat("x", 1000)
	id := func(i int) []byte { return fmt.Appendf(nil, "%s-%d", pad, i) }
	var s idSet[int32]
	ids := make([][]byte, n)
	for i := range ids {
		ids[i] = id(i)
	}
	b := allocated(func() {
		for i, x := range ids {
			if _, seen := s.add(x, int32(i)); seen {
				t.Fatalf("id %d seen before it was added", i)
			}
		}
	})
	if per := float64(b) / n; per > 56 {
		t.Errorf("%.1f bytes an id of 1 KB, want <= 56 (a digest, not the id)", per)
	}
	for i, x := range ids {
		if prev, seen := s.add(x, -1); !seen || prev != int32(i) {
			t.Fatalf("id %d again: %d %v", i, prev, seen)
		}
	}
	if _, ok := s.get(id(n)); ok {
		t.Fatal("an id never added was found")
	}
	// Upper case, braces, no hyphens: each its own id, not the UUID's.
	var u idSet[int32]
	forms := []string{"550e8400-e29b-41d4-a716-446655440001", "550E8400-E29B-41D4-A716-446655440001", "{550e8400-e29b-41d4-a716-446655440001}", "550e8400e29b41d4a716446655440001"}
	for i, f := range forms {
		if _, seen := u.add([]byte(f), int32(i)); seen {
			t.Fatalf("%s taken for another form", f)
		}
	}
	for i, f := range forms {
		if v, ok := u.get([]byte(f)); !ok || v != int32(i) {
			t.Fatalf("%s: %d %v", f, v, ok)
		}
	}
	// The upper-case UUID is kept exactly too, at no SHA-256.
	if u.uuids.n != 1 || u.upper.n != 1 || u.other.n != 2 {
		t.Fatalf("%d lower-case UUIDs, %d upper-case, %d digests; want 1, 1, 2", u.uuids.n, u.upper.n, u.other.n)
	}
}

// chiffonReader reads the n Chiffon messages benchMessages writes, made
// as they are read from the first task's without allocating: a long
// stream takes no memory to hold or to make.
type chiffonReader struct {
	i, n int
	tmpl [4][]byte
	at   [4][4]int // where the 12 last hex digits of message_id, request_id, trace_id and task_id are
	secs [4]int    // where the timestamp's seconds are
	buf  []byte
	rest []byte
}

func newChiffonReader(n int) *chiffonReader {
	r := &chiffonReader{n: n}
	lines := strings.SplitAfter(benchMessages("chiffon", 4), "\n")
	for k := range r.tmpl {
		r.tmpl[k] = []byte(lines[k])
		for j, f := range []string{`"message_id":"`, `"request_id":"`, `"trace_id":"`, `"task_id":"`} {
			r.at[k][j] = strings.Index(lines[k], f) + len(f) + 24
		}
		r.secs[k] = strings.Index(lines[k], `"timestamp":"`) + len(`"timestamp":"2026-01-19T04:21:`)
	}
	return r
}

func (r *chiffonReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		r.buf = r.buf[:0]
		for ; r.i < r.n && len(r.buf) < 64<<10; r.i++ {
			k := r.i % 4
			m := len(r.buf)
			r.buf = append(r.buf, r.tmpl[k]...)
			for j, v := range [4]int{r.i, r.i, r.i / 4, r.i / 4} {
				if at := r.at[k][j]; at >= 24 {
					hexDigits(r.buf[m+at:m+at+12], uint64(v))
				}
			}
			r.buf[m+r.secs[k]], r.buf[m+r.secs[k]+1] = '0'+byte(r.i%60/10), '0'+byte(r.i%10)
		}
		r.rest = r.buf
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// hexDigits writes v into b as len(b) lowercase hex digits.
func hexDigits(b []byte, v uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = "0123456789abcdef"[v&15]
		v >>= 4
	}
}

// Validating a long stream of Chiffon messages (ids of every kind: message,
// request, task; output chunks) allocates about a hundred bytes a message,
// what the stream rules keep, on one worker and on two: the reader's and
// the workers' memory is reused from message to message.
func TestChiffonMemoryPerMessage(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	const n = 400000
	for _, workers := range []int{1, 2} {
		var got int
		var err error
		b := allocated(func() {
			got, err = Chiffon(newChiffonReader(n), "in", Options{Workers: workers}, func(f Finding) bool {
				t.Fatal(f.Text())
				return false
			})
		})
		if err != nil || got != n {
			t.Fatal(got, err)
		}
		per := float64(b) / n
		t.Logf("-j %d: %.1f bytes a message", workers, per)
		if per > 125 {
			t.Errorf("-j %d: %.1f bytes allocated a message, want <= 125", workers, per)
		}
	}
}

// The chunk sets of the steps whose chunks tile their output are let go:
// a stream of tasks keeps none of them.
func TestChiffonLetsTiledChunksGo(t *testing.T) {
	c := newChiffon()
	n, err := envelopes(newChiffonReader(4000), "in", Options{}, c, func(f Finding) bool {
		t.Fatal(f.Text())
		return false
	})
	if err != nil || n != 4000 {
		t.Fatal(n, err)
	}
	if len(c.chunks) != 0 {
		t.Fatalf("%d chunk sets kept: %v", len(c.chunks), slices.Collect(maps.Keys(c.chunks)))
	}
}

// The messages of chiffonReader are those of benchMessages.
func TestChiffonReader(t *testing.T) {
	b, err := io.ReadAll(newChiffonReader(400))
	if err != nil || string(b) != benchMessages("chiffon", 400) {
		t.Fatalf("%v\n%s", err, b)
	}
}

// The chunks of a step are told apart by the task and the step's number
// as written, whether the task is a canonical UUID and the number an
// integer (an exact key) or not (a digest): 0 and -0 are two steps.
func TestChiffonChunkKeys(t *testing.T) {
	status := strings.SplitAfter(benchMessages("chiffon", 2), "\n")[1]
	msg := func(i int, task, step, chunk string) string {
		m := strings.Replace(status, "550e8400-e29b-41d4-a716-000000000001", fmt.Sprintf("550e8400-e29b-41d4-a716-%012x", i), 1)
		m = strings.Replace(m, "770e8400-e29b-41d4-a716-000000000001", fmt.Sprintf("770e8400-e29b-41d4-a716-%012x", i), 1)
		m = strings.Replace(m, `"task_id":"880e8400-e29b-41d4-a716-000000000000"`, `"task_id":"`+task+`"`, 1)
		m = strings.Replace(m, `"number":5`, `"number":`+step, 1)
		return strings.Replace(m, "bytes 0-50 of 100", chunk, 1)
	}
	const uuid = "880e8400-e29b-41d4-a716-000000000009"
	in := msg(0, uuid, "0", "bytes 0-50 of 100") +
		msg(1, uuid, "-0", "bytes 50-100 of 100") +
		msg(2, "task-1", "1", "bytes 0-10 of 20") +
		msg(3, "task-1", "1.0", "bytes 0-5 of 10") +
		msg(4, "task-1", "1", "bytes 10-20 of 20") +
		msg(5, uuid, "7", "bytes 0-1 of 2") +
		msg(6, uuid, "7", "bytes 1-2 of 2")
	var got []string
	if _, err := Chiffon(strings.NewReader(in), "in", Options{}, func(f Finding) bool {
		if f.Code == "CHF052" {
			got = append(got, fmt.Sprintf("record %d: %s", f.Record, f.Message))
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"record 0: the chunks of step 0 of task " + uuid + " do not tile its output: bytes 50-100 of the output are in no chunk",
		"record 1: the chunks of step -0 of task " + uuid + " do not tile its output: bytes 0-50 of the output are in no chunk",
		"record 3: the chunks of step 1.0 of task task-1 do not tile its output: bytes 5-10 of the output are in no chunk",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// retained is the bytes of the heap that f leaves in use, once garbage is
// collected.
func retained(f func()) int64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	return int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
}

// The trace rules keep a run_id that is not a canonical UUID as a digest,
// and Narratoria's an assetId: a stream of long ids keeps a few dozen
// bytes of each, not the id.
func TestLongIDsKeptAsDigests(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	const n = 5000
	pad := strings.Repeat("r", 2000)
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"seq":0,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"final_output","payload":{"text":"ok"},"meta":{"seed":42,"run_id":"%s-%d","agent_id":123,"session_id":"s","signature":"%064x"}}`+"\n", pad, i, i)
	}
	tr := &trace{}
	b := retained(func() {
		if _, err := envelopes(strings.NewReader(in.String()), "in", Options{}, tr, func(Finding) bool { return true }); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("trace: %d bytes kept for %d runs", b, n)
	if per := float64(b) / n; per > 200 {
		t.Errorf("trace: %.0f bytes kept a run of a 2 KB run_id, want <= 200", per)
	}
	runtime.KeepAlive(tr)

	in.Reset()
	for i := range n {
		fmt.Fprintf(&in, `{"version":"0","type":"asset","assetId":"%s-%d","mediaType":"image/png","url":"https://example.com/a.png"}`+"\n", pad, i)
	}
	lines := strings.Split(strings.TrimSuffix(in.String(), "\n"), "\n")
	nr := &narr{done: -1, errorAt: -1}
	b = retained(func() {
		for i, line := range lines {
			nf := narrFacts{typ: "asset", assetID: strings.Clone(line[40:]), hasAsset: true} // as r.str copies it
			nr.check(&nf, i, func(string, string, Severity, string) bool { return true })
		}
	})
	runtime.KeepAlive(lines)
	t.Logf("narratoria: %d bytes kept for %d assets", b, n)
	if per := float64(b) / n; per > 200 {
		t.Errorf("narratoria: %.0f bytes kept an asset of a 2 KB assetId, want <= 200", per)
	}
	runtime.KeepAlive(nr)
}

// Keys whose hashes share their first 10 bits (which takes knowing the
// seeds) do not blow the directory up: past 64 entries a segment (128
// after the doubling that reached it), the segment grows instead of
// splitting. The table is still a map.
func TestIDTableSkewedKeys(t *testing.T) {
	tab := idTable[int32]{s1: 1, s2: 2}
	var keys [][16]byte
	var k [16]byte
	for i := uint64(0); len(keys) < 8000; i++ {
		binary.LittleEndian.PutUint64(k[:8], i)
		if tab.hash(k)>>54 == 0 {
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		if _, seen := tab.add(k, int32(i)); seen {
			t.Fatalf("key %d seen before it was added", i)
		}
	}
	if len(tab.dir) > 128*tab.segs || tab.segs > 32 {
		t.Fatalf("a directory of %d entries for %d segments", len(tab.dir), tab.segs)
	}
	for i, k := range keys {
		if v, ok := tab.get(k); !ok || v != int32(i) {
			t.Fatalf("key %d: %d %v", i, v, ok)
		}
	}
	t.Logf("%d entries, %d segments, %d keys", len(tab.dir), tab.segs, tab.n)
}

// An id set answers as a map of the ids' texts does, for any sequence of
// adds and looks-up of UUIDs and other ids, across the splits of its
// tables (an op adds a burst of thousands of ids).
func FuzzIDSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 1, 2, 2, 0, 0, 3, 5, 0, 1, 1, 2})
	f.Add([]byte{3, 0, 0, 3, 0, 9, 1, 0, 5, 0, 0, 1, 4, 1, 200})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s idSet[int32]
		want := map[string]int32{}
		id := func(i uint16) []byte {
			switch i % 4 {
			case 0, 1:
				return fmt.Appendf(nil, "550e8400-e29b-41d4-a716-%012x", i)
			case 2:
				return fmt.Appendf(nil, "550E8400-E29B-41D4-A716-%012X", i)
			}
			return fmt.Appendf(nil, "id-%d", i)
		}
		check := func(x []byte, v int32) {
			prev, seen := s.add(x, v)
			w, wseen := want[string(x)]
			if seen != wseen || seen && prev != w {
				t.Fatalf("add %s: %d %v, want %d %v", x, prev, seen, w, wseen)
			}
			if !wseen {
				want[string(x)] = v
			}
		}
		for len(ops) >= 3 {
			op, i := ops[0], uint16(ops[1])<<8|uint16(ops[2])
			ops = ops[3:]
			switch op % 3 {
			case 0:
				check(id(i), int32(len(want)))
			case 1:
				v, ok := s.get(id(i))
				w, wok := want[string(id(i))]
				if ok != wok || v != w {
					t.Fatalf("get %s: %d %v, want %d %v", id(i), v, ok, w, wok)
				}
			default:
				for j := range uint16(5000) {
					check(id(i+j), int32(j))
				}
			}
		}
	})
}

// The key of an id found ahead, on a worker (keyOf), puts it where add
// puts it: an id added one way is found the other way, for each form an
// id takes (a UUID, in lower or upper case, or any other text, digested).
func TestIDSetKeyedMatchesAdd(t *testing.T) {
	forms := []string{
		"550e8400-e29b-41d4-a716-446655440001", "550E8400-E29B-41D4-A716-446655440001",
		"550e8400-E29B-41d4-a716-446655440001", "{550e8400-e29b-41d4-a716-446655440001}",
		"550e8400e29b41d4a716446655440001", "msg-1", "", strings.Repeat("z", 300),
	}
	var byAdd, byKey idSet[int32]
	for i, f := range forms {
		id := []byte(f)
		if _, seen := byAdd.add(id, int32(i)); seen {
			t.Fatalf("%q seen before it was added", f)
		}
		if _, seen := byKey.addKeyed(id, keyOf(id), int32(i)); seen {
			t.Fatalf("%q seen before it was added, by its key", f)
		}
	}
	for i, f := range forms {
		id := []byte(f)
		if v, ok := byAdd.getKeyed(id, keyOf(id)); !ok || v != int32(i) {
			t.Errorf("%q added, then looked up by its key: %d %v, want %d true", f, v, ok, i)
		}
		if v, seen := byKey.add(id, -1); !seen || v != int32(i) {
			t.Errorf("%q added by its key, then again: %d %v, want %d true", f, v, seen, i)
		}
	}
	if got, want := keyOf([]byte(forms[0])).form, uint8(keyLower); got != want {
		t.Errorf("keyOf(%q).form = %d, want %d", forms[0], got, want)
	}
	if got, want := keyOf([]byte(forms[1])).form, uint8(keyUpper); got != want {
		t.Errorf("keyOf(%q).form = %d, want %d", forms[1], got, want)
	}
}
