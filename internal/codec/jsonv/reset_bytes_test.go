package jsonv

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// bytesVsStream reads in with a Reader reset by ResetBytes and by Reset on
// a stream of the same bytes, with opts, and fails when the values, their
// positions, their members, the array state or the error differ, when a
// value is not a slice of in, or when in changed.
func bytesVsStream(t *testing.T, r *Reader, in []byte, opts Options) {
	t.Helper()
	orig := bytes.Clone(in)
	drain := func(r *Reader, inPlace bool) string {
		var b strings.Builder
		for i := 0; i <= len(in)+1; i++ {
			v, p, err := r.Next()
			if err != nil {
				inArr, elems := r.ArrayState()
				fmt.Fprintf(&b, "err %v; array %v %d", err, inArr, elems)
				return b.String()
			}
			if inPlace && (len(v) == 0 || &v[0] != &in[p.Offset-opts.Start.Offset]) {
				t.Fatalf("%q: value %q at %+v is not read in place", in, v, p)
			}
			mems, ok := r.Members()
			fmt.Fprintf(&b, "%q at %+v, members %v %v\n", v, p, mems, ok)
		}
		return b.String() + "(no end)"
	}
	r.ResetBytes(in, opts)
	got := drain(r, true)
	want := drain(NewReader(bytes.NewReader(in), opts), false)
	if got != want {
		t.Fatalf("%q, %+v: ResetBytes read\n%s\nReset on a stream read\n%s", in, opts, got, want)
	}
	if !bytes.Equal(in, orig) {
		t.Fatalf("ResetBytes changed its input %q to %q", orig, in)
	}
}

// TestReaderResetBytes: a Reader of bytes reads what a Reader of the same
// bytes as a stream reads (values, positions, members, errors), in place,
// with every option; a Reset after it reads into its own buffer again, not
// into the bytes it was lent.
func TestReaderResetBytes(t *testing.T) {
	inputs := []string{
		`{"id":1,"name":"Ann"}` + "\n" + `{"id":2,"name":"Bob"}` + "\n",
		`[{"a":1}, {"b":[2,3]}, "x", 4]`,
		"[\r\n  {\"a\": 1},\r\n  {\"a\": 2}\r\n]\r\n",
		`{"a":1,"a":2}`, `{"a":`, `[1,`, `1 2 3`, "\"\xff\"", "\xEF\xBB\xBF{\"a\":1}", ``, ` `,
		`{"big":"` + strings.Repeat("x", 300) + `"}`,
		strings.Repeat(`{"k":"v","n":12345},`, 5000),
	}
	var r Reader
	for _, in := range inputs {
		for _, opts := range []Options{
			{}, {Elements: true}, {Elements: true, Members: true, Offsets: true}, {MaxValueSize: 64},
			{Elements: true, Start: Position{Offset: 0, Line: 1, Column: 1}, InArray: true, Element: 1},
		} {
			bytesVsStream(t, &r, []byte(in), opts)
		}
	}
	// Reset after ResetBytes: the lent bytes stay as they are.
	lent := []byte(`{"lent":true}`)
	r.ResetBytes(lent, Options{})
	if _, _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	r.Reset(strings.NewReader(strings.Repeat(`{"other":"value"}`, 10)), Options{})
	for {
		if _, _, err := r.Next(); err != nil {
			break
		}
	}
	if string(lent) != `{"lent":true}` {
		t.Fatalf("a Reset after ResetBytes wrote into the lent bytes: %q", lent)
	}
}

// FuzzReaderResetBytes: for any input, a Reader of bytes reads what a
// Reader of the same bytes as a stream reads.
func FuzzReaderResetBytes(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n[2]", `[{"a":1},{"a":`, "\"\xff\"", `{}{}`, "[1, 2, 3]", `{"a":1,"a":1}`} {
		f.Add([]byte(s))
	}
	var r Reader
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, opts := range []Options{{MaxValueSize: 1 << 12}, {MaxValueSize: 1 << 12, Elements: true, Members: true}} {
			bytesVsStream(t, &r, in, opts)
		}
	})
}
