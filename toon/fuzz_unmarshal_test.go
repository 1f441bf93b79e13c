package toon

import (
	"errors"
	"reflect"
	"testing"
)

// fuzzTarget is a struct for FuzzUnmarshalStruct: most kinds, nesting, a
// map, pointers, an interface, a table of structs and a recursive type.
type fuzzTarget struct {
	A    int            `json:"a"`
	B    string         `toon:"b"`
	C    []float64      `json:"c"`
	D    map[string]any `json:"d"`
	E    *fuzzTarget    `json:"e"`
	F    []fuzzRow      `json:"f"`
	G    any            `json:"g"`
	H    [2]uint8       `json:"h"`
	I    bool           `json:"i"`
	J    *int32         `json:"j"`
	K    map[int]string `json:"k"`
	Rows []fuzzRow      `json:"rows"`
	fuzzEmbed
}

type fuzzRow struct {
	X int64   `json:"x"`
	Y string  `json:"y"`
	Z float32 `json:"z"`
}

type fuzzEmbed struct {
	Q string `json:"q"`
}

// unmarshalSeeds are inputs for the Unmarshal fuzz targets beside the
// decoder's seeds and the fixtures.
var unmarshalSeeds = []string{
	"a: 1\nb: x\nc[2]: 1.5,-2\nd:\n  k: v\ne:\n  a: 2\n  e:\n    b: y\n",
	"f[2]{x,y,z}:\n  1,a,1.5\n  2,b,-0\ng[2]: 1,x\nh[3]: 1,2,300\ni: true\nj: 2147483648\n",
	"k:\n  \"1\": a\n  x: b\nrows[1]:\n  - x: 9223372036854775808\n    y: 1\nq: emb\n",
	"A: 1\nB: 2\nE: null\nF: []\n",
	"[3]: 1,2,3\n",
	"x",
}

// unmarshalCheck decodes in into a new value of the type of mk()'s result
// with Unmarshal, with a Decoder (a chunk per line) and with the oracle
// (Decode to JSON, then encoding/json): it must not panic; the three agree
// on whether there is an error and, where there is none, on the value;
// Unmarshal and the Decoder give the same error, positions included; a
// malformed input is a *SyntaxError.
func unmarshalCheck(t *testing.T, in []byte, mode uint8, mk func() any) {
	opts := UnmarshalOptions{
		NonStrict:   mode&1 != 0,
		UseNumber:   mode&2 != 0,
		IndentSize:  int(mode>>3&3) + 1,
		MaxLineSize: 1 << 16,
	}
	got, want, viaDec := mk(), mk(), mk()
	gerr := opts.Unmarshal(in, got)
	werr := decodeToJSON(in, opts, want)
	derr := decodeChunked(string(in), opts, viaDec)
	var se *SyntaxError
	if errors.As(gerr, &se) {
		if se.Line < 1 || se.Column < 1 {
			t.Fatalf("syntax error without a position: %v", gerr)
		}
		if werr == nil {
			t.Fatalf("Unmarshal: %v; Decode accepts the input", gerr)
		}
		if !errors.As(derr, &se) {
			t.Fatalf("Unmarshal: %v; the Decoder: %v", gerr, derr)
		}
		return
	}
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("Unmarshal error %v, encoding/json's %v", gerr, werr)
	}
	if (gerr == nil) != (derr == nil) || gerr != nil && gerr.Error() != derr.Error() {
		t.Fatalf("Unmarshal error %v, the Decoder's %v", gerr, derr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("Unmarshal stored\n%#v\nencoding/json\n%#v", got, want)
	}
	if gerr == nil && !reflect.DeepEqual(got, viaDec) {
		t.Fatalf("Unmarshal stored\n%#v\nthe Decoder\n%#v", got, viaDec)
	}
}

func addUnmarshalSeeds(f *testing.F) {
	for _, s := range append(append([]string{}, unmarshalSeeds...), decSeeds...) {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	for _, in := range decFixtureInputs(f) {
		f.Add([]byte(in), uint8(0))
	}
}

// FuzzUnmarshalAny: Unmarshal into an interface agrees with Decode and
// encoding/json, and never panics.
func FuzzUnmarshalAny(f *testing.F) {
	addUnmarshalSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		unmarshalCheck(t, in, mode, func() any { return new(any) })
	})
}

// FuzzUnmarshalStruct: Unmarshal into a struct agrees with Decode and
// encoding/json, and never panics. The struct's B field is named "b" by
// its toon tag and "B" by encoding/json: either matches the other's key
// case-insensitively, so both store the same.
func FuzzUnmarshalStruct(f *testing.F) {
	addUnmarshalSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		unmarshalCheck(t, in, mode, func() any { return new(fuzzTarget) })
	})
}
