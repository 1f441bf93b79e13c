package report

import (
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/validate"
)

// Validate writes the report of toonkit validate.
type Validate struct {
	// Sum counts the files, records and findings reported so far.
	Sum validate.Summary

	w        *writer
	o        Options
	findings []validate.Finding // json
	junit    *junit
	sarif    *sarif
}

// NewValidate starts the report of a validation in o.Format on w.
func NewValidate(w io.Writer, o Options) *Validate {
	r := &Validate{w: newWriter(w), o: o, Sum: validate.Summary{Strict: o.Strict}}
	switch o.Format {
	case JUnit:
		r.junit = newJUnit(r.w, o, "toonkit validate", "record", "records", false)
	case SARIF:
		r.sarif = newSARIF(r.w, o)
	}
	return r
}

// Summary is Sum: the counts so far.
func (r *Validate) Summary() validate.Summary { return r.Sum }

// Begin starts a file.
func (r *Validate) Begin(file string) {
	if r.junit != nil {
		r.junit.begin(file)
	}
}

// Finding reports a finding.
func (r *Validate) Finding(f validate.Finding) {
	r.Sum.Add(f)
	switch r.o.Format {
	case Text:
		validate.WriteText(r.w, f, r.o.Paint)
	case GitHub:
		validate.WriteGitHub(r.w, f)
	case JSON:
		r.findings = append(r.findings, f)
	case SARIF:
		r.sarif.result(f)
	case JUnit:
		r.junit.count(f.File, f.Severity == validate.Warning)
		r.junit.add(entry{suite: f.File, stream: f.Conn + " " + f.Dir, record: f.Record, code: f.Code,
			fail: f.Severity == validate.Error || r.o.Strict, render: func(e *entry) {
				e.name = caseName(f)
				e.msg, e.text = msgOf(f.Pointer, f.Message), f.Text()
			}})
	}
}

// End ends a file, which held records; err, when not nil, is why it could
// not be read (to the end): the file is not counted, and the junit report
// gives it an <error>, the SARIF report a notification.
func (r *Validate) End(file string, records int, err error) {
	r.Sum.Records += records
	if err == nil {
		r.Sum.Files++
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	switch {
	case r.junit != nil:
		r.junit.end(file, records, msg)
	case r.sarif != nil && err != nil:
		r.sarif.unreadable(file, msg)
	}
}

// Close ends the report: text and github with the summary line, and note
// after it (say, why the check stopped), json with its object.
func (r *Validate) Close(note string) error {
	switch r.o.Format {
	case JSON:
		r.w.Write(validate.AppendJSON(nil, r.Sum, r.findings))
	case JUnit:
		return r.junit.close()
	case SARIF:
		return r.sarif.close()
	default:
		line := r.Sum.Line()
		if note != "" {
			line += " " + note
		}
		r.w.str(line + "\n")
	}
	return r.w.Err
}

// caseName is the name of a finding's test case: its place in its file.
func caseName(f validate.Finding) string {
	if f.Conn == "" && f.Frame < 0 && f.Line > 0 {
		return "line " + itoa(f.Line)
	}
	if name := strings.TrimPrefix(strings.TrimPrefix(f.Where(), f.File), ": "); name != "" {
		return name
	}
	return "the file"
}

func msgOf(pointer, msg string) string {
	if pointer == "" {
		return msg
	}
	return pointer + ": " + msg
}
