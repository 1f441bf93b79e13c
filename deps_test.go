package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The shipped binary does not link the man-page generator: cobra/doc and
// its markdown and YAML libraries are used by scripts/gendocs alone.
func TestBinaryLinksNoDocGenerator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps .: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps . listed only %d packages:\n%s", len(deps), out)
	}
	for _, dep := range deps {
		for _, banned := range []string{
			"github.com/spf13/cobra/doc",
			"github.com/cpuguy83/go-md2man",
			"github.com/russross/blackfriday",
			"go.yaml.in/yaml",
		} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("toonkit links %s: generate docs in scripts/gendocs, not in the binary's packages", dep)
			}
		}
	}
}
