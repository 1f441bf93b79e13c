package report

import (
	"fmt"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"io"
	"net/url"
	"path/filepath"

	"github.com/toonkit/toonkit/internal/validate"
)

// SchemaURI is the $schema a SARIF report names.
const SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// sarif writes a SARIF 2.1.0 log of one run: the tool part with every
// rule first, then one result per finding, one a line, then the
// invocation.
type sarif struct {
	w       *writer
	index   map[string]int
	results int
	notes   [][]byte // toolExecutionNotifications: the files that could not be read
}

func newSARIF(w io.Writer, o Options) *sarif {
	s := &sarif{w: newWriter(w), index: map[string]int{}}
	version := o.Version
	if version == "" {
		version = "devel"
	}
	b := fmt.Appendf(nil, `{"$schema":%s,"version":"2.1.0","runs":[{"tool":{"driver":{"name":"toonkit","version":`, jsonString(SchemaURI))
	b = jsonv.AppendQuote(b, version)
	b = append(b, `,"informationUri":`...)
	b = jsonv.AppendQuote(b, InformationURI)
	b = append(b, `,"rules":[`...)
	for i, r := range validate.Rules() {
		s.index[r.Code] = i
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n"...)
		b = fmt.Appendf(b, `{"id":%s,"shortDescription":{"text":`, jsonString(r.Code))
		b = jsonv.AppendQuote(b, r.Text)
		b = fmt.Appendf(b, `},"defaultConfiguration":{"level":%s},"helpUri":%s}`, jsonString(level(r.Severity)), jsonString(InformationURI+"/blob/main/docs/commands/validate.md"))
	}
	b = append(b, "\n]}},\"columnKind\":\"unicodeCodePoints\",\"results\":["...)
	s.w.Write(b)
	return s
}

func level(s validate.Severity) string {
	if s == validate.Warning {
		return "warning"
	}
	return "error"
}

func jsonString(s string) string { return string(jsonv.AppendQuote(nil, s)) }

// uri is a file name as a relative URI reference.
func uri(name string) string {
	return (&url.URL{Path: filepath.ToSlash(name)}).String()
}

// result writes a finding as a result: text input has its line and column,
// binary frames their byte offset; a capture's frame, whose offset counts
// in its direction's stream, names its connection in the message.
func (s *sarif) result(f validate.Finding) {
	b := make([]byte, 0, 256)
	if s.results > 0 {
		b = append(b, ',')
	}
	s.results++
	b = append(b, '\n')
	b = fmt.Appendf(b, `{"ruleId":%s`, jsonString(f.Code))
	if i, ok := s.index[f.Code]; ok {
		b = fmt.Appendf(b, `,"ruleIndex":%d`, i)
	}
	b = fmt.Appendf(b, `,"level":%s,"message":{"text":`, jsonString(level(f.Severity)))
	b = jsonv.AppendQuote(b, detail(f))
	b = append(b, `},"locations":[{"physicalLocation":{"artifactLocation":{"uri":`...)
	b = jsonv.AppendQuote(b, uri(f.File))
	b = append(b, '}')
	switch {
	case f.Conn != "":
	case f.Line > 0:
		b = fmt.Appendf(b, `,"region":{"startLine":%d,"startColumn":%d}`, f.Line, max(f.Column, 1))
	case f.Frame >= 0 || f.Offset > 0:
		b = fmt.Appendf(b, `,"region":{"byteOffset":%d}`, f.Offset)
	}
	b = append(b, `}}]`...)
	b = append(b, `,"properties":{"pointer":`...)
	b = jsonv.AppendQuote(b, f.Pointer)
	if f.Record >= 0 {
		b = fmt.Appendf(b, `,"record":%d`, f.Record)
	}
	if f.Frame >= 0 {
		b = fmt.Appendf(b, `,"frame":%d,"offset":%d`, f.Frame, f.Offset)
	}
	if f.Conn != "" {
		b = jsonv.AppendQuote(append(b, `,"conn":`...), f.Conn)
		b = jsonv.AppendQuote(append(b, `,"dir":`...), f.Dir)
	}
	b = append(b, "}}"...)
	s.w.Write(b)
}

// unreadable notes a file that could not be read.
func (s *sarif) unreadable(file, msg string) {
	b := append([]byte(nil), `{"level":"error","message":{"text":`...)
	b = jsonv.AppendQuote(b, msg)
	b = append(b, `},"locations":[{"physicalLocation":{"artifactLocation":{"uri":`...)
	b = jsonv.AppendQuote(b, uri(file))
	s.notes = append(s.notes, append(b, "}}}]}"...))
}

func (s *sarif) close() error {
	b := fmt.Appendf(nil, "\n],\"invocations\":[{\"executionSuccessful\":%t", len(s.notes) == 0)
	if len(s.notes) > 0 {
		b = append(b, `,"toolExecutionNotifications":[`...)
		for i, n := range s.notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, n...)
		}
		b = append(b, ']')
	}
	s.w.Write(append(b, "}]}]}\n"...))
	return s.w.Err
}

// detail is a finding's message with what the location does not say: a
// frame's number and offset, a capture's connection, the pointer.
func detail(f validate.Finding) string {
	msg := f.Message
	if f.Pointer != "" {
		msg = f.Pointer + ": " + msg
	}
	if f.Frame >= 0 {
		msg = fmt.Sprintf("frame %d at byte %d: %s", f.Frame, f.Offset, msg)
	}
	if f.Conn != "" {
		c := f.Conn
		if f.Dir != "" {
			c += " " + f.Dir
		}
		msg = c + ": " + msg
	}
	return msg
}
