package kado

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// appendRLEReference is the Kado TypeScript encoder's RLE, written as
// plainly as the spec says it: maximal runs, cut into pieces of at most 255;
// a piece of 4 or more equal bytes, or of 0xFF bytes, becomes FF b n; other
// pieces are copied. AppendRLE must write exactly the same bytes.
func appendRLEReference(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		b := src[i]
		j := i + 1
		for j < len(src) && src[j] == b {
			j++
		}
		for run := j - i; run > 0; {
			n := min(run, 255)
			if n >= 4 || b == 0xFF {
				dst = append(dst, 0xFF, b, byte(n))
			} else {
				dst = append(dst, bytes.Repeat([]byte{b}, n)...)
			}
			run -= n
		}
		i = j
	}
	return dst
}

// Random inputs built from runs of every length around the cut points,
// with 0xFF and NUL bytes, at every alignment.
func TestAppendRLEMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', 'b', ' ', 0x00, 0xFF, '"', 0x7F, 0x80}
	for n := 0; n < 20000; n++ {
		var src []byte
		for len(src) < rng.IntN(600) {
			b := alphabet[rng.IntN(len(alphabet))]
			run := []int{1, 2, 3, 4, 5, 7, 8, 9, 254, 255, 256, 259, 510, 511}[rng.IntN(14)]
			src = append(src, bytes.Repeat([]byte{b}, run)...)
		}
		src = src[rng.IntN(len(src)+1):]
		got, want := AppendRLE([]byte("x"), src), appendRLEReference([]byte("x"), src)
		if !bytes.Equal(got, want) {
			t.Fatalf("input % x\nAppendRLE % x\nreference % x", src, got, want)
		}
		// The auto rule, with the early give-up: compress when longer than
		// 1024 bytes and the body is shorter than the payload.
		for _, long := range [][]byte{src, bytes.Repeat(src, 1+1100/(len(src)+1))} {
			body := appendRLEReference(nil, long)
			wire, c := AppendPayload([]byte("pre"), long, CompressAuto)
			if wantC := len(long) > 1024 && len(body) < len(long); c != wantC {
				t.Fatalf("auto compressed=%v for %d bytes with a %d-byte body", c, len(long), len(body))
			}
			if c && !bytes.Equal(wire, append([]byte("pre\x5a"), body...)) || !c && !bytes.Equal(wire, append([]byte("pre"), long...)) {
				t.Fatalf("auto wire form wrong for % x", long)
			}
		}
	}
}

func FuzzAppendRLEMatchesReference(f *testing.F) {
	f.Add([]byte("aaaabbbbb\xff\xff"))
	f.Add(bytes.Repeat([]byte{'z'}, 300))
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := AppendRLE(nil, src), appendRLEReference(nil, src); !bytes.Equal(got, want) {
			t.Fatalf("input % x\nAppendRLE % x\nreference % x", src, got, want)
		}
	})
}

// The structural split of a record agrees with the decoder's on valid JSON.
func FuzzSplitRecordMatchesDecoder(f *testing.F) {
	for _, s := range []string{
		`{"header":{"type":1},"payload":{"a":"}\"{"}}`, `{"payload":[1,{"b":"]"}],"header":{}}`,
		`{ "header" : {} , "payload" : "x" }`, `{"header":{},"payload":1,"x":2}`, `{"head\u0065r":{},"payload":1}`,
		`{"header":{}}`, `{}`, `{"payload":-1.5e3,"header":{"a":[]}}`, `{"a":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !jsontext.Value(v).IsValid() || jsontext.Value(v).Kind() != '{' {
			return
		}
		h1, ha1, p1, pa1 := splitRecordSlow(v)
		h2, ha2, p2, pa2, ok := splitRecord(v)
		if !ok {
			return // the caller falls back on splitRecordSlow
		}
		if !bytes.Equal(h1, h2) || !bytes.Equal(p1, p2) || (h1 != nil && ha1 != ha2) || (p1 != nil && pa1 != pa2) ||
			(h1 == nil) != (h2 == nil) || (p1 == nil) != (p2 == nil) {
			t.Fatalf("%s:\nslow %q@%d %q@%d\nfast %q@%d %q@%d", v, h1, ha1, p1, pa1, h2, ha2, p2, pa2)
		}
	})
}
