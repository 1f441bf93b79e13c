package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// convert --to toon takes encode's bounded-memory path for one regular
// file read as JSON, and only then: every other input keeps convert's
// record semantics (an NDJSON file is an array of its lines even when it
// has one, several inputs are their records together).
func TestOneJSONFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	obj := file("obj.json", `{"a": 1}`)
	arr := file("arr.json", "\ufeff[1, 2]\r\n")
	noExt := file("data", `{"a": 1}`)
	nd := file("one.ndjson", `{"a": 1}`+"\n")
	yml := file("a.yaml", "a: 1\n")
	blank := file("blank.json", "  \n")
	toonText := file("t.json", "a: 1\n")
	sub := filepath.Join(dir, "sub.json")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct {
		inputs []string
		from   codec.Format
		want   bool
	}{
		{[]string{obj}, "", true},
		{[]string{arr}, "", true},
		{[]string{noExt}, "", true},
		{[]string{obj}, codec.JSON, true},
		{[]string{nd}, "", false},
		{[]string{obj}, codec.NDJSON, false},
		{[]string{yml}, "", false},
		{[]string{blank}, "", false},
		{[]string{toonText}, "", false},
		{[]string{obj, arr}, "", false},
		{[]string{"-"}, "", false},
		{[]string{sub}, "", false},
		{[]string{filepath.Join(dir, "missing.json")}, "", false},
	} {
		if got := oneJSONFile(&Options{Inputs: c.inputs, From: c.from, To: codec.TOON, MaxFrameSize: 64 << 20}); got != c.want {
			t.Errorf("oneJSONFile(%v, --from %q) = %v, want %v", c.inputs, c.from, got, c.want)
		}
	}
	// --duplicate-keys keeps records; --stats and --delimiter auto read
	// the document into memory: a file over --max-frame-size keeps them.
	for _, c := range []struct {
		opts Options
		want bool
	}{
		{Options{DuplicateKeys: jsonv.DuplicatesLast}, false},
		{Options{Stats: true, MaxFrameSize: 4}, false},
		{Options{TOON: TOONOptions{DelimiterName: "auto"}, MaxFrameSize: 4}, false},
		{Options{Stats: true, MaxFrameSize: 1 << 20}, true},
		{Options{MaxFrameSize: 4}, true},
	} {
		c.opts.Inputs, c.opts.To = []string{obj}, codec.TOON
		if got := oneJSONFile(&c.opts); got != c.want {
			t.Errorf("oneJSONFile(%+v) = %v, want %v", c.opts, got, c.want)
		}
	}
}
