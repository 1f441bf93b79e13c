package toon

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

type fEmbedA struct {
	A int
	B int `json:"bee"`
	C int
}

type fEmbedB struct {
	A int
	C int `json:"C"`
	D int
}

type fembedLower struct {
	X int
	//lint:ignore U1000 skipped, as the test checks
	y int
}

type fEmbedPtr struct {
	P int `json:"p"`
}

type fDeep struct{ fEmbedA }

//lint:ignore U1000 embedded, skipped, as the test checks
type fIntAlias int

type fRules struct {
	Plain   int
	Tagged  int `json:"tagged"`
	Skipped int `json:"-"`
	//lint:ignore SA5008 the tag under test
	Dash int    `json:"-,"`
	Omit string `json:"omit,omitempty"`
	//lint:ignore SA5008 the tag under test
	Bad         int `json:"bad\"name"`
	NoName      int `json:",omitempty"`
	Str         int `json:"str,string"`
	unexp       int
	fEmbedA     // promoted; A and C collide with fEmbedB
	fEmbedB     //
	fembedLower // unexported type, exported fields promoted
	*fEmbedPtr  // pointer embedding
	fDeep       // deeper: loses to the shallower names
	//lint:ignore U1000 skipped, as the test checks
	fIntAlias         // unexported non-struct: skipped
	Named     fEmbedA `json:"named"` // a tagged embedded-like field stays whole
}

type fToon struct {
	A int `toon:"alpha" json:"a"`
	B int `toon:"-" json:"b"`
	C int `json:"c,omitempty"`
	D int `toon:",omitempty" json:"dee"`
	E int `toon:"-,"`
	F int `toon:"" json:"eff"`
}

type fPtrCycle struct {
	Next *fPtrCycle `json:"next"`
	V    int
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for _, f := range cachedFields(t).list {
		names = append(names, f.name)
	}
	return names
}

// jsonKeys returns the member names encoding/json writes for v, in order.
func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, _ := d.Token(); tok != json.Delim('{') {
		t.Fatalf("%s: not an object", b)
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestFieldsMatchEncodingJSON checks the field resolution against the
// member names encoding/json writes, for types that only have json tags.
func TestFieldsMatchEncodingJSON(t *testing.T) {
	v := fRules{Plain: 1, Tagged: 1, Skipped: 1, Dash: 1, Omit: "x", Bad: 1, NoName: 1, Str: 1, unexp: 1, fEmbedPtr: &fEmbedPtr{1}}
	got := fieldNames(reflect.TypeFor[fRules]())
	want := jsonKeys(t, v)
	if !slices.Equal(got, want) {
		t.Errorf("fields %q, encoding/json writes %q", got, want)
	}
	wantList := []string{"Plain", "tagged", "-", "omit", "Bad", "NoName", "str", "bee", "C", "D", "X", "p", "named"}
	if !slices.Equal(got, wantList) {
		t.Errorf("fields %q, want %q", got, wantList)
	}
	for _, typ := range []any{fDeep{}, fPtrCycle{}, fEmbedA{}, struct{}{}} {
		if got, want := fieldNames(reflect.TypeOf(typ)), jsonKeys(t, typ); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%T: fields %q, encoding/json writes %q", typ, got, want)
		}
	}
}

func TestFieldsOptions(t *testing.T) {
	fs := cachedFields(reflect.TypeFor[fRules]())
	get := func(name string) field {
		f, ok := fs.lookup([]byte(name))
		if !ok {
			t.Fatalf("no field %q", name)
		}
		return *f
	}
	if f := get("omit"); !f.omitEmpty || f.tagged != true {
		t.Errorf("omit: %+v", f)
	}
	if f := get("NoName"); !f.omitEmpty || f.tagged {
		t.Errorf("NoName: %+v", f)
	}
	if f := get("str"); !f.quoted {
		t.Errorf("str: not quoted")
	}
	if f := get("p"); !slices.Equal(f.index, []int{12, 0}) {
		t.Errorf("p: index %v", f.index)
	}
	// Case-insensitive lookup, exact name first.
	if f := get("PLAIN"); f.name != "Plain" {
		t.Errorf("PLAIN found %q", f.name)
	}
	if _, ok := fs.lookup([]byte("A")); ok {
		t.Errorf("A: the colliding name was kept")
	}
	if _, ok := fs.lookup([]byte("unexp")); ok {
		t.Errorf("unexported field found")
	}
}

func TestFieldsToonTag(t *testing.T) {
	got := fieldNames(reflect.TypeFor[fToon]())
	want := []string{"alpha", "c", "D", "-", "F"}
	if !slices.Equal(got, want) {
		t.Errorf("fields %q, want %q", got, want)
	}
	fs := cachedFields(reflect.TypeFor[fToon]())
	if f, _ := fs.lookup([]byte("D")); !f.omitEmpty {
		t.Errorf("D: the toon tag's omitempty was lost")
	}
	if f, _ := fs.lookup([]byte("c")); !f.omitEmpty {
		t.Errorf("c: the json tag's omitempty was lost")
	}
}

func TestFieldByIndex(t *testing.T) {
	fs := cachedFields(reflect.TypeFor[fRules]())
	f, _ := fs.lookup([]byte("p"))
	v := reflect.ValueOf(fRules{})
	if _, ok := fieldByIndex(v, f.index); ok {
		t.Errorf("nil embedded pointer: ok")
	}
	v = reflect.ValueOf(fRules{fEmbedPtr: &fEmbedPtr{7}})
	if fv, ok := fieldByIndex(v, f.index); !ok || fv.Int() != 7 {
		t.Errorf("embedded pointer: %v %v", fv, ok)
	}
}

func TestFieldsOmitZero(t *testing.T) {
	type z struct {
		T time.Time `json:"t,omitzero"`
		N int       `json:"n,omitzero"`
	}
	fs := cachedFields(reflect.TypeFor[z]())
	v := reflect.ValueOf(z{})
	for _, f := range fs.list {
		if !f.isZero(v.Field(f.index[0])) {
			t.Errorf("%s: zero value not zero", f.name)
		}
	}
	v = reflect.ValueOf(z{T: time.Unix(1, 0), N: 1})
	for _, f := range fs.list {
		if f.isZero(v.Field(f.index[0])) {
			t.Errorf("%s: non-zero value is zero", f.name)
		}
	}
}
