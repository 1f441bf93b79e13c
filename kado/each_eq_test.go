package kado

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// eachTrace and streamTrace write down what Each and DecodeStream hand out
// for in, with keep-going, in one form.
func eachTrace(in []byte) string {
	var b strings.Builder
	r := NewReader(bytes.NewReader(in), ReaderOptions{MaxFrameSize: 1 << 16})
	err := r.Each(true, FrameHandler{
		Good:  func(f *Frame, js []byte) error { fmt.Fprintf(&b, "good %d %s\n", f.Index, js); return nil },
		Bad:   func(err error) error { fmt.Fprintf(&b, "bad %v\n", err); return nil },
		Moved: func(err error, m Moved) { fmt.Fprintf(&b, "moved %+v\n", m) },
	})
	fmt.Fprintf(&b, "end %v\n", err)
	return b.String()
}

func streamTrace(in []byte) string {
	var b strings.Builder
	err := DecodeStream(context.Background(), bytes.NewReader(in), StreamOptions{MaxFrameSize: 1 << 16, Workers: 1, KeepGoing: true,
		Append: func(dst []byte, f *Frame, js []byte) []byte { return fmt.Appendf(dst, "good %d %s\n", f.Index, js) }},
		StreamHandler{
			Records: func(out []byte, ends []int) error { b.Write(out); return nil },
			Bad: func(err error, m Moved) error {
				fmt.Fprintf(&b, "bad %v\nmoved %+v\n", err, m)
				return nil
			},
		})
	fmt.Fprintf(&b, "end %v\n", err)
	return b.String()
}

// FuzzEachMatchesDecodeStream: Each hands out what DecodeStream does (the
// same frames, bad frames and moves, the same end), as decode -j 1 and -j N
// are to write the same.
func FuzzEachMatchesDecodeStream(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		if e, s := eachTrace(in), streamTrace(in); e != s {
			t.Fatalf("Each:\n%s\nDecodeStream:\n%s", e, s)
		}
	})
}
