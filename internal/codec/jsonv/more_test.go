package jsonv

import (
	"io"
	"strings"
	"testing"
)

// chunkReader gives at most n bytes a read, as a pipe gives one write.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// A big value that arrives a little at a time is parsed a few times, not
// once per read (which was quadratic: 5 s for a 14 MB value on a pipe).
func TestReaderBigValueInSmallReads(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"rows":[`)
	for i := range 40000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":1,"s":"a]}\"b","t":[{}]}`)
	}
	b.WriteString("]}\n")
	doc := b.String()
	for _, elements := range []bool{false, true} {
		r := NewReader(chunkReader{strings.NewReader(doc), 4 << 10}, Options{Elements: elements})
		v, _, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if string(v) != strings.TrimSpace(doc) {
			t.Fatalf("read %d bytes, want the %d of the value", len(v), len(doc)-1)
		}
		// 1.2 MB in 4 KiB reads: 300 reads. The bytes double between
		// parses from the first buffer's size.
		if r.tries > 12 {
			t.Errorf("Elements %v: the value was parsed %d times", elements, r.tries)
		}
		if _, _, err := r.Next(); err != io.EOF {
			t.Fatalf("then %v, want EOF", err)
		}
	}
}

// An error in a value that arrives in small reads is the same error as
// when it is read at once, and it is found without reading the input to
// its end when the brackets show it.
func TestReaderErrorInSmallReads(t *testing.T) {
	head := `{"a":[` + strings.Repeat(`1,`, 50000)
	for _, bad := range []string{`2}`, `"x` + "\n", `"x":`} {
		doc := head + bad + strings.Repeat(" ", 1<<20)
		whole := NewReader(strings.NewReader(doc), Options{})
		_, _, want := whole.Next()
		if want == nil {
			t.Fatalf("%q: no error", bad)
		}
		src := &countReader{r: chunkReader{strings.NewReader(doc), 4 << 10}}
		_, _, err := NewReader(src, Options{}).Next()
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%q: in small reads %v, want %v", bad, err, want)
		}
		if bad != `"x":` && src.n > 2*len(head) {
			t.Errorf("%q: read %d bytes to find the error at %d", bad, src.n, len(head))
		}
	}
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestEndScan(t *testing.T) {
	cases := []struct {
		in    string
		stops int // the byte after which the scan stops; -1: it does not
	}{
		{`{}`, 2},
		{`[1,[2,{"a":"]}"}]]`, 18},
		{`{"a":"\"}"}`, 11},
		{`{"a":"\\"}`, 10},
		{`{"a":[}`, 7},      // the wrong bracket
		{"{\"a\":\"x\n", 8}, // a newline in a string
		{`{"a":[1,2`, -1},   // open
		{`{"a":"}]`, -1},    // in a string
		{`[` + "\t\n" + `]x`, 4},
		{`"a\"]"`, 6},   // a string
		{`12.5e+3,`, 8}, // a number, ended by the comma
		{`true `, 5},
		{`12.5`, -1},
	}
	for _, c := range cases {
		// Byte by byte, and at once: the same answer.
		for _, step := range []int{1, len(c.in)} {
			var s EndScan
			got := -1
			for end := step; end <= len(c.in)+step-1; end += step {
				e := min(end, len(c.in))
				if s.Feed([]byte(c.in[:e])) {
					got = e
					break
				}
			}
			if step == 1 && got != c.stops || step > 1 && (got >= 0) != (c.stops >= 0) {
				t.Errorf("%q in steps of %d: stops after %d, want %d", c.in, step, got, c.stops)
			}
		}
	}
}
