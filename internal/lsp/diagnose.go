package lsp

import (
	"bytes"

	"go.lsp.dev/protocol"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/schemamap"
	"github.com/toonkit/toonkit/internal/validate"
)

// diagnose is what validate finds in the document t, named name (a file
// path, for the schema it is associated with; "" for a document that is
// no file): every TOON problem, in strict mode, with its code; when there
// is none, the findings of the schema that #:schema or .toonkit.yaml
// gives it; a schema that cannot be used is one TK002 finding.
func (s *Server) diagnose(t *text, name string, enc encoding) []protocol.Diagnostic {
	out := []protocol.Diagnostic{} // "no problems" is an empty list, not null
	emit := func(f validate.Finding) bool {
		out = append(out, s.diagnostic(t, f, enc))
		return true
	}
	indent := s.indentFor(t)
	shown := name
	if shown == "" {
		shown = "untitled"
	}
	if _, err := validate.TOON(bytes.NewReader(t.src), shown, validate.Options{TOONIndent: indent, MaxFrameSize: s.opts.MaxSize}, emit); err != nil {
		emit(validate.Finding{Code: "TOON011", Message: err.Error()})
	}
	if len(out) > 0 || name == "" {
		return out
	}
	s.schemaMu.Lock()
	s.schemas.Resolver = schemamap.Resolver{} // .toonkit.yaml read again
	us, err := s.schemas.For(name, t.src[:min(len(t.src), 64<<10)])
	s.schemaMu.Unlock()
	if err != nil {
		f := validate.Finding{Code: "TK002", Message: err.Error()}
		if _, line, ok := schemamap.Comment(t.src); ok {
			f.Line, f.Column = line, 1
		}
		emit(f)
		return out
	}
	if us == nil {
		return out
	}
	if _, err := us.Validate(bytes.NewReader(t.src), name, validate.UserOptions{Format: codec.TOON, TOONIndent: indent, MaxFrameSize: s.opts.MaxSize, Again: true}, emit); err != nil {
		emit(validate.Finding{Code: "TK002", Message: err.Error()})
	}
	return out
}

// diagnostic is finding f as LSP shows it: from its line and column to
// the end of that line's content (the first line when it has no place).
func (s *Server) diagnostic(t *text, f validate.Finding, enc encoding) protocol.Diagnostic {
	n := max(f.Line-1, 0)
	start := t.runeColumn(n, max(f.Column, 1))
	end := t.lineStart(n) + len(bytes.TrimRight(t.line(n), " \t"))
	if end <= start {
		end = min(start+1, t.lineStart(n)+len(t.line(n)))
	}
	msg := f.Message
	if f.Pointer != "" && !bytes.HasPrefix([]byte(f.Code), []byte("TOON")) {
		msg = f.Pointer + ": " + msg
	}
	sev := protocol.DiagnosticSeverityError
	if f.Severity == validate.Warning {
		sev = protocol.DiagnosticSeverityWarning
	}
	return protocol.Diagnostic{Range: t.span(start, end, enc), Severity: sev, Code: f.Code, Source: "toonkit", Message: msg}
}
