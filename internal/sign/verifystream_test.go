package sign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// verifyRun is what Log.Verify made of some inputs: every problem, in
// order, the counts, and the error of each input.
type verifyRun struct {
	Problems []Problem
	Counts   [6]int
	Runs     int
	Errs     []string
}

// verifyWith verifies inputs as one log, each with Log.Verify and opts,
// the way cmd/verify.go does it.
func verifyWith(t testing.TB, inputs [][]byte, opts VerifyOptions, explain, both bool) verifyRun {
	return verifyFrom(t, inputs, nil, opts, explain, both)
}

// verifyFrom is verifyWith, each input read through wrap.
func verifyFrom(t testing.TB, inputs [][]byte, wrap func(io.Reader) io.Reader, opts VerifyOptions, explain, both bool) verifyRun {
	t.Helper()
	var r verifyRun
	l := &Log{Signer: mustSigner(t, "test-key", SchemeSpec), Explain: explain, RequireBoth: both,
		Emit: func(p Problem) { r.Problems = append(r.Problems, p) }}
	for i, in := range inputs {
		var rd io.Reader = bytes.NewReader(in)
		if wrap != nil {
			rd = wrap(rd)
		}
		err := l.Verify(context.Background(), rd, fmt.Sprint("in", i), opts)
		var se *jsonv.SyntaxError
		var tl *jsonv.TooLargeError
		switch {
		case err == nil:
			r.Errs = append(r.Errs, "")
		case errors.As(err, &se):
			l.Bad(Where{File: "x", Line: se.Pos.Line, Column: se.Pos.Column, Offset: se.Pos.Offset, Index: l.Records()}, "", se.Msg)
			r.Errs = append(r.Errs, fmt.Sprintf("syntax %s %s", se.Pos, se.Msg))
		case errors.As(err, &tl):
			l.Bad(Where{File: "x", Line: tl.Pos.Line, Column: tl.Pos.Column, Offset: tl.Pos.Offset, Index: l.Records()}, "", "too large")
			r.Errs = append(r.Errs, fmt.Sprintf("too large %s", tl.Pos))
		default:
			r.Errs = append(r.Errs, err.Error())
		}
	}
	l.Finish()
	r.Counts = [6]int{l.Events, l.Unread, l.Errors, l.Warnings, l.MetaOnly, l.TopOnly}
	r.Runs = l.Runs()
	return r
}

// genLog is n trace events of several runs, signed with test-key: about
// 300 bytes each, some with non-ASCII text.
func genSignedLog(t testing.TB, n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 17))
	var b bytes.Buffer
	seqs := map[int]int{}
	for range n {
		run := rng.IntN(4)
		seqs[run]++
		fmt.Fprintf(&b, `{"seq":%d,"t":"2025-12-05T10:30:%02d.000Z","actor":"agent","type":"reasoning","payload":{"goal":"step %d","note":%q,"n":%d.5},"meta":{"run_id":"run-%d-%s","agent_id":1}}`+"\n",
			seqs[run], rng.IntN(60), rng.IntN(1000), strings.Repeat("é–x", rng.IntN(60)), rng.IntN(99), run, strings.Repeat("r", run))
	}
	return signBytes(t, "test-key", SchemeSpec, b.Bytes())
}

// variants are the log changed in the ways verify reports, and in the ways
// its input may be laid out.
func variants(t *testing.T, log []byte) map[string][]byte {
	lines := bytes.SplitAfter(log, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty one after the last line break
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	edit := func(f func(i int, l []byte) [][]byte) []byte {
		var out [][]byte
		for i, l := range lines {
			out = append(out, f(i, l)...)
		}
		return join(out)
	}
	n := len(lines)
	v := map[string][]byte{
		"good": log,
		"tampered": edit(func(i int, l []byte) [][]byte {
			return [][]byte{bytes.Replace(l, []byte(`"step `), []byte(`"Step `), i%97/96)}
		}),
		"gaps":      edit(func(i int, l []byte) [][]byte { return [][]byte{l[:len(l)*min(1, i%53)]} }),
		"repeats":   edit(func(i int, l []byte) [][]byte { return [][]byte{l, l[:len(l)*(i%71/70)]} }),
		"unsigned":  sigTop.ReplaceAll(bytes.ReplaceAll(log, []byte(`,"signature":"`), []byte(`,"x":"`)), []byte("}\n")),
		"meta-only": sigTop.ReplaceAll(log, []byte("}\n")),
		"swapped":   edit(func(i int, l []byte) [][]byte { return [][]byte{lines[i^1*(i%2+i/2%2)%2]} }),
		"late": edit(func(i int, l []byte) [][]byte { // a gap filled past the window, and one within it
			switch i {
			case 10, 20:
				return nil
			case n - 5:
				return [][]byte{l, lines[10]}
			case 40:
				return [][]byte{l, lines[20]}
			}
			return [][]byte{l}
		}),
		"not-events": edit(func(i int, l []byte) [][]byte {
			switch i % 101 {
			case 7:
				return [][]byte{[]byte("[1, 2]\n"), l}
			case 8:
				return [][]byte{[]byte(`{"seq": "1", "meta": {"run_id": "x"}}` + "\n"), l}
			case 9:
				return [][]byte{[]byte("\"text\" 12\n{\"a\": {\"b\": \n\n [1]}}\n"), l}
			}
			return [][]byte{l}
		}),
		"malformed":  join(append(append(append([][]byte{}, lines[:n*2/3]...), []byte("{\"seq\": 1,, }\n")), lines[n*2/3:]...)),
		"truncated":  log[:len(log)-len(lines[n-1])/2],
		"no-newline": log[:len(log)-1],
		"crlf":       bytes.ReplaceAll(log, []byte("\n"), []byte("\r\n")),
		"bom":        append([]byte("\xEF\xBB\xBF"), log...),
		"blank":      bytes.ReplaceAll(log, []byte("\n"), []byte("\n \n\t\n")),
		"two-a-line": bytes.ReplaceAll(log, []byte("}\n{"), []byte("}  {")),
		"array":      append(append([]byte("[\n"), bytes.ReplaceAll(bytes.TrimSpace(log), []byte("}\n{"), []byte("},\n{"))...), "\n]\n"...),
		"big-event": edit(func(i int, l []byte) [][]byte {
			if i == n/2 {
				return [][]byte{bytes.Replace(l, []byte(`"note":"`), []byte(`"note":"`+strings.Repeat("big ", 5000)), 1), l}
			}
			return [][]byte{l}
		}),
		"empty":  nil,
		"spaces": []byte(" \n\n  \n"),
	}
	for _, s := range pyjson.Styles {
		v["python-"+s.Name] = pyjson.Dumps(t, v["tampered"], s.Flags...)
	}
	// JSON arrays, as json.dumps writes a list, and arrays that a Reader
	// refuses or reads in an unusual way.
	arr := v["array"]
	el := bytes.Index(arr, []byte("},\n{")) + 3 // the start of the second element
	v["array-python-indent2"] = pyjson.Dumps(t, arr, "--indent", "2")
	v["array-python-tabs-crlf"] = pyjson.Dumps(t, arr, "--indent", "tab", "--crlf")
	v["array-unclosed"] = arr[:len(arr)-2]
	v["array-extra"] = append(bytes.Clone(arr), "{}\n"...)
	v["array-trailing-comma"] = append(bytes.Clone(arr[:len(arr)-3]), ",\n]\n"...)
	v["array-no-comma"] = append(bytes.Clone(arr[:len(arr)/2]), bytes.Replace(arr[len(arr)/2:], []byte("},\n{"), []byte("}\n{"), 1)...)
	v["array-comma-first"] = bytes.ReplaceAll(arr, []byte("},\n{"), []byte("}\n,{"))
	v["array-nested-lines"] = append(append(bytes.Clone(arr[:el]), "{\"a\": [\n{\"b\": 1},\n{\"c\": 2}\n]},\n"...), arr[el:]...)
	v["array-empty"] = []byte("[\n]\n")
	v["array-one-line"] = bytes.ReplaceAll(arr, []byte("\n"), nil)
	return v
}

// Verify with 4 workers finds what one worker finds, in the same order, at
// the same places, with the same counts and errors; batches of a few bytes
// to many events, so that every kind of cut is met.
func TestVerifyWorkersMatchOne(t *testing.T) {
	needs.Slow(t, "verifies every stream with 1 to 4 workers")
	events, batches := 1400, []int{1, 300, 4096, 0}
	if raceflag.Enabled {
		events, batches = 500, []int{300, 4096} // a race run that stays short
	}
	log := genSignedLog(t, events, 1)
	for name, in := range variants(t, log) {
		for _, flags := range []struct{ explain, both bool }{{false, false}, {true, true}} {
			one := verifyWith(t, [][]byte{in}, VerifyOptions{Workers: 1}, flags.explain, flags.both)
			if name == "good" && (one.Counts[2] != 0 || one.Counts[0] != events) {
				t.Fatalf("the generated log does not verify: %+v", one)
			}
			for _, batch := range batches {
				four := verifyWith(t, [][]byte{in}, VerifyOptions{Workers: 4, BatchBytes: batch}, flags.explain, flags.both)
				if !reflect.DeepEqual(one, four) {
					t.Errorf("%s %+v, batches of %d bytes: 4 workers differ from one:\n%s", name, flags, batch, diffRuns(one, four))
				}
			}
		}
	}
}

// chunky is a pipe's reader: each read returns what has come, here a
// random number of bytes, most often fewer than asked for.
type chunky struct {
	r   io.Reader
	rng *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	if n := 1 + c.rng.IntN(3000); n < len(p) {
		p = p[:n]
	}
	return c.r.Read(p)
}

// Read as from a pipe (reads that return less than asked for, which cut
// a batch where a line ends), the workers find what one worker finds.
func TestVerifyWorkersPipe(t *testing.T) {
	events := 1000
	if raceflag.Enabled {
		events = 300
	}
	seeds := uint64(3)
	for name, in := range variants(t, genSignedLog(t, events, 5)) {
		one := verifyWith(t, [][]byte{in}, VerifyOptions{Workers: 1}, false, false)
		for seed := range seeds {
			wrap := func(r io.Reader) io.Reader { return &chunky{r, rand.New(rand.NewPCG(seed, 1))} }
			four := verifyFrom(t, [][]byte{in}, wrap, VerifyOptions{Workers: 4}, false, false)
			if !reflect.DeepEqual(one, four) {
				t.Errorf("%s, read in pieces (seed %d): 4 workers differ from one:\n%s", name, seed, diffRuns(one, four))
			}
		}
	}
}

// Several inputs are one log: the seq rule holds across them, indexes go on.
func TestVerifyWorkersSeveralInputs(t *testing.T) {
	log := genSignedLog(t, 900, 2)
	v := variants(t, log)
	cut := bytes.Index(log[len(log)/2:], []byte("\n")) + len(log)/2 + 1
	sets := [][][]byte{
		{log[:cut], log[cut:]},
		{log[cut:], log[:cut]},
		{v["malformed"], log[:cut], v["truncated"]},
		{v["array"], v["gaps"], nil, v["bom"]},
	}
	for i, inputs := range sets {
		one := verifyWith(t, inputs, VerifyOptions{Workers: 1}, false, false)
		four := verifyWith(t, inputs, VerifyOptions{Workers: 4, BatchBytes: 2000}, false, false)
		if !reflect.DeepEqual(one, four) {
			t.Errorf("set %d: 4 workers differ from one:\n%s", i, diffRuns(one, four))
		}
	}
}

// A read error mid-stream is returned after the events before it, as one
// worker returns it.
func TestVerifyWorkersReadError(t *testing.T) {
	log := genSignedLog(t, 300, 3)
	for _, at := range []int{0, 1, len(log) / 3, len(log) - 1} {
		run := func(workers int) verifyRun {
			var r verifyRun
			l := &Log{Signer: mustSigner(t, "test-key", SchemeSpec), Emit: func(p Problem) { r.Problems = append(r.Problems, p) }}
			in := io.MultiReader(bytes.NewReader(log[:at]), iotest.ErrReader(errors.New("disk on fire")))
			err := l.Verify(context.Background(), in, "f", VerifyOptions{Workers: workers, BatchBytes: 1000})
			r.Errs = []string{fmt.Sprint(err)}
			r.Counts[0], r.Counts[2] = l.Events, l.Errors
			return r
		}
		if one, four := run(1), run(4); !reflect.DeepEqual(one, four) || one.Errs[0] != "disk on fire" {
			t.Errorf("read error at %d: 4 workers differ from one:\n%s", at, diffRuns(one, four))
		}
	}
}

func diffRuns(a, b verifyRun) string {
	var s strings.Builder
	fmt.Fprintf(&s, "counts %v %v, runs %d %d, errors %q %q\n", a.Counts, b.Counts, a.Runs, b.Runs, a.Errs, b.Errs)
	for i := range max(len(a.Problems), len(b.Problems)) {
		var pa, pb string
		if i < len(a.Problems) {
			pa = fmt.Sprintf("%+v", a.Problems[i])
		}
		if i < len(b.Problems) {
			pb = fmt.Sprintf("%+v", b.Problems[i])
		}
		if pa != pb {
			fmt.Fprintf(&s, "problem %d:\n  one:  %s\n  four: %s\n", i, pa, pb)
			if s.Len() > 3000 {
				break
			}
		}
	}
	return s.String()
}

// FuzzVerifyMatchesOneWorker: whatever the input, 4 workers find what one
// finds.
func FuzzVerifyMatchesOneWorker(f *testing.F) {
	log := genSignedLog(f, 40, 4)
	f.Add(log, uint16(200))
	f.Add(append([]byte("[\n"), log...), uint16(1))
	f.Add(append(append([]byte("[\n  "), bytes.ReplaceAll(bytes.TrimSpace(log), []byte("}\n{"), []byte("},\n  {"))...), "\n]"...), uint16(700))
	f.Add([]byte("{\"seq\": 1}\n{\n}\n{\"a\": [\n1]}\n"), uint16(3))
	if raw, err := os.ReadFile("../../testdata/sign/python-meta-only-spec.ndjson"); err == nil {
		f.Add(raw, uint16(900))
	}
	for _, s := range fuzzSeeds(f, true) {
		f.Add(s, uint16(300))
	}
	f.Fuzz(func(t *testing.T, in []byte, batch uint16) {
		if len(in) > 32<<10 {
			// The log's rules hold problems behind an open gap and sort
			// them at each event: a large input in the fuzzer's
			// instrumented build passes its 10 seconds on a busy machine.
			return
		}
		one := verifyWith(t, [][]byte{in, in}, VerifyOptions{Workers: 1, MaxEventSize: 4096}, true, false)
		four := verifyWith(t, [][]byte{in, in}, VerifyOptions{Workers: 4, MaxEventSize: 4096, BatchBytes: int(batch)}, true, false)
		if !reflect.DeepEqual(one, four) {
			t.Fatalf("4 workers differ from one:\n%s", diffRuns(one, four))
		}
	})
}

// An event over the size limit that is malformed past the limit is too
// large however much of it was read ahead (a file read whole, a pipe byte
// by byte), so that a Reader that starts where the workers stopped finds
// what one reading from the start finds. One malformed within the limit is
// malformed.
func TestReaderLimitBeforeError(t *testing.T) {
	event := `{"seq": 1, "payload": {"note": "` + strings.Repeat("x", 5000) + `"}`
	for _, c := range []struct {
		in, want string
	}{
		{event + "\xff\n", "too large 1:1"},
		{event + `"a": }` + "\n", "too large 1:1"},
		{event, "too large 1:1"}, // unterminated, at the end
		{`{"seq": 1,, ` + event + "\n", "syntax 1:11 expecting property name enclosed in double quotes"},
	} {
		for _, one := range []bool{false, true} {
			var in io.Reader = strings.NewReader(c.in)
			if one {
				in = iotest.OneByteReader(in)
			}
			_, err := NewReader(in, 4096).Next()
			var got string
			var se *jsonv.SyntaxError
			var tl *jsonv.TooLargeError
			switch {
			case errors.As(err, &se):
				got = fmt.Sprintf("syntax %s %s", se.Pos, se.Msg)
			case errors.As(err, &tl):
				got = fmt.Sprintf("too large %s", tl.Pos)
			default:
				got = fmt.Sprint(err)
			}
			if got != c.want {
				t.Errorf("%.40q… (byte by byte: %t): %s, want %s", c.in, one, got, c.want)
			}
		}
	}
}
