package kado

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// encoded is what EncodeStream gives: the frames, the sequence id it
// returns, the error and where it was flushed.
type encoded struct {
	out  []byte
	seq  uint64
	err  string
	kind EncodeProblem
	pos  jsonv.Position
}

func encodeWith(in io.Reader, workers, chunk int, seq uint64, limit int) encoded {
	ts := uint64(1735689600123)
	var r encoded
	var err error
	r.seq, err = EncodeStream(context.Background(), in, EncodeStreamOptions{MaxValueSize: limit, Workers: workers, Seq: seq, Timestamp: &ts, ChunkBytes: chunk},
		EncodeHandler{Write: func(p []byte) error { r.out = append(r.out, p...); return nil }})
	if err != nil {
		r.err = err.Error()
		var ee *EncodeError
		if errors.As(err, &ee) {
			r.kind, r.pos = ee.Kind, ee.Pos
			var se *jsonv.SyntaxError
			if errors.As(ee.Err, &se) {
				r.err += fmt.Sprintf(" [excerpt %q caret %d]", se.Excerpt, se.Caret)
			}
		}
	}
	return r
}

func (r encoded) String() string {
	return fmt.Sprintf("%d bytes, seq %d, error %q kind %d at %s", len(r.out), r.seq, r.err, r.kind, r.pos)
}

func sameEncoding(t *testing.T, what string, one, many encoded) {
	t.Helper()
	if !bytes.Equal(one.out, many.out) || one.seq != many.seq || one.err != many.err || one.kind != many.kind || one.pos != many.pos {
		i := 0
		for i < len(one.out) && i < len(many.out) && one.out[i] == many.out[i] {
			i++
		}
		t.Fatalf("%s: 4 workers differ from one (outputs part at byte %d):\none:  %s\nfour: %s", what, i, one, many)
	}
}

// genValues is NDJSON of bare payloads of every inferable type and of
// records, some with their own sequence id, some long enough to compress.
func genValues(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"instruction": "step %d", "context": {"files": ["a.go", "b.go"], "n": %d}}`+"\n", i, rng.IntN(1000))
		case 1:
			fmt.Fprintf(&b, `{"header":{"version":1,"type":%d,"timestamp":%d,"sequenceId":%d},"payload":{"status":"ok","note":%q}}`+"\n", 1+i%8, i, i, strings.Repeat("é", rng.IntN(300)))
		case 2:
			fmt.Fprintf(&b, `{"success": true, "data": %q, "duration": 1.50}`+"\n", strings.Repeat("ab", rng.IntN(900)))
		default:
			fmt.Fprintf(&b, `{"header":{"typeName":"status"},"payload":{"status":"running","progress":%d}}`+"\n", i)
		}
	}
	return b.Bytes()
}

// On several workers EncodeStream writes what one worker writes, byte for
// byte, and fails with the same error at the same position: on compact and
// Python-formatted input (indented, CRLF), values back to back on one line,
// damage late in the stream, sequence ids that run out, a read error, and
// inputs that come in small reads.
func TestEncodeStreamMatchesOneWorker(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	n := 3000
	if raceflag.Enabled {
		n = 600 // the race build is slow; several chunks all the same
	}
	good := genValues(rng, n)
	late := len(good) * 3 / 4
	late += bytes.IndexByte(good[late:], '\n') + 1
	insert := func(s string) []byte { return append(append(bytes.Clone(good[:late]), s...), good[late:]...) }
	inputs := map[string][]byte{
		"compact":   good,
		"bom":       append([]byte("\xEF\xBB\xBF"), good...),
		"syntax":    insert(`{"instruction": "x", }` + "\n"),
		"rule":      insert(`{"header":{"type":"x"},"payload":{}}` + "\n"),
		"unknown":   insert(`{"neither": "a type"}` + "\n"),
		"truncated": good[:len(good)-40],
		"longline":  insert(`{"instruction": "` + strings.Repeat("x", 300<<10) + `"} {"status": "a"}` + "\n"),
		"oneline":   bytes.ReplaceAll(good, []byte("\n"), []byte(" ")),
		"toolarge":  insert(`{"instruction": "` + strings.Repeat("y", 70<<10) + `"}` + "\n"),
		"empty":     nil,
		"space":     []byte("\n\n  \r\n"),
	}
	inputs["python"] = pyjson.Dumps(t, good)
	inputs["python-indent2-crlf"] = pyjson.Dumps(t, good, "--indent", "2", "--crlf")
	for name, in := range inputs {
		for _, seq := range []uint64{1, math.MaxUint32 - 2000, math.MaxUint32 + 1} {
			for _, chunk := range []int{0, 4 << 10} {
				one := encodeWith(bytes.NewReader(in), 1, chunk, seq, 64<<10)
				what := fmt.Sprintf("%s seq %d chunk %d", name, seq, chunk)
				sameEncoding(t, what, one, encodeWith(bytes.NewReader(in), 4, chunk, seq, 64<<10))
				sameEncoding(t, what+" half reads", one, encodeWith(iotest.HalfReader(bytes.NewReader(in)), 4, chunk, seq, 64<<10))
			}
		}
	}
	// A read error after some of the input: the frames before it, then it.
	failing := func() io.Reader {
		return io.MultiReader(bytes.NewReader(good[:len(good)/2]), iotest.ErrReader(errors.New("disk on fire")))
	}
	one := encodeWith(failing(), 1, 4<<10, 1, 0)
	if !strings.Contains(one.err, "disk on fire") || len(one.out) == 0 {
		t.Fatalf("read error: %s", one)
	}
	sameEncoding(t, "read error", one, encodeWith(failing(), 4, 4<<10, 1, 0))
}

// The errors say where: line and column of the value (or field) at fault,
// its JSON pointer, and the kind.
func TestEncodeStreamErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		seq  uint64
		kind EncodeProblem
		msg  string
	}{
		{"{\"instruction\": \"a\"}\n{\"x\": 1,}\n", 1, NotJSON, "2:"},
		{"{\"instruction\": \"a\"}\n{\"header\": {\"type\": 9}, \"payload\": {}}\n", 1, BadRecord, "2:21: type must be a message type from 1 to 8, found 9 (at /header/type)"},
		{"{\"instruction\": \"a\"}\n  {\"no\": \"type\"}\n", 1, UnknownType, "2:3: cannot tell the message type"},
		{"{\"instruction\": \"a\"}\n{\"instruction\": \"b\"}\n", math.MaxUint32, SeqOverflow, "2:1: sequence id 4294967296 does not fit the 32-bit sequenceId field"},
	} {
		for _, workers := range []int{1, 4} {
			r := encodeWith(strings.NewReader(c.in), workers, 0, c.seq, 0)
			if r.kind != c.kind || !strings.HasPrefix(r.err, c.msg) || r.pos.Line != 2 {
				t.Errorf("%q on %d workers: %s; want kind %d, %q", c.in, workers, r, c.kind, c.msg)
			}
			// The first value's frame was written, and no more.
			if f, err := NewReader(bytes.NewReader(r.out), ReaderOptions{}).Next(); err != nil || f.Size() != len(r.out) {
				t.Errorf("%q on %d workers: want one frame before the error, got %d bytes", c.in, workers, len(r.out))
			}
		}
	}
}

// The sequence id EncodeStream returns numbers the next input's frames on
// from the last; records keep their own.
func TestEncodeStreamSeqAcrossInputs(t *testing.T) {
	ts := uint64(1)
	var out bytes.Buffer
	h := EncodeHandler{Write: func(p []byte) error { out.Write(p); return nil }}
	seq := uint64(7)
	for _, in := range []string{"{\"instruction\": \"a\"}\n{}\n", `{"header":{"type":4,"sequenceId":100},"payload":{"status":"x","progress":1}}` + "\n{\"code\": 1, \"message\": \"m\"}"} {
		var err error
		if seq, err = EncodeStream(context.Background(), strings.NewReader(in), EncodeStreamOptions{Workers: 2, Timestamp: &ts, Seq: seq}, h); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	rd := NewReader(&out, ReaderOptions{})
	for {
		f, err := rd.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%s %d", f.Header.Type, f.Header.SequenceID))
	}
	if want := "[INSTRUCTION 7 HEARTBEAT 8 STATUS 100 ERROR 10]"; fmt.Sprint(got) != want || seq != 11 {
		t.Fatalf("frames %v, next seq %d; want %s, 11", got, seq, want)
	}
}

// FuzzEncodeStreamMatchesOneWorker: on any input, EncodeStream on four
// workers writes the frames one worker writes, byte for byte, and returns
// the same error at the same position and the same next sequence id.
func FuzzEncodeStreamMatchesOneWorker(f *testing.F) {
	f.Add([]byte(genValues(rand.New(rand.NewPCG(1, 2)), 40)), uint32(1))
	f.Add([]byte("{\"instruction\": \"a\"}\n{\"x\": 1,}\n"), uint32(0))
	f.Add([]byte("{\"instruction\": \"a\"}\n{\"instruction\": \"b\"}\r\n[1, 2]\n"), uint32(math.MaxUint32))
	f.Add([]byte("{\n  \"header\": {\"type\": 2},\n  \"payload\": {\"toolName\": \"t\", \"args\": {}}\n}\n{\"neither\": 1}"), uint32(5))
	f.Add([]byte("\xEF\xBB\xBF\"x\"\n1 2 3\ntrue\n"), uint32(9))
	f.Fuzz(func(t *testing.T, in []byte, seq uint32) {
		s := uint64(seq)
		if seq%7 == 0 {
			s = math.MaxUint32 - uint64(seq%40) // sequence ids that run out
		}
		one := encodeWith(bytes.NewReader(in), 1, 64, s, 1<<12)
		sameEncoding(t, "whole reads", one, encodeWith(bytes.NewReader(in), 4, 64, s, 1<<12))
		sameEncoding(t, "one-byte reads", one, encodeWith(iotest.OneByteReader(bytes.NewReader(in)), 4, 16, s, 1<<12))
	})
}

// BenchmarkEncodeStream: the frame encoder on one and on two workers (the
// speed-up is scripts/bench.sh's to judge).
func BenchmarkEncodeStream(b *testing.B) {
	in := genValues(rand.New(rand.NewPCG(5, 6)), 20000)
	ts := uint64(1)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				_, err := EncodeStream(context.Background(), bytes.NewReader(in), EncodeStreamOptions{Workers: workers, Timestamp: &ts},
					EncodeHandler{Write: func([]byte) error { return nil }})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
