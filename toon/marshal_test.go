//lint:file-ignore SA4026 the -0.0 literals of the corpus are positive zeros, as written

package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// viaEncode is the reference: FromJSON(json.Marshal(v)).
func viaEncode(v any, o MarshalOptions) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := FromJSON(&out, js, MarshalOptions{IndentSize: o.IndentSize, Delimiter: o.Delimiter}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// checkMarshal checks that Marshal(v) is FromJSON(json.Marshal(v)) and that
// both fail together.
func checkMarshal(t *testing.T, v any, o MarshalOptions) {
	t.Helper()
	want, werr := viaEncode(v, o)
	got, err := o.Marshal(v)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%#v: Marshal error %v, reference error %v", v, err, werr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%#v:\nMarshal:\n%s\nEncode(json.Marshal):\n%s", v, got, want)
	}
}

type mAddr struct {
	Street string `json:"street"`
	City   string `json:"city,omitempty"`
}

type mUser struct {
	ID     int64             `json:"id"`
	Name   string            `json:"name"`
	Tags   []string          `json:"tags,omitempty"`
	Addr   *mAddr            `json:"addr,omitempty"`
	Home   mAddr             `json:"home"`
	Work   mAddr             `json:"work"`
	Meta   map[string]any    `json:"meta,omitempty"`
	Born   time.Time         `json:"born"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Big    *big.Int          `json:"big,omitempty"`
	Num    json.Number       `json:"num,omitempty"`
	Bytes  []byte            `json:"bytes,omitempty"`
	IP     netip.Addr        `json:"ip"`
	Score  float32           `json:"score"`
	Str    int               `json:"str,string"`
	Labels map[string]string `json:"labels"`
	//lint:ignore U1000 skipped, as the test checks
	private int
}

type mRow struct {
	A int     `json:"a"`
	B string  `json:"b"`
	C float64 `json:"c,omitempty"`
}

type mGroup struct {
	ID  int   `json:"id"`
	Pos mAddr `json:"pos"`
}

type mPtrMarshal struct{ N int }

func (p *mPtrMarshal) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"n":%d,"list":[1,{"x":2}]}`, p.N)), nil
}

type mTextKey int

func (k mTextKey) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("k%d", int(k))), nil }

type mFailing struct{}

func (mFailing) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

type mEmbedded struct {
	mRow
	*mAddr
	Extra string `json:"extra"`
}

type mCycle struct {
	Name string  `json:"name"`
	Next *mCycle `json:"next"`
}

type mToonTag struct {
	A int    `toon:"alpha" json:"a"`
	B string `toon:"-"`
}

type mPtrText struct{ S string }

func (p *mPtrText) MarshalText() ([]byte, error) { return []byte("text:" + p.S), nil }

type mValText struct{ S string }

func (v mValText) MarshalText() ([]byte, error) { return []byte("v:" + v.S), nil }

type mHidden struct {
	Shown string `json:"shown"`
}

type mOdd struct {
	*mHidden
	BigV   big.Int           `json:"bigv"`
	PT     mPtrText          `json:"pt"`
	VT     mValText          `json:"vt"`
	PTs    []mPtrText        `json:"pts"`
	M      map[string]any    `json:"m"`
	MT     map[mValText]int  `json:"mt"`
	Arr    [2][1]int         `json:"arr"`
	I      json.Marshaler    `json:"i"`
	TM     *time.Time        `json:"tm"`
	Nested map[string][]mRow `json:"nested"`
	Keyed  map[string]mAddr  `json:"keyed,omitempty"`
	Z      [0]int            `json:"z"`
	U      uintptr           `json:"u"`
	Rows   []any             `json:"rows"`
}

type mPoint struct {
	X int     `json:"x"`
	Y float64 `json:"y"`
}

type mShape struct {
	ID   string   `json:"id"`
	P    mPoint   `json:"p"`
	Q    mPoint   `json:"q,omitempty"`
	Tags []int    `json:"tags,omitempty"`
	R    *mPoint  `json:"r,omitempty"`
	E    struct{} `json:"e,omitzero"`
}

// deepValue nests n one-element slices.
func deepValue(n int) any {
	var v any = 1
	for range n {
		v = []any{v}
	}
	return v
}

func marshalCases() []any {
	born := time.Date(2026, 11, 25, 15, 4, 5, 123000000, time.FixedZone("", 3600))
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	u := mUser{
		ID: math.MaxInt64, Name: "Ada: \"the\" first", Tags: []string{"a", "b c", "", "-x", "1.5", "true"},
		Addr: &mAddr{"1 Main St", "Paris"}, Home: mAddr{"x", "y"}, Work: mAddr{"z", ""},
		Meta: map[string]any{"b": 1.5, "a": []any{1, "x", nil}, "c": map[string]any{"d": true}},
		Born: born, Raw: json.RawMessage(`{"k": [1, 2]}`), Big: big1, Num: "12345678901234567890.5e-3",
		Bytes: []byte("hello\x00"), IP: netip.MustParseAddr("::1"), Score: 0.1, Str: 42,
		Labels: map[string]string{"z": "1", "a b": "2", "": "3"},
	}
	cyc := &mCycle{Name: "a"}
	cyc.Next = cyc
	return []any{
		nil, 1, -0.0, 1e21, 1e-7, 123456789.0, float32(3.4e38), uint64(math.MaxUint64), "", "x", "\ufeffbom", "a\xffb",
		[]float64{1e-6, 9.99e-7, 1e-5, 0.000001234, 999999999999999999999.0, 1e20, 123456789012345678, -1.5, math.SmallestNonzeroFloat64, math.MaxFloat64, -0.0},
		[]float32{1e-6, 9.99e-7, 1e20, 1e21, 0.1, -0.0, math.MaxFloat32, math.SmallestNonzeroFloat32, 16777215, 16777216, 16777217, -3, 1},
		[]float64{1, -1, 16777215, 16777216, 1 << 53, 1<<53 + 2, -123456, 0.5, 2.5},
		true, []int{}, []int{1, 2, 3}, [2]string{"a", "b"}, []any{1, "a", nil, true},
		map[string]int{}, map[string]int{"b": 2, "a": 1}, map[int]string{2: "b", 10: "a"},
		map[mTextKey]int{1: 1, 2: 2}, struct{}{}, &struct{}{}, []struct{}{{}, {}},
		u, &u, []mUser{u, {}}, []*mUser{&u, nil},
		[]mRow{{1, "x", 0}, {2, "y", 0}}, []mRow{{1, "x", 1}, {2, "y", 0}}, []*mRow{{1, "a", 2}, {3, "b,c", 4}},
		[]mGroup{{1, mAddr{"s", "c"}}, {2, mAddr{"t", "d"}}}, []mGroup{{1, mAddr{"s", ""}}, {2, mAddr{"t", "d"}}},
		map[string]mAddr{"home": {"a", "b"}, "work": {"c", "d"}}, map[string]mAddr{"home": {"a", ""}, "work": {"c", "d"}},
		struct {
			A mAddr `json:"a"`
			B mAddr `json:"b"`
		}{mAddr{"1", "2"}, mAddr{"3", "4"}},
		[]any{map[string]any{"a": 1}, map[string]any{"a": 2}}, []any{[]int{1}, []int{}, map[string]any{}},
		[][]int{{1, 2}, {}, {3}}, []any{mRow{1, "x", 0}, map[string]any{"a": 1, "b": "y"}},
		&mPtrMarshal{3}, []mPtrMarshal{{1}, {2}}, map[string]mPtrMarshal{"a": {1}},
		mFailing{}, math.NaN(), []float64{1, math.Inf(1)}, make(chan int), func() {}, complex(1, 2), cyc,
		mEmbedded{mRow: mRow{1, "a", 0}, Extra: "e"}, mEmbedded{mAddr: &mAddr{"s", "c"}},
		json.Number("1e400"), json.Number("bad"), []json.Number{"1", "2.50"},
		[]time.Time{born, {}}, map[string]any{"x": []any{map[string]any{"a": []int{}}}},
		[]any{"x", []any{}, []any{"y", []int{1}}},
		[]byte(nil), []byte{}, struct {
			P *int    `json:"p,string"`
			S string  `json:"s,string"`
			F float64 `json:"f,string"`
			B bool    `json:"b,string"`
		}{S: "a<b", F: 1.5, B: true},
		map[string]any{"a\xff": 1, "a\xfe": 2},
		mOdd{}, &mOdd{mHidden: &mHidden{"x"}, BigV: *big.NewInt(-5), PT: mPtrText{"a"}, VT: mValText{"b"},
			PTs: []mPtrText{{"c"}}, M: map[string]any{"p": &mPtrText{"d"}, "v": mPtrText{"e"}, "n": (*mPtrText)(nil)},
			MT: map[mValText]int{{"k"}: 1}, I: json.RawMessage(`[1, {"a": 2}]`), Nested: map[string][]mRow{"r": {{1, "x", 0}}},
			Keyed: map[string]mAddr{"a": {"1", "2"}, "b": {"3", "4"}}, Rows: []any{mRow{1, "a", 0}, &mRow{2, "b", 0}}},
		[]any{mRow{1, "a", 0}, mGroup{2, mAddr{"s", "c"}}}, []any{&mRow{1, "a", 0}, nil},
		deepValue(1200), deepValue(20000), selfMap(),
		map[string]mPoint{"b": {1, 2}, "a": {3, 4.5}, "c d": {}}, map[string]mPoint{"a": {1, 2}}, map[string]mPoint{"a\xff": {}, "a\xfe": {}},
		map[string]*mPoint{"a": {1, 2}, "b": {3, 4}}, map[string]*mPoint{"a": {1, 2}, "b": nil},
		map[string]mPoint{"a": {1, math.NaN()}, "b": {}},
		map[string]any{"p": map[string]mPoint{"x": {1, 2}, "y": {3, 4}}, "q": []any{map[string]mPoint{"x": {}, "y": {}}}},
		struct {
			A mPoint  `json:"a"`
			B mPoint  `json:"b"`
			C *mPoint `json:"c,omitempty"`
		}{A: mPoint{1, 2}, B: mPoint{3, 4}},
		struct {
			A mPoint  `json:"a"`
			B mPoint  `json:"b"`
			C *mPoint `json:"c,omitempty"`
		}{A: mPoint{1, 2}, B: mPoint{3, 4}, C: &mPoint{}},
		struct {
			A mPoint `json:"a"`
			B mShape `json:"b"`
		}{},
		[]mShape{{ID: "a", P: mPoint{1, 2}}, {ID: "b,c", P: mPoint{3, 4.5}, Q: mPoint{5, 6}}},
		[]mShape{{ID: "a", P: mPoint{1, 2}}, {ID: "b", P: mPoint{3, 4}}},
		[]mShape{{ID: "a", R: &mPoint{1, 2}}, {ID: "b", R: &mPoint{3, 4}}},
		[]mShape{{ID: "a", R: &mPoint{1, 2}}, {ID: "b"}},
		[]mShape{{ID: "a", Tags: []int{1}}, {ID: "b", P: mPoint{3, 4}}},
		[]mShape{{ID: "a"}, {ID: "b", Tags: []int{1}}, {ID: "c", R: &mPoint{}}},
		[]any{map[string]any{"a": map[string]any{"x": 1}}, map[string]any{"a": map[string]any{"x": 2}}},
		[]any{map[string]any{"a": map[string]any{"x": 1}}, map[string]any{"a": []any{}}},
		[]any{map[string]any{"a": json.RawMessage(`{"x":1}`)}, map[string]any{"a": map[string]any{"x": 2}}},
		[]any{map[string]any{"a": json.RawMessage(`1`)}, map[string]any{"a": 2}},
		[]struct {
			U  uint          `json:"u,string"`
			N  json.Number   `json:"n,string"`
			B  *bool         `json:"b,string"`
			F  float32       `json:"f,string"`
			T  time.Time     `json:"t,omitzero"`
			TP *time.Time    `json:"tp,omitzero"`
			Z  [2]int        `json:"z,omitzero"`
			E  []int         `json:"e,omitempty"`
			I  any           `json:"i,omitempty"`
			M  mValText      `json:"m"`
			D  time.Duration `json:"d"`
		}{{U: 7, N: "12.50", F: 1e-7, T: born, Z: [2]int{0, 1}, I: 0, D: time.Second}, {}},
	}
}

// selfMap is a map that holds itself.
func selfMap() map[string]any {
	m := map[string]any{}
	m["self"] = m
	return m
}

func TestMarshalMatchesEncode(t *testing.T) {
	for _, o := range []MarshalOptions{{}, {Delimiter: Tab, IndentSize: 4}, {Delimiter: Pipe, IndentSize: 1}} {
		for _, v := range marshalCases() {
			checkMarshal(t, v, o)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	cyc := &mCycle{Name: "a"}
	cyc.Next = cyc
	for _, c := range []struct {
		v    any
		want any
	}{
		{math.NaN(), new(*UnsupportedValueError)},
		{map[string]float64{"x": math.Inf(-1)}, new(*UnsupportedValueError)},
		{cyc, new(*UnsupportedValueError)},
		{make(chan int), new(*UnsupportedTypeError)},
		{[]any{func() {}}, new(*UnsupportedTypeError)},
		{mFailing{}, new(*MarshalerError)},
	} {
		_, err := Marshal(c.v)
		if err == nil || !errors.As(err, c.want) {
			t.Errorf("Marshal(%T): %v, want %T", c.v, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "toon: ") {
			t.Errorf("Marshal(%T): %q lacks the toon: prefix", c.v, err)
		}
	}
	var me *MarshalerError
	if _, err := Marshal(mFailing{}); !errors.As(err, &me) || me.Err.Error() != "boom" {
		t.Errorf("MarshalerError: %v", err)
	}
}

// TestMarshalToonTags checks what only the toon tag can do: Marshal is not
// then json.Marshal's.
func TestMarshalToonTags(t *testing.T) {
	got, err := Marshal(mToonTag{A: 1, B: "x"})
	if err != nil || string(got) != "alpha: 1" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestEncoder(t *testing.T) {
	var out bytes.Buffer
	enc := NewEncoder(&out)
	enc.SetOptions(MarshalOptions{Delimiter: Pipe})
	if err := enc.Encode([]mRow{{1, "a|b", 0}, {2, "c", 0}}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(math.NaN()); err == nil {
		t.Fatal("NaN: no error")
	}
	if err := enc.Encode(map[string]int{"n": 1}); err != ErrSecondDocument {
		t.Fatalf("a second document: %v, want ErrSecondDocument", err)
	}
	want := "[2|]{a|b}:\n  1|\"a|b\"\n  2|c\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestMarshalSizeHint checks that the buffer sized from the last document
// of a type does not make a small document hold a large one's memory.
func TestMarshalSizeHint(t *testing.T) {
	type wrap struct {
		Rows []mRow `json:"rows"`
	}
	big := make([]mRow, 50000)
	for _, v := range []any{big, wrap{big}, &wrap{big}} {
		if _, err := Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	small := []mRow{{1, "a", 0}}
	for _, v := range []any{small, wrap{small}, &wrap{small}} {
		out, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if cap(out) > maxSizeHint+maxSizeHint/16+64 {
			t.Errorf("%T: a %d-byte document in a buffer of %d", v, len(out), cap(out))
		}
	}
}

// TestMarshalConcurrent marshals from several goroutines at once, the
// plans of new types being made meanwhile (go test -race).
func TestMarshalConcurrent(t *testing.T) {
	type fresh struct {
		A []mRow          `json:"a"`
		B map[string]any  `json:"b"`
		C *fresh          `json:"c,omitempty"`
		D map[string]mRow `json:"d"`
	}
	v := fresh{A: []mRow{{1, "x", 0}}, B: map[string]any{"k": []any{1}}, C: &fresh{}, D: map[string]mRow{"a": {}, "b": {}}}
	want, err := viaEncode(v, MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte)
	for range 8 {
		go func() {
			out, err := Marshal(v)
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
	}
	for range 8 {
		if out := <-done; !bytes.Equal(out, want) {
			t.Errorf("got %q, want %q", out, want)
		}
	}
}

// TestMarshalIntegralFloats checks the integer path of floats against
// encoding/json for integers up to 2^54 as float64, 2^24 as float32.
func TestMarshalIntegralFloats(t *testing.T) {
	var f64 []float64
	var f32 []float32
	for i := -1 << 24; i <= 1<<24; i += 4999 {
		f64 = append(f64, float64(i))
		f32 = append(f32, float32(i))
	}
	for _, i := range []int{1<<24 - 1, 1 << 24, -(1<<24 - 1), 1, -1, 10, 100, 1000000} {
		f64 = append(f64, float64(i))
		f32 = append(f32, float32(i))
	}
	for i := int64(1 << 24); i < 1<<54; i = i*3 + 7 {
		f64 = append(f64, float64(i), -float64(i), float64(i-1), float64(i+1))
	}
	f64 = append(f64, 1<<53-1, 1<<53, 1<<53+2, 1764000000000, 1e15, 1e16)
	checkMarshal(t, f64, MarshalOptions{})
	checkMarshal(t, f32, MarshalOptions{})
}

// An Encoder writes one document: a second call writes nothing and
// returns ErrSecondDocument, and what it wrote reads back; a call that
// failed wrote nothing and leaves the stream to the next.
func TestEncoderOneDocument(t *testing.T) {
	var out bytes.Buffer
	enc := NewEncoder(&out)
	if err := enc.Encode(make(chan int)); err == nil || out.Len() != 0 {
		t.Fatalf("Encode(chan) = %v, wrote %q", err, out.String())
	}
	if err := enc.Encode(map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	first := out.String()
	if err := enc.Encode(map[string]int{"b": 2}); !errors.Is(err, ErrSecondDocument) || out.String() != first {
		t.Fatalf("second Encode = %v, stream %q; want ErrSecondDocument and %q", err, out.String(), first)
	}
	var back map[string]int
	if err := Unmarshal(out.Bytes(), &back); err != nil || back["a"] != 1 || len(back) != 1 {
		t.Fatalf("the stream reads back as %v, %v", back, err)
	}
}
