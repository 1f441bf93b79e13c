package toon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// encodeBothWays encodes doc by the one-pass table form alone and by the
// general path alone.
func encodeBothWays(t *testing.T, doc []byte, opts MarshalOptions) (fast []byte, took bool, general []byte, err error) {
	t.Helper()
	var fb, gb bytes.Buffer
	e, err := newEncoderUnchecked(&fb, doc, opts.encodeOptions())
	if err != nil {
		t.Fatal(err)
	}
	took = e.fastTable()
	if e, err = newEncoderUnchecked(&gb, doc, opts.encodeOptions()); err != nil {
		t.Fatal(err)
	}
	err = e.general()
	return fb.Bytes(), took, gb.Bytes(), err
}

// checkFastTable fails unless the one-pass form, when it takes doc, writes
// what the general path writes, and declines (writing nothing) whatever the
// general path refuses.
func checkFastTable(t *testing.T, doc []byte, opts MarshalOptions) bool {
	t.Helper()
	fast, took, general, err := encodeBothWays(t, doc, opts)
	switch {
	case !took && len(fast) > 0:
		t.Fatalf("%.300q: the one-pass form declined but wrote %.100q", doc, fast)
	case took && err != nil:
		t.Fatalf("%.300q: the one-pass form took a text the general path refuses (%v)", doc, err)
	case took && !bytes.Equal(fast, general):
		t.Fatalf("%.300q (%+v):\none-pass: %.300q\n general: %.300q", doc, opts, fast, general)
	}
	return took
}

// fastTableNumbers are number literals of every form: canonical or not,
// long, signed, with exponents.
var fastTableNumbers = []string{
	"0", "-0", "7", "-7", "10", "64.42", "59.2", "-3.25", "0.5", "-0.5", "1.50", "100.0", "1e5", "1E-7", "-2.5e+3",
	"0.000001", "0.0000001", "123456789012345678901", "1234567890123456789012", "99999999", "123456789",
	"12345678.87654321", "1.2345678901", "100000", "3.0e0",
}

// fastTableStrings are string values as JSON text: plain, with bytes that
// call for quotes, escapes, non-ASCII, and lengths around 8 bytes.
var fastTableStrings = []string{
	`"Eve Martin"`, `"eve.martin1@example.com"`, `"Alice Müller"`, `"alice.müller9@example.com"`, `""`, `" "`,
	`"a:b"`, `"a,b"`, `"a|b"`, `"x[1]"`, `"{y}"`, `"true"`, `"null"`, `"-x"`, `"#x"`, `"05"`, `"1e5"`, `"+1"`,
	`"trail "`, `" lead"`, `"tab\there"`, `"q\"d"`, `"\u0041\u00e9"`, `"\/"`, `"\ud83d\ude00"`, `"你好世界"`,
	`"🚀"`, `"1234567"`, `"12345678"`, `"123456789"`, `"abcdefg"`, `"abcdefgh"`, `"abcdefghi"`, `"é"`,
	`"ends with é"`, `"\u0000"`, `"a\u001fb"`, `"\\"`,
}

// genTable writes a root array of flat objects: mostly uniform (the same
// names in the same order) and, now and then, with one row that breaks
// the pattern in one of the ways the general path handles otherwise.
func genTable(r *rand.Rand) []byte {
	g := &docGen{r: r}
	names := g.keys(1 + r.IntN(7))
	if r.IntN(6) == 0 {
		names = []string{"id", "name", "email", "active", "score"}
	}
	value := func(dst []byte) []byte {
		switch r.IntN(6) {
		case 0:
			return append(dst, fastTableNumbers[r.IntN(len(fastTableNumbers))]...)
		case 1:
			return append(dst, fastTableStrings[r.IntN(len(fastTableStrings))]...)
		case 2:
			return fmt.Appendf(dst, "%d", r.IntN(200000))
		}
		return g.primitive(dst)
	}
	rows := 1 + r.IntN(12)
	odd := -1
	if r.IntN(3) == 0 {
		odd = r.IntN(rows)
	}
	b := []byte{'['}
	for row := range rows {
		if row > 0 {
			b = append(b, ',')
		}
		order := names
		kind := -1
		if row == odd {
			kind = r.IntN(6)
		}
		switch kind {
		case 0: // another order
			order = append([]string(nil), names...)
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		case 1: // one member fewer
			order = names[:len(names)-1]
		case 2: // one member more
			order = append(append([]string(nil), names...), "zz")
		}
		b = append(b, '{')
		for k, name := range order {
			if k > 0 {
				b = append(b, ',')
			}
			if kind == 3 && k == len(order)-1 {
				name = names[0] // a duplicate, or the same name again
			}
			if kind == 4 && k == 0 && name != "" {
				b = append(b, `"\u00`...)
				b = fmt.Appendf(b, "%02x", name[0])
				nb, _ := json.Marshal(name[1:])
				b = append(b, nb[1:]...)
				b = append(b, ':')
			} else {
				b = appendKey(b, name)
			}
			switch {
			case kind == 5 && k == 0:
				b = append(b, []string{`{"x":1}`, `[1,2]`, `{}`, `[]`}[r.IntN(4)]...)
			default:
				b = value(b)
			}
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// prettyJSON indents a compact JSON text as JSON.stringify(v, null, 2)
// does.
func prettyJSON(doc []byte) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return doc
	}
	return out.Bytes()
}

// mutateJSON changes one byte of doc, drops one, or cuts it short.
func mutateJSON(r *rand.Rand, doc []byte) []byte {
	doc = bytes.Clone(doc)
	if len(doc) == 0 {
		return doc
	}
	i := r.IntN(len(doc))
	switch r.IntN(4) {
	case 0:
		return doc[:i]
	case 1:
		return append(doc[:i], doc[i+1:]...)
	}
	doc[i] = "\"\\,: \n}]{[x0-.e\x01\xff\xc3"[r.IntN(18)]
	return doc
}

// TestFastTable checks the one-pass table form against the general path on
// generated tables, compact, pretty-printed and spaced out at random, with
// each delimiter and several indents, and on broken copies of them.
func TestFastTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	took, total := 0, 0
	for i := range 3000 {
		compact := genTable(r)
		opts := MarshalOptions{IndentSize: []int{0, 1, 2, 4}[i%4], Delimiter: []Delimiter{Comma, Tab, Pipe}[i/4%3]}
		for _, doc := range [][]byte{compact, prettyJSON(compact), []byte(spaceOutJSON(r, string(compact)))} {
			total++
			if checkFastTable(t, doc, opts) {
				took++
			}
			for range 3 {
				checkFastTable(t, mutateJSON(r, doc), opts)
			}
		}
	}
	if took < total/3 {
		t.Errorf("the one-pass form took %d of %d generated tables: too few to test it", took, total)
	}
}

// TestFastTableCases checks texts at the edges of the one-pass form: each
// is encoded as the general path does, whichever path takes it.
func TestFastTableCases(t *testing.T) {
	long := `"` + strings.Repeat("abcdefgh", 40) + `"`
	for _, doc := range []string{
		`[{"a":1}]`, ` [ { "a" : 1 } ] `, "[{\"a\":1}]\n", `[{"a":1},{"a":2}]`, `[{"a":1}] x`, `[{"a":1},]`,
		`[{"a":1}`, `[{"a":1},{"a":2}`, `[{"a":1},{"a":2,}]`, `[{"a":1},{"b":2}]`, `[{"a":1,"a":2}]`,
		`[{"a":1},{"a":2,"a":3}]`, `[{"a":1,"b":2},{"b":1,"a":2}]`, `[{}]`, `[{},{}]`, `[]`, `[1]`, `{"a":1}`,
		`[{"a":tru}]`, `[{"a":truex}]`, `[{"a":nul}]`, `[{"a":1.}]`, `[{"a":01}]`, `[{"a":-}]`, `[{"a":1e}]`,
		`[{"a":"x` + "\x01" + `"}]`, `[{"a":"\xff"}]`, "[{\"a\":\"\xed\xa0\x80\"}]", `[{"a":"\ud800"}]`,
		`[{"a":` + long + `}]`, `[{"a":1},{"a":` + long + `}]`, `[{"a":"` + strings.Repeat("é", 30) + `"}]`,
		`[{"a":1},{"a":"x"}]`, `[{"a":1,"b":[1]}]`, `[{"a":1},{"a":[1]}]`, `[{"a":1},{"a":{"b":1}}]`,
		`[{"a\"b":1}]`, `[{"a":1}, {"a":2},{"a":3} ,{"a":4}]`, `[{"a":1}` + "\t,\r\n" + `{"a":2}]`,
		`[{"a":12345678901234567890123}]`, `[{"a":-0.0000001}]`, `[{"a":1},{"a":2}]]`, `[{"a":1}][`,
		`[{"a":"x"},{"a":"y"}]`, `[{"a":"x"},{"a" :"y"}]`, `[{"a":"x"},{"a": "y"}]`,
	} {
		for _, d := range []Delimiter{Comma, Tab, Pipe} {
			checkFastTable(t, []byte(doc), MarshalOptions{Delimiter: d})
		}
	}
}

// TestEncodeTable checks the exported one-pass form: Encode's output for a
// table, nothing written and false for anything else.
func TestEncodeTable(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		took bool
	}{
		{string(prettyJSON(encodeBenchRecords(50, false))), true},
		{string(encodeBenchRecords(50, false)), true},
		{string(encodeBenchRecords(50, true)), false},
		{`[{"a":1},{"b":2}]`, false},
		{`[{"a":1},{"a":2}`, false},
		{`{"a":[{"b":1}]}`, false},
		{`[1,2]`, false},
		{``, false},
	} {
		var got, want bytes.Buffer
		took, err := encodeTable(&got, []byte(tc.doc), MarshalOptions{Delimiter: Pipe}.encodeOptions())
		if err != nil || took != tc.took {
			t.Fatalf("encodeTable(%.80q) = %v, %v; want %v", tc.doc, took, err, tc.took)
		}
		if !took {
			if got.Len() > 0 {
				t.Fatalf("encodeTable(%.80q) declined but wrote %.80q", tc.doc, got.String())
			}
			continue
		}
		if err := FromJSON(&want, []byte(tc.doc), MarshalOptions{Delimiter: Pipe}); err != nil || got.String() != want.String() {
			t.Fatalf("encodeTable(%.80q) = %.200q, Encode: %.200q, %v", tc.doc, got.String(), want.String(), err)
		}
	}
	if _, err := encodeTable(&bytes.Buffer{}, []byte(`[{"a":1}]`), MarshalOptions{Delimiter: ';'}.encodeOptions()); err == nil {
		t.Error("delimiter ';' accepted")
	}
}
