package jsonv

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// A syntax error reads the same, message and excerpt, however the input's
// reads were cut: one reader's buffer, or chunks read by several workers
// (encode -j), end in different places.
func TestSyntaxErrorWhateverTheReads(t *testing.T) {
	long := bytes.Repeat([]byte("é"), 60)
	for _, in := range []string{
		"X\xc9{" + string(bytes.Repeat([]byte{0xe0}, 75)),
		`{"00000000000": "00000000000000000000000000000000000000000000" é}`,
		"{\"instr;\xbd\\u\xbd\xbd\n{\"a\": 1}\n",
		`{"a": "` + string(long) + `", "b": nope, "c": "` + string(long) + `"}` + "\n",
		"{\"a\": 1}\n{\"b\": \"\\ud800\\u12\"}\r\n",
	} {
		read := func(r io.Reader) string {
			jr := NewReader(r, Options{})
			for {
				_, _, err := jr.Next()
				if se, ok := err.(*SyntaxError); ok {
					return fmt.Sprintf("%v [%q %d]", se, se.Excerpt, se.Caret)
				}
				if err != nil {
					return err.Error()
				}
			}
		}
		whole := read(bytes.NewReader([]byte(in)))
		for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader([]byte(in))), iotest.HalfReader(bytes.NewReader([]byte(in))),
			io.MultiReader(bytes.NewReader([]byte(in[:len(in)/2])), bytes.NewReader([]byte(in[len(in)/2:])))} {
			if got := read(r); got != whole {
				t.Errorf("%q:\n whole reads: %s\n cut reads:   %s", in, whole, got)
			}
		}
	}
}
