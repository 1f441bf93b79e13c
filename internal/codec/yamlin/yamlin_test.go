package yamlin_test

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/yamlin"
)

func toJSON(t *testing.T, in string) string {
	t.Helper()
	out, err := yamlin.ToJSON([]byte(in), yamlin.Options{})
	if err != nil {
		t.Fatalf("ToJSON(%q): %v", in, err)
	}
	return string(out)
}

func TestCoreSchema(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// YAML 1.2 core schema: 1.1's booleans and octals are gone.
		{"[yes, no, on, off, y, n, Yes, OFF]", `["yes","no","on","off","y","n","Yes","OFF"]`},
		{"[true, True, TRUE, false, False, FALSE, tRUE]", `[true,true,true,false,false,false,"tRUE"]`},
		{"[null, Null, NULL, ~, nULL]", `[null,null,null,null,"nULL"]`},
		{"- \n- ~\n", `[null,null]`},
		{"a:\n", `{"a":null}`},
		{"[0o17, 0x1F, 0xff, 0777, 007, -007, +12, -0, 0]", `[15,31,255,777,7,-7,12,0,0]`},
		{"[1_000, 0b101, 1:30, 0o8, 0xg, 0O17, 0X1F]", `["1_000","0b101","1:30","0o8","0xg","0O17","0X1F"]`},
		{"[1.5, +1.50, .5, -.5, 1., 01.5, 1e5, 1E+05, -0.0, 2.5e-3, 1.e3]", `[1.5,1.50,0.5,-0.5,1.0,1.5,1e5,1E+05,-0.0,2.5e-3,1.0e3]`},
		{"[., -., .e5, 1e, e5, 1.5.5, 0x, 0o]", `[".","-.",".e5","1e","e5","1.5.5","0x","0o"]`},
		// Timestamps are strings as written (no !!timestamp in 1.2).
		{"[2001-12-14, 2001-12-14t21:59:43.10-05:00]", `["2001-12-14","2001-12-14t21:59:43.10-05:00"]`},
		// Quoted and block scalars are strings.
		{"- '1'\n- \"true\"\n- 'null'\n- |\n  12\n", `["1","true","null","12\n"]`},
		{"- >\n  folded\n  text\n- |-\n  lit\n", `["folded text\n","lit"]`},
		// Big integers stay exact.
		{"n: 123456789012345678901234567890", `{"n":123456789012345678901234567890}`},
		{"n: 0x123456789abcdef0123456789", `{"n":90144042682896311822508713865}`},
		{"f: 3.14159265358979323846264338327950288", `{"f":3.14159265358979323846264338327950288}`},
		// Tags.
		{"[!!str 12, !!int '12', !!float 1, !!bool true, !!null ~, !!int 0x10]", `["12",12,1,true,null,16]`},
		{"b: !!binary |\n  R0lG\n  ODlh\n", `{"b":"R0lGODlh"}`},
		{"t: !!timestamp 2001-12-14 21:59:43.10 -5", `{"t":"2001-12-14 21:59:43.10 -5"}`},
		{"!!map {a: !!seq [1]}", `{"a":[1]}`},
		{"tag:yaml.org,2002:str: x\n!<tag:yaml.org,2002:int> 5: !<tag:yaml.org,2002:str> 5", `{"tag:yaml.org,2002:str":"x","5":"5"}`},
		// Keys that are not strings are their value's JSON text.
		{"{1: a, 0x10: b, true: c, ~: d, 1.50: e, .inf: f, 2001-12-14: g}", `{"1":"a","16":"b","true":"c","null":"d","1.50":"e",".inf":"f","2001-12-14":"g"}`},
		// Order is kept.
		{"z: 1\na: 2\nm: 3\n", `{"z":1,"a":2,"m":3}`},
		// Strings: escapes, unicode.
		{`s: "tab\there \u00e9 \U0001F600 \x41"`, `{"s":"tab\there é 😀 A"}`},
		{"\xEF\xBB\xBFa: 1", `{"a":1}`},
		{"a: 1\r\nb: two\r\n", `{"a":1,"b":"two"}`},
		// Streams.
		{"", `[]`},
		{"# only a comment\n", `[]`},
		{"a: 1\n---\nb: 2\n", `[{"a":1},{"b":2}]`},
		{"---\n---\n", `[null,null]`},
		{"--- 1\n--- [2]\n...\n", `[1,[2]]`},
	} {
		if got := toJSON(t, c.in); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestAliasesAndMerge(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a: &x [1, 2]\nb: *x\n", `{"a":[1,2],"b":[1,2]}`},
		{"base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n  z: 4\n", `{"base":{"x":1,"y":2},"d":{"x":1,"y":3,"z":4}}`},
		// As PyYAML: of a sequence, the earlier mapping wins, the later's
		// keys come first.
		{"a: &a {k: a, x: 1}\nb: &b {k: b, y: 2}\nc:\n  <<: [*a, *b]\n", `{"a":{"k":"a","x":1},"b":{"k":"b","y":2},"c":{"k":"a","y":2,"x":1}}`},
		{"c:\n  <<: {p: 1}\n  q: 2\n", `{"c":{"p":1,"q":2}}`},
		// A merged mapping's own merges come along.
		{"a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, z: 3}\n", `{"a":{"x":1},"b":{"x":1,"y":2},"c":{"x":1,"y":2,"z":3}}`},
		// A quoted << is an ordinary key.
		{"'<<': 1\n", `{"<<":1}`},
		{"k: &k key\n*k : v\n", `{"k":"key","key":"v"}`},
	} {
		if got := toJSON(t, c.in); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind yamlin.ErrorKind
		msg  string // the whole message, position first
		hint string
	}{
		{"a: [1,\n", yamlin.Syntax, "1: did not find expected node content", ""},
		{"x: 1\n x: 2\n", yamlin.Syntax, "2: mapping values are not allowed in this context", ""},
		{"a: 1\nb: *nope\n", yamlin.Syntax, "2:4: alias *nope names no anchor defined before it", ""},
		{"a: 1\na: 2\n", yamlin.Duplicate, `2:1: key "a" is given twice in this mapping (first at 1:1)`, "YAML forbids duplicate keys; keep one"},
		{"{1: a, 01: b}", yamlin.Duplicate, `1:8: key "1" is given twice in this mapping (first at 1:2)`, "YAML forbids duplicate keys; keep one"},
		{"v: [1, .inf]", yamlin.Unsupported, "1:8: .inf is an infinite float, which JSON cannot hold", "quote it ('.inf') to read it as a string"},
		{"v: -.Inf", yamlin.Unsupported, "1:4: -.Inf is an infinite float, which JSON cannot hold", "quote it ('-.Inf') to read it as a string"},
		{"v: .nan", yamlin.Unsupported, "1:4: .nan is a NaN (not a number), which JSON cannot hold", "quote it ('.nan') to read it as a string"},
		{"? [1, 2]\n: v\n", yamlin.Unsupported, "1:3: a sequence as a mapping key has no JSON form (JSON keys are strings)", ""},
		{"r: !Ref Bucket\n", yamlin.Unsupported, "1:4: tag !Ref is not one toonkit reads", "toonkit reads"},
		{"r: !!set {a, b}\n", yamlin.Unsupported, "1:4: tag !!set is not one toonkit reads on a mapping", "toonkit reads"},
		{"n: !!int 1.5\n", yamlin.Unsupported, `1:4: "1.5" is not a !!int of the YAML 1.2 core schema`, ""},
		{"b: !!binary not*base64\n", yamlin.Unsupported, "1:4: a !!binary value that is not base64", ""},
		{"a: &a [1, *a]\n", yamlin.Unsupported, "1:11: alias *a stands inside the node its anchor names: it has no finite JSON form", ""},
		{"a: &a {<<: *a}\n", yamlin.Unsupported, "1:12: a mapping merges itself (<< names an anchor whose node holds it): it has no finite JSON form", ""},
		{"a: {<<: 1}\n", yamlin.Unsupported, "1:9: the value of a merge key << is a mapping or a sequence of mappings", "<<: takes a mapping, or a sequence of mappings: <<: [*a, *b]"},
		{"a: {<<: {x: 1}, <<: {y: 2}}\n", yamlin.Duplicate, "1:17: a second merge key << in this mapping (the first is at 1:5)", "give one << key a sequence of mappings: <<: [*a, *b]"},
		{"n: 0x" + strings.Repeat("f", yamlin.MaxRadixDigits+1), yamlin.Limit, "1:4: an integer of more than 4096 base-16 digits", ""},
	} {
		_, err := yamlin.ToJSON([]byte(c.in), yamlin.Options{})
		var e *yamlin.Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v (%T), want an *Error", c.in, err, err)
			continue
		}
		if e.Kind != c.kind || err.Error() != c.msg || !strings.HasPrefix(e.Syntax.Hint, c.hint) {
			t.Errorf("%q:\n got kind %d %q hint %q\nwant kind %d %q hint %q", c.in, e.Kind, err, e.Syntax.Hint, c.kind, c.msg, c.hint)
		}
		var se *jsonv.SyntaxError
		if e.Syntax.Pos.Line > 0 && !errors.As(err, &se) {
			t.Errorf("%q: a positioned error that is no *jsonv.SyntaxError", c.in)
		}
	}
}

// The excerpt of a positioned error is the line, the caret under the
// node (its column counted in characters).
func TestErrorExcerpt(t *testing.T) {
	_, err := yamlin.ToJSON([]byte("name: é\nv: [\"ü\", .inf]\n"), yamlin.Options{})
	var se *jsonv.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v", err)
	}
	if se.Excerpt != `v: ["ü", .inf]` || se.Caret != 9 || se.Pos.Line != 2 || se.Pos.Column != 10 || se.Pos.Offset != 19 {
		t.Errorf("excerpt %q caret %d pos %#v", se.Excerpt, se.Caret, se.Pos)
	}
}

// billionLaughs is the alias bomb: each level's anchor is a sequence of
// ten aliases of the level before, 10^levels strings in all.
func billionLaughs(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol]\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// A billion laughs is refused at the limit, having copied no more than
// the limit's nodes: bounded work and memory, whatever the levels.
func TestAliasBomb(t *testing.T) {
	in := billionLaughs(9) // 10^9 strings expanded
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := yamlin.ToJSON([]byte(in), yamlin.Options{})
	runtime.ReadMemStats(&after)
	var e *yamlin.Error
	if !errors.As(err, &e) || e.Kind != yamlin.Limit {
		t.Fatalf("error %v, want a Limit *Error", err)
	}
	want := "aliases copy more than 1000000 nodes into this document (the limit against alias bombs)"
	if !strings.HasSuffix(err.Error(), want) || e.Syntax.Pos.Line == 0 {
		t.Errorf("error %q, want a position and %q", err, want)
	}
	// 10^6 copies of "lol" are ~6 MB of JSON; the bomb would be 6 GB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("the bomb allocated %d MB before it was refused", grew>>20)
	}
	// A smaller limit stops sooner; the same document under the limit is
	// read whole.
	if _, err := yamlin.ToJSON([]byte(billionLaughs(3)), yamlin.Options{MaxAliasNodes: 1000}); !yamlin.IsLimit(err) {
		t.Errorf("10^3 copies under a limit of 1000: %v", err)
	}
	out, err := yamlin.ToJSON([]byte(billionLaughs(3)), yamlin.Options{})
	if err != nil || strings.Count(string(out), `"lol"`) != 1+10+100+1000 {
		t.Errorf("10^3 laughs: %d lols, %v", strings.Count(string(out), `"lol"`), err)
	}
}

// Merge keys are no way around the limit.
func TestMergeBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("m0: &m0 {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8, k9: 9}\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("m" + itoa(i) + ": &m" + itoa(i) + " {<<: [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*m" + itoa(i-1))
		}
		b.WriteString("]}\n")
	}
	if _, err := yamlin.ToJSON([]byte(b.String()), yamlin.Options{}); !yamlin.IsLimit(err) {
		t.Fatalf("merge bomb: %v, want the limit", err)
	}
}

func TestSizeAndDepthLimits(t *testing.T) {
	_, err := yamlin.ToJSON([]byte("a: "+strings.Repeat("x", 100)), yamlin.Options{MaxSize: 64})
	if !yamlin.IsLimit(err) || err.Error() != "the YAML input passes the limit of 64 bytes (it is read whole)" {
		t.Errorf("size: %v", err)
	}
	_, err = yamlin.ToJSON([]byte(strings.Repeat("[", 50)+strings.Repeat("]", 50)), yamlin.Options{MaxDepth: 20})
	if !yamlin.IsLimit(err) || !strings.HasSuffix(err.Error(), "the nesting passes the limit of 20 levels") {
		t.Errorf("depth: %v", err)
	}
	// Aliases make a record larger than the input: its size is bounded too.
	_, err = yamlin.ToJSON([]byte("a: &a "+strings.Repeat("x", 40)+"\nb: [*a, *a, *a, *a]\n"), yamlin.Options{MaxSize: 100})
	if !yamlin.IsLimit(err) || !strings.HasSuffix(err.Error(), "the record's JSON passes the limit of 100 bytes") {
		t.Errorf("record size: %v", err)
	}
}

// Records: a stream of one document whose root is a sequence gives its
// elements (Elements), any other stream one record per document.
func TestRecords(t *testing.T) {
	for _, c := range []struct {
		in       string
		elements bool
		array    bool
		recs     []string
		lines    []int
	}{
		{"- a: 1\n- a: 2\n", true, true, []string{`{"a":1}`, `{"a":2}`}, []int{1, 2}},
		{"- a: 1\n- a: 2\n", false, true, []string{`[{"a":1},{"a":2}]`}, []int{1}},
		{"a: 1\n", true, false, []string{`{"a":1}`}, []int{1}},
		{"- 1\n---\n- 2\n", true, true, []string{`[1]`, `[2]`}, []int{1, 3}},
		{"", true, true, nil, nil},
		{"x\n", true, false, []string{`"x"`}, []int{1}},
	} {
		r := yamlin.NewReader(strings.NewReader(c.in), yamlin.Options{Elements: c.elements})
		if got := r.Records(); got != c.array {
			t.Errorf("%q: Records() = %v", c.in, got)
		}
		var recs []string
		var lines []int
		for {
			rec, pos, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", c.in, err)
			}
			recs, lines = append(recs, string(rec)), append(lines, pos.Line)
		}
		if strings.Join(recs, " ") != strings.Join(c.recs, " ") || len(lines) != len(c.lines) {
			t.Errorf("%q elements %v: records %q lines %v", c.in, c.elements, recs, lines)
			continue
		}
		for i := range lines {
			if lines[i] != c.lines[i] {
				t.Errorf("%q: lines %v, want %v", c.in, lines, c.lines)
			}
		}
	}
}

// The records before a bad document are given, then its error, then the
// same error again.
func TestErrorAfterRecords(t *testing.T) {
	r := yamlin.NewReader(strings.NewReader("a: 1\n---\nb: [\n"), yamlin.Options{})
	rec, _, err := r.Next()
	if err != nil || string(rec) != `{"a":1}` {
		t.Fatalf("first: %s %v", rec, err)
	}
	for range 2 {
		if _, _, err := r.Next(); err == nil || err == io.EOF || !strings.HasPrefix(err.Error(), "3: ") {
			t.Errorf("then: %v", err)
		}
	}
}
