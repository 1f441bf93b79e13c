package toon

import (
	"bytes"
	stdjson "encoding/json"
	"sort"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// sortedKeys reports whether every object of the JSON text js has its
// member names in the order encoding/json sorts a map's keys.
func sortedKeys(js []byte) bool {
	d := jsontext.NewDecoder(bytes.NewReader(js))
	var stack [][]string // the names of the open objects; nil for arrays
	for {
		tok, err := d.ReadToken()
		if err != nil {
			return true
		}
		switch k := tok.Kind(); {
		case k == '{':
			stack = append(stack, []string{})
		case k == '[':
			stack = append(stack, nil)
		case k == '}' || k == ']':
			if names := stack[len(stack)-1]; k == '}' && !sort.StringsAreSorted(names) {
				return false
			}
			stack = stack[:len(stack)-1]
		case k == '"':
			// A name is an odd token of its object.
			if kind, n := d.StackIndex(d.StackDepth()); kind == '{' && n%2 == 1 {
				stack[len(stack)-1] = append(stack[len(stack)-1], tok.String())
			}
		}
	}
}

// TestMarshalConformance marshals the value of each encode fixture's JSON
// (as encoding/json decodes it, numbers as json.Number) with the fixture's
// options: where every object's names are sorted in the JSON, as Marshal
// writes a map's, the document must be the fixture's expected TOON; where
// they are not, it must be Encode of json.Marshal of the value (the maps'
// keys sorted), and the test counts these cases. The decode fixtures'
// expected JSON values are marshaled likewise, against Encode.
func TestMarshalConformance(t *testing.T) {
	newest := specVersions[len(specVersions)-1]
	dir := specDir(t, newest.name, newest.dir)
	exact, unsorted, decoded := 0, 0, 0
	eachFixture(t, dir, func(category, file string, fx fixture) {
		if fx.ShouldError {
			return
		}
		js := []byte(fx.Input)
		if category == "decode" {
			js = fx.Expected
		}
		d := stdjson.NewDecoder(bytes.NewReader(js))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s/%s: %v", file, fx.Name, err)
		}
		o := MarshalOptions{IndentSize: fx.Options.IndentSize}
		if fx.Options.Delimiter != "" {
			o.Delimiter = Delimiter(fx.Options.Delimiter[0])
		}
		got, err := o.Marshal(v)
		if err != nil {
			t.Errorf("%s/%s: Marshal: %v", file, fx.Name, err)
			return
		}
		var want []byte
		switch {
		case category == "encode" && sortedKeys(js):
			var s string
			if err := stdjson.Unmarshal(fx.Expected, &s); err != nil {
				t.Fatal(err)
			}
			want = []byte(s)
			exact++
		default:
			if want, err = viaEncode(v, o); err != nil {
				t.Fatalf("%s/%s: %v", file, fx.Name, err)
			}
			if category == "encode" {
				unsorted++
			} else {
				decoded++
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s: Marshal(%s)\n got: %q\nwant: %q", file, fx.Name, js, got, want)
		}
	})
	t.Logf("Marshal conformance: %d encode fixtures compared with their TOON, %d with unsorted names compared with Encode, %d decode fixtures' values compared with Encode", exact, unsorted, decoded)
	if exact < 100 {
		t.Errorf("only %d encode fixtures compared with their TOON", exact)
	}
}
