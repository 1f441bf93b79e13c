package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/toon"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// repoFile is a file of the work tree, for a module zip.
type repoFile struct{ path string }

func (f repoFile) Path() string                 { return f.path }
func (f repoFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.path) }
func (f repoFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// treeFiles returns the regular files of the work tree that git tracks or
// does not ignore, as they are now (uncommitted changes included).
func treeFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, p := range strings.Split(string(out), "\x00") {
		if fi, err := os.Lstat(p); p != "" && err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return files
}

// writeProxy lays out a module proxy in dir (the GOPROXY protocol over
// file://) serving the work tree's module (treeFiles) as version v.
func writeProxy(t *testing.T, dir, v string) {
	t.Helper()
	var files []modzip.File
	for _, p := range treeFiles(t) {
		files = append(files, repoFile{p})
	}
	const path = "github.com/toonkit/toonkit"
	at := filepath.Join(dir, path, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, module.Version{Path: path, Version: v}, files); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": v, "Time": "2026-11-25T00:00:00Z"})
	for name, b := range map[string][]byte{"list": []byte(v + "\n"), v + ".info": info, v + ".mod": mod, v + ".zip": zip.Bytes()} {
		if err := os.WriteFile(filepath.Join(at, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// `go install github.com/toonkit/toonkit@VERSION` works on this tree, as a
// user's go command does it: outside any module, from a module proxy (one
// made here from the work tree, the dependencies from the local module
// cache, offline), and the installed binary reports VERSION from its build
// info. It fails when go.mod holds a replace directive, among others.
// Skipped under -short (make test; make test-slow runs it): it builds toonkit
// from the zip, ~10 s when the packages are in the build cache, ~45 s on a
// loaded machine after toonkit's code changed.
func TestGoInstallAtVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds toonkit from a module zip")
	}
	tmp := t.TempDir()
	const v = "v1.2.3"
	writeProxy(t, filepath.Join(tmp, "proxy"), v)
	modcache := goEnv(t, "GOMODCACHE")
	gobin := filepath.Join(tmp, "bin")
	c := exec.Command("go", "install", "github.com/toonkit/toonkit@"+v)
	c.Dir = tmp
	c.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(modcache, "cache", "download"),
		"GOSUMDB=off",
		"GOFLAGS=-trimpath", // the packages toonkit's other tests built already are reused
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOBIN="+gobin,
		"GOTOOLCHAIN=local",
	)
	out, err := c.CombinedOutput()
	// The fresh module cache is read-only, as go makes it; let TempDir remove it.
	defer exec.Command("chmod", "-R", "u+w", filepath.Join(tmp, "modcache")).Run()
	if err != nil {
		t.Fatalf("go install github.com/toonkit/toonkit@%s: %v\n%s", v, err, out)
	}
	out, err = exec.Command(filepath.Join(gobin, "toonkit"), "--version").CombinedOutput()
	if want := "toonkit " + v + " (TOON spec v" + toon.SpecVersion + ")\n"; err != nil || string(out) != want {
		t.Fatalf("installed toonkit --version: %v: %q, want %q", err, out, want)
	}
}
