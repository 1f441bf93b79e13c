package toon

import (
	stdjson "encoding/json"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// rtValue is a generated Go value for the differential round trip: most
// kinds, tags, omitempty, nesting and slices of structs (tables).
type rtValue struct {
	ID      int64              `json:"id"`
	U       uint64             `json:"u"`
	Name    string             `toon:"name" json:"name"`
	Opt     string             `json:"opt,omitempty"`
	F       float64            `json:"f"`
	F32     float32            `json:"f32"`
	OK      bool               `json:"ok"`
	Tags    []string           `json:"tags"`
	Rows    []rtRow            `json:"rows"`
	PRow    *rtRow             `json:"prow,omitempty"`
	M       map[string]int16   `json:"m"`
	IM      map[int32]string   `json:"im"`
	Arr     [2]int8            `json:"arr"`
	Nested  [][]uint16         `json:"nested"`
	Bytes   []byte             `json:"bytes"`
	Any     any                `json:"any"`
	When    time.Time          `json:"when"`
	Num     stdjson.Number     `json:"num"`
	Skipped string             `json:"-"`
	Deep    map[string][]rtRow `json:"deep"`
	Big     *big.Int           `json:"big"`
}

type rtRow struct {
	A int     `json:"a"`
	B string  `json:"b"`
	C float64 `json:"c,omitempty"`
}

// randAny is a value as encoding/json decodes into an interface.
func randAny(r *rand.Rand, depth int) any {
	k := r.IntN(7)
	if depth > 3 {
		k = r.IntN(4)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return float64(r.IntN(1<<20)) / 8
	case 3:
		return []string{"", "x", "a,b", "- y", "true", "12", " pad ", "é\n\"q\""}[r.IntN(8)]
	case 4, 5:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randAny(r, depth+1)
		}
		return a
	}
	m := map[string]any{}
	for range r.IntN(4) {
		m[[]string{"k", "key two", "a[1]", "#x", "", "n"}[r.IntN(6)]] = randAny(r, depth+1)
	}
	return m
}

func randString(r *rand.Rand) string {
	return []string{"", "x", "a,b", "- y", "true", "12", " pad ", "é\n\"q\"", "null", "x|y\tz", "[3]: q", "\x01\u2028"}[r.IntN(12)]
}

func randRow(r *rand.Rand) rtRow {
	return rtRow{A: r.IntN(2000) - 1000, B: randString(r), C: float64(r.IntN(100)) / 4}
}

func randRows(r *rand.Rand) []rtRow {
	if r.IntN(4) == 0 {
		return nil
	}
	rows := make([]rtRow, r.IntN(4))
	for i := range rows {
		rows[i] = randRow(r)
	}
	return rows
}

// randValue is a generated rtValue.
func randValue(r *rand.Rand) rtValue {
	x := rtValue{
		ID:   r.Int64() - r.Int64(),
		U:    r.Uint64(),
		Name: randString(r),
		Opt:  randString(r),
		F:    r.NormFloat64() * 1e6,
		F32:  float32(r.NormFloat64()),
		OK:   r.IntN(2) == 0,
		Rows: randRows(r),
		Arr:  [2]int8{int8(r.IntN(256) - 128), int8(r.IntN(256) - 128)},
		Any:  randAny(r, 0),
		When: time.Unix(r.Int64N(1<<33), r.Int64N(1e9)).In(time.FixedZone("", 3600*(r.IntN(25)-12))),
		Big:  new(big.Int).Exp(big.NewInt(int64(r.IntN(1000)-500)), big.NewInt(int64(r.IntN(14))), nil),
		Num:  stdjson.Number([]string{"0", "-1.5", "12345678901234567890123", "1e-7"}[r.IntN(4)]),
	}
	for range r.IntN(4) {
		x.Tags = append(x.Tags, randString(r))
	}
	if r.IntN(2) == 0 {
		row := randRow(r)
		x.PRow = &row
	}
	if r.IntN(3) > 0 {
		x.M = map[string]int16{}
		for range r.IntN(4) {
			x.M[randString(r)] = int16(r.IntN(1 << 16))
		}
		x.IM = map[int32]string{int32(r.Int32()): randString(r)}
		x.Deep = map[string][]rtRow{"t": randRows(r)}
	}
	for range r.IntN(3) {
		row := make([]uint16, r.IntN(3))
		for j := range row {
			row[j] = uint16(r.IntN(1 << 16))
		}
		x.Nested = append(x.Nested, row)
	}
	if r.IntN(2) == 0 {
		x.Bytes = []byte(randString(r))
	}
	return x
}

// TestUnmarshalMarshalMatchesJSON: for generated values v,
// Unmarshal(Marshal(v)) stores what json.Unmarshal(json.Marshal(v)) does,
// into the value's type and into an interface.
func TestUnmarshalMarshalMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		x := randValue(r)
		doc, err := Marshal(x)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", x, err)
		}
		js, err := stdjson.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		var got, want rtValue
		if err := Unmarshal(doc, &got); err != nil {
			t.Fatalf("Unmarshal(%s): %v", doc, err)
		}
		if err := stdjson.Unmarshal(js, &want); err != nil {
			t.Fatal(err)
		}
		// TOON writes numbers in the canonical form of §2, the value
		// kept: 1.5 for 1.50; Unmarshal gives integers in plain digits.
		want.Num = stdjson.Number(plainInteger(AppendNumber(nil, []byte(want.Num))))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("value %d:\nTOON %s\n got: %+v\nwant: %+v", i, doc, got, want)
		}
		var gotAny, wantAny any
		if err := Unmarshal(doc, &gotAny); err != nil {
			t.Fatal(err)
		}
		if err := stdjson.Unmarshal(js, &wantAny); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotAny, wantAny) {
			t.Fatalf("value %d into any:\nTOON %s\n got: %#v\nwant: %#v", i, doc, gotAny, wantAny)
		}
	}
}
