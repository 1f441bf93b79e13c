package tabular

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// serialRows reads d to its end or its first error: the rows with their
// lines, and the error with its position and excerpt.
func serialRows(d *Decoder, rows []string) ([]string, string) {
	for {
		obj, line, err := d.Next()
		if err == io.EOF {
			return rows, ""
		}
		if err != nil {
			var se *jsonv.SyntaxError
			if errors.As(err, &se) {
				return rows, fmt.Sprintf("%v/%d | %q ^%d", err, se.Pos.Offset, se.Excerpt, se.Caret)
			}
			return rows, err.Error()
		}
		rows = append(rows, fmt.Sprintf("%s@%d", obj, line))
	}
}

// streamRows reads with DecodeStream, then the Decoder it returns.
func streamRows(t *testing.T, r io.Reader, max int, opts StreamOptions) ([]string, string) {
	d := NewDecoder(r, DecoderOptions{MaxLineSize: max})
	var rows []string
	rest, err := DecodeStream(context.Background(), d, opts, StreamHandler{Rows: func(b []byte, ends []int) error {
		start := 0
		for _, end := range ends {
			rows = append(rows, string(b[start:end])+"@?")
			start = end
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rest == nil {
		return rows, ""
	}
	return serialRows(rest, rows)
}

func compareStream(t *testing.T, in string, max int, opts StreamOptions, r io.Reader) {
	t.Helper()
	want, wantErr := serialRows(NewDecoder(strings.NewReader(in), DecoderOptions{MaxLineSize: max}), nil)
	got, gotErr := streamRows(t, r, max, opts)
	if opts.Live {
		wantErr, _, _ = strings.Cut(wantErr, " | ")
		gotErr, _, _ = strings.Cut(gotErr, " | ")
	}
	if gotErr != wantErr || len(got) != len(want) {
		t.Fatalf("%+v %q:\n got %d rows, %s\nwant %d rows, %s", opts, in, len(got), gotErr, len(want), wantErr)
	}
	for i := range got {
		if g, ok := strings.CutSuffix(got[i], "@?"); ok && !strings.HasPrefix(want[i], g+"@") || !ok && got[i] != want[i] {
			t.Fatalf("%+v %q: row %d\n got %s\nwant %s", opts, in, i, got[i], want[i])
		}
	}
}

func checkStream(t *testing.T, in string) {
	t.Helper()
	for _, workers := range []int{1, 4} {
		for _, bb := range []int{1, 30, 0} {
			opts := StreamOptions{Workers: workers, BatchBytes: bb}
			compareStream(t, in, 64, opts, strings.NewReader(in))
			opts.Live = true
			compareStream(t, in, 64, opts, iotest.HalfReader(strings.NewReader(in)))
			compareStream(t, in, 64, opts, iotest.OneByteReader(strings.NewReader(in)))
		}
	}
}

var streamInputs = []string{
	"",
	"@toon 1.0\n",
	"@toon 2.0\n@keys a\n1\n",
	"@toon 1.0\n@keys a,b\n",
	"@toon 1.0\n@keys a,b\n1,x\n2,y\n3,z\n4,w\n5,v\n6,u\n",
	"@toon 1.0\r\n@keys a,b\r\n1,x\\cy\r\n2,\\n\r\n3,[1\\c2]\r\n4,{\"a\":1}\r\n5,true\r\n6,\r\n",
	"@toon 1.0\n@keys a,b\n1,x\n2,y\n3\n4,w\n5,v\n",
	"@toon 1.0\n@keys a,b\n1,x\n2,y\n3,z\n4,w,extra\n5,v\n",
	"@toon 1.0\n@keys a,b\n1,x\n2,y\n3,\xff\n4,w\n",
	"@toon 1.0\n@keys a,b\n1,x\n2,y\n3,z\n4,w",
	"@toon 1.0\n@keys a,b\n1,x\n2," + strings.Repeat("y", 100) + "\n3,z\n",
	"@toon 1.0\n@keys a,b\n1,x\n\n2,y\n",
	"@toon 1.0\n@keys a,b\n1,x\\q\n2,y\n",
	"@toon 1.0\n@keys\n\n\n\nx\n",
	"@toon 1.0\n@keys a\n" + strings.Repeat("1\n2\nü\n", 40),
}

// DecodeStream and the Decoder it returns give the rows, the lines, the
// error and its position of one Decoder, whatever the workers, the batch
// size and the pace of the input.
func TestDecodeStreamMatchesDecoder(t *testing.T) {
	for _, in := range streamInputs {
		checkStream(t, in)
	}
}

// A read error is met where one Decoder meets it.
func TestDecodeStreamReadError(t *testing.T) {
	in := "@toon 1.0\n@keys a,b\n1,x\n2,y\n3,z\n4,w\n"
	for cut := range len(in) {
		mk := func() io.Reader {
			return io.MultiReader(strings.NewReader(in[:cut]), iotest.ErrReader(errors.New("disk on fire")))
		}
		want, wantErr := serialRows(NewDecoder(mk(), DecoderOptions{}), nil)
		got, gotErr := streamRows(t, mk(), 0, StreamOptions{Workers: 4, BatchBytes: 4})
		if gotErr != wantErr || len(got) != len(want) {
			t.Fatalf("cut at %d: %d rows, %q; want %d, %q", cut, len(got), gotErr, len(want), wantErr)
		}
	}
}

// FuzzDecodeStreamMatchesDecoder: for any input, DecodeStream with 1 and
// 4 workers and the Decoder it returns give what one Decoder gives.
func FuzzDecodeStreamMatchesDecoder(f *testing.F) {
	for _, in := range streamInputs {
		f.Add([]byte(in), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, bb uint8) {
		for _, workers := range []int{1, 4} {
			opts := StreamOptions{Workers: workers, BatchBytes: int(bb) + 1}
			compareStream(t, string(in), 64, opts, bytes.NewReader(in))
			opts.Live = true
			compareStream(t, string(in), 64, opts, iotest.HalfReader(bytes.NewReader(in)))
		}
	})
}

// The rows of a good table are all decoded by the workers.
func TestDecodeStreamWorks(t *testing.T) {
	var b strings.Builder
	b.WriteString("@toon 1.0\r\n@keys id,name\r\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "%d,user\\c %d\r\n", i, i)
	}
	rows, err := streamRows(t, strings.NewReader(b.String()), 0, StreamOptions{Workers: 4, BatchBytes: 64})
	if err != "" || len(rows) != 1000 || !strings.HasSuffix(rows[999], "@?") {
		t.Fatalf("%d rows, %q; the last %q", len(rows), err, rows[len(rows)-1])
	}
}
