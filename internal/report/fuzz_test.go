package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/validate"
)

// Whatever bytes a file name, a pointer or a message holds (they come from
// the input), the junit report is well-formed XML that gives the message
// back (what XML 1.0 cannot hold as U+FFFD), and the sarif report is
// valid JSON.
func FuzzReportsWellFormed(f *testing.F) {
	f.Add("bad.toon", "/a", "row has 1 cell", 3)
	f.Add("a&b<c>.bin", "/x\"y", "]]> \x00\x01\x1f\x7f \xff\xfe \r\n\t \uFFFE \U0001F600", -1)
	f.Add("", "", "", 0)
	f.Fuzz(func(t *testing.T, file, pointer, msg string, line int) {
		fd := validate.Finding{File: file, Line: line, Column: 1, Frame: -1, Record: 0, Pointer: pointer, Code: "CHF001", Message: msg}
		if line < 0 {
			fd.Frame, fd.Line, fd.Offset = -line, 0, int64(-line)
		}
		for _, format := range []string{JUnit, SARIF} {
			var b bytes.Buffer
			r := NewValidate(&b, Options{Format: format, Now: epoch})
			r.Begin(file)
			r.Finding(fd)
			r.End(file, 2, nil)
			if err := r.Close(""); err != nil {
				t.Fatal(err)
			}
			if format == SARIF {
				if !json.Valid(b.Bytes()) {
					t.Fatalf("sarif: not JSON:\n%s", b.Bytes())
				}
				continue
			}
			d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
			var texts []string
			inFailure := false
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("junit: %v\n%s", err, b.Bytes())
				}
				switch tok := tok.(type) {
				case xml.StartElement:
					inFailure = tok.Name.Local == "failure"
				case xml.CharData:
					if inFailure {
						texts = append(texts, string(tok))
					}
				case xml.EndElement:
					inFailure = false
				}
			}
			want := xmlSafe(fd.Text())
			if got := strings.Join(texts, ""); got != want {
				t.Fatalf("junit: the failure's text is %q, want %q", got, want)
			}
		}
	})
}

// xmlSafe is s with what XML 1.0 cannot hold as U+FFFD, and CR LF as XML
// parsers normalise it.
func xmlSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n == 1 || r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}
