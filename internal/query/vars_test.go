package query

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/records"

	"github.com/google/go-cmp/cmp"
)

// Parse takes jq's flags in jq's order, the last value of a name winning,
// and $ARGS holding them all.
func TestVarsParse(t *testing.T) {
	var vs Vars
	err := vs.Parse(VarFlags{
		Arg: []string{"a=x=y", "b=1"}, ArgJSON: []string{"b=2", "j={\"k\":[1]}"},
		SlurpFile: []string{"s=f.json"}, RawFile: []string{"r=f.txt"},
		Positional: []string{"s:one", "j:2"},
		Open: func(name string) (*Opened, error) {
			if name != "f.json" {
				t.Errorf("Open(%q)", name)
			}
			return &Opened{R: strings.NewReader("1 \"two\""), Name: name, Close: func() {}}, nil
		},
		OpenFile: func(name string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("t\xffx")), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	names, values := vs.Bind()
	var enc Encoder
	var got []string
	for i, n := range names {
		got = append(got, n+" "+string(enc.Append(nil, values[i])))
	}
	want := []string{`$a "x=y"`, `$b 2`, `$j {"k":[1]}`, `$s [1,"two"]`, `$r "t` + "\uFFFD" + `x"`,
		`$ARGS {"named":{"a":"x=y","b":2,"j":{"k":[1]},"r":"t` + "\uFFFD" + `x","s":[1,"two"]},"positional":["one",2]}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A flag that cannot be taken is a *VarError, with jq-like text; the
// errors of Open pass as they are, and a file of --slurpfile that is not
// JSON values is a *records.Error with its place.
func TestVarsParseErrors(t *testing.T) {
	boom := errors.New("boom")
	notFound := &fs.PathError{Op: "open", Path: "nope", Err: os.ErrNotExist}
	for _, c := range []struct {
		flags VarFlags
		want  string
		is    error
	}{
		{VarFlags{Arg: []string{"x"}}, `--arg "x": a name and a value are needed`, ErrNoName},
		{VarFlags{RawFile: []string{"=f"}}, `--rawfile "=f": a name and a value are needed`, ErrNoName},
		{VarFlags{ArgJSON: []string{"x={"}}, `--argjson x: not a JSON value: {`, ErrNotJSON},
		{VarFlags{Positional: []string{"j:[1"}}, `--jsonargs: not a JSON value: [1`, ErrNotJSON},
		{VarFlags{RawFile: []string{"r=nope"}, OpenFile: func(string) (io.ReadCloser, error) { return nil, notFound }},
			`--rawfile r: cannot read nope: file does not exist`, os.ErrNotExist},
		{VarFlags{SlurpFile: []string{"s=f"}, Open: func(string) (*Opened, error) { return nil, boom }}, "boom", boom},
		// the text of --rawfile counts against MaxSize
		{VarFlags{RawFile: []string{"r=big.txt"}, MaxSize: 4, OpenFile: func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("12345")), nil }},
			`--rawfile r: big.txt: the text passes the limit of 4 bytes`, nil},
	} {
		var vs Vars
		err := vs.Parse(c.flags)
		if err == nil || err.Error() != c.want || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%+v: %v, want %q", c.flags, err, c.want)
		}
	}
	for text, want := range map[string]string{"1 [2,": "f.json:1:6: unexpected end of input", "1 [2,3] 4": "f.json: 1:3: a JSON value passes the limit"} {
		var vs Vars
		err := vs.Parse(VarFlags{SlurpFile: []string{"s=f"}, Open: opened(text), MaxSize: 4})
		var re *records.Error
		if !errors.As(err, &re) || re.Kind != records.BadJSON || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("--slurpfile of %q: %v, want a BadJSON *records.Error %q", text, err, want)
		}
	}
}

// Syntax gives the line and column (in characters) of the place, and the
// caret under it in the filter's line (8 characters in).
func TestCompileErrorSyntax(t *testing.T) {
	_, err := Compile(".a |\n  \"é\" | nosuch(1)", Options{})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatal(err)
	}
	se := ce.Syntax()
	if se.Pos.Line != 2 || se.Pos.Column != 9 || se.Excerpt != `  "é" | nosuch(1)` || se.Caret != 8 {
		t.Errorf("%v %q caret %d, want line 2, column 9, the second line, caret 8", se.Pos, se.Excerpt, se.Caret)
	}
}

// opened is an Open of a file f.json that holds text.
func opened(text string) func(string) (*Opened, error) {
	return func(string) (*Opened, error) {
		return &Opened{R: strings.NewReader(text), Name: "f.json", Close: func() {}}, nil
	}
}
