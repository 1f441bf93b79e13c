package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The shipped binary does not link the man-page generator: cobra/doc and
// its markdown libraries are used by scripts/gendocs alone. (go.yaml.in/yaml
// is linked: it reads --from yaml, internal/codec/yamlin.)
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
		} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("toonkit links %s: generate docs in scripts/gendocs, not in the binary's packages", dep)
			}
		}
	}
}

// No import runs upward: a package does not link what sits above it.
func TestNoUpwardImports(t *testing.T) {
	const mod = "github.com/toonkit/toonkit/"
	banned := map[string][]string{
		// A tool runner does not import a protocol host.
		mod + "internal/toolproc": {mod + "internal/narratoria"},
		// records reads captures through pcapsrc: without it, no gopacket.
		mod + "internal/records": {mod + "internal/capture", "github.com/gopacket/gopacket"},
	}
	args := []string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}
	for pkg := range banned {
		args = append(args, pkg)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		bans, ok := banned[f[0]]
		if !ok {
			t.Fatalf("go list printed %q", line)
		}
		seen++
		for _, dep := range f[1:] {
			for _, b := range bans {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s imports %s", strings.TrimPrefix(f[0], mod), dep)
				}
			}
		}
	}
	if seen != len(banned) {
		t.Fatalf("go list listed %d packages, want %d:\n%s", seen, len(banned), out)
	}
}

// Only cmd is the terminal's: no other package links cobra, pflag, a color
// or terminal library, or cmd itself; they take painters and io.Writers.
func TestOnlyCmdLinksTheTerminal(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./internal/...", "./toon/...", "./kado/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 30 {
		t.Fatalf("go list listed only %d packages:\n%s", len(lines), out)
	}
	for _, line := range lines {
		f := strings.Fields(line)
		for _, dep := range f[1:] {
			for _, banned := range []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/fatih/color", "github.com/mattn/go-isatty", "github.com/toonkit/toonkit/cmd"} {
				if dep == banned || strings.HasPrefix(dep, banned+"/") {
					t.Errorf("%s links %s: only cmd may", f[0], dep)
				}
			}
		}
	}
}
