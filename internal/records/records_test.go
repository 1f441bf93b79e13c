package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

type item struct {
	rec    string
	pos    jsonv.Position
	hasPos bool
}

// reference reads in with one jsonv.Reader: the records, compact, with
// their positions, and the error at the end ("" at io.EOF), with its
// excerpt.
func reference(in []byte, opts Options) ([]item, string) {
	jr := jsonv.NewReader(bytes.NewReader(in), jsonv.Options{Elements: opts.Elements, MaxValueSize: opts.MaxValueSize})
	return drain(jr, nil)
}

func drain(jr *jsonv.Reader, items []item) ([]item, string) {
	for {
		v, pos, err := jr.Next()
		if err == io.EOF {
			return items, ""
		}
		if err != nil {
			var se *jsonv.SyntaxError
			if errors.As(err, &se) {
				return items, fmt.Sprintf("%v/%d | %q ^%d", err, se.Pos.Offset, se.Excerpt, se.Caret)
			}
			return items, err.Error()
		}
		items = append(items, item{rec: string(jsonv.CompactInPlace(v)), pos: pos, hasPos: true})
	}
}

type out struct{ recs []string }

// worked counts the records of the batches written by parallel.
var worked int

// parallel reads in with Run, the records of the batches a worker refuses
// (one that holds "refuse") and the rest with the Reader Run returns.
func parallel(t *testing.T, in io.Reader, opts Options) ([]item, string) {
	var items []item
	h := Handler[out]{
		Work: func(b *Batch[out]) bool {
			b.Out.recs = b.Out.recs[:0]
			for i := range b.Len() {
				r := b.Record(i)
				if bytes.Contains(r, []byte("refuse")) {
					return false
				}
				b.Out.recs = append(b.Out.recs, string(jsonv.Compacted(nil, r)))
			}
			return true
		},
		Write: func(b *Batch[out]) error {
			if int(b.First()) != len(items) {
				t.Fatalf("batch of record %d after %d records", b.First(), len(items))
			}
			for i, r := range b.Out.recs {
				items = append(items, item{rec: r, pos: b.Pos(i), hasPos: true})
			}
			worked += len(b.Out.recs)
			return nil
		},
	}
	jr, err := Run(context.Background(), in, opts, h)
	if err != nil {
		t.Fatal(err)
	}
	if jr == nil {
		return items, ""
	}
	return drain(jr, items)
}

func compare(t *testing.T, name string, in []byte, opts Options, r io.Reader) {
	t.Helper()
	want, wantErr := reference(in, opts)
	got, gotErr := parallel(t, r, opts)
	if opts.Live {
		// What a live input had given when an error was met, and so the
		// excerpt of the error (and the text of some), depends on the
		// input's pace: its position does not.
		wantErr, _, _ = strings.Cut(wantErr, ": ")
		gotErr, _, _ = strings.Cut(gotErr, ": ")
	}
	if gotErr != wantErr {
		t.Fatalf("%s %q: error\n got %s\nwant %s", name, in, gotErr, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("%s %q: %d records, want %d\n got %v\nwant %v", name, in, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i].rec != want[i].rec || got[i].hasPos && got[i].pos != want[i].pos {
			t.Fatalf("%s %q: record %d\n got %+v\nwant %+v", name, in, i, got[i], want[i])
		}
	}
}

// check compares Run with one Reader on in: with 1 and 4 workers, batches
// of a few bytes and of the default size, read whole and a byte at a time
// as a live input.
func check(t *testing.T, in []byte, elements bool) {
	t.Helper()
	sizes := []int{1, 40, 0}
	if raceflag.Enabled {
		sizes = []int{40} // the race detector is slow: one size is enough for it
	}
	for _, workers := range []int{1, 4} {
		for _, bb := range sizes {
			opts := Options{Workers: workers, Elements: elements, BatchBytes: bb, MaxValueSize: 1 << 12}
			compare(t, fmt.Sprintf("-j %d, batches %d:", workers, bb), in, opts, bytes.NewReader(in))
			opts.Live = true
			compare(t, fmt.Sprintf("-j %d, batches %d, live:", workers, bb), in, opts, iotest.OneByteReader(bytes.NewReader(in)))
			compare(t, fmt.Sprintf("-j %d, batches %d, live, read whole:", workers, bb), in, opts, bytes.NewReader(in))
		}
	}
}

var inputs = []string{
	``,
	"  \n",
	`[]`,
	`[{"a": 1, "b": "x, y"}, {"a": 2, "b": "ü"}, {"a": 3}, 4, "five", null, [6, [7]]]`,
	"[\r\n  {\r\n    \"a\": 1\r\n  },\r\n  {\r\n    \"a\": 2\r\n  }\r\n]\r\n",
	"{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n",
	"{\"a\": 1}\r\n{\"a\": 2}\r\n\r\n{\"a\": 3}",
	`[{"a": 1}, {"a": 2}, {"a": tru}, {"a": 4}]`,
	`[{"a": 1}, {"a": 2} {"a": 3}]`,
	`[{"a": 1}, {"a": "ß"},`,
	`[{"a": 1}, {"a": 2},]`,
	`[{"a": 1}, {"a": 2}, {"a": 1, "a": 2}, {"a": 5}]`,
	"[1, 2, \"\xff\", 3]",
	`[{"a": 1}] {"b": 2} [3, 4]`,
	`[{"a": 1}, {"refuse": 2}, {"a": 3}, {"a": 4}]`,
	"{\"a\": 1}\n{\"refuse\": 2}\n{\"a\": 3}\n{\"a\": 4",
	"\xEF\xBB\xBF[{\"a\": 1}, {\"a\": 2}]",
	`[1, 2, 3] 4`,
	`12 34 true false null "x" {"a":1}{"b":2}[3]`,
	`[{"a": "` + strings.Repeat("x", 5000) + `"}, {"a": 2}]`,
	`[{"a": 1}, {"a": "` + strings.Repeat("y", 5000) + `"}, {"a": 2}]`,
	`[{"a": 1}, {"a": 2}, {"a": 3}`,
	`[{"a": 1}, {"a": 2}]]`,
	`[{"a": 1}, {"a": 2}, ]`,
	`[{"a": 1},, {"a": 2}]`,
	`{"a": [1, 2}, {"b": 1}`,
	`[{"a": "\u00e9\ud800"}, {"a": "\\"}, {"a": "\""}]`,
	// Places that look like the start of a record and are not.
	`[{"a": 1, "b": [{"a": 2}, {"a": 3}]}, {"a": 4, "b": "x, {\"a\": 5}"}, {"a": 6, "b": {"c": {"a": 7}}}, {"a": 8}]`,
	"[\n  {\n    \"a\": 1,\n    \"b\": [\n      {\n        \"a\": 2\n      },\n      {\n    \"a\": 3\n      }\n    ]\n  },\n  {\n    \"a\": 4\n  }\n]\n",
	"{\"a\": 1}\n{\"a\":\n 2}\n{\"a\": [\n{\"a\": 3}]}\n{\"a\": 4}\n",
	"{\"a\": 1}{\"a\": 2} {\"a\": 3}\n[{\"a\": 4}, {\"a\": 5}]\n{\"a\": 6}",
	`[{"a": 1}, {"a": 2}, {"b": 3}, {"a": 4}, 5, {"a": 6}, [{"a": 7}], {"a": 8}]`,
	`[{"a": 1}, {"a": 2}] [{"a": 3}, {"a": 4}]`,
	`[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]`,
	"1\n2\n3\n4\n5\n6\n7\n8\n[9, 10]\n11\n12\n",
	"{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3",
	"{\"a\":1}\n{\"a\":2}\n{\"a\":\n",
	"{\"a\":1}\n{\"a\":2}\n{\"a\":\n\n  \r\n",
	"[{\"a\": 1},\r\n {\"a\": 2},\r\n {\"a\": 3}\r\n,{\"a\": 4}]",
}

// Run and the Reader it returns give the records and the error of one
// Reader of the whole input, at the same positions, with the same
// excerpts, for a JSON array and for a stream of values (NDJSON).
func TestRunMatchesReader(t *testing.T) {
	for _, in := range inputs {
		check(t, []byte(in), true)
		check(t, []byte(in), false)
	}
}

// generated is an array of n objects, flat or holding arrays of objects
// that start as the records do, and strings that look like records.
func generated(n int, nested bool) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user %d, {\"id\": %d}","score":%d.5,"ok":%v,"note":null`, i, i, i, i*7, i%2 == 0)
		if nested {
			fmt.Fprintf(&b, `,"tags":[{"id":%d},{"id":%d,"x":[1,2]}]`, i, i+1)
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return b.Bytes()
}

// Generated arrays, compact and as Python writes them (json.dumps's
// defaults, on one line; indent=2 with CRLF; tabs), and as NDJSON, read
// with Run as one Reader reads them; the flat records are all worked by
// the workers, in batches cut where they start.
func TestRunPythonFormatted(t *testing.T) {
	n := 300
	if raceflag.Enabled {
		n = 60
	}
	for _, nested := range []bool{false, true} {
		arr := generated(n, nested)
		var nd []byte
		for _, v := range pyjson.Values(t, arr, true) {
			nd = append(append(nd, v...), '\n')
		}
		texts := []pyjson.Text{{Name: "compact", JSON: arr}, {Name: "ndjson", JSON: nd}}
		for _, st := range pyjson.Styles {
			texts = append(texts, pyjson.Text{Name: st.Name, JSON: pyjson.Dumps(t, arr, st.Flags...)},
				pyjson.Text{Name: st.Name + " ndjson", JSON: pyjson.Dumps(t, nd, st.Flags...)})
		}
		for _, tx := range texts {
			for _, elements := range []bool{true, false} {
				opts := Options{Workers: 4, Elements: elements, BatchBytes: 700}
				worked = 0
				compare(t, tx.Name, tx.JSON, opts, bytes.NewReader(tx.JSON))
				want := n
				if !elements && tx.JSON[0] == '[' {
					want = 0 // one record, the array: the one batch is final, worked
				}
				if !nested && worked < want {
					t.Errorf("%s (elements %v): %d of %d records worked", tx.Name, elements, worked, want)
				}
			}
		}
	}
}

// A failing read is met where one Reader meets it.
func TestRunReadError(t *testing.T) {
	in := `[{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}]`
	for _, cut := range []int{0, 5, 12, 20, 30} {
		for _, workers := range []int{1, 4} {
			mk := func() io.Reader {
				return io.MultiReader(strings.NewReader(in[:cut]), iotest.ErrReader(errors.New("disk on fire")))
			}
			opts := Options{Workers: workers, Elements: true, BatchBytes: 8}
			want, wantErr := drain(jsonv.NewReader(mk(), jsonv.Options{Elements: true}), nil)
			got, gotErr := parallel(t, mk(), opts)
			if gotErr != wantErr || len(got) != len(want) {
				t.Fatalf("cut at %d, -j %d: %d records, %q; want %d, %q", cut, workers, len(got), gotErr, len(want), wantErr)
			}
		}
	}
}

// FuzzRunMatchesReader: for any input, Run with 1 and with 4 workers and
// the Reader it returns give what one Reader gives.
func FuzzRunMatchesReader(f *testing.F) {
	for _, in := range inputs {
		f.Add([]byte(in), true, uint8(16))
	}
	f.Fuzz(func(t *testing.T, in []byte, elements bool, bb uint8) {
		for _, workers := range []int{1, 4} {
			opts := Options{Workers: workers, Elements: elements, BatchBytes: int(bb) + 1, MaxValueSize: 1 << 10}
			compare(t, fmt.Sprintf("-j %d:", workers), in, opts, bytes.NewReader(in))
			opts.Live = true
			compare(t, fmt.Sprintf("-j %d, live:", workers), in, opts, iotest.HalfReader(bytes.NewReader(in)))
		}
	})
}

// With Options.Members, every object of the records as producers write
// them (compact, and as Python's json.dumps writes them: ", " and ": ",
// indented, CRLF) comes with its members, those jsonv.Members finds.
func TestBatchMembers(t *testing.T) {
	var nd bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&nd, `{"id":%d,"name":"Ann \"%d\", é","tags":["a",{"b":[1,2]}],"ok":true,"n":null,"x":%d.5}`+"\n", i, i, i)
	}
	arr := append(append([]byte("["), bytes.ReplaceAll(bytes.TrimSuffix(nd.Bytes(), []byte("\n")), []byte("\n"), []byte(",\n"))...), "]\n"...)
	texts := map[string][]byte{"compact.ndjson": nd.Bytes(), "compact.json": arr}
	for _, s := range pyjson.Styles {
		texts[s.Name+".ndjson"] = pyjson.Dumps(t, nd.Bytes(), s.Flags...)
		texts[s.Name+".json"] = pyjson.Dumps(t, arr, s.Flags...)
	}
	for name, text := range texts {
		var objects, noted int
		h := Handler[out]{
			Work: func(b *Batch[out]) bool {
				for i := range b.Len() {
					rec := b.Record(i)
					mems, ok := b.Members(i)
					if !ok {
						continue
					}
					var got, want strings.Builder
					for _, m := range mems {
						fmt.Fprintf(&got, "%s=%s\n", rec[m.NameStart:m.NameEnd], rec[m.ValueStart:m.ValueEnd])
					}
					jsonv.Members(rec, func(name []byte, _ bool, v []byte) { fmt.Fprintf(&want, "%s=%s\n", name, v) })
					if got.String() != want.String() {
						t.Errorf("%s: members\n%s\nwant\n%s", name, got.String(), want.String())
						return false
					}
				}
				return true
			},
			Write: func(b *Batch[out]) error {
				objects += b.Len()
				for i := range b.Len() {
					if _, ok := b.Members(i); ok {
						noted++
					}
				}
				return nil
			},
		}
		rest, err := Run(context.Background(), bytes.NewReader(text), Options{Workers: 2, Elements: true, BatchBytes: 4 << 10, Members: true}, h)
		if err != nil || rest != nil {
			t.Fatalf("%s: %v, rest %v", name, err, rest != nil)
		}
		if objects != 300 || noted != 300 {
			t.Errorf("%s: %d objects, %d with their members noted; want 300", name, objects, noted)
		}
	}
}
