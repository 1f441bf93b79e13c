package query

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// streamAll reads every value of in through a Stream fed by rd, and the
// places of the values; the error at the end (nil at io.EOF).
func streamAll(rd io.Reader, max int) (vals []string, pos []jsonv.Position, err error) {
	o := NewOrder()
	dec := Decoder{Order: o}
	s := NewStream(rd, &dec, max)
	enc := Encoder{Order: o}
	for {
		v, err := s.Next()
		if err == io.EOF {
			return vals, pos, nil
		}
		if err != nil {
			return vals, append(pos, s.Position()), err
		}
		vals = append(vals, string(enc.Append(nil, v)))
		pos = append(pos, s.Position())
	}
}

// A Stream gives the values and places a jsonv.Reader gives, however the
// input comes in; a bad value is found where the Reader finds it.
func TestStreamMatchesReader(t *testing.T) {
	long := `{"k": "` + strings.Repeat("é", 70000) + `"}`
	inputs := []string{
		"{\"n\": 1}\n{\"n\": 2}\n",
		"\xef\xbb\xbf[1, 2,\r\n 3] {\"a\":\n\t\"x\"}  \"é\" 12 -0.5e3 true false null",
		"1 2 3 x",
		"{\"n\": 1}\n{\"n\": }\n",
		"[1,\n 2,\n tru]",
		"\"abc",
		"1.",
		long + " 5 " + long + "\n [1, }",
		"é é",
		"  \n  ",
		"",
		"{\"a\":\"\\ud83d\\ude00\"} \"\\u00e9\"",
		strings.Repeat("[", 50) + strings.Repeat("]", 50) + "1",
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for _, in := range inputs {
		// what the Reader gives
		jr := jsonv.NewReader(strings.NewReader(in), jsonv.Options{})
		var want []string
		var wantPos []jsonv.Position
		var wantErr error
		for {
			b, p, err := jr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				wantErr = err
				break
			}
			v, derr := Decode(b, nil)
			if derr != nil {
				t.Fatalf("Decode(%q): %v", b, derr)
			}
			e := Encoder{}
			want, wantPos = append(want, string(e.Append(nil, v))), append(wantPos, p)
		}
		for name, rd := range readers {
			got, pos, err := streamAll(rd(in), 1<<20)
			short := in
			if len(short) > 40 {
				short = short[:40] + "..."
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s %q: values %q, want %q", name, short, got, want)
			}
			for i := range min(len(wantPos), len(pos)) {
				if pos[i] != wantPos[i] {
					t.Errorf("%s %q: value %d at %+v, want %+v", name, short, i, pos[i], wantPos[i])
				}
			}
			if (err != nil) != (wantErr != nil) {
				t.Errorf("%s %q: error %v, want %v", name, short, err, wantErr)
				continue
			}
			if err == nil {
				continue
			}
			if err == ErrInvalid {
				// the Reader, reading on from the bad value, finds the error
				_, _, rerr := streamRest(rd(in))
				if rerr == nil || rerr.Error() != wantErr.Error() {
					t.Errorf("%s %q: Rest finds %v, want %v", name, short, rerr, wantErr)
				}
			}
		}
	}
}

// streamRest reads in to its first error and has a jsonv.Reader read on
// from there.
func streamRest(rd io.Reader) (any, jsonv.Options, error) {
	dec := Decoder{}
	s := NewStream(rd, &dec, 1<<20)
	var err error
	for err == nil {
		_, err = s.Next()
	}
	if err != ErrInvalid {
		return nil, jsonv.Options{}, err
	}
	rest, opts := s.Rest()
	_, _, err = jsonv.NewReader(rest, opts).Next()
	return nil, opts, err
}

// Rest lets a jsonv.Reader report the bad value with its place and excerpt,
// as if it had read the stream from the start.
func TestStreamRest(t *testing.T) {
	in := "{\"a\": 1}\n[2, 3] {\"b\": \n  }"
	dec := Decoder{}
	s := NewStream(iotest.OneByteReader(strings.NewReader(in)), &dec, 1<<20)
	var err error
	for err == nil {
		_, err = s.Next()
	}
	if err != ErrInvalid {
		t.Fatalf("err %v, want ErrInvalid", err)
	}
	rest, opts := s.Rest()
	_, _, got := jsonv.NewReader(rest, opts).Next()
	jr := jsonv.NewReader(strings.NewReader(in), jsonv.Options{})
	var want error
	for want == nil {
		_, _, want = jr.Next()
	}
	var gse, wse *jsonv.SyntaxError
	if !errors.As(got, &gse) || !errors.As(want, &wse) || gse.Error() != wse.Error() || gse.Excerpt != wse.Excerpt || gse.Caret != wse.Caret {
		t.Fatalf("Rest: %v, want %v", got, want)
	}
}

// A value longer than the limit is an error, not a buffer without end.
func TestStreamLimit(t *testing.T) {
	in := `[` + strings.Repeat(`1,`, 5000) + `1]`
	_, _, err := streamAll(bytes.NewReader([]byte(in)), 1000)
	if !errors.Is(err, jsonv.ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
}
