package validate

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// NarratoriaLines says of each line what a host needs: its event, type,
// errors, whether it came after done, and where the stream stops.
func TestNarratoriaLines(t *testing.T) {
	in := `{"version":"0","type":"log","level":"info","message":"m"}
not json
{"version":"0","type":"log","level":"loud","message":"m"}` + "\r" + `
{"version":"0","type":"done","ok":true}
{"version":"0","type":"log","level":"info","message":"late"}
{"version":"0","type":"sparkle"}
{"version":"0","type":"log","level":"info","message":"never read"}
`
	type got struct {
		Number          int
		Event, Type     string
		Errors          int
		AfterDone, Stop bool
	}
	var lines []got
	var codes []string
	n, end, err := NarratoriaLines(strings.NewReader(in), "stdout", Options{}, func(f Finding) bool {
		codes = append(codes, f.Code)
		return true
	}, func(l Line) {
		lines = append(lines, got{l.Number, string(l.Event), l.Type, l.Errors, l.AfterDone, l.Stop})
	})
	if err != nil || n != 6 || end {
		t.Fatalf("n %d, end %v, err %v: want 6 lines read and a stop before the end", n, end, err)
	}
	want := []got{
		{1, `{"version":"0","type":"log","level":"info","message":"m"}`, "log", 0, false, false},
		{2, "", "", 1, false, false},
		{3, `{"version":"0","type":"log","level":"loud","message":"m"}`, "log", 2, false, false},
		{4, `{"version":"0","type":"done","ok":true}`, "done", 0, false, false},
		{5, `{"version":"0","type":"log","level":"info","message":"late"}`, "log", 0, true, false},
		{6, `{"version":"0","type":"sparkle"}`, "sparkle", 1, true, true},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"NAR002", "NAR001", "NAR020", "NAR082", "NAR084"}, codes); diff != "" {
		t.Fatalf("codes (-want +got):\n%s", diff)
	}
}

// A line is checked as soon as its LF arrives: the reader does not wait for
// the next one.
func TestNarratoriaLinesIsLive(t *testing.T) {
	r, w := io.Pipe()
	seen := make(chan string)
	go NarratoriaLines(r, "stdout", Options{}, func(Finding) bool { return true }, func(l Line) { seen <- l.Type })
	defer w.Close()
	for _, typ := range []string{"log", "done"} {
		go w.Write([]byte(`{"version":"0","type":"` + typ + `","level":"info","message":"m","ok":true}` + "\n"))
		select {
		case got := <-seen:
			if got != typ {
				t.Fatalf("line of type %q, want %q", got, typ)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the %s line, written, was not checked before the stream went on", typ)
		}
	}
}

// A line longer than the limit stops the reading with NAR002, before the
// end: the line is not held whole.
func TestNarratoriaLinesTooLong(t *testing.T) {
	in := `{"version":"0","type":"log","level":"info","message":"` + strings.Repeat("x", 4096) + "\"}\n"
	var codes []string
	n, end, err := NarratoriaLines(strings.NewReader(in), "stdout", Options{MaxFrameSize: 1024}, func(f Finding) bool {
		codes = append(codes, f.Code+" "+f.Message)
		return true
	}, nil)
	if err != nil || n != 0 || end || len(codes) != 1 || codes[0] != "NAR002 the line passes the limit of 1024 bytes" {
		t.Fatalf("n %d, end %v, err %v, findings %v", n, end, err, codes)
	}
}
