package main

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/mod/modfile"
)

// installBlockers lists the directives of a go.mod that make
// `go install module@version` refuse the module (see `go help install`):
// replace and exclude.
func installBlockers(name string, data []byte) ([]string, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, r := range f.Replace {
		found = append(found, fmt.Sprintf("%s:%d: replace %s => %s", name, r.Syntax.Start.Line, r.Old, r.New))
	}
	for _, e := range f.Exclude {
		found = append(found, fmt.Sprintf("%s:%d: exclude %s", name, e.Syntax.Start.Line, e.Mod))
	}
	return found, nil
}

// go.mod must stay installable with `go install github.com/toonkit/toonkit@latest`:
// no replace (a patched copy of a dependency belongs upstream, not in
// third_party/) and no exclude.
func TestGoModHasNoReplaceOrExclude(t *testing.T) {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	found, err := installBlockers("go.mod", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: go install refuses a module with this directive; use the published module", f)
	}
}

// The check sees both directives, in block and single-line form.
func TestInstallBlockers(t *testing.T) {
	mod := `module example.com/m

go 1.26

require example.com/a v1.0.0

replace example.com/a => ./a

exclude (
	example.com/b v1.2.0
)
`
	found, err := installBlockers("go.mod", []byte(mod))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"go.mod:7: replace example.com/a => ./a",
		"go.mod:10: exclude example.com/b@v1.2.0",
	}
	if fmt.Sprint(found) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", found, want)
	}
}
