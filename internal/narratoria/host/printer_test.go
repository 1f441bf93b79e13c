package host

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/validate"
)

// The report is buffered, and flushed before each read of the tool's
// stdout: what was read is shown before the host waits for more.
func TestPrinterFlushesBeforeEachRead(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, io.Discard, PrinterOptions{JSON: true})
	h := New(Options{}, nil)
	h.OnEvent, h.OnViolation = p.Event, p.Violation
	var seen []string // what the report held at each read
	tool := readFunc(func(b []byte) (int, error) {
		seen = append(seen, out.String())
		return 0, io.EOF
	})
	h.Read(io.MultiReader(strings.NewReader(`{"version":"0","type":"log","level":"info","message":"a"}`+"\n"), p.Reader(tool)))
	if len(seen) != 1 || !strings.Contains(seen[0], `"message":"a"`) {
		t.Errorf("the report at the read: %q, want the first event in it", seen)
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(b []byte) (int, error) { return f(b) }

// The tool's stderr comes after the report so far, dimmed but for its
// line end; a violation is written as text without JSON.
func TestPrinterStderrAndText(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPrinter(&out, &errOut, PrinterOptions{Dim: func(s string) string { return "<" + s + ">" },
		Paint: func(r paint.Role, s string) string {
			if r == paint.Where {
				return "*" + s + "*"
			}
			return s
		}})
	p.Violation(validate.Finding{File: "stdout", Line: 1, Column: 1, Frame: -1, Record: 0, Severity: validate.Error, Code: "NAR001", Message: "m"})
	if out.Len() != 0 {
		t.Errorf("the report was written before a flush: %q", out.String())
	}
	p.Stderr([]byte("oops\n"))
	p.Stderr([]byte("half"))
	if !strings.Contains(out.String(), "*stdout:1:1*") || !strings.Contains(out.String(), "NAR001") {
		t.Errorf("report = %q, want the violation, its place painted", out.String())
	}
	if got, want := errOut.String(), "<oops>\n<half>"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

// Close says whether the whole report was written: the first write error.
func TestPrinterCloseReportsWriteError(t *testing.T) {
	boom := errors.New("disk full")
	p := NewPrinter(failWriter{boom}, io.Discard, PrinterOptions{JSON: true})
	p.Summary(New(Options{}, nil).Result(Exit{}))
	if err := p.Close(); !errors.Is(err, boom) {
		t.Errorf("Close() = %v, want %v", err, boom)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// The tool's stderr comes from a goroutine of its own while the host
// calls back: the Printer writes one piece at a time (go test -race).
func TestPrinterConcurrentStderr(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPrinter(&out, &errOut, PrinterOptions{JSON: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 500 {
			p.Stderr([]byte("line\n"))
		}
	}()
	for i := range 500 {
		p.Violation(validate.Finding{File: "stdout", Line: i + 1, Frame: -1, Severity: validate.Warning, Code: "EXE002", Message: "m"})
	}
	<-done
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 500 {
		t.Errorf("%d report lines, want 500", n)
	}
	if errOut.String() != strings.Repeat("line\n", 500) {
		t.Errorf("stderr was mixed up")
	}
}

// ParseObject takes exactly one JSON object, compacted, and says what else
// it found; a syntax error keeps its place.
func TestParseObject(t *testing.T) {
	obj, err := ParseObject([]byte(" {\"room\": \"cellar\", \"n\": [1, 2]}\r\n"), 100)
	if err != nil || string(obj) != `{"room":"cellar","n":[1,2]}` {
		t.Errorf("an object: %s, %v", obj, err)
	}
	for in, want := range map[string]string{
		"":                  ErrEmpty.Error(),
		" \n":               ErrEmpty.Error(),
		"[1]":               "want a JSON object, found an array",
		`"x"`:               "want a JSON object, found a string",
		"{} {}":             ErrMore.Error(),
		`{"a": 1,}`:         "1:9: ",
		`{"a": "` + "\x01":  "1:8: ",
		`{"long": "value"}`: "limit of 10 bytes",
	} {
		_, err := ParseObject([]byte(in), 10)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, id := StdinObject("", "t", "run", []byte("{}")); len(id) != 36 {
		t.Errorf("a requestId made up: %q, want a UUID", id)
	}
}

// On any input (an --input or --state of anyone's making), ParseObject
// gives an error or one compact JSON object that it takes back as it is.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{"room": "cellar"}`, "{}\n", "{} {}", "[1]", "", `{"a": [1, {"b": null}], "c": "\u00e9"}`, `{"a": 1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		obj, err := ParseObject(b, 1<<16)
		if err != nil {
			return
		}
		if len(obj) == 0 || obj[0] != '{' || !jsonv.Valid(obj) {
			t.Fatalf("%q: gave %q, not a JSON object", b, obj)
		}
		again, err := ParseObject(obj, 1<<16)
		if err != nil || !bytes.Equal(again, obj) {
			t.Fatalf("%q: gave %q, which reads back as %q, %v", b, obj, again, err)
		}
	})
}
