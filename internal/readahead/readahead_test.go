package readahead

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
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

// Live, a read gives the first batch's bytes without waiting for a read
// of the pipeline in progress (which may wait for a pipe that stays open):
// a decoder that finds its error in them ends at once. Stop(true) waits for
// that read; a Next after Stop gives nothing.
func TestLiveRestGivesHeldBytesFirst(t *testing.T) {
	var j Journal
	j.Add([]byte("{}\n{bad}\n"))
	if !j.Reading() {
		t.Fatal("Reading refused")
	}
	rest := j.Rest(true, func() ([]byte, io.Reader) { return nil, strings.NewReader("") })
	got := make(chan string)
	go func() {
		p := make([]byte, 64)
		n, _ := rest.Read(p)
		got <- string(p[:n])
	}()
	select {
	case s := <-got:
		if s != "{}\n{bad}\n" {
			t.Fatalf("first read gave %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first read waited for the read in progress")
	}
	stopped := make(chan bool)
	go func() { j.Stop(true); stopped <- true }()
	select {
	case <-stopped:
		t.Fatal("Stop(true) returned while a read was in progress")
	case <-time.After(50 * time.Millisecond):
	}
	j.DoneReading()
	<-stopped
	if j.Reading() {
		t.Fatal("a read may start after Stop")
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

// Batcher cuts where Cut says and carries the rest; a line with no place
// to cut by MaxBatch ends the batches, and the rest reads on from it.
func TestBatcher(t *testing.T) {
	in := "ab\ncd\nef" + strings.Repeat("x", 40) + "\ngh\n"
	bt := &Batcher{In: strings.NewReader(in), BatchBytes: 4, MaxBatch: 16, Carry: []byte("0\n"),
		Cut: func(raw []byte, _ bool) int { return strings.LastIndexByte(string(raw), '\n') + 1 }}
	got := batches(bt, func(b Batch) string { return fmt.Sprintf("%q final=%v rest=%v", b.Raw, b.Final, b.Rest) })
	// Reads of 4 bytes (BatchBytes); the carry starts the first batch.
	want := []string{`"0\nab\n" final=false rest=false`, `"cd\n" final=false rest=false`,
		`"ef` + strings.Repeat("x", 16) + `" final=false rest=true`}
	if !slices.Equal(got, want) {
		t.Fatalf("batches\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rest, _ := io.ReadAll(bt.Rest()); string(rest) != in[6:] {
		t.Fatalf("the rest is %q, want %q", rest, in[6:])
	}
}

// The last batch ends at the end of the input; a live input's short read
// cuts a batch before BatchBytes, marked Idle.
func TestBatcherFinalAndLive(t *testing.T) {
	bt := &Batcher{In: iotest.HalfReader(strings.NewReader("ab\ncd\nef")), BatchBytes: 64, Live: true,
		Cut: func(raw []byte, live bool) int {
			if !live {
				t.Error("a cut before BatchBytes, not live")
			}
			return strings.LastIndexByte(string(raw), '\n') + 1
		}}
	got := batches(bt, func(b Batch) string { return fmt.Sprintf("%q final=%v idle=%v", b.Raw, b.Final, b.Idle) })
	want := []string{`"ab\ncd\n" final=false idle=true`, `"ef" final=true idle=false`}
	if !slices.Equal(got, want) {
		t.Fatalf("batches\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// batches reads the batches of bt, as shown by show, writing all but the
// one handed to the single-worker loop.
func batches(bt *Batcher, show func(Batch) string) []string {
	var got []string
	for {
		b, ok := bt.Next(func() []byte { return nil })
		if !ok {
			return got
		}
		got = append(got, show(b))
		if !b.Rest {
			bt.Written()
		}
	}
}

// Live, the batches that a read of the pipeline added after the first are
// given without waiting for the read in progress (which may wait for
// input that comes only once they are handled); the rest follows once it
// ends.
func TestLiveRestGivesLaterBatchesWithoutWaiting(t *testing.T) {
	var j Journal
	j.Add([]byte("{\"a\":\n"))
	if !j.Reading() {
		t.Fatal("Reading refused")
	}
	j.Add([]byte("4}\n")) // read, not written: the run stopped before it
	rest := j.Rest(true, func() ([]byte, io.Reader) { return []byte("carry\n"), strings.NewReader("input\n") })
	got := make(chan string)
	go func() {
		var all []byte
		p := make([]byte, 64)
		for len(all) < len("{\"a\":\n4}\n") {
			n, _ := rest.Read(p)
			all = append(all, p[:n]...)
		}
		got <- string(all)
	}()
	select {
	case s := <-got:
		if s != "{\"a\":\n4}\n" {
			t.Fatalf("got %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the batches held waited for the read in progress")
	}
	j.DoneReading()
	b, err := io.ReadAll(rest)
	if err != nil || string(b) != "carry\ninput\n" {
		t.Fatalf("then %q, %v", b, err)
	}
}
