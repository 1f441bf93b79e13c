package toon

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

type fuzzRec struct {
	I    int               `json:"i"`
	U    uint8             `json:"u,omitempty"`
	F    float32           `json:"f"`
	S    string            `json:"s,omitempty"`
	Q    int64             `json:"q,string"`
	FS   float64           `json:"fs,string"`
	P    *fuzzRec          `json:"p,omitempty"`
	L    []fuzzRec         `json:"l"`
	M    map[string]any    `json:"m,omitempty"`
	A    any               `json:"a"`
	R    json.RawMessage   `json:"r,omitempty"`
	B    []byte            `json:"b,omitempty"`
	T    *time.Time        `json:"t,omitempty"`
	N    json.Number       `json:"n,omitempty"`
	G    fuzzGroup         `json:"g"`
	O    map[string]string `json:"o"`
	Skip int               `json:"-"`
}

type fuzzStatic struct {
	X int     `json:"x"`
	S string  `json:"s"`
	F float64 `json:"f"`
}

type fuzzStatics struct {
	A fuzzStatic            `json:"a"`
	B fuzzStatic            `json:"b"`
	M map[string]fuzzStatic `json:"m"`
	L []struct {
		I int        `json:"i"`
		G fuzzStatic `json:"g"`
	} `json:"l"`
}

type fuzzGroup struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty"`
}

// FuzzMarshal checks that Marshal of generated Go values (JSON decoded by
// encoding/json into any, with and without UseNumber, and into structs
// with most kinds of fields, tables with nested groups and keyed tables;
// raw bytes as strings, valid UTF-8 or not) is FromJSON(json.Marshal(v)),
// and that both fail together.
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[1,"a",true,null]`, `[{"a":1,"b":"x"},{"b":"y","a":2}]`,
		`{"m":{"a":{"v":1},"b":{"v":2}}}`, `[{"g":{"x":1}},{"g":{"x":2}}]`,
		`[[1,2],[],[{}],{}]`, `[{"i":1,"l":[{"i":2}],"a":{"k":[1,{"z":null}]}}]`,
		`{"x":{"i":1,"g":{"x":1,"y":"b"}},"y":{"i":2,"g":{"x":3}}}`, `"\ufeffx"`,
		`[{"i":1,"s":"a,b","q":5},{"i":2,"s":"","q":-1}]`, `{"r":{"k":[1]},"t":"2026-01-02T03:04:05Z","n":"1e400","b":"AAE="}`,
		"a\xffb", `1e21`, `-0.0`, `[{"o":{"b":"1","a":"2"}}]`,
		`{"m":{"k":{"x":1,"s":"a"},"j":{"s":"b,c"}},"l":[{"i":1,"g":{"x":2}}],"a":{"x":3}}`,
	} {
		f.Add([]byte(s), uint8(0), uint8(0))
		f.Add([]byte(s), uint8(2), uint8(1))
		f.Add([]byte(s), uint8(7), uint8(4))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode, opt uint8) {
		o := MarshalOptions{IndentSize: int(opt % 4), Delimiter: []Delimiter{0, Comma, Tab, Pipe}[opt/4%4]}
		var v any
		switch mode % 8 {
		case 0:
			if json.Unmarshal(data, &v) != nil {
				return
			}
		case 1:
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			if d.Decode(&v) != nil {
				return
			}
		case 2:
			var r []fuzzRec
			json.Unmarshal(data, &r)
			v = r
		case 3:
			var r map[string]*fuzzRec
			json.Unmarshal(data, &r)
			v = r
		case 4:
			var r fuzzRec
			json.Unmarshal(data, &r)
			v = &r
		case 5:
			v = string(data)
		case 7:
			var r fuzzStatics
			json.Unmarshal(data, &r)
			v = r
		case 6:
			v = []any{string(data), map[string]string{string(data): "v"}}
		}
		checkMarshal(t, v, o)
	})
}
