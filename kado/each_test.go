package kado

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// eachInput: a good frame, a frame whose payload is not JSON, a good
// (compressed) frame, junk, the good frame again, and two stray bytes.
func eachInput(t *testing.T) []byte {
	t.Helper()
	f1, _, _ := AppendFrame(nil, Header{Version: 1, Type: Instruction, Timestamp: 1, SequenceID: 1}, []byte(`{"instruction": "a"}`), CompressNever)
	notJSON := append(AppendHeader(nil, Header{Version: 1, Type: Status, PayloadLength: 3, Timestamp: 2, SequenceID: 2}), "xyz"...)
	f3, _, _ := AppendFrame(nil, Header{Version: 1, Type: Status, Timestamp: 3, SequenceID: 3}, []byte(`{"status":"s","progress":1}`), CompressAlways)
	in := append(append(append([]byte{}, f1...), notJSON...), f3...)
	in = append(append(in, "\x01\x09junk"...), f3...)
	return append(in, 0xEE, 0xEE)
}

// trace runs Each and writes down what it hands out.
func trace(r *Reader, keepGoing bool, stopAt int) (string, error) {
	var b strings.Builder
	err := r.Each(keepGoing, FrameHandler{
		Good: func(f *Frame, js []byte) error {
			fmt.Fprintf(&b, "good %d@%d %s\n", f.Index, f.Offset, js)
			if f.Index == stopAt {
				return errGoodStop
			}
			return nil
		},
		Bad: func(err error) error {
			fmt.Fprintf(&b, "bad %v\n", err)
			return nil
		},
		Moved: func(err error, m Moved) {
			fmt.Fprintf(&b, "moved %+v\n", m)
			for _, n := range m.Notes(err) {
				fmt.Fprintf(&b, "note %s\n", n)
			}
		},
	})
	return b.String(), err
}

var errGoodStop = errors.New("stop")

func TestEachKeepGoing(t *testing.T) {
	got, err := trace(NewReader(bytes.NewReader(eachInput(t)), ReaderOptions{}), true, -1)
	if err != nil {
		t.Fatal(err)
	}
	want := `good 0@0 {"instruction":"a"}
bad frame 1 at byte 56: payload: expected JSON, found byte 0x78 ('x')
moved {Skipped:0 Found:true Untrusted:false}
good 2@59 {"status":"s","progress":1}
bad frame 3 at byte 106: type: expected a message type from 1 to 8, found 9 (0x09)
moved {Skipped:6 Found:true Untrusted:false}
note skipped 6 bytes to the next plausible header at byte 111
good 4@111 {"status":"s","progress":1}
bad frame 5 at byte 157: header: expected 18 header bytes, found only 2 bytes remain
moved {Skipped:2 Found:false Untrusted:false}
note skipped 2 bytes to the end: no further frame found
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// Without keepGoing the first bad frame ends the run with its error; the
// reader is not moved on.
func TestEachStops(t *testing.T) {
	r := NewReader(bytes.NewReader(eachInput(t)), ReaderOptions{})
	got, err := trace(r, false, -1)
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Frame != 1 || fe.Kind != BadPayload {
		t.Fatalf("err = %v, want frame 1's payload error", err)
	}
	want := `good 0@0 {"instruction":"a"}
bad frame 1 at byte 56: payload: expected JSON, found byte 0x78 ('x')
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if r.Offset() != 59 {
		t.Fatalf("reader at %d after the run, want 59 (past the bad frame as Next leaves it)", r.Offset())
	}

	// An error from Good or Bad stops the run and is returned.
	if _, err := trace(NewReader(bytes.NewReader(eachInput(t)), ReaderOptions{}), true, 2); err != errGoodStop {
		t.Fatalf("Good's error: got %v", err)
	}
	badErr := errors.New("bad says stop")
	err = NewReader(bytes.NewReader(eachInput(t)), ReaderOptions{}).Each(true, FrameHandler{
		Good: func(*Frame, []byte) error { return nil },
		Bad:  func(error) error { return badErr },
		Moved: func(error, Moved) {
			t.Fatal("moved on after Bad stopped the run")
		},
	})
	if err != badErr {
		t.Fatalf("Bad's error: got %v", err)
	}
}

// A read error is returned as it is, after the frames before it; it is not
// a bad frame.
func TestEachReadError(t *testing.T) {
	in := eachInput(t)[:59] // the first two frames
	readErr := errors.New("disk on fire")
	r := NewReader(io.MultiReader(bytes.NewReader(in), errReader{readErr}), ReaderOptions{})
	got, err := trace(r, true, -1)
	if err != readErr {
		t.Fatalf("err = %v, want the read error", err)
	}
	if !strings.HasPrefix(got, "good 0@0") || strings.Count(got, "bad ") != 1 || strings.Contains(got, readErr.Error()) {
		t.Fatalf("trace:\n%s", got)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// A payload that is not JSON, whose length does not lead to a header: the
// reader resynchronises from the frame's second byte (the frame is at byte
// 0), and the notes say so.
func TestMovedNotesUntrusted(t *testing.T) {
	good, _, _ := AppendFrame(nil, Header{Version: 1, Type: Status, Timestamp: 3, SequenceID: 3}, []byte(`{"status":"s","progress":1}`), CompressNever)
	wrong := append(AppendHeader(nil, Header{Version: 1, Type: Status, PayloadLength: 5, Timestamp: 2, SequenceID: 2}), "xyz"...)
	in := append(append([]byte{}, wrong...), good...)
	got, err := trace(NewReader(bytes.NewReader(in), ReaderOptions{}), true, -1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Untrusted:true") ||
		!strings.Contains(got, "note the frame's payloadLength does not lead to a header; resynchronising from byte 1\n") ||
		!strings.Contains(got, "note skipped 21 bytes to the next plausible header at byte 21\n") {
		t.Fatalf("trace:\n%s", got)
	}
	if n := (Moved{Skipped: 3}).Notes(errors.New("not a frame's")); n != nil {
		t.Fatalf("notes for a read error: %q", n)
	}
}
