package readahead

import (
	"io"
	"strings"
	"testing"
)

// The Reader of the rest waits for a read still in progress, and gives the
// bytes that read added; no read starts after it has taken the bytes.
func TestJournalRestWaitsForRead(t *testing.T) {
	var j Journal
	j.Add([]byte("one "))
	j.Add([]byte("two "))
	if !j.Reading() { // a read the pipeline left running
		t.Fatal("Reading refused before the rest was taken")
	}
	var carry []byte
	rest := j.Rest(false, func() ([]byte, io.Reader) { return carry, strings.NewReader("input") })
	done := make(chan string)
	go func() {
		b, err := io.ReadAll(rest)
		if err != nil {
			t.Error(err)
		}
		done <- string(b)
	}()
	// The read in progress ends: a batch, and bytes after it.
	j.Add([]byte("three "))
	carry = []byte("carry ")
	j.DoneReading()
	if got, want := <-done, "one two three carry input"; got != want {
		t.Fatalf("the rest is %q, want %q", got, want)
	}
	if j.Reading() {
		t.Fatal("a read may start after the rest was taken")
	}
}

// A batch written is not read again; the Reader fills p from the bytes
// held and the input, as the input itself would.
func TestJournalWritten(t *testing.T) {
	var j Journal
	j.Add([]byte("gone "))
	j.Add([]byte("kept "))
	j.Written()
	rest := j.Rest(false, func() ([]byte, io.Reader) { return nil, Then(strings.NewReader("x"), false, nil) })
	p := make([]byte, 64)
	n, err := rest.Read(p)
	if err != nil || string(p[:n]) != "kept x" {
		t.Fatalf("read %q, %v", p[:n], err)
	}
	if n, err := rest.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("then %d, %v", n, err)
	}
}
