package toon

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/pyjson"
)

// nonFiniteDoc holds Python's non-finite floats in every place a value
// may stand (table cells, inline arrays, keyed tables, list items, fields,
// nested groups), and "NaN" as a string, which stays one; nonFiniteNull is
// the same document with null for them, and nonFiniteCount their number.
const (
	nonFiniteDoc = `{"rows": [{"id": 1, "score": NaN, "g": {"v": -Infinity}}, {"id": 2, "score": Infinity, "g": {"v": 0.5}}],` +
		` "list": [NaN, 1, -Infinity], "keyed": {"a": {"v": Infinity}, "b": {"v": 2}},` +
		` "items": [{"x": [NaN]}, {"y": -Infinity}, NaN], "name": "NaN", "plain": -Infinity}`
	nonFiniteNull = `{"rows": [{"id": 1, "score": null, "g": {"v": null}}, {"id": 2, "score": null, "g": {"v": 0.5}}],` +
		` "list": [null, 1, null], "keyed": {"a": {"v": null}, "b": {"v": 2}},` +
		` "items": [{"x": [null]}, {"y": null}, null], "name": "NaN", "plain": null}`
	nonFiniteCount = 10

	// A table of primitives: the one-pass form.
	nonFiniteTable     = `[{"id": 1, "x": NaN, "y": -Infinity}, {"id": 2, "x": Infinity, "y": 3.5}, {"id": 3, "x": 1e300, "y": NaN}]`
	nonFiniteTableNull = `[{"id": 1, "x": null, "y": null}, {"id": 2, "x": null, "y": 3.5}, {"id": 3, "x": 1e300, "y": null}]`
)

// encodeCounting encodes doc and returns the TOON text and the count told
// to encodeOptions.NonFinite (-1 when it was not called).
func encodeCounting(t *testing.T, doc []byte, opts encodeOptions) (string, int, error) {
	t.Helper()
	n := -1
	opts.NonFinite = func(count int) {
		if n != -1 {
			t.Fatal("NonFinite called twice")
		}
		n = count
	}
	var out bytes.Buffer
	err := fromJSON(&out, doc, opts)
	return out.String(), n, err
}

// JSON as Python writes it by default (json.dumps, allow_nan=True), in
// each of the layouts Python services use: NaN, Infinity and -Infinity are
// written as null (§3) and counted, and the document is the TOON of the
// same document with null in their place: tables stay tables.
func TestEncodePythonNonFinite(t *testing.T) {
	for _, c := range []struct {
		doc, null string
		n         int
	}{{nonFiniteDoc, nonFiniteNull, nonFiniteCount}, {nonFiniteTable, nonFiniteTableNull, 4}} {
		var want bytes.Buffer
		if err := fromJSON(&want, []byte(c.null), encodeOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, style := range pyjson.Styles {
			py := pyjson.Dumps(t, []byte(c.doc), style.Flags...)
			if !bytes.Contains(py, []byte("NaN")) {
				t.Fatalf("python3 wrote no NaN: %s", py)
			}
			for _, d := range []Delimiter{Comma, Pipe} {
				got, n, err := encodeCounting(t, py, encodeOptions{Delimiter: byte(d)})
				var wantD bytes.Buffer
				fromJSON(&wantD, []byte(c.null), encodeOptions{Delimiter: byte(d)})
				if err != nil || got != wantD.String() || n != c.n {
					t.Errorf("%s, %s: %q, %d non-finite, %v; want\n%s\nand %d", style.Name, d, got, n, err, wantD.String(), c.n)
				}
			}
			checkFastTable(t, py, MarshalOptions{})
		}
	}

	// The table takes the one-pass form, and EncodeTable takes it too.
	py := pyjson.Dumps(t, []byte(nonFiniteTable))
	if _, took, _, _ := encodeBothWays(t, py, MarshalOptions{}); !took {
		t.Error("the one-pass form declined a table with NaN cells")
	}
	n := 0
	var out bytes.Buffer
	took, err := encodeTable(&out, py, encodeOptions{NonFinite: func(c int) { n = c }})
	if !took || err != nil || n != 4 || !strings.HasPrefix(out.String(), "[3]{id,x,y}:\n  1,null,null\n") {
		t.Errorf("EncodeTable: %v, %v, %d: %q", took, err, n, out.String())
	}

	// A document without them: NonFinite is not called.
	if _, n, err := encodeCounting(t, []byte(nonFiniteNull), encodeOptions{}); n != -1 || err != nil {
		t.Errorf("no non-finite numbers: NonFinite told %d (%v)", n, err)
	}
	// The option is optional.
	if err := fromJSON(&out, []byte(nonFiniteDoc), encodeOptions{}); err != nil {
		t.Error(err)
	}
}

// Only the tokens json.loads reads, where a value may stand: any other
// spelling or place is the error it was, at the same byte, and nothing is
// written or told.
func TestEncodeNonFiniteStrict(t *testing.T) {
	for in, want := range map[string]string{
		`[nan]`:                            `at byte 1: unexpected character 'n' (want a value)`,
		`[inf]`:                            `at byte 1: unexpected character 'i' (want a value)`,
		`[+Infinity]`:                      `at byte 1: unexpected character '+' (want a value)`,
		`[-NaN]`:                           `at byte 2: unexpected character 'N' (want a value)`,
		`[-Inf]`:                           `at byte 2: unexpected character 'I' (want a value)`,
		`[Infinit]`:                        `at byte 1: unexpected character 'I' (want a value)`,
		`[NaNx]`:                           `at byte 4: unexpected character 'x' after an array element (want ',' or ']')`,
		`[NaN NaN]`:                        `at byte 5: unexpected character 'N' after an array element (want ',' or ']')`,
		`{"a":1,NaN:2}`:                    `at byte 7: unexpected character 'N' (want a member name)`,
		`{"a": NaN, "b": tru}`:             `at byte 16: unexpected character 't' (want a value)`,
		`[{"a": NaN}, {"a": NaN, "a": 1}]`: `at byte 24: duplicate member name "a"`,
	} {
		got, n, err := encodeCounting(t, []byte(in), encodeOptions{})
		if err == nil || !strings.HasSuffix(err.Error(), want) || got != "" || n != -1 {
			t.Errorf("%s: %q, %d, %v; want the error %q", in, got, n, err, want)
		}
		checkFastTable(t, []byte(in), MarshalOptions{})
	}
}

// Marshal keeps encoding/json's rule: a json.Marshaler that writes NaN
// is an error, not null.
func TestMarshalerNonFinite(t *testing.T) {
	if _, err := Marshal(nanMarshaler(`{"x": NaN}`)); err == nil {
		t.Error("Marshal took a json.Marshaler's NaN")
	}
}

type nanMarshaler string

func (r nanMarshaler) MarshalJSON() ([]byte, error) { return []byte(r), nil }
