package stats_test

import (
	"io"
	"testing"

	"github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/tokens"
)

func counts(t *testing.T, text string) tokens.Counts {
	t.Helper()
	c, err := tokens.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, text)
	n, err := c.Counts()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A Flow counts the records as one compact JSON array (none: "[]"), or
// one document, and the output as written.
func TestFlow(t *testing.T) {
	for _, c := range []struct {
		name    string
		feed    func(f *stats.Flow)
		in, out string
	}{
		{"records", func(f *stats.Flow) { f.Record([]byte(`{"a":1}`)); f.Record([]byte(`"x y"`)) }, `[{"a":1},"x y"]`, "a: 1\n"},
		{"none", func(*stats.Flow) {}, `[]`, ""},
		{"document", func(f *stats.Flow) { f.Document([]byte(`{"users":[1,2]}`)) }, `{"users":[1,2]}`, "users[2]: 1,2"},
	} {
		f, err := stats.NewFlow("o200k_base")
		if err != nil {
			t.Fatal(err)
		}
		c.feed(f)
		io.WriteString(f.Out(), c.out)
		given := "[\n  " + c.in + "\n]\n" // the input as it was given: indented, say
		io.WriteString(f.Given(), given)
		in, out, err := f.Counts()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := f.GivenCounts(); err != nil || got != counts(t, given) {
			t.Errorf("%s: given %+v, %v, want %+v", c.name, got, err, counts(t, given))
		}
		if want := counts(t, c.in); in != want {
			t.Errorf("%s: input %+v, want %+v (of %s)", c.name, in, want, c.in)
		}
		if want := counts(t, c.out); out != want {
			t.Errorf("%s: output %+v, want %+v", c.name, out, want)
		}
	}
	if _, err := stats.NewFlow("nope"); err == nil {
		t.Error("NewFlow of an unknown tokenizer: no error")
	}
}
