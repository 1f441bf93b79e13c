package query_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/query"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// files opens inputs from a map, and notes which are closed.
type files struct {
	data   map[string]string
	closed map[string]int
}

func (f *files) open(name string) (*query.Opened, error) {
	d, ok := f.data[name]
	if !ok {
		return nil, fmt.Errorf("no file %s", name)
	}
	return &query.Opened{R: strings.NewReader(d), Name: name, Regular: true, Close: func() { f.closed[name]++ }}, nil
}

func newInputs(data map[string]string, opts query.InputOptions) (*query.Inputs, *files) {
	f := &files{data: data, closed: map[string]int{}}
	opts.Open = f.open
	qi := query.NewInputs(opts)
	qi.SetOrder(testOrder)
	return qi, f
}

// testOrder keeps the key order of the objects read, for the Encoder.
var testOrder = newOrder()

func newOrder() *query.Order {
	q, err := query.Compile(".", query.Options{})
	if err != nil {
		panic(err)
	}
	return q.NewOrder()
}

// readAll reads every value with Read, as JSON, each with where it is.
func readAll(qi *query.Inputs) (vals []string, err error) {
	enc := query.Encoder{Order: testOrder}
	for {
		v, err := qi.Read()
		if err == io.EOF {
			return vals, nil
		}
		if err != nil {
			return vals, err
		}
		vals = append(vals, string(enc.Append(nil, v))+" @"+qi.Where())
	}
}

func TestInputsFormats(t *testing.T) {
	var frames bytes.Buffer
	w := kado.NewWriter(&frames, kado.CompressNever)
	w.WriteFrame(kado.Header{Version: 1, Type: kado.Instruction, SequenceID: 1}, []byte(`{"task":"a"}`))
	w.WriteFrame(kado.Header{Version: 1, Type: kado.Instruction, SequenceID: 2}, []byte(`{"task":"b"}`))
	data := map[string]string{
		"a.json":  "[1, {\"b\": 2, \"a\": 1}]\n[3]",
		"v.json":  "1 \"x\"\n3",
		"n.jsonl": "{\"z\": 1, \"y\": 2}\n{\"z\": 3}\n",
		"blank":   " \n",
		"t.toon":  "users[2]{id,name}:\n  1,ann\n  2,bob\n",
		"r.toon":  "[2]: 1,2\n",
		"f.bin":   frames.String(),
		"t.a2a":   "@toon 1.0\n@keys id,name\n1,ann\n2,bob\n",
	}
	tests := []struct {
		names []string
		opts  query.InputOptions
		want  []string
	}{
		{[]string{"a.json", "n.jsonl"}, query.InputOptions{}, []string{
			`[1,{"b":2,"a":1}] @a.json:1:1`, `[3] @a.json:2:1`, `{"z":1,"y":2} @n.jsonl:1:1`, `{"z":3} @n.jsonl:2:1`}},
		{[]string{"v.json"}, query.InputOptions{}, []string{`1 @v.json:1:1`, `"x" @v.json:1:3`, `3 @v.json:2:1`}},
		{[]string{"blank", "r.toon"}, query.InputOptions{}, []string{`[1,2] @r.toon`}},
		{[]string{"t.toon"}, query.InputOptions{}, []string{`{"users":[{"id":1,"name":"ann"},{"id":2,"name":"bob"}]} @t.toon`}},
		{[]string{"f.bin"}, query.InputOptions{Payload: true}, []string{`{"task":"a"} @f.bin: frame 0`, `{"task":"b"} @f.bin: frame 1`}},
		{[]string{"t.a2a"}, query.InputOptions{}, []string{`{"id":1,"name":"ann"} @t.a2a:3:1`, `{"id":2,"name":"bob"} @t.a2a:4:1`}},
		{[]string{"n.jsonl", "v.json"}, query.InputOptions{Raw: true}, []string{
			`"{\"z\": 1, \"y\": 2}" @n.jsonl`, `"{\"z\": 3}" @n.jsonl`, `"1 \"x\"" @v.json`, `"3" @v.json`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.names, ","), func(t *testing.T) {
			tc.opts.Names = tc.names
			qi, f := newInputs(data, tc.opts)
			got, err := readAll(qi)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, n := range tc.names {
				if f.closed[n] != 1 {
					t.Errorf("%s closed %d times", n, f.closed[n])
				}
			}
		})
	}
}

// Python-formatted NDJSON and JSON (indent=2, CRLF) give the compact text's
// values.
func TestInputsPythonFormatted(t *testing.T) {
	in := []byte("{\"id\": 1, \"s\": \"\\u00e9\", \"n\": [1.5, null]}\n{\"id\": 2, \"t\": true}\n")
	for _, style := range pyjson.Styles {
		compact, py := pyjson.Pair(t, in, style)
		var vals [2][]string
		for i, text := range []string{string(compact), string(py)} {
			qi, _ := newInputs(map[string]string{"in": text}, query.InputOptions{Names: []string{"in"}})
			enc := query.Encoder{Order: testOrder}
			for {
				v, err := qi.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				vals[i] = append(vals[i], string(enc.Append(nil, v)))
			}
		}
		if len(vals[0]) != 2 || strings.Join(vals[0], "\n") != strings.Join(vals[1], "\n") {
			t.Errorf("%s: %q, want %q", style.Name, vals[1], vals[0])
		}
	}
}

func TestInputsErrors(t *testing.T) {
	data := map[string]string{
		"bad.json":  "1\n{\"a\": tru}\n",
		"bad.toon":  "a:\n  - x\n b: 1\n",
		"undecided": "\x00\x01",
		"ok.json":   "7",
	}
	tests := []struct {
		name string
		kind records.ErrorKind
		vals int
		msg  string
	}{
		{"bad.json", records.BadJSON, 1, "bad.json:2:10: "},
		{"bad.toon", records.BadTOON, 0, "bad.toon:"},
		{"undecided", records.Undetected, 0, "undecided: cannot tell the input format"},
	}
	for _, tc := range tests {
		qi, _ := newInputs(data, query.InputOptions{Names: []string{tc.name, "ok.json"}})
		vals, err := readAll(qi)
		var e *records.Error
		if !errors.As(err, &e) || e.Kind != tc.kind || len(vals) != tc.vals || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("%s: %d values, error %v (%#v)", tc.name, len(vals), err, err)
		}
		if qi.Err() != err {
			t.Errorf("%s: Err %v, want %v", tc.name, qi.Err(), err)
		}
		if v, ok := qi.Next(); !ok || v != err {
			t.Errorf("%s: Next after the failure: %v %v", tc.name, v, ok)
		}
	}
	qi, _ := newInputs(data, query.InputOptions{Names: []string{"ok.json", "missing"}})
	vals, err := readAll(qi)
	if len(vals) != 1 || err == nil || err.Error() != "no file missing" {
		t.Fatalf("%q %v: want Open's error as it is", vals, err)
	}
	// A record that is not JSON: a frame's payload is; a table's row is;
	// so the binary frame of a payload that is not valid JSON.
	var se *jsonv.SyntaxError
	qi, _ = newInputs(map[string]string{"x.json": "[1,\n2,\n}"}, query.InputOptions{Names: []string{"x.json"}, From: codec.NDJSON})
	if _, err := readAll(qi); !errors.As(err, &se) || se.Pos.Line != 3 {
		t.Fatalf("%v: want a syntax error on line 3", err)
	}
}

func TestInputsSlurp(t *testing.T) {
	data := map[string]string{"a": "1 2", "b": "[3]\n"}
	qi, _ := newInputs(data, query.InputOptions{Names: []string{"a", "b"}})
	v, err := qi.Slurp()
	enc := query.Encoder{Order: testOrder}
	if err != nil || string(enc.Append(nil, v)) != "[1,2,[3]]" {
		t.Fatalf("%v %v", v, err)
	}
	qi, _ = newInputs(data, query.InputOptions{Names: []string{"a", "b"}, Raw: true})
	if v, err := qi.Slurp(); err != nil || v != "1 2[3]\n" {
		t.Fatalf("%q %v", v, err)
	}
}

// A live input: each value is read as it comes, Idle when nothing more is
// buffered.
func TestInputsLive(t *testing.T) {
	pr, pw := io.Pipe()
	qi := query.NewInputs(query.InputOptions{Names: []string{"-"}, Open: func(string) (*query.Opened, error) {
		return &query.Opened{R: pr, Name: "<stdin>", Close: func() {}}, nil
	}})
	qi.SetOrder(testOrder)
	for i := range 3 {
		go fmt.Fprintf(pw, "{\"n\": %d}\n", i)
		v, err := qi.Read()
		if err != nil {
			t.Fatal(err)
		}
		enc := query.Encoder{Order: testOrder}
		if got := string(enc.Append(nil, v)); got != fmt.Sprintf(`{"n":%d}`, i) || !qi.Idle() {
			t.Fatalf("value %d: %s, idle %v", i, got, qi.Idle())
		}
	}
	pw.Close()
	if _, err := qi.Read(); err != io.EOF {
		t.Fatal(err)
	}
}

// Any input, in any format named or detected: no panic, every error a
// *records.Error, and after one, Read gives it again.
func FuzzInputs(f *testing.F) {
	f.Add([]byte("1 \"x\" [3]\n{\"a\": 1}"), "")
	f.Add([]byte("{\"a\": 1}\r\n{\"a\": tru}\r\n"), "ndjson")
	f.Add([]byte("users[1]{id}:\n  1\n"), "")
	f.Add([]byte("@toon 1.0\n@keys a\n1\n"), "")
	f.Add([]byte("[1, 2"), "json")
	f.Add([]byte("a: 1\n b: 2\n"), "toon")
	f.Fuzz(func(t *testing.T, in []byte, from string) {
		switch codec.Format(from) {
		case "", codec.JSON, codec.NDJSON, codec.TOON, codec.Tabular, codec.Binary:
		default:
			return
		}
		qi, _ := newInputs(map[string]string{"in": string(in)}, query.InputOptions{Names: []string{"in", "in"}, From: codec.Format(from), MaxSize: 1 << 16})
		defer qi.Close()
		_, err := readAll(qi)
		if err == nil {
			return
		}
		var e *records.Error
		if !errors.As(err, &e) {
			t.Fatalf("%T %v: not a *records.Error", err, err)
		}
		if _, again := qi.Read(); again != err {
			t.Fatalf("Read after %v: %v", err, again)
		}
	})
}

// zeros is an endless input, as /dev/zero is, that fails once it has given
// more than max bytes: a reader that does not stop at the limit fails
// instead of running on.
type zeros struct{ n, max int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n > z.max {
		return 0, errors.New("read on past the limit")
	}
	clear(p)
	z.n += len(p)
	return len(p), nil
}

// Raw text counts against MaxSize: a line of -R (the file and the line
// are named), the text of -R -s (all the inputs together); the lines and
// the text at the limit are read.
func TestInputsRawMaxSize(t *testing.T) {
	data := map[string]string{"a.txt": "abc\nxyzw\n", "b.txt": "12345"}
	qi, _ := newInputs(data, query.InputOptions{Names: []string{"a.txt", "b.txt"}, Raw: true, MaxSize: 4})
	vals, err := readAll(qi)
	var tl *query.TooLargeError
	if !errors.As(err, &tl) || err.Error() != "b.txt:1: a line passes the limit of 4 bytes" || strings.Join(vals, " ") != `"abc" @a.txt "xyzw" @a.txt` {
		t.Errorf("-R: %q, %v; want the lines of a.txt, then b.txt:1 too large", vals, err)
	}
	for limit, want := range map[int]string{14: "", 13: "b.txt: the text passes the limit of 13 bytes"} {
		qi, _ := newInputs(data, query.InputOptions{Names: []string{"a.txt", "b.txt"}, Raw: true, MaxSize: limit})
		v, err := qi.Slurp()
		switch {
		case want == "" && (err != nil || v != "abc\nxyzw\n12345"):
			t.Errorf("-Rs, limit %d: %q, %v", limit, v, err)
		case want != "" && (!errors.As(err, &tl) || err.Error() != want):
			t.Errorf("-Rs, limit %d: %v, want %q", limit, err, want)
		}
	}
}

// An endless line (query -R length /dev/zero) ends at MaxSize, having
// read and allocated a bounded amount: at most a few times the limit (the
// buffer grows by doubling).
func TestInputsRawEndlessLine(t *testing.T) {
	const limit = 8 << 20
	for _, slurp := range []bool{false, true} {
		z := &zeros{max: 64 * limit}
		qi := query.NewInputs(query.InputOptions{Names: []string{"zero"}, Raw: true, MaxSize: limit,
			Open: func(name string) (*query.Opened, error) {
				return &query.Opened{R: z, Name: "/dev/zero", Close: func() {}}, nil
			}})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		if slurp {
			_, err = qi.Slurp()
		} else {
			_, err = qi.Read()
		}
		runtime.ReadMemStats(&after)
		var tl *query.TooLargeError
		if !errors.As(err, &tl) || tl.Limit != limit {
			t.Fatalf("slurp %v: %v, want a *TooLargeError", slurp, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*limit {
			t.Errorf("slurp %v: %d bytes allocated for a limit of %d", slurp, alloc, limit)
		}
		if z.n > 2*limit {
			t.Errorf("slurp %v: %d bytes read for a limit of %d", slurp, z.n, limit)
		}
	}
}

// With KeepFrames, a frame whose record the filter passes through
// untouched goes to WriteFrame as it was read (white space, escapes and
// all); a record the filter changed, or a copy, is encoded.
func TestRunInputsKeptFrames(t *testing.T) {
	var in bytes.Buffer
	w := kado.NewWriter(&in, kado.CompressNever)
	payloads := []string{`{"text": "\ud83d hi", "n": 1}`, `{"text": "b",  "n": 2}`}
	for i, p := range payloads {
		w.WriteFrame(kado.Header{Version: 1, Type: kado.Status, SequenceID: uint32(i + 1)}, []byte(p))
	}
	frames := in.Bytes()
	first := frames[:kado.HeaderSize+len(payloads[0])]
	for filter, want := range map[string][]string{
		"select(.payload.n == 1)": {"frame " + string(first)},
		".":                       {"frame " + string(first), "frame " + string(frames[len(first):])},
		"(.payload.n = 5) as $x | select(.payload.n == 1)": {"frame " + string(first)},
		"select(.payload.n == 1) | .payload.n = 3":         {`record {"text":"` + "\uFFFD" + ` hi","n":3}`},
	} {
		qi := query.NewInputs(query.InputOptions{Names: []string{"in.bin"}, KeepFrames: true, Open: func(name string) (*query.Opened, error) {
			return &query.Opened{R: bytes.NewReader(frames), Name: name, Regular: true, Close: func() {}}, nil
		}})
		q, err := query.Compile(filter, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		_, err = q.RunInputs(context.Background(), qi, query.RunOptions{Workers: 1,
			Encode: func(e *query.Encoder, dst []byte, v any) []byte {
				return e.Append(dst, v.(map[string]any)["payload"])
			},
			Write:      func(b []byte) error { got = append(got, "record "+string(b)); return nil },
			WriteFrame: func(f []byte) error { got = append(got, "frame "+string(f)); return nil },
			Fail:       func(err error, _ func() string) error { return err }})
		qi.Close()
		if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %q, %v; want %q", filter, got, err, want)
		}
	}
}
