package query

import (
	"errors"
	"io/fs"
	"os"
	"testing"

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
		EachValue: func(name string, f func(any) error) error {
			if name != "f.json" {
				t.Errorf("EachValue(%q)", name)
			}
			f(1)
			return f("two")
		},
		ReadFile: func(name string) ([]byte, error) { return []byte("t\xffx"), nil },
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
// errors of EachValue pass as they are.
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
		{VarFlags{RawFile: []string{"r=nope"}, ReadFile: func(string) ([]byte, error) { return nil, notFound }},
			`--rawfile r: cannot read nope: file does not exist`, os.ErrNotExist},
		{VarFlags{SlurpFile: []string{"s=f"}, EachValue: func(string, func(any) error) error { return boom }}, "boom", boom},
	} {
		var vs Vars
		err := vs.Parse(c.flags)
		if err == nil || err.Error() != c.want || !errors.Is(err, c.is) {
			t.Errorf("%+v: %v, want %q", c.flags, err, c.want)
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
