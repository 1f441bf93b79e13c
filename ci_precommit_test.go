package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
	"go.yaml.in/yaml/v3"
)

// fencedBlocks returns the blocks of a Markdown file fenced as ```lang.
func fencedBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	in := false
	for _, line := range strings.Split(string(doc), "\n") {
		switch {
		case !in && line == "```"+lang:
			in = true
			blocks = append(blocks, "")
		case in && strings.HasPrefix(line, "```"):
			in = false
		case in:
			blocks[len(blocks)-1] += line + "\n"
		}
	}
	return blocks
}

// gitRun runs git in dir, failing the test on an error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=toonkit test", "-c", "user.email=test@toonkit.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	c.Dir = dir
	c.Env = gitlessEnv()
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitlessEnv is the environment without the variables of a git hook that
// runs the tests (GIT_DIR, GIT_INDEX_FILE...) or of a pre-commit that does.
func gitlessEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "PRE_COMMIT") {
			env = append(env, kv)
		}
	}
	return env
}

// snapshotRepo makes a git repository of the work tree as it is (its files
// that git tracks or does not ignore, uncommitted changes included), one
// commit, as a clean clone of it would be; it returns its folder and HEAD.
func snapshotRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "toonkit")
	for _, p := range treeFiles(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "snapshot")
	return dir, gitRun(t, dir, "rev-parse", "HEAD")
}

// project makes a git repository holding the files (path: its content),
// added to the index, as pre-commit --all-files sees them.
func project(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for p, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "-A")
	return dir
}

// demoFile returns a file of testdata/demo.
func demoFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// preCommit runs pre-commit in dir with the environment env and returns its
// output (stdout and stderr) and exit status.
func preCommit(t *testing.T, bin, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	c.Env = env
	start := time.Now()
	out, err := c.CombinedOutput()
	t.Logf("pre-commit %s: %.1f s", strings.Join(args, " "), time.Since(start).Seconds())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("pre-commit: %v\n%s", err, out)
	}
	return string(out), 0
}

// .pre-commit-hooks.yaml holds the two hooks, built by pre-commit as Go
// programs, each with the files it is for.
func TestPreCommitHooksFile(t *testing.T) {
	b, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID, Name, Entry, Language, Files string
		Args                             []string
		RequireSerial                    bool `yaml:"require_serial"`
	}
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		entry         string
		match, ignore []string
	}{
		"toonkit-validate": {"toonkit validate",
			[]string{"capture.bin", "a/b.kado", "s.pcap", "s.pcapng", "log.ndjson", "log.jsonl", "users.toon"},
			[]string{"package.json", "main.go", "README.md", "bin/tool", "x.toon.md"}},
		"toonkit-verify": {"toonkit verify",
			[]string{"audit.ndjson", "logs/audit.jsonl"},
			[]string{"capture.bin", "audit.json", "users.toon"}},
		"toonkit-fmt": {"toonkit fmt -w",
			[]string{"users.toon", "config/agent.toon"},
			[]string{"agent.toon.md", "capture.bin", "audit.ndjson", "agent.json"}},
	}
	if len(hooks) != len(want) {
		t.Errorf("%d hooks, want %d", len(hooks), len(want))
	}
	for _, h := range hooks {
		w, ok := want[h.ID]
		if !ok {
			t.Errorf("unexpected hook %s", h.ID)
			continue
		}
		if h.Entry != w.entry || h.Language != "golang" || !h.RequireSerial {
			t.Errorf("%s: entry %q language %q require_serial %v, want %q golang true", h.ID, h.Entry, h.Language, h.RequireSerial, w.entry)
		}
		re, err := regexp.Compile(h.Files) // pre-commit's files: is a Python re.search; these use no syntax Go lacks
		if err != nil {
			t.Fatalf("%s: files: %v", h.ID, err)
		}
		for _, f := range w.match {
			if !re.MatchString(f) {
				t.Errorf("%s: files: %s does not match %s", h.ID, h.Files, f)
			}
		}
		for _, f := range w.ignore {
			if re.MatchString(f) {
				t.Errorf("%s: files: %s matches %s", h.ID, h.Files, f)
			}
		}
	}
}

// The hooks, run by the real pre-commit, as a user's repository runs them:
// pre-commit try-repo against a clean clone of this tree (pre-commit builds
// toonkit from it with go install), in a repository with a good and a bad
// file for each hook, then with the .pre-commit-config.yaml of docs/ci.md
// (its repo and rev pointed at the clone), with a log that Python's
// json.dumps wrote among the good files. The go command uses this
// machine's module cache and proxy, and -trimpath so that the packages it
// built for the other tests (TestGoInstallAtVersion) are not built again.
// Without pre-commit the test is skipped (a failure under TOONKIT_CI: .ci/run
// installs it); under -short too, as it builds toonkit twice.
func TestPreCommitHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: pre-commit builds toonkit")
	}
	pc := needs.Program(t, "pre-commit", "the hooks of .pre-commit-hooks.yaml are tried with the real pre-commit")
	needs.Program(t, "git", "pre-commit works on git repositories")
	tk := testbin.Build(t, ".")
	repo, rev := snapshotRepo(t)
	key := bytes.TrimSpace(demoFile(t, "audit.key"))

	// A signed log whose runs are not those of tampered.ndjson.
	sign := exec.Command("bash", "-o", "pipefail", "-c", `toonkit convert --from chiffon --to trace testdata/demo/chiffon.ndjson | toonkit sign --key-env K`)
	sign.Env = append(testbin.Env(tk), "K="+string(key))
	signed, err := sign.Output()
	if err != nil {
		t.Fatalf("signing a log: %v", err)
	}

	// Chiffon messages as a Python service writes them: json.dumps with its
	// default separators, CRLF line ends.
	py := exec.Command(needs.Program(t, "python3", "a Python producer's log is among the good files"), "-c", `
import json, sys
for line in open("testdata/demo/chiffon.ndjson"):
    sys.stdout.buffer.write((json.dumps(json.loads(line)) + "\r\n").encode())
`)
	pyLog, err := py.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}

	env := append(gitlessEnv(),
		"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit"),
		"GOMODCACHE="+goEnv(t, "GOMODCACHE"),
		"GOPROXY="+goEnv(t, "GOPROXY"),
		"GOFLAGS="+strings.TrimSpace("-trimpath "+goEnv(t, "GOFLAGS")),
		"GOTOOLCHAIN=local",
		"NO_COLOR=1",
	)
	total := time.Now()
	defer func() { t.Logf("pre-commit runs: %.1f s in all", time.Since(total).Seconds()) }()

	// try-repo without a hook id runs both hooks (one build): each fails on
	// its bad file with toonkit's findings and names no good file.
	t.Run("try-repo", func(t *testing.T) {
		dir := project(t, map[string][]byte{
			"captures/capture.bin":  demoFile(t, "capture.bin"),
			"captures/damaged.bin":  demoFile(t, "damaged.bin"),
			"tables/users.toon":     demoFile(t, "users.toon"),
			"config/orders.toon":    demoFile(t, "orders.toon"),
			"audit/signed.ndjson":   signed,
			"audit/tampered.ndjson": demoFile(t, "tampered.ndjson"),
			"README.md":             []byte("# not for toonkit\n"),
		})
		out, code := preCommit(t, pc, dir, append(env, "TOONKIT_KEY="+string(key)), "try-repo", "--color", "never", repo, "--all-files")
		if code != 1 {
			t.Fatalf("exit status %d, want 1\n%s", code, out)
		}
		validate, verify, ok := strings.Cut(out, "toonkit verify...")
		if !ok || !strings.Contains(validate, "toonkit validate...") {
			t.Fatalf("the output has not the two hooks, validate then verify:\n%s", out)
		}
		for _, c := range []struct {
			hook, out string
			want      []string
		}{
			{"validate", validate, []string{
				"- hook id: toonkit-validate\n- exit code: 1\n",
				"captures/damaged.bin: frame 3 at byte 1415: error: /header/version: expected 1, found 2 (0x02) [BIN002]\n",
				"captures/damaged.bin: frame 11 at byte 3260: error: /header/payloadLength: expected 32 payload bytes, found only 22 bytes remain [BIN004]\n",
				"audit/tampered.ndjson:7:257: error: /payload/nan: invalid character 'N' at start of value [AOP000]\n",
				"checked 6 files, 43 records: 7 errors, 2 warnings\n",
			}},
			{"verify", verify, []string{
				"- hook id: toonkit-verify\n- exit code: 1\n",
				"audit/tampered.ndjson:3: seq 2 (run 550e8400…): signature mismatch\n",
				"verified 12 events in 3 runs: 3 failures\n",
			}},
		} {
			for _, want := range c.want {
				if !strings.Contains(c.out, want) {
					t.Errorf("%s: the output has no %q:\n%s", c.hook, want, c.out)
				}
			}
			for _, good := range []string{"captures/capture.bin", "tables/users.toon", "config/orders.toon", "audit/signed.ndjson", "README.md"} {
				if strings.Contains(c.out, good) {
					t.Errorf("%s: the output names %s, a good file or one not for the hook:\n%s", c.hook, good, c.out)
				}
			}
		}
	})

	// toonkit-fmt rewrites what is not canonical, reports a malformed
	// document with its place and leaves it, and leaves a Genesis table
	// alone: pre-commit fails, naming what the hook changed.
	t.Run("toonkit-fmt", func(t *testing.T) {
		agent := []byte("# tools\ntools[2]:\n  - name: search\n    timeout: 30\n  - name: \"fetch\"\n    timeout: 10.0\n")
		files := map[string][]byte{
			"config/agent.toon": agent,
			"config/ok.toon":    []byte("a: 1\nb[2]: x,y\n"),
			"config/bad.toon":   []byte("a: 1\nb[3]: x,y\n"),
			"tables/users.toon": demoFile(t, "users.toon"),
		}
		dir := project(t, files)
		out, code := preCommit(t, pc, dir, env, "try-repo", "--color", "never", repo, "toonkit-fmt", "--all-files")
		for _, want := range []string{
			"- hook id: toonkit-fmt\n- exit code: 1\n- files were modified by this hook\n",
			"toonkit: error: config/bad.toon:2:2: array declares 3 values, found 2\n",
		} {
			if code != 1 || !strings.Contains(out, want) {
				t.Errorf("exit status %d, want 1 and %q:\n%s", code, want, out)
			}
		}
		want := map[string]string{
			"config/agent.toon": "# tools\ntools[2]{name,timeout}:\n  search,30\n  fetch,10\n",
			"config/ok.toon":    string(files["config/ok.toon"]),
			"config/bad.toon":   string(files["config/bad.toon"]),
			"tables/users.toon": string(files["tables/users.toon"]),
		}
		for name, w := range want {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != w {
				t.Errorf("%s after the hook: %q (%v), want %q", name, b, err, w)
			}
		}
	})

	t.Run("docs/ci.md's config", func(t *testing.T) {
		var config string
		for _, b := range fencedBlocks(t, "docs/ci.md", "yaml") {
			if strings.HasPrefix(b, "repos:") {
				config = b
			}
		}
		var parsed struct {
			Repos []struct{ Repo, Rev string }
		}
		if err := yaml.Unmarshal([]byte(config), &parsed); err != nil || len(parsed.Repos) != 1 || parsed.Repos[0].Repo != "https://github.com/toonkit/toonkit" {
			t.Fatalf("docs/ci.md has no .pre-commit-config.yaml for toonkit's repository (%v):\n%s", err, config)
		}
		config = strings.Replace(config, "repo: "+parsed.Repos[0].Repo, "repo: "+repo, 1)
		config = strings.Replace(config, "rev: "+parsed.Repos[0].Rev, "rev: "+rev, 1)
		files := map[string][]byte{
			".pre-commit-config.yaml": []byte(config),
			"captures/capture.bin":    demoFile(t, "capture.bin"),
			"messages/chiffon.ndjson": demoFile(t, "chiffon.ndjson"),
			"messages/python.ndjson":  pyLog,
			"audit/signed.ndjson":     signed,
		}
		dir := project(t, files)
		keyEnv := append(env, "AUDIT_KEY="+string(key))
		out, code := preCommit(t, pc, dir, keyEnv, "run", "--color", "never", "--all-files")
		if code != 0 || !strings.Contains(out, "toonkit validate...") || !strings.Contains(out, "toonkit verify...") || strings.Count(out, "Passed\n") != 2 {
			t.Fatalf("exit status %d, want both hooks to pass:\n%s", code, out)
		}
		// The same, with the output pre-commit shows only for a hook that
		// fails: what validate checked.
		out, code = preCommit(t, pc, dir, keyEnv, "run", "--color", "never", "--all-files", "--verbose", "toonkit-validate")
		if want := "checked 4 files, 28 records: 0 errors, 0 warnings\n"; code != 0 || !strings.Contains(out, want) {
			t.Errorf("validate --verbose: exit status %d, want 0 and %q:\n%s", code, want, out)
		}
		// The key is missing: verify fails and says why.
		out, code = preCommit(t, pc, dir, env, "run", "--color", "never", "--all-files", "toonkit-verify")
		if want := "toonkit: error: the environment variable AUDIT_KEY is not set\n"; code != 1 || !strings.Contains(out, want) {
			t.Errorf("without AUDIT_KEY: exit status %d, want 1 and %q:\n%s", code, want, out)
		}
		// A bad log in audit/: the same environment, not built again.
		if err := os.WriteFile(filepath.Join(dir, "audit/tampered.ndjson"), demoFile(t, "tampered.ndjson"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitRun(t, dir, "add", "audit/tampered.ndjson")
		out, code = preCommit(t, pc, dir, keyEnv, "run", "--color", "never", "--files", "audit/tampered.ndjson", "captures/capture.bin")
		for _, want := range []string{"audit/tampered.ndjson:3: seq 2 (run 550e8400…): signature mismatch\n", "verified 7 events in 2 runs: 3 failures\n"} {
			if code != 1 || !strings.Contains(out, want) {
				t.Errorf("a tampered log: exit status %d, want 1 and %q:\n%s", code, want, out)
			}
		}
		if strings.Contains(out, "Installing environment") {
			t.Errorf("pre-commit built toonkit again:\n%s", out)
		}
	})
}
