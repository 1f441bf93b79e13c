// Package toonref gives tests the reference TOON library,
// @toon-format/toon, and the reference CLI, @toon-format/cli, at the
// versions pinned in testdata/toonref (package.json and
// package-lock.json), and runs node scripts against the library. Its
// installer, NPM, serves other pinned npm packages too: testdata/mcp holds
// the MCP SDK and reference server that internal/mcpproxy's tests drive
// toonkit mcp with.
//
// The packages are installed with `npm ci` once per lock file, into the
// user's cache directory (toonkit/toonref-HASH, toonkit/mcp-HASH under
// os.UserCacheDir), and shared by every test process after that. Without
// node or npm, or when npm cannot reach its registry, a test skips saying
// so; under TOONKIT_CI it fails (internal/needs).
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

// refLock is the lock folder of the reference library and CLI.
const refLock = "testdata/toonref"

// installation is the npm install of one lock folder, done at most once per
// test process.
type installation struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

var installs struct {
	mu sync.Mutex
	m  map[string]*installation
}

// Dir returns a directory whose node_modules holds the pinned reference
// library, installing it the first time. It skips (fails under TOONKIT_CI)
// when node, npm or the registry is missing.
func Dir(tb testing.TB) string {
	tb.Helper()
	return NPM(tb, refLock)
}

// NPM returns a directory whose node_modules holds the packages pinned by
// the package.json and package-lock.json in lockdir (a folder relative to
// the module root, such as "testdata/mcp"), installing them with npm ci the
// first time: into toonkit/NAME-HASH under the user's cache directory, NAME
// being lockdir's last element and HASH that of the two files, so that every
// test process shares one install per lock. It skips (fails under
// TOONKIT_CI) when node, npm or the registry is missing.
func NPM(tb testing.TB, lockdir string) string {
	tb.Helper()
	needs.Program(tb, "node", "the npm packages pinned in "+lockdir+" run on it")
	npm := needs.Program(tb, "npm", "it installs the npm packages pinned in "+lockdir)
	installs.mu.Lock()
	if installs.m == nil {
		installs.m = map[string]*installation{}
	}
	in := installs.m[lockdir]
	if in == nil {
		in = &installation{}
		installs.m[lockdir] = in
	}
	installs.mu.Unlock()
	in.once.Do(func() { in.dir, in.out, in.err = installLocked(npm, lockdir) })
	if in.err != nil {
		needs.Missing(tb, fmt.Sprintf("npm ci of %s failed (offline?): %v\n%s", lockdir, in.err, in.out))
	}
	return in.dir
}

// installLocked installs the packages of lockdir's lock file into the
// cache, unless a complete install (its lock file copied in last) is there
// already.
func installLocked(npm, lockdir string) (string, []byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", nil, err
	}
	src := filepath.Join(root, filepath.FromSlash(lockdir))
	name := filepath.Base(src)
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
	dir := filepath.Join(cache, "toonkit", name+"-"+hex.EncodeToString(sum[:6]))
	if b, err := os.ReadFile(filepath.Join(dir, "installed.json")); err == nil && bytes.Equal(b, lock) {
		return dir, nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), name+"-install-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	for file, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, file), b, 0o644); err != nil {
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

// lockDir is the reference's lock folder, testdata/toonref.
func lockDir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(refLock)), nil
}

// moduleRoot finds the module's root from the test's working directory (a
// package directory of the module) by walking up to go.mod.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
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
