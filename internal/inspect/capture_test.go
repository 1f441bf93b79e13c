package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, ok := capturetest.Sample(name)
	if !ok {
		t.Fatalf("no sample %s", name)
	}
	return b
}

// Every frame of every connection is counted, per type, connection and
// check, with the capture's time span; a hole is a problem naming its
// connection.
func TestInspectCaptureCounts(t *testing.T) {
	in := New(&bytes.Buffer{}, Options{SummaryOnly: true})
	s, err := in.InspectCapture("lost.pcap", bytes.NewReader(sample(t, "lost.pcap")), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Frames != 3 || s.Valid != 3 || s.Faults != 1 || s.Notes != 1 || s.Errors != 1 || s.Checks["gap"] != 1 {
		t.Errorf("summary %+v", s)
	}
	if len(s.Conns) != 1 || s.Conns[0] != (ConnSummary{Conn: "10.0.0.1:51234>10.0.0.2:7000", Frames: 3, Faults: 1}) {
		t.Errorf("connections %+v", s.Conns)
	}
	if len(s.Problems) != 1 || !strings.HasPrefix(s.Problems[0].String(), "10.0.0.1:51234>10.0.0.2:7000 c2s: bytes 33-42 are missing") {
		t.Errorf("problems %v", s.Problems)
	}
	if s.First.IsZero() || !s.Last.After(s.First) {
		t.Errorf("time span %v .. %v", s.First, s.Last)
	}
	s, err = in.InspectCapture("damaged.pcapng", bytes.NewReader(sample(t, "damaged.pcapng")), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Frames != 6 || s.Invalid != 2 || s.Checks["payload"] != 1 || s.Checks["version"] != 1 || s.Types[1] != 3 || s.Types[4] != 2 {
		t.Errorf("summary %+v", s)
	}
	if got := s.Problems[1].String(); got != "10.0.0.1:51234>10.0.0.2:7000 c2s: frame 3 at byte 85: version: expected 1, found 2 (0x02)" {
		t.Errorf("second problem: %s", got)
	}
}

// A file that starts as a capture and is not one is a FormatError, shown
// as an entry of its own.
func TestInspectCaptureFormatError(t *testing.T) {
	var out bytes.Buffer
	in := New(&out, Options{Format: OneLine})
	_, err := in.InspectCapture("x", strings.NewReader("\n\r\r\nxxxxxxxx"), capture.Options{})
	var fe *capture.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v, want a FormatError", err)
	}
	if !strings.Contains(out.String(), "! not a readable pcap or pcapng file") {
		t.Errorf("output:\n%s", out.String())
	}
}

// FuzzInspectCapture renders any capture in every format: no panic, no
// escape code in the plain view, UTF-8, and JSON lines that are JSON.
func FuzzInspectCapture(f *testing.F) {
	for _, n := range capturetest.SampleNames() {
		f.Add(sample(f, n), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		opts := Options{Format: Format(format % 3), MaxFrameSize: 1 << 16, SummaryOnly: format >= 128}
		render := func(workers int, reopen bool) (bytes.Buffer, Summary, error) {
			var out bytes.Buffer
			o := opts
			o.Workers = workers
			in := New(&out, o)
			copts := capture.Options{MaxConns: 8, ReassemblyBuffer: 1 << 14}
			if reopen {
				copts.Reopen = func() (io.Reader, error) { return bytes.NewReader(data), nil }
			}
			s, err := in.InspectCapture("fuzz", bytes.NewReader(data), copts)
			var fe *capture.FormatError
			if err != nil && !errors.As(err, &fe) {
				t.Fatal(err)
			}
			if _, err := in.Close(); err != nil {
				t.Fatal(err)
			}
			return out, s, err
		}
		out, s, err := render(1, false)
		// Several workers write what one writes, and count the same; on
		// a file that can be read again too (they check the payloads at
		// the ends of segments, and the capture is read again after a
		// bad one).
		for _, reopen := range []bool{false, true} {
			out4, s4, err4 := render(4, reopen)
			if out.String() != out4.String() || fmt.Sprint(s) != fmt.Sprint(s4) || fmt.Sprint(err) != fmt.Sprint(err4) {
				t.Errorf("4 workers (reopen %v) differ from 1:\n%s\n%+v %v\n--\n%s\n%+v %v", reopen, out.String(), s, err, out4.String(), s4, err4)
			}
		}
		if s.Frames != s.Valid+s.Invalid {
			t.Errorf("frames %d != valid %d + invalid %d", s.Frames, s.Valid, s.Invalid)
		}
		if bytes.IndexByte(out.Bytes(), 0x1b) >= 0 {
			t.Errorf("output holds an escape code")
		}
		if !utf8.Valid(out.Bytes()) {
			t.Errorf("output is not UTF-8")
		}
		if opts.Format == JSON {
			for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
				if !validJSON(line) {
					t.Errorf("not a JSON line: %s", line)
				}
			}
		}
	})
}

// Record shows records one at a time, as InspectCapture shows them, and
// Close counts them.
func TestRecordOneAtATime(t *testing.T) {
	data := sample(t, "lost.pcap")
	var want bytes.Buffer
	in := New(&want, Options{Format: OneLine})
	ws, _ := in.InspectCapture("-", bytes.NewReader(data), capture.Options{})
	var got bytes.Buffer
	live := New(&got, Options{Format: OneLine})
	if _, err := capture.Read(bytes.NewReader(data), capture.Options{}, live.Record); err != nil {
		t.Fatal(err)
	}
	gs, err := live.Close()
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.TrimPrefix(want.String(), "==> - <==\n"); got.String() != w {
		t.Errorf("Record shows:\n%s\nInspectCapture shows:\n%s", got.String(), w)
	}
	if gs.Frames != ws.Frames || gs.Faults != ws.Faults || gs.Notes != ws.Notes || len(gs.Conns) != 1 {
		t.Errorf("Record counts %+v, InspectCapture %+v", gs, ws)
	}
}
