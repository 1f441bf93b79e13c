package tabular

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// FuzzDecode: any text is read to the end or to a positioned error, never a
// panic, and every row is a valid JSON object.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"@toon 1.0\n@keys id,name\n1,Alice\n2,Bob\n", "@toon 1.0\r\n@keys a\r\n\\c\\n\\\\\r\n", "@toon 1.2\n@keys\n\n", "@toon 1.0\n@keys \n\n", "@toon 1.0\n@keys a,b\n[1\\c2],{\"a\":1}\n", "@toon 1.0\n@keys a\nx\\q\n", "@toon 2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDecoder(bytes.NewReader(in), DecoderOptions{MaxLineSize: 1 << 12})
		for i := 0; i <= len(in)+1; i++ {
			obj, line, err := d.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var se *jsonv.SyntaxError
				if errors.As(err, &se) && (se.Pos.Line < 1 || se.Pos.Column < 1 || se.Caret > len([]rune(se.Excerpt))) {
					t.Fatalf("bad position %+v", se)
				}
				return
			}
			if line < 3 || !jsonv.Valid(obj) || obj[0] != '{' {
				t.Fatalf("row %q on line %d", obj, line)
			}
		}
		t.Fatal("the decoder did not finish")
	})
}

// FuzzRoundTrip: for any JSON array of objects, the table either reads back
// as exactly the input, or the encoder reports lossy cells.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{`[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]`, `[{"a":"42"},{"a":""}]`, `[{"a,b":"x\ny\r\\c"},{"c":null}]`, `[{"a":[1,2],"b":{"c":true}}]`, `[{"a":"[1]"}]`, `[{}]`, `[{"":1}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !jsonv.Valid(in) || firstByte(in) != '[' {
			return
		}
		d := jsontext.NewDecoder(bytes.NewReader(in))
		d.ReadToken()
		var rows [][]byte
		for d.PeekKind() != ']' {
			v, err := d.ReadValue()
			if err != nil {
				t.Fatal(err)
			}
			if v[0] != '{' {
				return // not an array of objects
			}
			rows = append(rows, bytes.Clone(v))
		}
		var strs []string
		for _, r := range rows {
			strs = append(strs, string(r))
		}
		text, lossy := encodeAll(t, strs...)
		// The one-pass RowWriter writes the same table, and reports the
		// same cells, as the encoder with the keys known up front.
		one, rep, oneLossy := writeRows(t, strs...)
		if one != text || rep.TableBytes != int64(len(text)) || rep.Lossy != int64(len(lossy)) || len(oneLossy) != len(lossy) {
			t.Fatalf("RowWriter: %d bytes, %d lossy (%d reported)\n%s\nEncoder: %d bytes, %d lossy\n%s", rep.TableBytes, rep.Lossy, len(oneLossy), one, len(text), len(lossy), text)
		}
		// The rows indented, with CRLF line ends, make the same table.
		var pretty []string
		for _, r := range strs {
			c, _ := jsonv.AppendCompact(nil, []byte(r))
			pretty = append(pretty, "\r\n"+string(bytes.ReplaceAll(jsonv.AppendIndent(nil, c, "", "  "), []byte("\n"), []byte("\r\n")))+"\t")
		}
		if again, rep2, _ := writeRows(t, pretty...); again != one || rep2.Lossy != rep.Lossy {
			t.Fatalf("the rows indented give\n%s\nthe rows as written\n%s", again, one)
		}
		back, err := decodeAll(text, nil)
		if err != nil {
			t.Fatalf("the table of %s does not read back: %v\n%s", in, err, text)
		}
		want, _ := jsonv.AppendCompact(nil, in)
		if back != string(want) && len(lossy) == 0 {
			t.Fatalf("%s read back as %s, and no cell was reported lossy\n%s", want, back, text)
		}
		if back == string(want) && len(lossy) > 0 {
			t.Fatalf("%s round-trips, yet %v was reported", want, lossy)
		}
	})
}
