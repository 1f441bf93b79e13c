package capture_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/kado"
)

var errBad = errors.New("a problem")

// transcript runs Stream and writes what its handler receives, as decode
// would: each record's output, each problem and note; without keepGoing
// the first problem ends the run.
func transcript(data []byte, workers int, keepGoing bool, batch int, reopen bool) string {
	var out bytes.Buffer
	frames := 0
	opts := capture.StreamOptions{
		Options: capture.Options{MaxFrameSize: 1 << 16, ReassemblyBuffer: 1 << 14, MaxConns: 8,
			Reopen: func() (io.Reader, error) { return bytes.NewReader(data), nil }},
		Workers: workers, BatchBytes: batch,
		Append: func(dst []byte, r *capture.Record) []byte {
			return append(capture.AppendRecord(dst, r), '\n')
		},
	}
	if !reopen {
		opts.Reopen = nil
	}
	err := capture.Stream(context.Background(), bytes.NewReader(data), opts, capture.StreamHandler{
		Records: func(b []byte, ends []int, n int) error {
			if len(ends) == 0 || ends[len(ends)-1] != len(b) {
				return fmt.Errorf("ends %v of %d bytes", ends, len(b))
			}
			frames += n
			out.Write(b)
			return nil
		},
		Other: func(r *capture.Record) error {
			fmt.Fprintf(&out, "%s\n", describe(r))
			if r.Moved != nil {
				fmt.Fprintf(&out, "moved %+v\n", *r.Moved)
			}
			if r.Kind == capture.Problem && !keepGoing {
				return errBad
			}
			return nil
		},
	})
	fmt.Fprintf(&out, "frames %d, err %v\n", frames, err)
	return out.String()
}

// streamSeeds are captures with every kind of record: frames split over
// segments, bad payloads followed by a frame, a lost segment, WebSocket
// text, a connection that is not frames.
func streamSeeds() [][]byte {
	seeds := seedCaptures()
	bad := frame("c2s", 2)
	bad[kado.HeaderSize] = '}'
	stream := append(append(append(frame("c2s", 1), bad...), frames("c2s", 3, 40)...), bad...)
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	c := b.Conn(client, server)
	c.Handshake()
	off := c.SendSplit(capturetest.C2S, 0, stream, 100, 7, 300)
	o := b.Conn("10.0.0.3:40000", server)
	o.Handshake()
	o.Send(capturetest.C2S, 0, frames("c2s", 1, 20))
	c.Send(capturetest.C2S, off+10, frames("c2s", 50, 60)) // after a hole
	mask := []byte{1, 2, 3, 4}
	ws := append([]byte(wsRequest), capturetest.WSFrame(true, 2, frames("c2s", 1, 3), mask)...)
	ws = append(ws, capturetest.WSFrame(true, 1, []byte("text"), mask)...)
	w := b.Conn("10.0.0.4:40001", server)
	w.Handshake()
	w.Send(capturetest.C2S, 0, ws)
	h := b.Conn("10.0.0.5:40002", server)
	h.Handshake()
	h.Send(capturetest.C2S, 0, []byte("GET / HTTP/1.1\r\n\r\n"))
	seeds = append(seeds, b.Bytes())
	// Frames that end their segments, one of them not JSON: followed by a
	// frame, by bytes that are no header (the reader resynchronises inside
	// the bad frame, where a frame hides), or by nothing.
	inner := frame("c2s", 70)
	hide := append([]byte(`{"x":"`), inner...)
	hide = append(hide, `"`...)
	hidden, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: 1, SequenceID: 71}, hide, kado.CompressNever)
	for _, next := range [][]byte{frame("c2s", 72), []byte("garbage then "), nil} {
		b := &capturetest.Builder{File: capturetest.PcapNanos}
		c := b.Conn(client, server)
		c.Handshake()
		off := 0
		for i := 1; i < 30; i++ {
			f := frame("c2s", i)
			if i == 20 {
				f = hidden
			}
			c.Send(capturetest.C2S, off, f)
			off += len(f)
		}
		if next != nil {
			c.Send(capturetest.C2S, off, append(next, frames("c2s", 80, 85)...))
		}
		seeds = append(seeds, b.Bytes())
	}
	return seeds
}

// Stream gives the same output, problems, notes and error with one
// worker and with several, whatever the batch size, with and without
// going on after a problem.
func TestStreamMatchesOneWorker(t *testing.T) {
	for i, data := range streamSeeds() {
		for _, keep := range []bool{false, true} {
			want := transcript(data, 1, keep, 0, false)
			for _, batch := range []int{0, 1, 500} {
				for _, reopen := range []bool{false, true} {
					if got := transcript(data, 4, keep, batch, reopen); got != want {
						t.Errorf("capture %d keepGoing=%v batch=%d reopen=%v: (-one worker +four):\n%s", i, keep, batch, reopen, cmp.Diff(want, got))
					}
				}
			}
		}
	}
	// The seeds hold bad payloads the workers find, problems and notes.
	all := transcript(streamSeeds()[len(seedCaptures())], 4, true, 0, true)
	for _, s := range []string{"payload: expected JSON", "missing from the capture", "moved {Skipped:0 Found:true Untrusted:false}", `"text":"text"`, "not Kado frames"} {
		if !bytes.Contains([]byte(all), []byte(s)) {
			t.Errorf("the transcript lacks %q:\n%s", s, all)
		}
	}
}

// No capture makes Stream with several workers differ from one worker.
func FuzzStreamMatchesOneWorker(f *testing.F) {
	for _, s := range streamSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, keep := range []bool{false, true} {
			want := transcript(data, 1, keep, 0, false)
			if got := transcript(data, 4, keep, 300, true); got != want {
				t.Fatalf("keepGoing=%v: (-one worker +four):\n%s", keep, cmp.Diff(want, got))
			}
		}
	})
}

// ReopenFile reads a regular file again from its start, however far it
// was read; a pipe and no file cannot be read again.
func TestReopenFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "cap.pcapng")
	if err := os.WriteFile(name, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reopen := capture.ReopenFile(f)
	if reopen == nil {
		t.Fatal("no Reopen for a regular file")
	}
	if _, err := io.ReadFull(f, make([]byte, 7)); err != nil {
		t.Fatal(err)
	}
	r, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); err != nil || string(b) != "0123456789" {
		t.Errorf("read again: %q, %v", b, err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if capture.ReopenFile(pr) != nil || capture.ReopenFile(nil) != nil {
		t.Error("a Reopen for a pipe or for no file")
	}
}
