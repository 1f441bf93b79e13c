package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

// changelogSections returns the sections of CHANGELOG.md by name (the
// first word of a "## " heading), each from its heading to the next one
// without trailing blank lines, and the names in file order.
func changelogSections(t *testing.T) (map[string]string, []string) {
	t.Helper()
	b, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	var order []string
	parts := regexp.MustCompile(`(?m)^## `).Split(string(b), -1)
	for _, p := range parts[1:] {
		name, _, _ := strings.Cut(p, " ")
		name, _, _ = strings.Cut(name, "\n")
		if _, dup := sections[name]; dup {
			t.Errorf("CHANGELOG.md has two sections %q", name)
		}
		sections[name] = "## " + strings.TrimRight(p, "\n") + "\n"
		order = append(order, name)
	}
	return sections, order
}

// CHANGELOG.md has a section for every release tag, newest first, and one
// for the commit being built: its tag's, or "Unreleased" when it is not
// tagged.
func TestChangelogCoversEveryVersion(t *testing.T) {
	sections, order := changelogSections(t)
	if _, ok := sections["v0.1.0"]; !ok {
		t.Error("CHANGELOG.md has no section for v0.1.0")
	}
	var versions []string
	for _, name := range order {
		switch {
		case name == "Unreleased":
			if len(versions) > 0 {
				t.Errorf("the Unreleased section comes after %s; it goes first", versions[len(versions)-1])
			}
		case semver.IsValid(name) && semver.Canonical(name) == name:
			if n := len(versions); n > 0 && semver.Compare(versions[n-1], name) <= 0 {
				t.Errorf("CHANGELOG.md lists %s after %s: newest first", name, versions[n-1])
			}
			versions = append(versions, name)
		default:
			t.Errorf("CHANGELOG.md section %q is neither Unreleased nor a version vMAJOR.MINOR.PATCH", name)
		}
	}
	out, err := exec.Command("git", "tag", "--list", "v*").Output()
	if err != nil {
		t.Fatalf("git tag: %v", err)
	}
	for _, tag := range strings.Fields(string(out)) {
		if _, ok := sections[tag]; !ok {
			t.Errorf("tag %s has no section in CHANGELOG.md", tag)
		}
	}
	current := "Unreleased"
	if out, err := exec.Command("git", "describe", "--tags", "--exact-match", "HEAD").Output(); err == nil {
		current = strings.TrimSpace(string(out))
	}
	if _, ok := sections[current]; !ok {
		t.Errorf("CHANGELOG.md has no section %q for the commit being built", current)
	}
}

// make release-notes prints the section of the release asked for, exactly.
func TestReleaseNotes(t *testing.T) {
	sections, order := changelogSections(t)
	for _, name := range order {
		out, err := makeCmd("-s", "release-notes", "RELEASE="+name).CombinedOutput()
		if err != nil {
			t.Fatalf("make release-notes RELEASE=%s: %v\n%s", name, err, out)
		}
		if string(out) != sections[name] {
			t.Errorf("make release-notes RELEASE=%s printed:\n%s\nwant:\n%s", name, out, sections[name])
		}
	}
	out, err := makeCmd("-s", "release-notes", "RELEASE=v0.0.0-none").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `release-notes: CHANGELOG.md has no section "## v0.0.0-none"`) {
		t.Errorf("make release-notes of a version without a section: %v\n%s", err, out)
	}
}

// The docs name only releases that exist: every vX.Y.Z in README.md and
// under docs/ is a released version of CHANGELOG.md (a snippet that needs
// what no release has names main).
func TestDocsNameReleases(t *testing.T) {
	sections, _ := changelogSections(t)
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`\bv\d+\.\d+\.\d+\b`)
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, v := range version.FindAllString(line, -1) {
				if _, ok := sections[v]; !ok {
					t.Errorf("%s:%d names %s, which CHANGELOG.md has no release of: %s", name, i+1, v, strings.TrimSpace(line))
				}
			}
		}
	}
}
