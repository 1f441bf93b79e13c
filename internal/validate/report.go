package validate

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
)

// WriteText writes a finding as one line of the text report, colored by
// pt (nil: plain).
func WriteText(w io.Writer, f Finding, pt paint.Func) error {
	if pt == nil {
		_, err := io.WriteString(w, f.Text()+"\n")
		return err
	}
	sev := pt(paint.Error, "error")
	if f.Severity == Warning {
		sev = pt(paint.Warning, "warning")
	}
	ptr := ""
	if f.Pointer != "" {
		ptr = pt(paint.Pointer, f.Pointer) + ": "
	}
	_, err := fmt.Fprintf(w, "%s: %s: %s%s %s\n", pt(paint.Where, f.Where()), sev, ptr, f.Message, pt(paint.Dim, "["+f.Code+"]"))
	return err
}

// WriteGitHub writes a finding as a GitHub Actions workflow command, which
// the Actions runner turns into an annotation on the file and line.
func WriteGitHub(w io.Writer, f Finding) error {
	cmd := "error"
	if f.Severity == Warning {
		cmd = "warning"
	}
	props := "file=" + ghProperty(f.File)
	if f.Line > 0 {
		props += ",line=" + strconv.Itoa(f.Line) + ",col=" + strconv.Itoa(f.Column)
	}
	props += ",title=" + ghProperty(f.Code)
	msg := f.Message
	if f.Pointer != "" {
		msg = f.Pointer + ": " + msg
	}
	if f.Frame >= 0 {
		msg = fmt.Sprintf("frame %d at byte %d: %s", f.Frame, f.Offset, msg)
	}
	if c := f.connection(); c != "" {
		msg = c + ": " + msg
	}
	_, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, props, ghData(msg))
	return err
}

// GitHubData escapes the message of a GitHub workflow command (::notice
// title=...::MESSAGE): percent signs and line ends.
func GitHubData(s string) string { return ghData(s) }

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// AppendJSON appends the JSON report: {"ok":…,"files":…,"records":…,
// "errors":…,"warnings":…,"findings":[…]}, with a newline.
func AppendJSON(dst []byte, s Summary, findings []Finding) []byte {
	dst = fmt.Appendf(dst, `{"ok":%t,"files":%d,"records":%d,"errors":%d,"warnings":%d,"findings":[`, s.OK(), s.Files, s.Records, s.Errors, s.Warnings)
	for i, f := range findings {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendFinding(dst, f)
	}
	return append(dst, "]}\n"...)
}

// AppendFinding appends a finding as the JSON object of the reports:
// {"file",("conn","dir" in a capture),"line","column" (or "frame"),"offset",
// "record","pointer","code","severity","message"}.
func AppendFinding(dst []byte, f Finding) []byte {
	dst = append(dst, `{"file":`...)
	dst = quote(dst, f.File)
	if f.Conn != "" {
		dst = quote(append(dst, `,"conn":`...), f.Conn)
		if f.Dir != "" {
			dst = quote(append(dst, `,"dir":`...), f.Dir)
		}
	}
	if f.Frame >= 0 {
		dst = fmt.Appendf(dst, `,"frame":%d`, f.Frame)
	} else if f.Line > 0 {
		dst = fmt.Appendf(dst, `,"line":%d,"column":%d`, f.Line, f.Column)
	}
	dst = fmt.Appendf(dst, `,"offset":%d`, f.Offset)
	if f.Record >= 0 {
		dst = fmt.Appendf(dst, `,"record":%d`, f.Record)
	}
	dst = append(dst, `,"pointer":`...)
	dst = quote(dst, f.Pointer)
	dst = append(dst, `,"code":`...)
	dst = quote(dst, f.Code)
	dst = append(dst, `,"severity":`...)
	dst = quote(dst, f.Severity.String())
	dst = append(dst, `,"message":`...)
	dst = quote(dst, f.Message)
	return append(dst, '}')
}

func quote(dst []byte, s string) []byte { return jsonv.AppendQuote(dst, s) }
