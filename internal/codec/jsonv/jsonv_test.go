package jsonv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

func TestAppendCompact(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{ "a" : 1 , "b" : [ 1.50, -0, 1e+20 ] }`, `{"a":1,"b":[1.50,-0,1e+20]}`},
		{`{"z":1,"a":2}`, `{"z":1,"a":2}`},             // member order kept
		{`"caf\u00e9 \/ \u2028"`, "\"café / \u2028\""}, // minimal escaping, as JSON.stringify
		{`"\u0001\u001f\b\f\n\r\t\"\\"`, `"\u0001\u001f\b\f\n\r\t\"\\"`},
		{`"<&>"`, `"<&>"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{`"\u001F\u0022\u005c\u0041\uD83D\uDE00"`, `"\u001f\"\\A😀"`},
		// A lone surrogate, as JSON.stringify writes half an emoji: kept,
		// lowercase, and the rest of the string made minimal as usual.
		{`"\ud800"`, `"\ud800"`},
		{`{ "a" : "\u00e9\uDC00", "b": [1] }`, `{"a":"é\udc00","b":[1]}`},
		{`"\ud800\u0041\udbff\udfff\ud800"`, "\"\\ud800A\U0010FFFF\\ud800\""},
	}
	for _, c := range cases {
		got, err := AppendCompact([]byte("prefix:"), []byte(c.in))
		if err != nil || string(got) != "prefix:"+c.want {
			t.Errorf("AppendCompact(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`{"a":1,"a":2}`, "\"\xff\"", `["\ud800", "` + "\xff" + `"]`, `{`, `[1,]`, `01`, `1 2`, ``} {
		got, err := AppendCompact([]byte("keep"), []byte(bad))
		if err == nil {
			t.Errorf("AppendCompact(%q) accepted", bad)
		}
		if string(got) != "keep" {
			t.Errorf("AppendCompact(%q) left %q in dst", bad, got)
		}
	}
}

func readAll(t *testing.T, r *Reader) ([]string, []Position, error) {
	t.Helper()
	var vals []string
	var pos []Position
	for {
		v, p, err := r.Next()
		if err == io.EOF {
			return vals, pos, nil
		}
		if err != nil {
			return vals, pos, err
		}
		vals = append(vals, string(v))
		pos = append(pos, p)
	}
}

func TestReaderStreams(t *testing.T) {
	cases := []struct {
		name string
		in   string
		vals []string
		pos  []string
	}{
		{"one document", "{\n  \"a\": 1\n}\n", []string{"{\n  \"a\": 1\n}"}, []string{"1:1"}},
		{"ndjson", "{\"a\":1}\n{\"b\":2}\n\n[3]\n", []string{`{"a":1}`, `{"b":2}`, `[3]`}, []string{"1:1", "2:1", "4:1"}},
		{"back to back", `{"a":1}{"b":2} 3 "x"`, []string{`{"a":1}`, `{"b":2}`, `3`, `"x"`}, []string{"1:1", "1:8", "1:16", "1:18"}},
		{"columns count runes", `["é"] ["€"]`, []string{`["é"]`, `["€"]`}, []string{"1:1", "1:7"}},
		{"empty", "  \n", nil, nil},
		{"byte order mark", "\xEF\xBB\xBF{\"a\":1}\n[2]", []string{`{"a":1}`, `[2]`}, []string{"1:1", "2:1"}},
		{"lone surrogate", `["\ud83d"] 1`, []string{`["\ud83d"]`, `1`}, []string{"1:1", "1:12"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range map[string]*Reader{
				"whole":    NewReader(strings.NewReader(c.in), Options{}),
				"one byte": NewReader(iotest.OneByteReader(strings.NewReader(c.in)), Options{}),
			} {
				vals, pos, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(vals, "|") != strings.Join(c.vals, "|") {
					t.Fatalf("values %q, want %q", vals, c.vals)
				}
				var ps []string
				for _, p := range pos {
					ps = append(ps, p.String())
				}
				if strings.Join(ps, " ") != strings.Join(c.pos, " ") {
					t.Fatalf("positions %v, want %v", ps, c.pos)
				}
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	cases := []struct {
		name, in, msg, excerpt string
		caret                  int
	}{
		{"bad token on line 3", "{\"a\":1}\n{\"b\":2}\n{\"c\": x}\n", "3:7: invalid character 'x' at start of value (at /c)", `{"c": x}`, 6},
		{"unexpected end", "{\"a\":\n", "2:1: unexpected end of input", "", 0},
		{"duplicate", `{"a":1,"a":2}`, `1:8: duplicate object member name (at /a)`, `{"a":1,"a":2}`, 7},
		{"invalid utf-8", "[\"\xff\"]", "1:3: invalid UTF-8 (at /0)", "[\"\uFFFD\"]", 2},
		{"invalid utf-8 after a lone surrogate", "{\"a\":\"\\ud800\",\n \"b\":\"x\xff\"}", "2:8: invalid UTF-8", " \"b\":\"x\uFFFD\"}", 7},
		{"after unicode", `{"é": tru}`, "1:10: invalid character '}' in literal true (expecting 'e') (at /é)", `{"é": tru}`, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAll(t, NewReader(strings.NewReader(c.in), Options{}))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SyntaxError", err)
			}
			if se.Error() != c.msg || se.Excerpt != c.excerpt || se.Caret != c.caret {
				t.Fatalf("got %q excerpt %q caret %d\nwant %q excerpt %q caret %d", se.Error(), se.Excerpt, se.Caret, c.msg, c.excerpt, c.caret)
			}
		})
	}
}

func TestReaderLimit(t *testing.T) {
	in := `{"a":"` + strings.Repeat("x", 100000) + `"}`
	_, _, err := readAll(t, NewReader(strings.NewReader(in), Options{MaxValueSize: 1000}))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	// Many small values pass a small limit: it is per value.
	many := strings.Repeat(`{"a":"xxxxxxxxxx"}`+"\n", 10000)
	vals, _, err := readAll(t, NewReader(strings.NewReader(many), Options{MaxValueSize: 1000}))
	if err != nil || len(vals) != 10000 {
		t.Fatalf("%d values, %v", len(vals), err)
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, _, err := readAll(t, NewReader(iotest.ErrReader(boom), Options{}))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the read error", err)
	}
	var se *SyntaxError
	if errors.As(err, &se) {
		t.Fatalf("a read error became a syntax error: %v", err)
	}
}

func TestLongLineExcerpt(t *testing.T) {
	in := `[` + strings.Repeat(`1,`, 500) + ` x]`
	_, _, err := readAll(t, NewReader(strings.NewReader(in), Options{}))
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatal(err)
	}
	if len([]rune(se.Excerpt)) > 2*excerptMax+1 || []rune(se.Excerpt)[se.Caret] != 'x' {
		t.Fatalf("excerpt %q caret %d", se.Excerpt, se.Caret)
	}
	if se.Pos.Column != 1003 {
		t.Fatalf("column %d", se.Pos.Column)
	}
}

// FuzzReader: any input is read to the end or to an error, never a panic,
// and every value handed out is valid JSON.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n[2]", `{"a":`, "\"\xff\"", `{}{}`, "1 2 3", `{"a":1,"a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Elements: every element handed out is valid JSON too.
		er := NewReader(strings.NewReader(string(in)), Options{MaxValueSize: 1 << 16, Elements: true})
		for i := 0; ; i++ {
			v, _, err := er.Next()
			if err != nil {
				break
			}
			if !Valid(v) || i > len(in) {
				t.Fatalf("element %q of %q", v, in)
			}
		}
		r := NewReader(strings.NewReader(string(in)), Options{MaxValueSize: 1 << 16})
		for i := 0; i <= len(in); i++ {
			v, p, err := r.Next()
			if err != nil {
				var se *SyntaxError
				if err != io.EOF && !errors.As(err, &se) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				if se != nil && (se.Pos.Line < 1 || se.Pos.Column < 1 || se.Caret > len([]rune(se.Excerpt))) {
					t.Fatalf("bad position %+v", se)
				}
				return
			}
			if !Valid(v) || p.Line < 1 || p.Column < 1 || p.Offset < 0 || p.Offset >= int64(len(in)) {
				t.Fatalf("value %q at %+v", v, p)
			}
			// The position is where the value stands in the input.
			if !bytes.HasPrefix(in[p.Offset:], v) {
				t.Fatalf("value %q is not at offset %d of %q", v, p.Offset, in)
			}
			before := in[:p.Offset]
			line := bytes.Count(before, []byte{'\n'}) + 1
			col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
			if p.Line != line || p.Column != col {
				t.Fatalf("value %q at %d:%d, want %d:%d", v, p.Line, p.Column, line, col)
			}
		}
		t.Fatal("reader did not finish")
	})
}

// spaces is a reader of n white-space bytes (lines of spaces) then tail.
type spaces struct {
	n, off int64
	tail   string
}

func (s *spaces) Read(p []byte) (int, error) {
	if s.n <= 0 {
		if s.tail == "" {
			return 0, io.EOF
		}
		n := copy(p, s.tail)
		s.tail = s.tail[n:]
		return n, nil
	}
	n := int(min(int64(len(p)), s.n))
	for i := range p[:n] {
		p[i] = ' '
		if (s.off+int64(i))%80 == 79 {
			p[i] = '\n'
		}
	}
	s.off += int64(n)
	s.n -= int64(n)
	return n, nil
}

// White space between values is not buffered, however much of it there is:
// 256 MiB of it costs a few MiB, and positions after it are still right.
func TestWhiteSpaceIsNotBuffered(t *testing.T) {
	const n = 256 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReader(&spaces{n: n, tail: "{\"a\":1}\n  {\"b\": x}"}, Options{})
	v, p, err := r.Next()
	if err != nil || string(v) != `{"a":1}` {
		t.Fatalf("Next = %s, %v", v, err)
	}
	if p.Offset != n || p.Line != n/80+1 || p.Column != n%80+1 {
		t.Fatalf("position %+v", p)
	}
	_, _, err = r.Next()
	var se *SyntaxError
	if !errors.As(err, &se) || se.Error() != fmt.Sprintf("%d:9: invalid character 'x' at start of value (at /b)", n/80+2) {
		t.Fatalf("err = %v", err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("allocated %d MiB reading white space", alloc>>20)
	}
}

func TestShortPointer(t *testing.T) {
	if got := ShortPointer("/a/b"); got != "/a/b" {
		t.Errorf("short pointer changed: %q", got)
	}
	deep := "/payload" + strings.Repeat("/0", 5000) + "/name"
	got := ShortPointer(deep)
	if len(got) > maxPointer+4 || !strings.HasPrefix(got, "/payload/…/0/") || !strings.HasSuffix(got, "/0/name") {
		t.Errorf("ShortPointer(deep) = %q", got)
	}
	_, _, err := readAll(t, NewReader(strings.NewReader(strings.Repeat("[", 3000)+"x"), Options{}))
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("error for deep nesting: %d bytes", len(err.Error()))
	}
}

// FuzzCompact: the hand-written compact form is exactly jsontext's (which
// is JSON.stringify's) for every valid value, in place or not.
func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{ "a" : [1, 2.50, -0] }`, `"\u0041\/\u00e9\uD83D\uDE00\u001F"`, `"\ud800"`, "[\"\\\"\", \"\\\\\", \"\\b\\f\\n\\r\\t\"]", "\"\u2028<&>\x7f\"", ` true `, `{"a":{"b":[{}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := AppendCompact(nil, in)
		if jsontext.Value(in).IsValid() {
			want, werr := jsontext.AppendFormat(nil, in)
			if werr != nil || err != nil || !bytes.Equal(got, want) {
				t.Fatalf("AppendCompact(%q) = %q, %v; jsontext gives %q, %v", in, got, err, want, werr)
			}
		}
		if err != nil {
			return
		}
		if !Valid(got) {
			t.Fatalf("compact form %q of %q is not valid", got, in)
		}
		if again, _ := AppendCompact(nil, got); !bytes.Equal(again, got) {
			t.Fatalf("compacting %q again gives %q", got, again)
		}
		if c := Compacted(nil, in); !bytes.Equal(c, got) {
			t.Fatalf("Compacted(%q) = %q, want %q", in, c, got)
		}
		if c := CompactInPlace(bytes.Clone(in)); !bytes.Equal(c, got) {
			t.Fatalf("CompactInPlace(%q) = %q, want %q", in, c, got)
		}
	})
}

func TestCompactedDoesNotCopyCompactInput(t *testing.T) {
	src := []byte(`{"a":"x\"y\n","b":[1,true,null]}`)
	if got := Compacted(nil, src); &got[0] != &src[0] {
		t.Fatal("Compacted copied a value that is compact already")
	}
	buf := make([]byte, 0, 64)
	if got := Compacted(buf, []byte(`{ "a": 1 }`)); string(got) != `{"a":1}` || &got[:1][0] != &buf[:1][0] {
		t.Fatalf("Compacted = %q, not in the buffer given", got)
	}
}

func TestReaderScansEveryShape(t *testing.T) {
	in := "{\"a\":\"}\\\"]\"}[\"\\\\\"]\"s\\\"\"1 -2.5e3\ttrue\nnull{\"b\":[[],{}]}\"\"[]"
	want := []string{`{"a":"}\"]"}`, `["\\"]`, `"s\""`, `1`, `-2.5e3`, `true`, `null`, `{"b":[[],{}]}`, `""`, `[]`}
	for name, r := range map[string]*Reader{
		"whole":    NewReader(strings.NewReader(in), Options{}),
		"one byte": NewReader(iotest.OneByteReader(strings.NewReader(in)), Options{}),
	} {
		vals, _, err := readAll(t, r)
		if err != nil || strings.Join(vals, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, %v; want %q", name, vals, err, want)
		}
	}
	for in, msg := range map[string]string{
		`{"a":1}x`:   "1:8: invalid character 'x' at start of value",
		`[1}`:        "1:3: invalid character '}' after array element (expecting ',' or ']')",
		`{"a":1}]`:   "1:8: invalid character ']' at start of value",
		`truex`:      "1:5: invalid character 'x' at start of value",
		`"abc`:       "1:5: unexpected end of input",
		"[1,\n2,":    "2:3: unexpected end of input",
		`[[[1]]] [[`: "1:11: unexpected end of input",
	} {
		_, _, err := readAll(t, NewReader(strings.NewReader(in), Options{}))
		if err == nil || err.Error() != msg {
			t.Errorf("%q: %v; want %s", in, err, msg)
		}
	}
}

// A value of the size limit costs the reader its own size once (the buffer
// it grows into, and the smaller ones before it), and compacting it in
// place costs nothing: about twice the limit in all, never a multiple.
func TestValueAtTheLimitCostsItsSize(t *testing.T) {
	const limit = 16 << 20
	body := strings.Repeat("x y ", (limit-16)/4)
	in := "  { \"a\" : \"" + body + "\" }\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReader(strings.NewReader(in), Options{MaxValueSize: limit})
	v, _, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	c := CompactInPlace(v)
	runtime.ReadMemStats(&after)
	if len(c) != len(body)+8 {
		t.Fatalf("compact value of %d bytes, want %d", len(c), len(body)+8)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*limit+(1<<20) {
		t.Fatalf("reading and compacting a %d MiB value allocated %d MiB", limit>>20, alloc>>20)
	}
	// One byte more passes the limit, and costs no more.
	twice := in + `["` + body + body + `"]`
	runtime.ReadMemStats(&before)
	r = NewReader(strings.NewReader(twice), Options{MaxValueSize: limit})
	if _, _, err = r.Next(); err == nil {
		_, _, err = r.Next()
	}
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*limit+(1<<20) {
		t.Fatalf("a value past the limit allocated %d MiB", alloc>>20)
	}
}

// With Elements, a top-level array gives its elements, each within the
// size limit, so that an array of records streams.
func TestReaderElements(t *testing.T) {
	in := "[{\"a\":1},\n {\"b\":[2]} ]\n[]\n[ 3 ,\"x\"]{\"c\":4}"
	for name, r := range map[string]*Reader{
		"whole":    NewReader(strings.NewReader(in), Options{Elements: true}),
		"one byte": NewReader(iotest.OneByteReader(strings.NewReader(in)), Options{Elements: true}),
	} {
		vals, pos, err := readAll(t, r)
		var ps []string
		for _, p := range pos {
			ps = append(ps, p.String())
		}
		if err != nil || strings.Join(vals, "|") != `{"a":1}|{"b":[2]}|3|"x"|{"c":4}` || strings.Join(ps, " ") != "1:2 2:2 4:3 4:6 4:10" {
			t.Errorf("%s: %q at %v, %v", name, vals, ps, err)
		}
	}
	for in, msg := range map[string]string{
		"[1 2]":               "1:4: invalid character '2' after array element (expecting ',' or ']')",
		"[1,\n":               "2:1: unexpected end of input (an array is not closed)",
		"[1,]":                "1:4: invalid character ']' at start of value (at /1)",
		"[{\"a\":1,\"a\":2}]": "1:9: duplicate object member name (at /0/a)",
	} {
		_, _, err := readAll(t, NewReader(strings.NewReader(in), Options{Elements: true}))
		if err == nil || err.Error() != msg {
			t.Errorf("%q: %v; want %s", in, err, msg)
		}
	}
	// Elements of a large array count against the limit one by one.
	big := "[" + strings.Repeat(`{"a":"xxxxxxxxxx"},`, 20000) + "{}]"
	vals, _, err := readAll(t, NewReader(strings.NewReader(big), Options{Elements: true, MaxValueSize: 100}))
	if err != nil || len(vals) != 20001 {
		t.Fatalf("%d elements, %v", len(vals), err)
	}
}

// FuzzIndent: the indented form is jsontext's multiline form, and compacts
// back to the value.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":{}},[]],"c":"x\"y,{"}`, `[]`, `"s"`, `[[[]]]`, `{"":{"":[null,true]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := AppendCompact(nil, in)
		if err != nil || !jsontext.Value(in).IsValid() {
			return
		}
		got := AppendIndent(nil, c, "", "  ")
		want, err := jsontext.AppendFormat(nil, c, jsontext.Multiline(true), jsontext.WithIndent("  "), jsontext.SpaceAfterColon(true))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("AppendIndent(%s) =\n%s\njsontext gives\n%s", c, got, want)
		}
		if back, _ := AppendCompact(nil, got); !bytes.Equal(back, c) {
			t.Fatalf("indented %s compacts to %s", c, back)
		}
	})
}

// FuzzMembers: the structural scan finds the members a decoder finds, in
// every object, however it is formatted; the same members (the values
// compacted) in its compact form, and in the form json.dumps writes with
// indent=2 and CRLF line ends; it refuses (false) what is not an object.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":"}"}],"d\"e":"x\\"}`, `{}`, `{"a":{"b":{}}}`, `{ "a": 1 }`, `[1]`,
		"{\r\n  \"a\": [\r\n    1,\r\n    2\r\n  ],\r\n  \"b\": {}\r\n}", "\t{\"a\" :1 , \"b\":\n2}\n", `{ }`} {
		f.Add([]byte(s))
	}
	members := func(t *testing.T, in []byte) ([]string, bool) {
		var got []string
		ok := Members(in, func(name []byte, escaped bool, v []byte) {
			if escaped != bytes.Contains(name, []byte{'\\'}) {
				t.Fatalf("escaped %v for %q", escaped, name)
			}
			got = append(got, string(name)+"="+string(CompactInPlace(bytes.Clone(v))))
		})
		return got, ok
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !Valid(in) {
			return
		}
		got, ok := members(t, in)
		if !ok {
			if TrimSpace(in)[0] == '{' {
				t.Fatalf("Members refused the object %q", in)
			}
			return
		}
		var want []string
		d := jsontext.NewDecoder(bytes.NewReader(in))
		d.ReadToken()
		for d.PeekKind() != '}' {
			n, _ := d.ReadValue()
			name := string(n[1 : len(n)-1])
			v, _ := d.ReadValue()
			want = append(want, name+"="+string(CompactInPlace(bytes.Clone(v))))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("Members(%q) = %q, want %q", in, got, want)
		}
		c := CompactInPlace(bytes.Clone(in))
		pretty := bytes.ReplaceAll(AppendIndent(nil, c, "", "  "), []byte("\n"), []byte("\r\n"))
		for _, form := range [][]byte{c, pretty} {
			if again, ok := members(t, form); !ok || strings.Join(again, "|") != strings.Join(want, "|") {
				t.Fatalf("Members(%q) = %q, %v; want %q as in %q", form, again, ok, want, in)
			}
		}
	})
}

func TestPointerOffset(t *testing.T) {
	v := []byte(`{ "a" : [ 1, {"b~/c": "x"} ], "d": {"e": null} }`)
	for ptr, want := range map[string]string{
		"":            `{ "a"`,
		"/a":          `[ 1,`,
		"/a/0":        `1, {`,
		"/a/1":        `{"b~/c"`,
		"/a/1/b~0~1c": `"x"`,
		"/d/e":        `null`,
		"/d/missing":  `{"e"`,
		"/a/7":        `[ 1,`,
	} {
		off := PointerOffset(v, ptr)
		if !bytes.HasPrefix(v[off:], []byte(want)) {
			t.Errorf("PointerOffset(%q) = %d: %q, want %q", ptr, off, v[off:], want)
		}
	}
}

func TestAppendEscape(t *testing.T) {
	for _, c := range []struct {
		r       rune
		bf      bool
		want    string
		escaped bool
	}{
		{'"', false, `\"`, true}, {'\\', false, `\\`, true}, {'\n', false, `\n`, true},
		{'\r', true, `\r`, true}, {'\t', true, `\t`, true},
		{'\b', true, `\b`, true}, {'\f', true, `\f`, true},
		{'\b', false, `\u0008`, true}, {'\f', false, `\u000c`, true},
		{0x01, true, `\u0001`, true}, {0x1f, false, `\u001f`, true},
		{0xD800, true, `\ud800`, true}, {0xDFFF, true, `\udfff`, true},
		{'a', true, "", false}, {'/', true, "", false}, {0x7f, true, "", false}, {'é', true, "", false},
	} {
		got, ok := AppendEscape([]byte("x"), c.r, c.bf)
		if ok != c.escaped || string(got) != "x"+c.want {
			t.Errorf("AppendEscape(%U, %v) = %q, %v; want %q, %v", c.r, c.bf, got, ok, "x"+c.want, c.escaped)
		}
	}
}

// A stream read from a line start on, with Start, gives the positions and
// errors of the whole stream.
func TestReaderStart(t *testing.T) {
	whole := "{\"a\": 1}\n[1,\n 2]\n\"x\"\n{\"b\": tru}\n"
	cut := strings.Index(whole, "[")
	read := func(r *Reader) string {
		var b strings.Builder
		for {
			v, pos, err := r.Next()
			if err != nil {
				fmt.Fprintf(&b, "%v", err)
				return b.String()
			}
			fmt.Fprintf(&b, "%s@%v/%d ", v, pos, pos.Offset)
		}
	}
	all := read(NewReader(strings.NewReader(whole), Options{}))
	want := all[strings.Index(all, "["):]
	got := read(NewReader(strings.NewReader(whole[cut:]), Options{Start: Position{Offset: int64(cut), Line: 2, Column: 1}}))
	if got != want || !strings.Contains(want, "5:") {
		t.Fatalf("from line 2:\n got %q\nwant %q", got, want)
	}
	// A Reader used before and Reset reads as a new one.
	r := NewReader(strings.NewReader("\n\n[1, 2, 3] \"unfinished"), Options{Elements: true})
	read(r)
	r.Reset(strings.NewReader(whole[cut:]), Options{Start: Position{Offset: int64(cut), Line: 2, Column: 1}})
	if got := read(r); got != want {
		t.Fatalf("after Reset:\n got %q\nwant %q", got, want)
	}
	r.Reset(strings.NewReader(whole), Options{})
	if got := read(r); got != all {
		t.Fatalf("after Reset to the start:\n got %q\nwant %q", got, all)
	}
}

// A Reader started after any element of an array, within a line, with the
// Mark and the array state of that place, reads on as the Reader of the
// whole stream: the same values, positions, errors and excerpts.
func TestReaderResumeInArray(t *testing.T) {
	docs := []string{
		`[{"a": 1, "b": "x"}, {"a": 2, "b": "ü, ÿ"}, {"a": 3}, 4, "five"]`,
		"[\r\n  {\"a\": 1},\r\n  {\"a\": 2},\r\n  {\"é\": 3}\r\n]\r\n",
		`[{"a": 1}, {"a": 2}, {"a": tru}]`,
		`[{"a": 1}, {"a": 2} {"a": 3}]`,
		`[{"a": 1}, {"a": "ß"},`,
		`[{"a": 1}, {"a": 2}, {"a": 1, "a": 2}]`,
		"[1, 2, \"\xff\"]",
		`[{"a": 1}] {"b": 2} [3, 4]`,
		`[{"a": 1, "b": "x, y"}, {"a": 2, "b": "ü"}, {"a": 3}, 4, "five, null, [6, [7]]]`,
	}
	read := func(r *Reader) []string {
		var out []string
		for {
			v, pos, err := r.Next()
			if err != nil {
				var se *SyntaxError
				if errors.As(err, &se) {
					return append(out, fmt.Sprintf("%v | %q ^%d", err, se.Excerpt, se.Caret))
				}
				return append(out, err.Error())
			}
			out = append(out, fmt.Sprintf("%s@%v/%d", v, pos, pos.Offset))
		}
	}
	for _, doc := range docs {
		all := read(NewReader(strings.NewReader(doc), Options{Elements: true}))
		// The ends of the elements, found by reading again.
		var ends []int
		r := NewReader(strings.NewReader(doc), Options{Elements: true})
		for {
			v, pos, err := r.Next()
			if err != nil || !r.inArray {
				break
			}
			ends = append(ends, int(pos.Offset)+len(v))
		}
		for k, cut := range ends {
			var m Mark
			m.Advance(SpanOf([]byte(doc[:cut])))
			got := read(NewReader(strings.NewReader(doc[cut:]), Options{Elements: true, Start: m.Pos, StartLine: m.Line, InArray: true, Element: k + 1}))
			if want := all[k+1:]; !slices.Equal(got, want) {
				t.Errorf("%q after element %d:\n got %q\nwant %q", doc, k, got, want)
			}
		}
	}
}

// The excerpt of an error within a value that does not end holds the
// line as it is: finding the error's position does not write over the text
// before the value.
func TestExcerptOfUnendedValue(t *testing.T) {
	in := `[{"a": 1, "b": "x, y"}, {"a": 2, "b": "ü"}, {"a": 3}, 4, "five, null, [6, [7]]]`
	r := NewReader(strings.NewReader(in), Options{Elements: true})
	for {
		_, _, err := r.Next()
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.HasSuffix(in, se.Excerpt) || strings.Count(se.Excerpt, "five") != 1 {
				t.Fatalf("%v: excerpt %q", err, se.Excerpt)
			}
			return
		}
	}
}
