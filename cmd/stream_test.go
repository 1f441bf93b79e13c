package cmd

import (
	"bufio"
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/kado"
)

// A live stream is passed on record by record: each output line appears
// while the input is still open, not when it ends or a buffer fills.
func TestLiveStreams(t *testing.T) {
	frame := func(seq uint32) []byte {
		b, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Heartbeat, SequenceID: seq}, []byte(`{}`), kado.CompressNever)
		return b
	}
	cases := []struct {
		name  string
		args  []string
		input func(i int) []byte
		read  func(r *bufio.Reader) error
	}{
		{"decode", []string{"decode", "--payload"}, func(i int) []byte { return frame(uint32(i)) },
			func(r *bufio.Reader) error { _, err := r.ReadString('\n'); return err }},
		{"encode", []string{"encode", "--to", "binary", "--timestamp", "1"}, func(int) []byte { return []byte("{}\n") },
			func(r *bufio.Reader) error { _, err := io.ReadFull(r, make([]byte, kado.HeaderSize+2)); return err }},
		{"decode -j 4", []string{"decode", "--payload", "-j", "4"}, func(i int) []byte { return frame(uint32(i)) },
			func(r *bufio.Reader) error { _, err := r.ReadString('\n'); return err }},
		{"encode -j 4", []string{"encode", "--to", "binary", "--timestamp", "1", "-j", "4"}, func(int) []byte { return []byte("{}\n") },
			func(r *bufio.Reader) error { _, err := io.ReadFull(r, make([]byte, kado.HeaderSize+2)); return err }},
		{"inspect", []string{"inspect", "--json"}, func(i int) []byte { return frame(uint32(i)) },
			func(r *bufio.Reader) error { _, err := r.ReadString('\n'); return err }},
		{"convert ndjson", []string{"convert", "--to", "ndjson"}, func(int) []byte { return []byte("{\"a\": 1}\n") },
			func(r *bufio.Reader) error { _, err := r.ReadString('\n'); return err }},
		{"convert frames", []string{"convert", "--to", "ndjson"}, func(i int) []byte { return frame(uint32(i)) },
			func(r *bufio.Reader) error { _, err := r.ReadString('\n'); return err }},
		{"decode table", []string{"decode"}, func(i int) []byte {
			if i == 0 {
				return []byte("@toon 1.0\n@keys a\n1\n")
			}
			return []byte("2\n")
		}, func(r *bufio.Reader) error { _, err := r.ReadString('\n'); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps := make([][][]byte, 3)
			for i := range steps {
				steps[i] = [][]byte{c.input(i)}
			}
			checkLive(t, c.args, steps, func(r *bufio.Reader, _ int) error { return c.read(r) })
		})
	}
}

// checkLive runs args on a pipe that stays open: at each step it writes
// the step's pieces, one write each, and expects read to get that step's output
// within 10 s, while the input is still open (read may expect nothing: the
// step's input is then only seen to be read). Then it closes the input and
// expects exit status 0.
func checkLive(t *testing.T, args []string, steps [][][]byte, read func(r *bufio.Reader, step int) error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ios, _, _, _ := Test()
	ios.In, ios.Out = inR, outW
	done := make(chan int)
	go func() { code := Run(ios, args); outW.Close(); done <- code }()
	out := bufio.NewReader(outR)
	for i, pieces := range steps {
		step := bytes.Join(pieces, nil)
		for _, p := range pieces[:len(pieces)-1] {
			inW.Write(p) // returns once toonkit has read it
		}
		wrote := make(chan struct{})
		go func() { inW.Write(pieces[len(pieces)-1]); close(wrote) }()
		got := make(chan error)
		go func() { got <- read(out, i) }()
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("step %d (%q): %v", i, step, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("step %d (%q) was held back while the input stayed open", i, step)
		}
		select { // a step may expect no output: its input is read all the same
		case <-wrote:
		case <-time.After(10 * time.Second):
			t.Fatalf("step %d (%q) was not read while the input stayed open", i, step)
		}
	}
	inW.Close()
	io.Copy(io.Discard, out)
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// A bad frame ends decode -j 4 at once, as it ends -j 1, while the input
// is still open and has nothing more to give; so does bad JSON encode -j 4.
func TestErrorEndsLiveRun(t *testing.T) {
	good, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Heartbeat}, []byte(`{}`), kado.CompressNever)
	bad := bytes.Clone(good)
	bad[kado.HeaderSize] = 'x' // a payload that is not JSON, followed by a header's first byte
	for _, jobs := range []string{"1", "4"} {
		inR, inW := io.Pipe()
		ios, _, _, _ := Test()
		ios.In = inR
		done := make(chan int)
		go func() { done <- Run(ios, []string{"decode", "-j", jobs}) }()
		go inW.Write(append(append(bytes.Clone(good), bad...), kado.Version))
		expectEnd(t, "decode -j "+jobs, inW, done)
	}
	// encode: a line that is not JSON, and the input stays open.
	for _, jobs := range []string{"1", "4"} {
		inR, inW := io.Pipe()
		ios, _, _, _ := Test()
		ios.In = inR
		done := make(chan int)
		go func() { done <- Run(ios, []string{"encode", "--to", "binary", "-j", jobs}) }()
		go inW.Write([]byte("{}\n{\"a\": nope}\n{"))
		expectEnd(t, "encode -j "+jobs, inW, done)
	}
}

// expectEnd waits for a run on a pipe that is still open to end with exit
// status 1, then closes the pipe.
func expectEnd(t *testing.T, what string, inW *io.PipeWriter, done chan int) {
	t.Helper()
	defer inW.Close()
	select {
	case code := <-done:
		if code != cli.ExitInvalid {
			t.Errorf("%s: exit %d", what, code)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("%s: still running after the error", what)
	}
}
