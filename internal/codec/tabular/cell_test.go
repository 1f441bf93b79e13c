package tabular

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// refCell is the cell of the string v as the table writes it, byte by
// byte: the string's text, or with an escape of JSON's in it its value (its
// JSON text, quotes and all, when that fails: a lone surrogate), with `\`
// `,` LF and CR escaped.
func refCell(v []byte) []byte {
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		var err error
		if s, err = jsontext.AppendUnquote(nil, v); err != nil {
			s = v
		}
	}
	var out []byte
	for _, c := range s {
		switch c {
		case '\\':
			out = append(out, `\\`...)
		case ',':
			out = append(out, `\c`...)
		case '\n':
			out = append(out, `\n`...)
		case '\r':
			out = append(out, `\r`...)
		default:
			out = append(out, c)
		}
	}
	return out
}

// checkCell fails when appendCell writes the string v (a JSON string, valid
// or not) otherwise than refCell, or not after what dst held.
func checkCell(t *testing.T, v string) {
	t.Helper()
	var cw cellWriter
	dst := []byte("before,")
	got, _ := cw.appendCell(dst, []byte(v))
	if want := append([]byte("before,"), refCell([]byte(v))...); !bytes.Equal(got, want) {
		t.Errorf("cell of %q = %q, want %q", v, got, want)
	}
}

// TestStringCells: a string cell is written in one pass until a byte the
// pass leaves to the slower path (an escape of JSON's, a control
// character); wherever that byte stands, before or after the commas
// written already and across the 8-byte words the pass reads, the cell is
// the same.
func TestStringCells(t *testing.T) {
	for _, odd := range []string{",", `\\`, `\n`, `\u002c`, `\u0061`, `\"`, "\n", "\r", "\x00", "é", `\ud800`} {
		for n := range 20 {
			for _, fill := range []string{"a", ",", "é"} {
				body := strings.Repeat(fill, n)
				checkCell(t, `"`+body+odd+`"`)
				checkCell(t, `"`+odd+body+`"`)
				checkCell(t, `"`+body+odd+body+odd+`"`)
				checkCell(t, `"`+body[:len(body)/2]+","+body[len(body)/2:]+odd+"x,"+`"`)
			}
		}
	}
	checkCell(t, `""`)
}

// FuzzStringCell: any string, valid JSON or not, is written as refCell
// writes it.
func FuzzStringCell(f *testing.F) {
	for _, s := range []string{"a,b", `C:\\x, y`, "line\nline", `\u00e9,\ud83d\ude00`, `\ud800`, "\x01,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCell(t, `"`+s+`"`)
	})
}
