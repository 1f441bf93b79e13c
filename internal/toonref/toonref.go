// Package toonref gives tests the reference TOON library,
// @toon-format/toon, and the reference CLI, @toon-format/cli, at the
// versions pinned in testdata/toonref (package.json and
// package-lock.json), and runs node scripts against the library.
//
// The library is installed with `npm ci` once per lock file, into the user's
// cache directory (toonkit/toonref-HASH under os.UserCacheDir), and shared
// by every test process after that. Without node or npm, or when npm cannot
// reach its registry, a test skips saying so; under TOONKIT_CI it fails
// (internal/needs).
//
// Nothing of the reference is copied into the repository: tests load it from
// the installed package.
package toonref

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
)

// Version is the pinned version of @toon-format/toon (testdata/toonref's
// package.json names the same; a test checks that they agree).
const Version = "4.4.0"

// CLIVersion is the pinned version of @toon-format/cli, the `toon`
// command.
const CLIVersion = "4.1.1"

var install struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// Dir returns a directory whose node_modules holds the pinned reference
// library, installing it the first time. It skips (fails under TOONKIT_CI)
// when node, npm or the registry is missing.
func Dir(tb testing.TB) string {
	tb.Helper()
	needs.Program(tb, "node", "the reference TOON library runs on it")
	npm := needs.Program(tb, "npm", "it installs the reference TOON library")
	install.once.Do(func() { install.dir, install.out, install.err = installLocked(npm) })
	if install.err != nil {
		needs.Missing(tb, fmt.Sprintf("npm ci of @toon-format/toon@%s failed (offline?): %v\n%s", Version, install.err, install.out))
	}
	return install.dir
}

// installLocked installs the lock file's packages into the cache, unless a
// complete install (its lock file copied in last) is there already.
func installLocked(npm string) (string, []byte, error) {
	src, err := lockDir()
	if err != nil {
		return "", nil, err
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return "", nil, err
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(append(append([]byte{}, pkg...), lock...))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "toonkit", "toonref-"+hex.EncodeToString(sum[:6]))
	if b, err := os.ReadFile(filepath.Join(dir, "installed.json")); err == nil && bytes.Equal(b, lock) {
		return dir, nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "toonref-install-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return "", nil, err
		}
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--silent", "--ignore-scripts")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", out, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "installed.json"), lock, 0o644); err != nil {
		return "", nil, err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		// Another test process installed it at the same time: use theirs.
		if b, rerr := os.ReadFile(filepath.Join(dir, "installed.json")); rerr == nil && bytes.Equal(b, lock) {
			return dir, nil, nil
		}
		return "", nil, err
	}
	return dir, nil, nil
}

// CLI returns the path of the reference CLI's `toon` command, installing
// it with the library the first time (as Dir does).
func CLI(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(Dir(tb), "node_modules", ".bin", "toon")
}

// lockDir finds testdata/toonref from the test's working directory (a
// package directory of the module) by walking up to go.mod.
func lockDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata", "toonref"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}

// Run runs the node program script (an ES module is not needed: it is run
// with node -e) with the reference's directory as process.argv[1] and in on
// its standard input, and returns its standard output. Load the library in
// the script with
//
//	require(require.resolve("@toon-format/toon", {paths: [process.argv[1]]}))
func Run(tb testing.TB, script string, in []byte) []byte {
	tb.Helper()
	dir := Dir(tb)
	node := needs.Program(tb, "node", "the reference TOON library runs on it")
	cmd := exec.Command(node, "-e", script, dir)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	return out
}
