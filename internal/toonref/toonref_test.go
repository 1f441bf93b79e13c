package toonref

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The pinned version is one in three places: Version, package.json and the
// lock file that npm ci installs from.
func TestVersionPinned(t *testing.T) {
	dir, err := lockDir()
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for name, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if got := pkg.Dependencies["@toon-format/toon"]; got != Version {
		t.Errorf("package.json pins @toon-format/toon %q, Version is %q", got, Version)
	}
	if got := lock.Packages["node_modules/@toon-format/toon"].Version; got != Version {
		t.Errorf("package-lock.json has @toon-format/toon %q, Version is %q", got, Version)
	}
	if got := pkg.Dependencies["@toon-format/cli"]; got != CLIVersion {
		t.Errorf("package.json pins @toon-format/cli %q, CLIVersion is %q", got, CLIVersion)
	}
	if got := lock.Packages["node_modules/@toon-format/cli"].Version; got != CLIVersion {
		t.Errorf("package-lock.json has @toon-format/cli %q, CLIVersion is %q", got, CLIVersion)
	}
}

// CLI is the pinned reference CLI, and it runs.
func TestCLI(t *testing.T) {
	out, err := exec.Command(CLI(t), "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), CLIVersion) {
		t.Errorf("toon --version: %v: %q, want %s", err, out, CLIVersion)
	}
}

// Run gives a script the installed library, at the pinned version.
func TestRun(t *testing.T) {
	out := Run(t, `
const toon = require(require.resolve("@toon-format/toon", {paths: [process.argv[1]]}));
const pkg = JSON.parse(require("fs").readFileSync(require("path").join(process.argv[1], "node_modules", "@toon-format", "toon", "package.json"), "utf8"));
process.stdout.write(JSON.stringify({v: pkg.version, t: toon.encode({a: [1, 2]})}));
`, nil)
	var got struct{ V, T string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.V != Version || got.T != "a[2]: 1,2" {
		t.Errorf("got %+v, want version %s and a[2]: 1,2", got, Version)
	}
}
