package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
	"github.com/toonkit/toonkit/toon"
	"go.yaml.in/yaml/v3"
)

// actionFile is action.yml as the runner reads it.
type actionFile struct {
	Name        string
	Description string
	Author      string
	Branding    map[string]string
	Inputs      map[string]actionInput
	Runs        struct {
		Using string
		Steps []actionStep
	}
}

type actionInput struct {
	Description string
	Required    bool
	Default     string
}

type actionStep struct {
	Name  string
	Shell string
	Run   string
	Env   map[string]string
}

// loadAction reads action.yml; a key the runner would not know fails.
func loadAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// expression is a ${{ }} expression of the runner.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// action runs action.yml's steps as GitHub's runner runs a composite
// action's: each run: of shell bash by `bash --noprofile --norc -eo
// pipefail FILE` in the workspace, its env: with the ${{ }} expressions
// evaluated (the inputs given or their defaults, the github context of a
// step that uses the action), GITHUB_PATH read after each step and put
// before PATH for the next. go is a stand-in that logs its arguments and
// "installs" the toonkit built for the test.
type action struct {
	t                      *testing.T
	file                   actionFile
	ws, temp, actionPath   string
	ref, repo              string   // github.action_ref, github.action_repository
	env                    []string // the env: of the workflow step that uses the action
	goLog, fakeGo, toonkit string
}

func newAction(t *testing.T, ws string) *action {
	t.Helper()
	dir := t.TempDir()
	a := &action{
		t: t, file: loadAction(t), ws: ws, temp: filepath.Join(dir, "runner-temp"),
		actionPath: filepath.Join(dir, "action"), goLog: filepath.Join(dir, "go.log"),
		fakeGo: filepath.Join(dir, "fakego"), toonkit: testbin.Build(t, "."),
	}
	for _, d := range []string{a.temp, a.actionPath, a.fakeGo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const fake = `#!/bin/sh
echo "$PWD: go $*" >> "$FAKE_GO_LOG"
[ "$1" = install ] && [ $# = 2 ] && [ -n "$GOBIN" ] || { echo "fake go: unexpected: GOBIN=$GOBIN go $*" >&2; exit 2; }
cp "$FAKE_GO_TOONKIT" "$GOBIN/toonkit"
`
	if err := os.WriteFile(filepath.Join(a.fakeGo, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return a
}

// stepResult is what one step printed and its exit status.
type stepResult struct {
	stdout, stderr string
	code           int
}

// run runs the steps with the inputs, up to the first that fails, and
// returns each step's result.
func (a *action) run(inputs map[string]string) []stepResult {
	t := a.t
	t.Helper()
	for name := range inputs {
		if _, ok := a.file.Inputs[name]; !ok {
			t.Fatalf("input %q is not declared in action.yml", name)
		}
	}
	eval := func(expr string) string {
		if name, ok := strings.CutPrefix(expr, "inputs."); ok {
			in, declared := a.file.Inputs[name]
			if !declared {
				t.Fatalf("action.yml uses an undeclared input: ${{ %s }}", expr)
			}
			if v, given := inputs[name]; given {
				return v
			}
			if in.Required {
				t.Fatalf("the test gives no value for the required input %s", name)
			}
			return in.Default
		}
		switch expr {
		case "github.action_ref":
			return a.ref
		case "github.action_repository":
			return a.repo
		case "github.action_path":
			return a.actionPath
		}
		t.Fatalf("the test's runner does not know the expression ${{ %s }}", expr)
		return ""
	}
	os.Remove(a.goLog)
	var added []string // GITHUB_PATH, newest first
	var results []stepResult
	for i, step := range a.file.Runs.Steps {
		script := filepath.Join(a.temp, "step.sh")
		if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		ghPath := filepath.Join(a.temp, "github_path")
		if err := os.WriteFile(ghPath, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var env []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k == "PATH" || k == "NO_COLOR" || k == "CLICOLOR" || k == "CLICOLOR_FORCE" ||
				strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "INPUT_") {
				continue
			}
			env = append(env, kv)
		}
		path := append(append([]string{a.fakeGo}, added...), os.Getenv("PATH"))
		env = append(env, "PATH="+strings.Join(path, string(os.PathListSeparator)),
			"GITHUB_ACTIONS=true", "CI=true", "GITHUB_WORKSPACE="+a.ws, "GITHUB_ACTION_PATH="+a.actionPath,
			"GITHUB_PATH="+ghPath, "RUNNER_TEMP="+a.temp,
			"FAKE_GO_LOG="+a.goLog, "FAKE_GO_TOONKIT="+a.toonkit)
		env = append(env, a.env...)
		for k, v := range step.Env {
			env = append(env, k+"="+expression.ReplaceAllStringFunc(v, func(m string) string {
				return eval(expression.FindStringSubmatch(m)[1])
			}))
		}
		c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		c.Dir = a.ws
		c.Env = env
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		r := stepResult{stdout: stdout.String(), stderr: stderr.String()}
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("step %d (%s): %v", i+1, step.Name, err)
		}
		results = append(results, r)
		if r.code != 0 {
			break
		}
		b, err := os.ReadFile(ghPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if p != "" {
				added = append([]string{p}, added...)
			}
		}
	}
	return results
}

// goCalls returns the go commands the steps of the last run ran, "DIR: go
// ARGS" a line.
func (a *action) goCalls() string {
	b, _ := os.ReadFile(a.goLog)
	return string(b)
}

// workspace returns a folder holding the demo files at the given paths
// (path in the workspace: name in testdata/demo).
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for to, from := range files {
		b, err := os.ReadFile(filepath.Join("testdata/demo", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// action.yml is a composite action whose run: steps are bash and read the
// inputs from the environment only: no ${{ }} inside a script, where a file
// name would become shell code. Every input is used.
func TestActionFile(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using is %q, want composite", a.Runs.Using)
	}
	used := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if s.Shell != "bash" || s.Run == "" {
			t.Errorf("step %q: shell %q, want a run: script in bash", s.Name, s.Shell)
		}
		if m := expression.FindString(s.Run); m != "" {
			t.Errorf("step %q: %s in run: pass it through env:", s.Name, m)
		}
		for _, v := range s.Env {
			for _, m := range expression.FindAllStringSubmatch(v, -1) {
				if name, ok := strings.CutPrefix(m[1], "inputs."); ok {
					used[name] = true
				}
			}
		}
	}
	for _, want := range []string{"files", "protocol", "key-env", "report", "output", "args"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("input %s is missing", want)
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %s is declared but no step reads it", name)
		}
	}
	if a.Inputs["report"].Default != "github" {
		t.Errorf("the report input defaults to %q, want github", a.Inputs["report"].Default)
	}
}

// The action's steps, run as the runner does: toonkit installed at the
// action's ref (or from the action's files for uses: ./ and forks), then
// validate or verify with the findings as workflow commands and
// toonkit's exit status as the step's.
func TestActionSteps(t *testing.T) {
	needs.Slow(t, "runs the action's steps with a built toonkit")
	ws := workspace(t, map[string]string{
		"captures/a/capture.bin":  "capture.bin",
		"captures/b/damaged.bin":  "damaged.bin",
		"messages/chiffon.ndjson": "chiffon.ndjson",
		"tables/users.toon":       "users.toon",
		"logs/audit.ndjson":       "audit.ndjson",
		"logs/tampered.ndjson":    "tampered.ndjson",
	})
	key, err := os.ReadFile("testdata/demo/audit.key")
	if err != nil {
		t.Fatal(err)
	}
	a := newAction(t, ws)
	key = bytes.TrimSpace(key)

	check := func(t *testing.T, res []stepResult, code int, stdout string) {
		t.Helper()
		if len(res) != 2 {
			t.Fatalf("%d steps ran, want 2; the last: exit %d\n%s%s", len(res), res[len(res)-1].code, res[len(res)-1].stdout, res[len(res)-1].stderr)
		}
		if res[0].stdout != "toonkit devel (TOON spec v"+toon.SpecVersion+")\n" {
			t.Errorf("install step printed %q, want toonkit's --version", res[0].stdout)
		}
		last := res[1]
		if last.code != code {
			t.Errorf("exit status %d, want %d\nstderr: %s", last.code, code, last.stderr)
		}
		if diff := cmp.Diff(stdout, last.stdout); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
	}

	t.Run("validate at a tag", func(t *testing.T) {
		a.ref, a.repo = "v1.2.3", "toonkit/toonkit"
		res := a.run(map[string]string{"files": "captures/**/*.bin\n  messages/chiffon.ndjson tables/*.toon\n"})
		check(t, res, 1, `::error file=captures/b/damaged.bin,title=BIN002::frame 3 at byte 1415: /header/version: expected 1, found 2 (0x02)
::error file=captures/b/damaged.bin,title=BIN002::frame 5 at byte 1557: /header/version: expected 1, found 71 (0x47 'G')
::error file=captures/b/damaged.bin,title=BIN004::frame 11 at byte 3260: /header/payloadLength: expected 32 payload bytes, found only 22 bytes remain
checked 4 files, 37 records: 3 errors, 0 warnings
`)
		if got, want := a.goCalls(), ws+": go install github.com/toonkit/toonkit@v1.2.3\n"; got != want {
			t.Errorf("go ran %q, want %q", got, want)
		}
	})

	t.Run("verify from the action's files", func(t *testing.T) {
		a.ref, a.repo = "", "" // uses: ./
		a.env = []string{"AUDIT_KEY=" + string(key)}
		defer func() { a.env = nil }()
		res := a.run(map[string]string{"files": "logs/audit.ndjson", "key-env": "AUDIT_KEY"})
		check(t, res, 0, "verified 8 events in 2 runs: all signatures valid\n")
		if got, want := a.goCalls(), a.actionPath+": go install .\n"; got != want {
			t.Errorf("go ran %q, want %q", got, want)
		}
		res = a.run(map[string]string{"files": "logs/tampered.ndjson", "key-env": "AUDIT_KEY"})
		check(t, res, 1, `::error file=logs/tampered.ndjson,line=3,col=1,title=SIG001::seq 2 (run 550e8400-e29b-41d4-a716-446655440000): signature mismatch
::error file=logs/tampered.ndjson,line=6,col=1,title=SIG010::seq 4 (run 550e8400-e29b-41d4-a716-446655440000): an event is missing between seq 2 and 4
::error file=logs/tampered.ndjson,line=7,col=1,title=SIG012::seq 3 (run 6ba7b810-9dad-41d1-80b4-00c04fd430c8): out of order: it comes after seq 4 at logs/tampered.ndjson:5
verified 7 events in 2 runs: 3 failures
`)
	})

	t.Run("a fork builds its own files", func(t *testing.T) {
		a.ref, a.repo = "main", "someone/toonkit"
		res := a.run(map[string]string{"files": "messages/chiffon.ndjson", "protocol": "chiffon", "report": "text"})
		check(t, res, 0, "checked 1 file, 6 records: 0 errors, 0 warnings\n")
		if got, want := a.goCalls(), a.actionPath+": go install .\n"; got != want {
			t.Errorf("go ran %q, want %q", got, want)
		}
	})

	a.ref, a.repo = "v1.2.3", "toonkit/toonkit"
	t.Run("protocol is --as", func(t *testing.T) {
		res := a.run(map[string]string{"files": "messages/chiffon.ndjson", "protocol": "narratoria", "args": "--max-errors 1"})
		check(t, res, 1, `::error file=messages/chiffon.ndjson,line=1,col=1,title=NAR010::/version: must be "0", found nothing (the field is missing)
checked 1 file, 1 record: 1 error, 0 warnings (stopped after 1 errors: --max-errors)
`)
	})

	t.Run("a report to a file", func(t *testing.T) {
		res := a.run(map[string]string{"files": "captures/b/damaged.bin", "report": "json", "output": "toonkit.json"})
		check(t, res, 1, "")
		var rep struct {
			OK     bool
			Errors int
		}
		b, err := os.ReadFile(filepath.Join(ws, "toonkit.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rep); err != nil || rep.OK || rep.Errors != 3 {
			t.Errorf("toonkit.json: %v: %+v, want ok false and 3 errors\n%s", err, rep, b)
		}
	})

	// Inputs are data: a file name or an argument that looks like shell
	// code is passed to toonkit as it is, and nothing runs it.
	t.Run("inputs are not shell code", func(t *testing.T) {
		res := a.run(map[string]string{"files": "$(touch pwned1) `touch pwned2` ;touch${IFS}pwned3"})
		if len(res) != 2 || res[1].code != 3 {
			t.Fatalf("want the run step to end with toonkit's exit 3 (cannot read), got %+v", res)
		}
		if !strings.Contains(res[1].stderr, "toonkit: error: cannot read $(touch: no such file or directory") {
			t.Errorf("stderr: %s", res[1].stderr)
		}
		res = a.run(map[string]string{"files": "tables/users.toon", "args": "--strict;touch${IFS}pwned4"})
		if len(res) != 2 || res[1].code != 2 {
			t.Fatalf("want a usage error (exit 2) for the flag --strict;..., got %+v", res)
		}
		for _, name := range []string{"pwned1", "pwned2", "pwned3", "pwned4", "touch"} {
			if _, err := os.Stat(filepath.Join(ws, name)); err == nil {
				t.Errorf("an input ran as shell code: %s exists", name)
			}
		}
	})

	for _, c := range []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{"a pattern that matches nothing", map[string]string{"files": "captures/*.bin nothing/**/*.pcap"}, "files: no file matches captures/*.bin"},
		{"no files", map[string]string{"files": " \n "}, "files: name the files to check"},
		{"protocol with key-env", map[string]string{"files": "logs/audit.ndjson", "key-env": "K", "protocol": "trace"}, "protocol is for validate; with key-env the action runs verify, which reads AOP trace events"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := a.run(c.inputs)
			check(t, res, 2, "::error title=toonkit action::"+c.want+"\n")
		})
	}
}
