package csvin_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/csvin"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

func records(t *testing.T, in string, opts csvin.Options) ([]string, []int, error) {
	t.Helper()
	r := csvin.NewReader(strings.NewReader(in), opts)
	var recs []string
	var lines []int
	for {
		rec, pos, err := r.Next()
		if err == io.EOF {
			return recs, lines, nil
		}
		if err != nil {
			return recs, lines, err
		}
		recs, lines = append(recs, string(rec)), append(lines, pos.Line)
	}
}

func TestTyping(t *testing.T) {
	for _, c := range []struct{ cell, typed string }{
		{"", `null`}, {"true", `true`}, {"false", `false`}, {"True", `"True"`}, {"TRUE", `"TRUE"`}, {"null", `"null"`},
		{"42", `42`}, {"-3.5", `-3.5`}, {"0", `0`}, {"0.001", `0.001`}, {"1e-7", `1e-7`}, {"1e+21", `1e+21`},
		{"12345678901234567890", `12345678901234567890`}, {"3.14159265358979323846", `3.14159265358979323846`},
		{"007", `"007"`}, {"1.50", `"1.50"`}, {"1e3", `"1e3"`}, {"-0", `"-0"`}, {"+1", `"+1"`}, {".5", `".5"`},
		{"1.", `"1."`}, {"0x1F", `"0x1F"`}, {"1_000", `"1_000"`}, {"NaN", `"NaN"`}, {"Infinity", `"Infinity"`},
		{" 42", `" 42"`}, {"42 ", `"42 "`}, {"-", `"-"`}, {"1e21", `"1e21"`}, {"0.0000001", `"0.0000001"`},
		{"say \"hi\"", `"say \"hi\""`}, {"é\tü", `"é\tü"`},
	} {
		if got := string(csvin.AppendCell(nil, c.cell, false)); got != c.typed {
			t.Errorf("cell %q: %s, want %s", c.cell, got, c.typed)
		}
		want := jsonv.AppendQuote(nil, c.cell)
		if got := string(csvin.AppendCell(nil, c.cell, true)); got != string(want) {
			t.Errorf("cell %q as a string: %s, want %s", c.cell, got, want)
		}
	}
}

func TestRecords(t *testing.T) {
	for _, c := range []struct {
		in    string
		opts  csvin.Options
		recs  []string
		lines []int
	}{
		{"id,name,ok\n1,Ada,true\n2,,false\n", csvin.Options{}, []string{`{"id":1,"name":"Ada","ok":true}`, `{"id":2,"name":null,"ok":false}`}, []int{2, 3}},
		{"id,name\r\n1,Ada\r\n", csvin.Options{}, []string{`{"id":1,"name":"Ada"}`}, []int{2}},
		// quotes, doubled quotes, a line end in a quoted field (CRLF in
		// it read as LF, encoding/csv's rule), the lines counted
		{"a,b\n\"x, y\",\"say \"\"hi\"\"\"\n\"two\r\nlines\",3\n4,5\n", csvin.Options{},
			[]string{`{"a":"x, y","b":"say \"hi\""}`, `{"a":"two\nlines","b":3}`, `{"a":4,"b":5}`}, []int{2, 3, 5}},
		{"\xEF\xBB\xBFid\n7\n", csvin.Options{}, []string{`{"id":7}`}, []int{2}},
		{"a,b\n\n1,2\n\n", csvin.Options{}, []string{`{"a":1,"b":2}`}, []int{3}},
		{"a\tb\n1\tx,y\n", csvin.Options{Comma: '\t'}, []string{`{"a":1,"b":"x,y"}`}, []int{2}},
		{"id,n\n007,\n", csvin.Options{Strings: true}, []string{`{"id":"007","n":""}`}, []int{2}},
		{"", csvin.Options{}, nil, nil},
		{"a,b\n", csvin.Options{}, nil, nil},
		{"a,b\n1,2", csvin.Options{}, []string{`{"a":1,"b":2}`}, []int{2}},
	} {
		recs, lines, err := records(t, c.in, c.opts)
		if err != nil || strings.Join(recs, " ") != strings.Join(c.recs, " ") || len(lines) != len(c.lines) {
			t.Errorf("%q: %q %v %v", c.in, recs, lines, err)
			continue
		}
		for i := range lines {
			if lines[i] != c.lines[i] {
				t.Errorf("%q: lines %v, want %v", c.in, lines, c.lines)
				break
			}
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind csvin.ErrorKind
		msg  string
		hint string
		n    int // records before the error
	}{
		{"a,b,c\n1,2,3\n4,5\n", csvin.Ragged, "3: the row has 2 cells, the header (line 1) has 3", "every row has a cell", 1},
		{"a,b\n1,2,3\n", csvin.Ragged, "2: the row has 3 cells, the header (line 1) has 2", "every row has a cell", 0},
		{"a,b\n\"x\ny\",1\n2\n", csvin.Ragged, "4: the row has 1 cell, the header (line 1) has 2", "every row has a cell", 1},
		{"a,,c\n", csvin.Header, "1:3: header cell 2 is empty: every column needs a name", "name every column", 0},
		{"a,b,a\n", csvin.Header, `1:5: header names "a" twice (cells 1 and 3)`, "give each column", 0},
		{"a,b\n1,x\"y\n", csvin.Syntax, `2:4: bare " in non-quoted-field`, "a quote within a field is doubled", 0},
		{"a,b\n1,\"x\n", csvin.Syntax, `2:6: extraneous or missing " in quoted-field`, "a quote", 0},
		// Not UTF-8 (Latin-1's ü, é): refused, not made U+FFFD. Two such
		// header names were one after that (FuzzCSV).
		{"id,city\n1,Z\xfcrich\n", csvin.Encoding, `2:3: cell 2 is not UTF-8: the byte 0xFC after "Z"`, "toonkit reads CSV and TSV in UTF-8", 0},
		{"\x9c,\xce\n,\n", csvin.Encoding, `1:1: cell 1 is not UTF-8: the byte 0x9C at its start`, "toonkit reads CSV and TSV in UTF-8", 0},
		{"a\nok\n\"caf\xe9\"\n", csvin.Encoding, `3:1: cell 1 is not UTF-8: the byte 0xE9 after "caf"`, "toonkit reads CSV and TSV in UTF-8; convert the file first", 1},
	} {
		recs, _, err := records(t, c.in, csvin.Options{})
		var e *csvin.Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v (%T), want an *Error", c.in, err, err)
			continue
		}
		if e.Kind != c.kind || err.Error() != c.msg || !strings.HasPrefix(e.Syntax.Hint, c.hint) || len(recs) != c.n {
			t.Errorf("%q:\n got kind %d %q hint %q after %d records\nwant kind %d %q hint %q after %d", c.in, e.Kind, err, e.Syntax.Hint, len(recs), c.kind, c.msg, c.hint, c.n)
		}
	}
}

// A row longer than the limit is refused before it is read whole.
func TestRowLimit(t *testing.T) {
	in := "a,b\n1,2\n\"" + strings.Repeat("x", 1<<20) // an unclosed quote
	_, _, err := records(t, in, csvin.Options{MaxSize: 1000})
	var e *csvin.Error
	if !errors.As(err, &e) || e.Kind != csvin.Limit || err.Error() != "3: the row from this line on passes the limit of 1000 bytes" {
		t.Fatalf("%v", err)
	}
	// Rows within the limit, however many, are read.
	in = "a,b\n" + strings.Repeat("1,2\n", 100000)
	recs, _, err := records(t, in, csvin.Options{MaxSize: 1000})
	if err != nil || len(recs) != 100000 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
}
