package validate

import (
	"errors"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
)

// Tabular validates a Genesis A2A table: the header lines and the version
// (TAB001), then every row: its cells (TAB002) and escapes (TAB003). A bad
// row is reported and the next row is read. It returns the number of rows.
func Tabular(r io.Reader, name string, opts Options, emit Emit) (int, error) {
	d := tabular.NewDecoder(r, tabular.DecoderOptions{MaxLineSize: opts.MaxFrameSize})
	rows := 0
	if _, err := d.Keys(); err != nil {
		var se *jsonv.SyntaxError
		if errors.As(err, &se) {
			emit(textFinding(name, se, -1, "TAB001"))
			return 0, nil
		}
		return 0, err
	}
	for {
		_, _, err := d.Next()
		if err == io.EOF {
			return rows, nil
		}
		var se *jsonv.SyntaxError
		if !errors.As(err, &se) && err != nil {
			return rows, err
		}
		rows++
		if se == nil {
			continue
		}
		code := "TAB002"
		switch {
		case strings.Contains(se.Msg, "escape") || strings.Contains(se.Msg, "lone \\"):
			code = "TAB003"
		case strings.Contains(se.Msg, "UTF-8"):
			code = "TAB004"
		case strings.Contains(se.Msg, "passes the limit"):
			code = "TAB005"
		}
		if !emit(textFinding(name, se, rows-1, code)) || !d.Recoverable(err) {
			return rows, nil
		}
	}
}

// textFinding is a finding at a syntax error's position.
func textFinding(name string, se *jsonv.SyntaxError, record int, code string) Finding {
	return Finding{File: name, Line: se.Pos.Line, Column: se.Pos.Column, Frame: -1, Offset: se.Pos.Offset, Record: record,
		Pointer: se.Pointer, Code: code, Severity: Error, Message: se.Msg}
}
