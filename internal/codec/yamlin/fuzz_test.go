package yamlin_test

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/yamlin"
)

// FuzzYAML: no input makes the reader panic or hang; what it gives is
// valid JSON (no duplicate names), or an *Error.
func FuzzYAML(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb: [x, y]\n", "- {a: 1}\n- {a: 2}\n", "a: &x 1\nb: *x\n", "--- 1\n--- 2\n",
		"base: &b {x: 1}\nd: {<<: *b, y: 2}\n", "? [1]\n: 2\n", "a: &a [*a]\n", "v: .inf\n",
		"n: 0x1F\nm: 0o17\nf: +.5\n", "b: !!binary R0lG\n", "t: !Ref x\n", "{1: a, 01: b}\n",
		"a: |\n  text\n", "'<<': 1\n", "\xEF\xBB\xBFa: 1", "a:\n  - b:\n    - c\n",
		billionLaughs(4),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := yamlin.ToJSON(in, yamlin.Options{MaxAliasNodes: 10000, MaxSize: 1 << 20})
		if err != nil {
			var e *yamlin.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is no *yamlin.Error", err, err)
			}
			return
		}
		if !jsontext.Value(out).IsValid() {
			t.Fatalf("%q gave invalid JSON %q", in, out)
		}
	})
}
