package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
)

// identity is a Style that changes nothing: it takes prettyJSON the long
// way, through the token decoder.
func identity(_ paint.Role, s string) string { return s }

// prettyBoth renders js without a Style (prettyPlain where it can) and with
// the identity Style (the decoder): the text must be the same.
func prettyBoth(t *testing.T, js []byte) {
	t.Helper()
	var fast, slow bytes.Buffer
	pf := &printer{w: &errWriter{W: &fast}}
	ps := &printer{w: &errWriter{W: &slow}, style: identity}
	errF := pf.prettyJSON("  ", js)
	errS := ps.prettyJSON("  ", js)
	pf.flush()
	ps.flush()
	if (errF == nil) != (errS == nil) || fast.String() != slow.String() {
		t.Errorf("%s:\nplain (%v):\n%s\ndecoder (%v):\n%s", js, errF, fast.String(), errS, slow.String())
	}
}

func compactJSON(t testing.TB, s string) ([]byte, bool) {
	var c jsonv.Checker
	out, err := c.Compacted(nil, []byte(s))
	return out, err == nil
}

func TestPrettyPlainSameText(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `1`, `"x"`, `null`, `{"a":1}`, `[1,2,[3,[]],{}]`,
		`{"a":{"b":{"c":[true,false,null,-1.5e3]}},"d":"é\u0000\"\\"}`,
		`{"del":"` + "\x7f" + `","c1":"` + "\u0085" + `","bidi":"` + "\u202e" + `","sep":"` + "\u2028" + `"}`,
		`{"long":"` + strings.Repeat("a", maxShownString+10) + `"}`,
		`{"` + strings.Repeat("k", maxShownString+10) + `":1}`,
		strings.Repeat("[", maxPrettyDepth+3) + strings.Repeat("]", maxPrettyDepth+3),
		strings.Repeat(`{"a":`, maxPrettyDepth) + `1` + strings.Repeat("}", maxPrettyDepth),
	} {
		js, ok := compactJSON(t, s)
		if !ok {
			t.Fatalf("not JSON: %s", s)
		}
		prettyBoth(t, js)
	}
}

func FuzzPrettyPlain(f *testing.F) {
	f.Add(`{"a":[1,{"b":"c\u2028"}],"d":{}}`)
	f.Add(`[[[[]]],"\u007f",0.5]`)
	f.Fuzz(func(t *testing.T, s string) {
		js, ok := compactJSON(t, s)
		if !ok {
			return
		}
		prettyBoth(t, js)
	})
}
