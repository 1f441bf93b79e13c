package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// What the filter reads of its input: only the paths it follows, the
// results and what is consumed (compared, built into a value) whole;
// anything not followed reads the whole input.
func TestNeedOf(t *testing.T) {
	for _, c := range []struct{ filter, want string }{
		{`.payload.status`, `{"payload":{"status":*}}`},
		{`select(.type == "work_status") | {id: .message_id, p: .payload.progress_percent}`,
			`{"message_id":*,"payload":{"progress_percent":*},"type":*}`},
		{`.[] | select(.active) | {id, name}`, `[]{"active":*,"id":*,"name":*}`},
		{`.a[].b, .c."d", .["e"]`, `{"a":[]{"b":*},"c":{"d":*},"e":*}`},
		{`[.a, .b] | length`, `{"a":*,"b":*}`},
		{`"\(.a) and \(.b.c)"`, `{"a":*,"b":{"c":*}}`},
		{`if .a then .b else .c.d end | .x`, `{"a":*,"b":{"x":*},"c":{"d":{"x":*}}}`},
		{`if .a then .b end`, `*`}, // the input itself is a result
		{`.a? // 1`, `{"a":*}`},
		{`-(.n) , (.a + .b)`, `{"a":*,"b":*,"n":*}`},
		{`.a | empty`, `{"a":*}`}, // .a reached, nothing of it read: whole
		{`.a | select(true)`, `{"a":*}`},
		{`{y: 1, z: $ENV.HOME}`, `*`}, // reads nothing of the input: whole, settled
		// read whole: forms not followed
		{`.`, `*`},
		{`.a, .`, `*`},
		{`.a[1:]`, `*`},
		{`.[.k]`, `*`},
		{`.a[.k]`, `*`}, // the index is read from the input itself
		{`(.a)[.k]`, `*`},
		{`.a[0]`, `*`}, // a numeric index: the term's input whole
		{`.a.b[1:.n]`, `*`},
		{`.a | length`, `{"a":*}`},
		{`map(.a)`, `*`},
		{`.a as $x | $x.b`, `*`},
		{`reduce .[] as $x (0; . + $x.n)`, `*`},
		{`try .a catch .`, `*`},
		{`..`, `*`},
		{`.a = 1`, `*`},
		{`{"a"}`, `*`},
		{`.a, input`, `*`},
		{`def select(f): .; select(.a) | .b`, `*`},
		{`def f: .x; .a | f`, `{"a":*}`},
		{`.a[] , .a.b`, `{"a":*}`}, // by name and by iteration: whole
	} {
		q, err := Compile(c.filter, Options{Inputs: gojq.NewIter[any]()})
		if err != nil {
			t.Fatal(err)
		}
		if got := q.need.String(); got != c.want {
			t.Errorf("%s: need %s, want %s", c.filter, got, c.want)
		}
	}
}

// needInputs are inputs of every shape the pruning decoder meets: the
// names a filter reads and those it passes over, holding every kind of
// value, nested, repeated, escaped, invalid UTF-8, big numbers, and
// values of another type where the filter expects an object.
var needInputs = []string{
	`{"type":"work_status","message_id":"m1","payload":{"status":"ok","progress_percent":42.50,"extra":[1,{"x":"\u00e9\n"}]},"skip":{"deep":[[[{}]]],"s":"a\"b\\c\ud83d\ude00"}}`,
	`{"payload":"text","type":"other","message_id":12345678901234567890}`,
	`{"payload":[1,2,3],"type":"work_status","message_id":null}`,
	`{"payload":{"status":{"nested":true},"status":"last wins"},"type":"work_status"}`,
	`{"p\u0061yload":{"st\u0061tus":"escaped names"},"type":"work_status","message_id":-0}`,
	`{"payload":{"status":"bad \xff utf-8"},"junk":"\xfe\xff","type":"work_status"}`,
	`[{"active":true,"id":1,"name":"a","email":"x","score":1.50},{"active":false,"id":2,"name":"b"},{"active":"yes","id":3,"name":{"first":"c"},"tags":[1,2]}]`,
	`[1,"two",null,[3],{"active":true}]`,
	`{"a":{"b":{"c":1,"d":2},"x":1},"b":{"c":[1]},"c":{"d":{"x":"y"}},"n":3,"e":1e400}`,
	`{"a":[{"b":1},{"b":[2]},3],"k":"a"}`,
	`{"a":{"x":{"b":1},"y":2},"k":"x"}`,
	`"a string"`, `42`, `null`, `true`, `[]`, `{}`,
	`{"a":1} {"a":2}` + "\n" + `[{"a":3}]`,
}

var needFilters = []string{
	`.payload.status`,
	`select(.type == "work_status") | {id: .message_id, p: .payload.progress_percent}`,
	`.[] | select(.active) | {id, name}`,
	`.[].active`,
	`.a.b, .a.b.c, .b.c, .c.d.x`,
	`.a[].b`,
	`.a[]?.b?`,
	`"\(.type): \(.payload.status)"`,
	`if .type == "work_status" then .payload.status else .message_id end`,
	`.e, .n + 1, -(.n), .a.x * 2`,
	`[.payload.status, .skip.s] | length`,
	`.payload | .status`,
	`{s: .payload.status, t: .type}`,
	`.a // .b`,
	`.message_id | tostring`,
	`.a[.k]`,
	`.a[.k].b?, (.a)[.k]`,
}

// runNeed runs filter over in as RunInputs does, reading only what the
// filter needs, or (whole) every value whole, on workers, and returns the
// transcript: results, runtime errors with their places, and the error
// that stopped the run.
func runNeed(t testing.TB, filter, in string, whole bool, workers int) string {
	qi := NewInputs(InputOptions{Names: []string{"in.json"}, Open: func(name string) (*Opened, error) {
		return &Opened{R: strings.NewReader(in), Name: name, Regular: true, Close: func() {}}, nil
	}})
	defer qi.Close()
	q, err := Compile(filter, Options{Inputs: qi})
	if err != nil {
		t.Fatal(err)
	}
	if whole {
		q.need = nil
	}
	var b strings.Builder
	_, err = q.RunInputs(context.Background(), qi, RunOptions{Workers: workers, Stderr: &b,
		Encode: func(e *Encoder, dst []byte, v any) []byte { return append(e.Append(dst, v), '\n') },
		Write:  func(p []byte) error { b.Write(p); return nil },
		Fail: func(err error, where func() string) error {
			fmt.Fprintf(&b, "fail %s: %s\n", where(), Message(err))
			return nil
		}})
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

// Reading only what the filter needs changes nothing it writes: the same
// results, in the same key order, the same runtime errors (with the
// values they quote) and the same input errors, on one worker and on two.
func TestNeedSameResults(t *testing.T) {
	pruned := 0
	for _, f := range needFilters {
		q, err := Compile(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if q.need != nil {
			pruned++
		}
		for _, in := range needInputs {
			for _, workers := range []int{1, 2} {
				want := runNeed(t, f, in, true, workers)
				if got := runNeed(t, f, in, false, workers); got != want {
					t.Errorf("%s on %q (%d workers):\n got %q\nwant %q", f, in, workers, got, want)
				}
			}
		}
	}
	if pruned < len(needFilters)-3 { // tostring, and the two computed indexes, read all
		t.Errorf("only %d of %d filters read part of their input", pruned, len(needFilters))
	}
}

// The pruned decoder takes and refuses what the whole one does, and a
// value cut short is short for both, at every cut of every input.
func TestNeedDecodeCuts(t *testing.T) {
	q, err := Compile(`.payload.status, .a[].b, .[].active`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := []string{`{"a":01}`, `{"x":[1,]}`, `{"x":"\q"}`, `{"x":"` + "\x01" + `"}`, `{"x":tru}`, `{"x":{"y" 1}}`, `{"x":1,}`, `{"x":"\ud83d"}`, `{"x":-}`, `{"x":1.}`, `{"x":1e}`, `[{"x":[}]`}
	for _, in := range append(bad, needInputs...) {
		for cut := 0; cut <= len(in); cut++ {
			b := []byte(in[:cut])
			whole, pruned := Decoder{}, Decoder{Need: q.need}
			_, n1, short1, err1 := whole.prefix(b, cut < len(in))
			_, n2, short2, err2 := pruned.prefix(b, cut < len(in))
			if n1 != n2 || short1 != short2 || (err1 == nil) != (err2 == nil) {
				t.Errorf("%q cut at %d: whole (%d, %v, %v), pruned (%d, %v, %v)", in, cut, n1, short1, err1, n2, short2, err2)
			}
		}
	}
}

// The pruned decoder never disagrees with the whole one on any input, for
// filters of every form the need follows.
func FuzzNeed(f *testing.F) {
	for i, in := range needInputs {
		f.Add(in, uint8(i))
	}
	f.Fuzz(func(t *testing.T, in string, fi uint8) {
		if len(in) > 4<<10 {
			return
		}
		filter := needFilters[int(fi)%len(needFilters)]
		if _, err := gojq.Parse(filter); err != nil {
			t.Fatal(err)
		}
		want := runNeed(t, filter, in, true, 1)
		if got := runNeed(t, filter, in, false, 1); got != want {
			t.Errorf("%s on %q:\n got %q\nwant %q", filter, in, got, want)
		}
	})
}

// What the filter does not read is not built.
func TestNeedPrunes(t *testing.T) {
	q, err := Compile(`.payload.status`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := Decoder{Need: q.need}
	v, err := d.Decode([]byte(needInputs[0]))
	if err != nil {
		t.Fatal(err)
	}
	var e Encoder
	if got, want := string(e.Append(nil, v)), `{"payload":{"status":"ok"}}`; got != want {
		t.Errorf("decoded %s, want %s", got, want)
	}
}
