package query

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Any filter over any input: no panic, and no hang past the context's
// deadline (repeat(.), range(1e18) end there, as --timeout ends them).
func FuzzQuery(f *testing.F) {
	for _, s := range [][2]string{
		{".", `{"b":1,"a":[1.50,12345678901234567890]}`},
		{"repeat(.)", `1`},
		{"[range(1e18)]", `null`},
		{".a += 1 | to_entries", `{"a":1,"b":"x"}`},
		{"{b: .a, a: .b} | tojson", `{"a":1,"b":2}`},
		{"paths, leaf_paths, tostream", `{"a":[{"b":null}]}`},
		{"@base64d, @csv", `"a"`},
		{"def f: f; f", `1`},
		{".[", `1`},
		{"input", `1`},
	} {
		f.Add(s[0], []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, filter string, input []byte) {
		q, err := Compile(filter, Options{})
		if err != nil {
			ce, ok := err.(*CompileError)
			if !ok || ce.Offset < 0 || ce.Offset > len(filter) {
				t.Fatalf("Compile(%q): %#v", filter, err)
			}
			return
		}
		o := q.NewOrder()
		v, err := Decode(input, o)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		enc := Encoder{Order: o, Format: Format{Indent: 2}}
		it := q.Run(ctx, v)
		out := 0
		start := time.Now()
		for range 10000 {
			r, ok := it.Next()
			if !ok {
				break
			}
			if _, ok := r.(error); ok {
				continue
			}
			b := enc.Append(nil, r)
			if !jsonv.Valid(b) {
				t.Fatalf("%q on %q wrote invalid JSON %q", filter, input, b)
			}
			out += len(b)
			if out > 1<<20 {
				break
			}
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("%q on %q ran %s past its deadline", filter, input, d)
		}
	})
}

// Decode accepts every valid JSON value and writes it back as it was,
// compacted; it never panics on anything else.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.50,-0,1e2,12345678901234567890]}`, `"\ud83d\ude00\u0000"`, `[]`, `{"a":{"b":{}}}`, "\"\xff\"", `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o := NewOrder()
		v, err := Decode(b, o)
		if !jsonv.Valid(b) || bytes.Contains(b, []byte(`\u`)) || bytes.IndexByte(b, 0x7f) >= 0 {
			return // escapes come back as the characters, lone surrogates as U+FFFD, DEL as \u007f (as jq)
		}
		if err != nil {
			t.Fatalf("Decode(%q): %v", b, err)
		}
		enc := Encoder{Order: o}
		got := enc.Append(nil, v)
		want := jsonv.Compacted(nil, b)
		if !bytes.Equal(got, want) && !bytes.Contains(want, []byte(`\`)) {
			t.Fatalf("Decode(%q) wrote back %q, want %q", b, got, want)
		}
	})
}

// A Stream gives the same values, and fails at the same value, however its
// input is cut into reads; it never panics.
func FuzzStream(f *testing.F) {
	for _, s := range []string{"1 2 {\"a\":\n[3]}", "\xef\xbb\xbf\"x\"  12", "[1, tru]", "{\"a\":\"\\ud83d\\ude00\"} -0.5e3", "\"\xff\" nul"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		whole, wpos, werr := streamAll(bytes.NewReader(in), 1<<16)
		cut, cpos, cerr := streamAll(&chunked{b: in, n: int(chunk%16) + 1}, 1<<16)
		if strings.Join(whole, "\x00") != strings.Join(cut, "\x00") || (werr == nil) != (cerr == nil) {
			t.Fatalf("%q: whole %q %v, in chunks of %d %q %v", in, whole, werr, chunk%16+1, cut, cerr)
		}
		for i := range wpos {
			if wpos[i] != cpos[i] {
				t.Fatalf("%q: value %d at %+v, in chunks at %+v", in, i, wpos[i], cpos[i])
			}
		}
	})
}

// chunked reads b n bytes at a time.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// Raw inputs (-R) give the lines of the text, however it is cut into
// reads, each within MaxSize; the first longer line is a *TooLargeError
// with its number, and the slurped text (-R -s) is the text itself unless
// it passes MaxSize.
func FuzzRawLines(f *testing.F) {
	for _, s := range []string{"abc\nwxyz\n12345", "\n\n", "x", "", "\xff\xfe\n\xed\xa0\xbd", strings.Repeat("a", 70000) + "\nb"} {
		f.Add(s, uint16(4), uint8(3))
	}
	f.Fuzz(func(t *testing.T, text string, limit uint16, chunk uint8) {
		max := int(limit%100) + 1
		if strings.HasPrefix(text, strings.Repeat("a", 70000)) {
			max = 70000 // the buffer's refills within a line
		}
		open := func(string) (*Opened, error) {
			return &Opened{R: &chunked{b: []byte(text), n: int(chunk%16) + 1}, Name: "in.txt", Close: func() {}}, nil
		}
		qi := NewInputs(InputOptions{Names: []string{"in.txt"}, Raw: true, MaxSize: max, Open: open})
		want := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if text == "" {
			want = nil
		}
		for i := 0; ; i++ {
			v, err := qi.Read()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("%q: %d lines, want %d", text, i, len(want))
				}
				break
			}
			if i >= len(want) {
				t.Fatalf("%q: line %d %q %v past the end", text, i+1, v, err)
			}
			if len(want[i]) > max {
				var tl *TooLargeError
				if !errors.As(err, &tl) || tl.Line != i+1 {
					t.Fatalf("%q: line %d of %d bytes, limit %d: %v %v", text, i+1, len(want[i]), max, v, err)
				}
				break
			}
			if err != nil || v != strings.ToValidUTF8(want[i], "\uFFFD") {
				t.Fatalf("%q: line %d %q %v, want %q", text, i+1, v, err, want[i])
			}
		}
		qi = NewInputs(InputOptions{Names: []string{"in.txt"}, Raw: true, MaxSize: max, Open: open})
		v, err := qi.Slurp()
		if len(text) > max {
			var tl *TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("%q slurped, limit %d: %q %v", text, max, v, err)
			}
		} else if err != nil || v != strings.ToValidUTF8(text, "\uFFFD") {
			t.Fatalf("%q slurped: %q %v", text, v, err)
		}
	})
}
