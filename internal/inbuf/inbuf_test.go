package inbuf

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A need announced by the input (a length field) grows the buffer only as
// the bytes arrive: each step at most doubles it.
func TestGrowthFollowsTheBytes(t *testing.T) {
	in := strings.Repeat("x", 100<<10)
	b := Buffer{R: strings.NewReader(in), First: 4 << 10, Steady: 4 << 10, Max: 1 << 30}
	if n := b.Fill(1 << 30); n != len(in) || !b.EOF {
		t.Fatalf("Fill = %d, EOF %v: it stopped before the end", n, b.EOF)
	}
	if len(b.Buf) > 2*len(in) {
		t.Fatalf("buffer of %d bytes for %d bytes of input", len(b.Buf), len(in))
	}
	b = Buffer{R: strings.NewReader("short"), First: 4 << 10, Steady: 4 << 10, Max: 1 << 30}
	if n := b.Fill(1 << 30); n != 5 || len(b.Buf) != 4<<10 {
		t.Fatalf("Fill = %d, buffer %d bytes: a claimed 1 GiB must not be allocated", n, len(b.Buf))
	}
}

// The last step goes straight to what is needed instead of doubling once
// more just short of it and again just past it.
func TestLastStep(t *testing.T) {
	need := 64<<10 + 18
	b := Buffer{R: strings.NewReader(strings.Repeat("x", need)), First: 4 << 10, Steady: 4 << 10, Max: 1 << 20}
	if n := b.Fill(need); n != need {
		t.Fatalf("Fill = %d", n)
	}
	if len(b.Buf) > need+b.First {
		t.Fatalf("buffer of %d bytes for %d needed", len(b.Buf), need)
	}
}

// More does not wait for more than one byte (a live stream), consumed
// bytes are handed to Drop before they go, and Max is a hard limit.
func TestMoreDropAndMax(t *testing.T) {
	var dropped bytes.Buffer
	b := Buffer{R: iotest.OneByteReader(strings.NewReader("abcdefghij")), First: 4, Steady: 4, Max: 6}
	b.Drop = func(gone []byte) { dropped.Write(gone) }
	if n := b.More(); n != 1 {
		t.Fatalf("More = %d, want 1 (one byte at a time)", n)
	}
	b.Fill(4)
	b.Pos = 3 // "abc" consumed
	if n := b.Fill(3); n != 3 || dropped.String() != "abc" || b.Base != 3 || string(b.Buf[b.Pos:b.End]) != "def" {
		t.Fatalf("Fill = %d, dropped %q, base %d, unread %q", n, dropped.String(), b.Base, b.Buf[b.Pos:b.End])
	}
	for i := 0; i < 10 && b.More() < 6; i++ {
	}
	if n := b.More(); n != 6 || len(b.Buf) != 6 {
		t.Fatalf("More = %d with a buffer of %d: Max 6 passed", n, len(b.Buf))
	}
}

// Line gives lines without their LF, says which had one, refuses an
// over-long line, and ends with io.EOF.
func TestLine(t *testing.T) {
	b := Buffer{R: iotest.OneByteReader(strings.NewReader("ab\r\n\nlast")), First: 4, Steady: 8, Max: 64}
	var got []string
	for {
		line, lf, err := b.Line(16)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%q %v", line, lf))
	}
	if strings.Join(got, "|") != `"ab\r" true|"" true|"last" false` {
		t.Fatalf("lines %v", got)
	}
	b = Buffer{R: strings.NewReader(strings.Repeat("x", 40) + "\n"), First: 4, Steady: 8, Max: 64}
	if _, _, err := b.Line(16); err != ErrLineTooLong {
		t.Fatalf("err = %v, want ErrLineTooLong", err)
	}
	// The limit holds also for a line read whole at once, LF and all; a
	// line of exactly the limit passes.
	b = Buffer{R: strings.NewReader(strings.Repeat("x", 17) + "\n"), First: 64, Steady: 64, Max: 64}
	if _, _, err := b.Line(16); err != ErrLineTooLong {
		t.Fatalf("a 17-byte line read at once: err = %v, want ErrLineTooLong", err)
	}
	b = Buffer{R: strings.NewReader(strings.Repeat("x", 16) + "\n"), First: 64, Steady: 64, Max: 64}
	if line, _, err := b.Line(16); err != nil || len(line) != 16 {
		t.Fatalf("a 16-byte line: %q, %v", line, err)
	}
}

// With Fresh, the bytes of a buffer are never written again once read into
// it: a slice taken of them keeps its bytes whatever is read after, and the
// unread bytes move to the buffers Fresh gives, of at least the size asked.
func TestFreshNeverWritesABufferAgain(t *testing.T) {
	var in strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&in, "%d\n", i)
	}
	var left int
	b := Buffer{R: iotest.HalfReader(strings.NewReader(in.String())), First: 64, Steady: 64, Max: 1 << 20,
		Fresh: func(old []byte, size int) []byte {
			if old != nil {
				left++
			}
			return make([]byte, size)
		}}
	var held [][]byte
	var want []string
	for {
		line, _, err := b.Line(1 << 10)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		held, want = append(held, line), append(want, string(line))
	}
	for i := range held {
		if string(held[i]) != want[i] {
			t.Fatalf("line %d changed from %q to %q", i, want[i], held[i])
		}
	}
	if left == 0 {
		t.Fatal("Fresh was never asked for a buffer in place of one that was left")
	}
}
