package query

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// transcript is what a run writes: each input's place, results and error,
// and the input error that ends it, one line each.
type transcript struct {
	strings.Builder
}

func (t *transcript) result(pos fmt.Stringer, outs []string, err error) {
	fmt.Fprintf(t, "%s %q", pos, outs)
	if err != nil {
		fmt.Fprintf(t, " error %v", err)
	}
	t.WriteString("\n")
}

// loop is the single-worker loop over s, as query's: each value run in
// turn, key orders forgotten after each; it goes on with the transcript t
// and says whether the run stopped (a halt).
func loop(t *transcript, q *Query, s *Stream, enc *Encoder) bool {
	for {
		v, err := s.Next()
		if err == io.EOF {
			return false
		}
		if err != nil {
			fmt.Fprintf(t, "input error at %s: %v\n", s.Position(), err)
			return true
		}
		pos := s.Position()
		var outs []string
		var rerr error
		it := q.Run(context.Background(), v)
		for {
			x, ok := it.Next()
			if !ok {
				break
			}
			if e, ok := x.(error); ok {
				rerr = e
				break
			}
			outs = append(outs, string(enc.Append(nil, x)))
		}
		enc.Order.Forget()
		t.result(pos, outs, rerr)
		if _, _, _, halted := Halted(rerr); halted {
			return true
		}
	}
}

// oneWorker is the transcript of filter over in on query's single-worker
// path: a Stream of the whole input.
func oneWorker(q *Query, in []byte) string {
	var t transcript
	o := q.NewOrder()
	dec := Decoder{Order: o}
	enc := Encoder{Order: o}
	loop(&t, q, NewStream(bytes.NewReader(in), &dec, 1<<16), &enc)
	return t.String()
}

// withJobs is the transcript of RunJobs on workers workers (batches of
// batch bytes), then of the single-worker loop over the Stream it returns.
func withJobs(t *testing.T, q *Query, rd io.Reader, workers, batch int) (string, int) {
	var tr transcript
	settled := 0
	o := q.NewOrder()
	dec := Decoder{Order: o}
	enc := Encoder{Order: o}
	rest, err := q.RunJobs(context.Background(), rd, JobsOptions{
		Workers: workers, MaxSize: 1 << 16, BatchBytes: batch, MaxOutput: 1 << 12, Decoder: &dec,
		Encode: func(e *Encoder, dst []byte, v any) []byte { return e.Append(dst, v) },
	}, func(r *Result) error {
		var outs []string
		start := 0
		for _, end := range r.Ends {
			outs = append(outs, string(r.Out[start:end]))
			start = end
		}
		tr.result(r.Pos, outs, r.Err)
		settled++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rest != nil {
		loop(&tr, q, rest, &enc)
	}
	return tr.String(), settled
}

var jobsFilters = []string{
	".",
	".a = 1",
	`if type == "object" and .id == 3 then error("three") else . end`,
	`select(type == "object" and .id == 5) | halt_error`,
	"{b: .x, a: .y}",
	"del(.id) | .z = 2",
	`if type == "number" and . < 400 then [range(.)] else . end`,
}

// The workers give what the single-worker loop gives, input by input:
// values, places, key orders, runtime errors, halts and the bad input the
// run ends at, on NDJSON, pretty-printed values, CRLF, repeated names and
// invalid UTF-8 (as the single path's Stream reads them).
func TestRunJobsMatchesOneWorker(t *testing.T) {
	var nd, pretty strings.Builder
	for i := range 400 {
		fmt.Fprintf(&nd, "{\"id\": %d, \"name\": \"n%d\", \"x\": [%d, 1.50], \"y\": {\"q\": 1, \"p\": 2}}\n", i%9, i, i)
		fmt.Fprintf(&pretty, "{\n  \"id\": %d,\n  \"y\": [\n    1,\n    2\n  ]\n}\n", i%9)
	}
	inputs := map[string]string{
		"ndjson":   nd.String(),
		"pretty":   pretty.String(),
		"crlf":     strings.ReplaceAll(nd.String(), "\n", "\r\n"),
		"repeated": strings.Repeat("{\"id\": 1, \"id\": 2, \"s\": \"\xff\"}\n", 300),
		"bad":      nd.String()[:5000] + "{\"id\": tru}\n" + nd.String(),
		"bom":      "\xef\xbb\xbf" + nd.String() + "\xef\xbb\xbf{}\n",
		"scalars":  strings.Repeat("1 2 \"x\"\n3\n", 300) + "12",
		"one":      "[" + strings.Repeat("{\"id\": 1},\n", 500) + "2]\n",
		"big":      strings.Repeat("300\n", 50),
		"halt":     nd.String(),
	}
	for _, filter := range jobsFilters {
		q, err := Compile(filter, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range inputs {
			want := oneWorker(q, []byte(in))
			for _, workers := range []int{1, 4} {
				got, settled := withJobs(t, q, iotest.HalfReader(strings.NewReader(in)), workers, 512)
				if settled == 0 && name != "one" && name != "big" {
					t.Errorf("%s over %s on %d workers: the workers settled nothing", filter, name, workers)
				}
				if got != want {
					t.Errorf("%s over %s on %d workers:\n%s\none worker:\n%s", filter, name, workers, firstDiff(got, want), firstDiff(want, got))
				}
			}
		}
	}
}

// firstDiff is a's lines from the first that b does not have.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return strings.Join(al[i:min(len(al), i+3)], "\n")
		}
	}
	return "(a prefix)"
}

// Whatever the input and however it is cut, workers=4 writes what
// workers=1 writes, and both what the single-worker loop writes.
func FuzzRunJobsMatchesOneWorker(f *testing.F) {
	for _, s := range []string{"{\"id\": 1}\n{\"id\": 3}\n", "1\n2 3\n\"\xff\"\n{\"id\":\n5}\n", "\xef\xbb\xbf[1,\r\n2]\n\xef\xbb\xbf1\n", "{\"a\":1,\"a\":2}\n{\"id\": tru}\n7"} {
		f.Add([]byte(s), uint8(0), uint8(7))
	}
	qs := make([]*Query, len(jobsFilters))
	for i, filter := range jobsFilters {
		q, err := Compile(filter, Options{})
		if err != nil {
			f.Fatal(err)
		}
		qs[i] = q
	}
	f.Fuzz(func(t *testing.T, in []byte, filter, batch uint8) {
		q := qs[int(filter)%len(qs)]
		want := oneWorker(q, in)
		for _, workers := range []int{1, 4} {
			got, _ := withJobs(t, q, bytes.NewReader(in), workers, int(batch)%64+1)
			if got != want {
				t.Fatalf("%q on %d workers:\n%s\none worker:\n%s", in, workers, got, want)
			}
		}
	})
}

// BenchmarkRunJobs filters 20,000 Python-formatted (", ", ": ") messages
// on 1 and 2 workers: compare the two in one run (-count 5 or more).
func BenchmarkRunJobs(b *testing.B) {
	var in bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&in, `{"message_id": "m-%d", "type": "%s", "sender": {"agent": "a%d", "role": "worker"}, "payload": {"status": "analyzing", "progress_percent": %d, "notes": ["x", "y"]}}`+"\n",
			i, []string{"work_status", "task_request"}[i%2], i%7, i%100)
	}
	q, err := Compile(`select(.type == "work_status") | {id: .message_id, p: .payload.progress_percent}`, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(in.Len()))
			for b.Loop() {
				var dec Decoder
				rest, err := q.RunJobs(context.Background(), bytes.NewReader(in.Bytes()), JobsOptions{Workers: workers, MaxSize: 1 << 20, Decoder: &dec,
					Encode: func(e *Encoder, dst []byte, v any) []byte { return append(e.Append(dst, v), '\n') }},
					func(*Result) error { return nil })
				if err != nil || rest != nil {
					b.Fatal(err, rest)
				}
			}
		})
	}
}
