package toon

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// With toonx.EncodeOptions.Release, the encoder takes the general path and
// writes what it writes without: the calls of Release change nothing, and
// they come as the value is gone through.
func TestEncodeRelease(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	calls := 0
	for i := range 200 {
		var b strings.Builder
		genEncodeDoc(r, &b, 0, false)
		doc := []byte(spaceOutJSON(r, b.String()))
		if i%4 == 0 { // a table too, which the one-pass form would take
			doc = encodeBenchRecords(50+i, i%8 == 0)
		}
		for _, delim := range []Delimiter{Comma, Tab, Pipe} {
			opts := MarshalOptions{Delimiter: delim, IndentSize: 1 + i%4}
			var want, got bytes.Buffer
			if err := FromJSON(&want, doc, opts); err != nil {
				t.Fatal(err)
			}
			eo := opts.encodeOptions()
			eo.Release, eo.ReleaseEvery = func() { calls++ }, 64
			if err := fromJSON(&got, doc, eo); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("with Release, %q gives\n%s\nwant\n%s", doc, got.String(), want.String())
			}
		}
	}
	if calls == 0 {
		t.Fatal("Release was never called")
	}
}

// The skip index's threshold grows with the input, so that the index of a
// document of any size stays within skipIndexEntries entries; the walk
// writes the same with an index as sparse as that.
func TestSkipIndexSparse(t *testing.T) {
	if got := skipThreshold(1 << 20); got != skipIndexThreshold {
		t.Errorf("skipThreshold(1 MiB) = %d, want %d", got, skipIndexThreshold)
	}
	if got := skipThreshold(1 << 30); got != 1<<12 || (1<<30)/got > skipIndexEntries {
		t.Errorf("skipThreshold(1 GiB) = %d, want 4096", got)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 100 {
		var b strings.Builder
		genEncodeDoc(r, &b, 0, false)
		doc := []byte(spaceOutJSON(r, b.String()))
		var want bytes.Buffer
		if err := FromJSON(&want, doc, MarshalOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, threshold := range []int{1, 64, 1 << 12, 1 << 30} {
			var got bytes.Buffer
			e, err := newEncoderUnchecked(&got, doc, MarshalOptions{}.encodeOptions())
			if err != nil {
				t.Fatal(err)
			}
			v := jsonValidator{in: doc, seed: e.seed, threshold: threshold}
			if e.index, err = v.check(); err != nil {
				t.Fatal(err)
			}
			if len(e.index) > len(doc)/threshold {
				t.Fatalf("threshold %d: %d entries for %d bytes", threshold, len(e.index), len(doc))
			}
			e.root(e.ws(0))
			e.flush()
			if got.String() != want.String() {
				t.Fatalf("threshold %d: %q gives\n%s\nwant\n%s", threshold, doc, got.String(), want.String())
			}
		}
	}
}

// FuzzEncodeChanged is the two-pass encoder over a value that changes
// between its passes, as a file mapped in memory may: the walk trusts what
// the validating pass checked, so it may panic or write nonsense (the
// caller, told by Release that the file changed, throws both away), but it
// never goes on for ever: Release comes at least every ReleaseEvery/stepBytes steps,
// and here it stops the walk after a few. Unchanged, the value gives
// FromJSON's text.
func FuzzEncodeChanged(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[1,"a",true,null]`, `[{"a":1,"b":"x"},{"b":"y","a":2}]`,
		`{"m":{"a":{"v":1},"b":{"v":2}}}`, `[[1,2],[],[{}],{}]`, `[{"g":{"x":1}},{"g":{"x":2}}]`,
		string(encodeBenchRecords(3, true)), string(prettyJSON(encodeBenchRecords(3, false))),
	} {
		f.Add([]byte(s), []byte{}, uint16(0))
		f.Add([]byte(s), []byte("}"), uint16(len(s)/2))
		f.Add([]byte(s), []byte("],"), uint16(1))
	}
	f.Fuzz(func(t *testing.T, data, patch []byte, at uint16) {
		var want bytes.Buffer
		if FromJSON(&want, data, MarshalOptions{}) != nil {
			return
		}
		doc := bytes.Clone(data)
		calls := 0
		opts := MarshalOptions{}.encodeOptions()
		opts.Release = func() {
			if calls++; calls > 4 {
				panic("the walk over the changed value goes on and on")
			}
		}
		var got bytes.Buffer
		e, err := newEncoderUnchecked(&got, doc, opts)
		if err != nil {
			t.Fatal(err)
		}
		v := jsonValidator{in: e.in, seed: e.seed, release: e.release}
		if e.index, err = v.check(); err != nil {
			t.Fatal(err)
		}
		if len(doc) > 0 {
			for i, c := range patch {
				doc[(int(at)+i)%len(doc)] = c
			}
		}
		panicked := func() (p any) {
			defer func() { p = recover() }()
			e.release.reset(0)
			e.root(e.ws(0))
			e.flush()
			return nil
		}()
		if panicked == "the walk over the changed value goes on and on" {
			t.Fatalf("the walk over %q, changed to %q, does not end", data, doc)
		}
		if bytes.Equal(doc, data) && (panicked != nil || got.String() != want.String()) {
			t.Fatalf("unchanged, %q gives %q (panic %v), want %q", data, got.String(), panicked, want.String())
		}
	})
}
