package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/validate"
)

// PrinterOptions configure a Printer.
type PrinterOptions struct {
	// JSON writes the NDJSON report (AppendEventJSON and the others);
	// otherwise the text report (WriteEventText and the others).
	JSON bool
	// Paint colors the text report; nil paints nothing.
	Paint paint.Func
	// Dim colors the tool's stderr; nil leaves it as it is.
	Dim func(string) string
}

// Printer writes the report of a run as it goes: the events and
// violations a Host calls back with, and the summary of its Result, as
// text or as NDJSON; and it passes the tool's stderr on after the report
// so far. The host's callbacks and the tool's stderr come from different
// goroutines: a Printer writes one piece at a time. The report is
// buffered: Flush passes it on, and a Reader made by Reader flushes it
// before each read of the tool's stdout, so that what was read is shown
// before the host waits for more. The first write error is kept for Close.
type Printer struct {
	mu     sync.Mutex
	out    *bufio.Writer
	errOut io.Writer
	opts   PrinterOptions
	buf    []byte
	err    error // the first write error
}

// NewPrinter returns a Printer of the report to out, and of the tool's
// stderr to errOut.
func NewPrinter(out, errOut io.Writer, opts PrinterOptions) *Printer {
	if opts.Dim == nil {
		opts.Dim = func(s string) string { return s }
	}
	return &Printer{out: bufio.NewWriterSize(out, 64<<10), errOut: errOut, opts: opts}
}

// print writes one piece of the report, as JSON or as text.
func (p *Printer) print(asJSON func([]byte) []byte, asText func(io.Writer, paint.Func) error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.JSON {
		p.buf = asJSON(p.buf[:0])
		if _, err := p.out.Write(p.buf); err != nil && p.err == nil {
			p.err = err
		}
		return
	}
	asText(p.out, p.opts.Paint)
}

// Event writes an event (Host.OnEvent).
func (p *Printer) Event(ev *Event) {
	p.print(func(b []byte) []byte { return AppendEventJSON(b, ev) },
		func(w io.Writer, pt paint.Func) error { return WriteEventText(w, ev, pt) })
}

// Violation writes a violation (Host.OnViolation).
func (p *Printer) Violation(f validate.Finding) {
	p.print(func(b []byte) []byte { return AppendViolationJSON(b, f) },
		func(w io.Writer, pt paint.Func) error { return validate.WriteText(w, f, pt) })
}

// Summary writes the end of the report.
func (p *Printer) Summary(r Result) {
	p.print(func(b []byte) []byte { return AppendSummaryJSON(b, r) },
		func(w io.Writer, pt paint.Func) error { return WriteSummaryText(w, r, pt) })
}

// Flush passes the report so far on.
func (p *Printer) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.out.Flush(); err != nil && p.err == nil {
		p.err = err
	}
}

// Stderr passes on a piece of the tool's stderr, after the report so far,
// dimmed (its line end is not).
func (p *Printer) Stderr(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.Flush()
	s, nl := strings.CutSuffix(string(b), "\n")
	if nl {
		io.WriteString(p.errOut, p.opts.Dim(s)+"\n")
	} else {
		io.WriteString(p.errOut, p.opts.Dim(s))
	}
}

// Close flushes the report and says whether all of it was written.
func (p *Printer) Close() error {
	p.Flush()
	return p.err
}

// Reader returns r, the tool's stdout, flushing the report before each
// read of it.
func (p *Printer) Reader(r io.Reader) io.Reader { return flushingReader{r, p} }

type flushingReader struct {
	r io.Reader
	p *Printer
}

func (f flushingReader) Read(b []byte) (int, error) {
	f.p.Flush()
	return f.r.Read(b)
}

// StdinObject is the object a host writes on the tool's stdin (spec 6),
// with its line end: {"requestId","tool","operation","input"}, input being
// a JSON object, compact; and its requestId, requestID or, when that is
// "", a new random UUID.
func StdinObject(requestID, tool, operation string, input []byte) ([]byte, string) {
	if requestID == "" {
		requestID = uuid.NewString()
	}
	obj := []byte(`{"requestId":`)
	obj = jsonv.AppendQuote(obj, requestID)
	obj = append(obj, `,"tool":`...)
	obj = jsonv.AppendQuote(obj, tool)
	obj = append(obj, `,"operation":`...)
	obj = jsonv.AppendQuote(obj, operation)
	obj = append(obj, `,"input":`...)
	obj = append(obj, input...)
	return append(obj, "}\n"...), requestID
}

// The problems of a text that ParseObject refuses, beside a
// *jsonv.SyntaxError.
var (
	ErrEmpty = errors.New("empty: want a JSON object")
	ErrMore  = errors.New("want one JSON object, found more after it")
)

// ParseObject returns the one JSON object of b, compact, b holding at
// most max bytes of it. Anything else is an error: ErrEmpty, a
// *jsonv.SyntaxError with its place, an error naming the kind of value
// found instead of an object, ErrMore, or the reader's (too large).
func ParseObject(b []byte, max int) ([]byte, error) {
	rd := jsonv.NewReader(bytes.NewReader(b), jsonv.Options{MaxValueSize: int64(max)})
	v, _, err := rd.Next()
	switch {
	case err == io.EOF:
		return nil, ErrEmpty
	case err != nil:
		return nil, err
	case v[0] != '{':
		return nil, fmt.Errorf("want a JSON object, found %s", jsonv.KindName(v[0]))
	}
	obj := bytes.Clone(jsonv.CompactInPlace(v))
	if _, _, err := rd.Next(); err != io.EOF {
		return nil, ErrMore
	}
	return obj, nil
}
