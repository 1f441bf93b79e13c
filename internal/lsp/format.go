package lsp

import (
	"bytes"
	"errors"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/toonfmt"
	"github.com/toonkit/toonkit/internal/toonx"
)

// newIndent is the document's indent as toonfmt.Detect finds it (the
// least indentation of its indented content lines; 2 when none is),
// read from the line starts alone: Detect also looks for the delimiter,
// which costs a sixth of a diagnosis of a large document.
func newIndent(t *text) int {
	least := 0
	for _, st := range t.starts {
		n := 0
		for st+n < len(t.src) && t.src[st+n] == ' ' {
			n++
		}
		if n == 0 || st+n >= len(t.src) {
			continue
		}
		switch t.src[st+n] {
		case '#', '\n', '\r', '\t':
			continue // a comment, a blank line, a tab (not indentation)
		}
		if least == 0 || n < least {
			least = n
			if least == 1 {
				break
			}
		}
	}
	if least == 0 {
		return 2
	}
	return least
}

// format is the edits that make t its canonical form (toonfmt.Format:
// what `toonkit fmt` writes), line by line; with r, only those that touch
// the lines of r. A malformed document is an error with the decoder's
// message and position (nothing is changed).
func (s *Server) format(t *text, r *protocol.Range, enc encoding) ([]protocol.TextEdit, error) {
	out, err := toonfmt.Format(t.src, toonfmt.Options{MaxLineSize: s.opts.MaxSize})
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the document is not formatted: "+errorText(err))
	}
	lo, hi := 0, len(t.src)
	if r != nil {
		lo = t.lineStart(int(r.Start.Line))
		hi = t.lineStart(int(r.End.Line) + 1)
		if r.End.Character == 0 && r.End.Line > r.Start.Line {
			hi = t.lineStart(int(r.End.Line)) // a range that ends at a line's start leaves that line out
		}
	}
	all := udiff.Lines(string(t.src), string(out))
	var kept []udiff.Edit
	for _, e := range all {
		if r != nil && (e.End < lo || e.Start > hi || e.Start == hi && e.End > hi) {
			continue
		}
		kept = append(kept, e)
	}
	if r != nil && len(kept) < len(all) {
		// Some changes are left out: the document they make must still
		// hold the same value (a delimiter changed in a header but not in
		// its rows would not).
		part, err := udiff.ApplyBytes(t.src, kept)
		if err != nil || !sameValue(t.src, part, s.indentFor(t), s.opts.MaxSize) {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the selected lines cannot be formatted apart from the rest: format the whole document")
		}
	}
	edits := []protocol.TextEdit{}
	for _, e := range kept {
		edits = append(edits, protocol.TextEdit{Range: t.span(e.Start, e.End, enc), NewText: e.New})
	}
	return edits, nil
}

// sameValue reports whether the TOON documents a and b decode to the
// same JSON, byte for byte.
func sameValue(a, b []byte, indent, maxLine int) bool {
	ja, err := toJSON(a, indent, maxLine)
	if err != nil {
		return false
	}
	jb, err := toJSON(b, indent, maxLine)
	return err == nil && bytes.Equal(ja, jb)
}

// toJSON is the compact JSON of a TOON document (strict).
func toJSON(src []byte, indent, maxLine int) ([]byte, error) {
	var out bytes.Buffer
	err := toonx.ToJSON(&out, bytes.NewReader(src), toonx.DecodeOptions{IndentSize: indent, MaxLineSize: maxLine})
	return out.Bytes(), err
}

// errorText is a decoder error as LINE:COL: message.
func errorText(err error) string {
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		return se.Pos.String() + ": " + se.Msg
	}
	return err.Error()
}
