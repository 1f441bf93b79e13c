package records_test

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/records/pcapsrc"
	"io"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
)

// read reads every record of a Source with Next, and where each is.
func read(t testing.TB, s *records.Source) (recs, where []string, err error) {
	t.Helper()
	defer s.Close()
	for {
		rec, err := s.Next()
		if err == io.EOF {
			return recs, where, nil
		}
		if err != nil {
			return recs, where, err
		}
		recs = append(recs, string(rec))
		where = append(where, s.Where())
	}
}

// readEach reads every record of a Source with Each.
func readEach(s *records.Source) (recs, where []string, err error) {
	err = s.Each(func(rec []byte) error {
		recs = append(recs, string(rec))
		where = append(where, s.Where())
		return nil
	})
	return recs, where, err
}

func frames(t testing.TB, compress kado.CompressMode, payloads ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := kado.NewWriter(&buf, compress)
	for i, p := range payloads {
		if _, err := w.WriteFrame(kado.Header{Version: 1, Type: kado.Instruction, Timestamp: 1000 + uint64(i), SequenceID: uint32(i + 1)}, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestSourceFormats(t *testing.T) {
	twoFrames := frames(t, kado.CompressNever, `{"a":1}`, `{"b":[2]}`)
	var nested, flat []string
	br := kado.NewReader(bytes.NewReader(twoFrames), kado.ReaderOptions{})
	for {
		f, err := br.Next()
		if err != nil {
			break
		}
		js, _ := br.JSON(f)
		nested = append(nested, string(kado.AppendRecord(nil, f.Header, f.Compressed(), js)))
		flat = append(flat, string(kado.AppendFlatRecord(nil, f.Header, f.Compressed(), js)))
	}
	cb := &capturetest.Builder{}
	c := cb.Conn("10.0.0.1:51234", "10.0.0.2:7000")
	c.Handshake()
	c.SendSplit(capturetest.C2S, 0, twoFrames, 7)
	capFile := cb.Bytes()

	tests := []struct {
		name   string
		in     string
		opts   records.SourceOptions
		set    func(*records.Source)
		format codec.Format
		recs   []string
		where  []string
	}{
		{name: "json array detected", in: "[{\"a\": 1},\n {\"b\": [1, 2]}]",
			format: codec.JSON, recs: []string{`{"a":1}`, `{"b":[1,2]}`}, where: []string{"in:1:2", "in:2:2"}},
		{name: "json raw", in: `[{"a": 1}]`, set: func(s *records.Source) { s.Raw = true },
			format: codec.JSON, recs: []string{`{"a": 1}`}, where: []string{"in:1:2"}},
		{name: "json whole", in: `[1, 2] 3`, set: func(s *records.Source) { s.Whole = true }, opts: records.SourceOptions{Format: codec.NDJSON},
			format: codec.NDJSON, recs: []string{`[1,2]`, `3`}, where: []string{"in:1:1", "in:1:8"}},
		{name: "ndjson", in: "{\"a\": 1}\r\n{\"a\": 2}\r\n", opts: records.SourceOptions{Format: codec.NDJSON},
			format: codec.NDJSON, recs: []string{`{"a":1}`, `{"a":2}`}, where: []string{"in:1:1", "in:2:1"}},
		{name: "trace messages read as json", in: `[{"seq": 1}]`, opts: records.SourceOptions{Format: codec.Trace},
			format: codec.JSON, recs: []string{`{"seq":1}`}, where: []string{"in:1:2"}},
		{name: "empty", in: "", format: codec.JSON},
		{name: "blank as json", in: "  \n", opts: records.SourceOptions{Blank: codec.JSON}, format: codec.JSON},
		{name: "table", in: "@toon 1.0\n@keys id,name\n1,ann\n2,bob\n",
			format: codec.Tabular, recs: []string{`{"id":1,"name":"ann"}`, `{"id":2,"name":"bob"}`}, where: []string{"in:3:1", "in:4:1"}},
		{name: "toon records", in: "[2]{id,name}:\n  1,ann\n  2,bob\n",
			format: codec.TOON, recs: []string{`{"id":1,"name":"ann"}`, `{"id":2,"name":"bob"}`}, where: []string{"in: record 1", "in: record 2"}},
		{name: "toon whole", in: "id: 1\nname: ann\n", opts: records.SourceOptions{Format: codec.TOON},
			set:    func(s *records.Source) { s.Whole, s.TOON = true, toonx.DecodeOptions{IndentSize: 2} },
			format: codec.TOON, recs: []string{`{"id":1,"name":"ann"}`}, where: []string{"in: record 1"}},
		{name: "frames", in: string(twoFrames), format: codec.Binary, recs: nested, where: []string{"in: frame 0", "in: frame 1"}},
		{name: "frames flat", in: string(twoFrames), set: func(s *records.Source) { s.Flat = true },
			format: codec.Binary, recs: flat, where: []string{"in: frame 0", "in: frame 1"}},
		{name: "frames payload", in: string(twoFrames), set: func(s *records.Source) { s.Payload = true },
			format: codec.Binary, recs: []string{`{"a":1}`, `{"b":[2]}`}, where: []string{"in: frame 0", "in: frame 1"}},
		{name: "capture flat", in: string(capFile), opts: records.SourceOptions{Capture: pcapsrc.Reader(capture.Options{})}, set: func(s *records.Source) { s.Flat = true },
			format: codec.Pcap, recs: flat, where: []string{"in: frame 0 of the capture", "in: frame 1 of the capture"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, regular := range []bool{false, true} {
				opts := tc.opts
				opts.Regular = regular
				open := func() *records.Source {
					s, err := records.NewSource(strings.NewReader(tc.in), "in", opts)
					if err != nil {
						t.Fatal(err)
					}
					if s.Format() != tc.format || s.Name() != "in" {
						t.Fatalf("format %q name %q, want %q in", s.Format(), s.Name(), tc.format)
					}
					if tc.set != nil {
						tc.set(s)
					}
					return s
				}
				recs, where, err := read(t, open())
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(recs, "\n") != strings.Join(tc.recs, "\n") || strings.Join(where, "|") != strings.Join(tc.where, "|") {
					t.Fatalf("Next: records\n%q\nat %q, want\n%q\nat %q", recs, where, tc.recs, tc.where)
				}
				recs, where, err = readEach(open())
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(recs, "\n") != strings.Join(tc.recs, "\n") || strings.Join(where, "|") != strings.Join(tc.where, "|") {
					t.Fatalf("Each (regular %v): records\n%q\nat %q, want\n%q\nat %q", regular, recs, where, tc.recs, tc.where)
				}
			}
		})
	}
}

// Python-formatted JSON (json.dumps defaults; indent=2 with CRLF; tabs)
// gives the same compact records as the compact text, at the places
// where the values start.
func TestSourcePythonFormatted(t *testing.T) {
	in := []byte(`[{"id": 1, "tags": ["a", "b"], "x": {"y": null}}, {"id": 2, "s": "\u00e9\n"}, {"id": 3, "f": 1.5}]`)
	for _, style := range pyjson.Styles {
		t.Run(style.Name, func(t *testing.T) {
			py := pyjson.Dumps(t, in, style.Flags...)
			want := pyjson.Values(t, py, true)
			s, err := records.NewSource(bytes.NewReader(py), "py.json", records.SourceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			recs, where, err := read(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(want) {
				t.Fatalf("%d records, want %d", len(recs), len(want))
			}
			for i := range want {
				if recs[i] != string(jsonv.CompactInPlace(want[i])) {
					t.Errorf("record %d: %s, want %s", i, recs[i], want[i])
				}
			}
			// Each record starts where its line (indented) or the value
			// after ", " starts, never at 1:1 (the array).
			for i, w := range where {
				if !strings.HasPrefix(w, "py.json:") || w == "py.json:1:1" || (i > 0 && w == where[i-1]) {
					t.Errorf("record %d at %q", i, w)
				}
			}
		})
	}
}

func TestSourceErrors(t *testing.T) {
	badFrames := frames(t, kado.CompressNever, `{"a":1}`)
	badFrames = append(badFrames, 0x01, 0x09, 0, 0) // a bad type byte after a good frame
	tests := []struct {
		name  string
		in    string
		opts  records.SourceOptions
		kind  records.ErrorKind
		open  bool // the error is NewSource's
		msg   string
		recs  int // records before the error
		check func(t *testing.T, err error)
	}{
		{name: "json syntax", in: "[1,\n 2,\n x]", kind: records.BadJSON, recs: 2, msg: "in:3:2: ",
			check: func(t *testing.T, err error) {
				var se *jsonv.SyntaxError
				if !errors.As(err, &se) || se.Pos.Line != 3 || se.Pos.Column != 2 {
					t.Fatalf("%v: not a syntax error at 3:2", err)
				}
			}},
		{name: "json too large", in: `["aaaaaaaaaaaaaaaaaaaa"]`, opts: records.SourceOptions{MaxSize: 8}, kind: records.BadJSON,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, jsonv.ErrTooLarge) {
					t.Fatalf("%v: not ErrTooLarge", err)
				}
			}},
		{name: "undetected", in: "\x00\x01abc", kind: records.Undetected, open: true, msg: "in: cannot tell the input format: it starts with byte 0x00"},
		{name: "blank undetected", in: "   \n\n", kind: records.Undetected, open: true},
		{name: "bad table row", in: "@toon 1.0\n@keys a\n1\n1,2\n", kind: records.BadTable, recs: 1, msg: "in:4:2: row has 2 cells"},
		{name: "bad toon", in: "[2]: 1\n", kind: records.BadTOON, msg: "in:1:"},
		{name: "bad frame", in: string(badFrames), kind: records.BadFrame, recs: 1,
			check: func(t *testing.T, err error) {
				var fe *kado.FrameError
				if !errors.As(err, &fe) || fe.Frame != 1 {
					t.Fatalf("%v: not a frame error in frame 1", err)
				}
			}},
		{name: "bad capture", in: "\xd4\xc3\xb2\xa1\x02\x00", opts: records.SourceOptions{Capture: pcapsrc.Reader(capture.Options{})}, kind: records.BadCapture},
		{name: "capture without a reader", in: "\xd4\xc3\xb2\xa1\x02\x00", kind: records.Unsupported, open: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, regular := range []bool{false, true} {
				opts := tc.opts
				opts.Regular = regular
				s, err := records.NewSource(strings.NewReader(tc.in), "in", opts)
				n := 0
				if err == nil {
					if tc.open {
						t.Fatalf("NewSource: no error, format %s", s.Format())
					}
					err = s.Each(func([]byte) error { n++; return nil })
				}
				var e *records.Error
				if !errors.As(err, &e) || e.Kind != tc.kind || e.Name != "in" {
					t.Fatalf("error %#v, want a records.Error of kind %d", err, tc.kind)
				}
				if n != tc.recs {
					t.Errorf("%d records before the error, want %d", n, tc.recs)
				}
				if !strings.HasPrefix(err.Error(), tc.msg) {
					t.Errorf("message %q, want it to start %q", err, tc.msg)
				}
				if tc.check != nil {
					tc.check(t, err)
				}
			}
		})
	}
}

// An error of f stops Each, which returns it as it is.
func TestSourceEachStops(t *testing.T) {
	stop := errors.New("stop")
	for _, regular := range []bool{false, true} {
		s, err := records.NewSource(strings.NewReader(strings.Repeat("{\"a\": 1}\n", 10000)), "in", records.SourceOptions{Regular: regular})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = s.Each(func([]byte) error {
			if n++; n == 5000 {
				return stop
			}
			return nil
		})
		if err != stop || n != 5000 || s.Where() != "in:5000:1" {
			t.Fatalf("regular %v: %v after %d records at %s", regular, err, n, s.Where())
		}
	}
}

// A live input (a pipe) is read as it comes: each record is handed out
// once it is whole, and Idle tells when nothing more is buffered.
func TestSourceLive(t *testing.T) {
	for _, format := range []codec.Format{codec.JSON, codec.Binary} {
		t.Run(string(format), func(t *testing.T) {
			pr, pw := io.Pipe()
			var chunks [][]byte
			for _, v := range []string{`{"n": 1}`, `{"n": 2}`, `{"n": 3}`} {
				if format == codec.Binary {
					chunks = append(chunks, frames(t, kado.CompressNever, v))
				} else {
					chunks = append(chunks, []byte(v+"\n"))
				}
			}
			go pw.Write(chunks[0])
			s, err := records.NewSource(pr, "<stdin>", records.SourceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Format() != format {
				t.Fatalf("detected %s, want %s", s.Format(), format)
			}
			got := make(chan string)
			go func() {
				defer close(got)
				s.Each(func(rec []byte) error {
					if !s.Idle() {
						got <- "not idle: " + string(rec)
						return nil
					}
					got <- string(rec)
					return nil
				})
			}()
			for i := range chunks {
				if i > 0 {
					go pw.Write(chunks[i])
				}
				rec := <-got
				if !strings.Contains(rec, `"n":`+string(rune('1'+i))) || strings.HasPrefix(rec, "not idle") {
					t.Fatalf("record %d: %s", i, rec)
				}
			}
			pw.Close()
			if rec, ok := <-got; ok {
				t.Fatalf("more after the end: %s", rec)
			}
		})
	}
}

// Any input: no panic, and Each reading ahead (a regular file) gives the
// records, places and error that Next gives one by one.
func FuzzSource(f *testing.F) {
	f.Add([]byte("[{\"a\": 1}, 2, \"x\"]"))
	f.Add([]byte("{\"a\": 1}\r\n{\"a\": 2}\r\n"))
	f.Add([]byte("@toon 1.0\n@keys id,name\n1,ann\n2\n"))
	f.Add([]byte("[2]{id,name}:\n  1,ann\n  2,bob\n"))
	f.Add([]byte("key: value\nlist[2]: 1,2\n"))
	f.Add(frames(f, kado.CompressAlways, `{"a":1}`, `{"b":"`+strings.Repeat("y", 100)+`"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var got [2]string
		for i, regular := range []bool{false, true} {
			s, err := records.NewSource(bytes.NewReader(in), "in", records.SourceOptions{MaxSize: 1 << 16, Regular: regular})
			if err != nil {
				var e *records.Error
				if !errors.As(err, &e) {
					t.Fatalf("NewSource: %T %v", err, err)
				}
				got[i] = "open: " + err.Error()
				continue
			}
			var recs, where []string
			if regular {
				recs, where, err = readEach(s)
			} else {
				recs, where, err = read(t, s)
			}
			got[i] = fmt.Sprintf("%q %q %v", recs, where, err)
		}
		if got[0] != got[1] {
			t.Fatalf("Next:\n%s\nEach:\n%s", got[0], got[1])
		}
	})
}
