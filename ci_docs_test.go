package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/testbin"
	"go.yaml.in/yaml/v3"
)

// ciWorkspace is a checkout holding the sample files at the paths the
// snippets of docs/ci.md name: one damaged capture among the captures, good
// messages and a good signed log (key: the AUDIT_KEY it returns).
func ciWorkspace(t *testing.T) (string, string) {
	t.Helper()
	ws := workspace(t, map[string]string{
		"captures/capture.bin":    "capture.bin",
		"captures/damaged.bin":    "damaged.bin",
		"messages/chiffon.ndjson": "chiffon.ndjson",
		"audit/audit.ndjson":      "audit.ndjson",
	})
	return ws, string(bytes.TrimSpace(demoFile(t, "audit.key")))
}

// hasReport reports whether each of toonkit's commands has the report
// format; a page's snippets that use one the build lacks are skipped.
func hasReport(t *testing.T, format string, commands ...string) bool {
	t.Helper()
	bin := testbin.Build(t, ".")
	for _, cmd := range commands {
		out, err := exec.Command(bin, cmd, "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("toonkit %s --help: %v\n%s", cmd, err, out)
		}
		if !regexp.MustCompile(`--report [a-z|]*\b` + format + `\b`).Match(out) {
			return false
		}
	}
	return true
}

// releaseRef is how the snippets name the toonkit release to use: a
// release tag, or main while no release has what they use
// (TestDocsNameReleases checks that a tag named is a release).
var releaseRef = regexp.MustCompile(`^(v\d+\.\d+\.\d+|main)$`)

// workflowStep is a step of a GitHub Actions workflow.
type workflowStep struct {
	Uses string
	If   string
	With map[string]string
	Env  map[string]string
}

// runDocSteps runs the steps that use toonkit's action as the runner would,
// a secret ${{ secrets.NAME }} given from secrets; it returns the exit
// status of each.
func runDocSteps(t *testing.T, a *action, steps []workflowStep, secrets map[string]string) []int {
	t.Helper()
	var codes []int
	for _, s := range steps {
		ref, ok := strings.CutPrefix(s.Uses, "toonkit/toonkit@")
		if !ok {
			continue
		}
		if !releaseRef.MatchString(ref) {
			t.Errorf("uses: %s: want a release tag", s.Uses)
		}
		a.ref, a.repo, a.env = ref, "toonkit/toonkit", nil
		for k, v := range s.Env {
			v = expression.ReplaceAllStringFunc(v, func(m string) string {
				name, ok := strings.CutPrefix(expression.FindStringSubmatch(m)[1], "secrets.")
				if !ok || secrets[name] == "" {
					t.Fatalf("env %s: %s is not a secret the test knows", k, m)
				}
				return secrets[name]
			})
			a.env = append(a.env, k+"="+v)
		}
		res := a.run(s.With)
		if len(res) != 2 {
			t.Fatalf("uses %s with %v: the install step failed:\n%+v", s.Uses, s.With, res)
		}
		if got, want := a.goCalls(), a.ws+": go install github.com/toonkit/toonkit@"+ref+"\n"; got != want {
			t.Errorf("go ran %q, want %q", got, want)
		}
		codes = append(codes, res[1].code)
		if res[1].code > 1 {
			t.Errorf("uses %s with %v: exit status %d\n%s%s", s.Uses, s.With, res[1].code, res[1].stdout, res[1].stderr)
		}
	}
	return codes
}

// The workflows of docs/ci.md run, their steps that use toonkit's action
// as the runner runs them (TestActionSteps), on files at the paths they
// name: the validate step fails on the damaged capture, the verify step
// passes the signed log, and the SARIF step writes the file that the upload
// step reads (where toonkit has --report sarif).
func TestCIDocWorkflows(t *testing.T) {
	t.Parallel()
	var workflow, sarif string
	for _, b := range fencedBlocks(t, "docs/ci.md", "yaml") {
		switch {
		case strings.Contains(b, "\njobs:\n"):
			workflow = b
		case strings.Contains(b, "report: sarif"):
			sarif = b
		}
	}
	var w struct {
		Jobs map[string]struct {
			Steps []workflowStep
		}
	}
	if err := yaml.Unmarshal([]byte(workflow), &w); err != nil || len(w.Jobs) != 1 {
		t.Fatalf("docs/ci.md: no workflow with one job (%v):\n%s", err, workflow)
	}
	ws, key := ciWorkspace(t)
	a := newAction(t, ws)
	for _, job := range w.Jobs {
		codes := runDocSteps(t, a, job.Steps, map[string]string{"AUDIT_KEY": key})
		if len(codes) != 2 || codes[0] != 1 || codes[1] != 0 {
			t.Errorf("exit statuses %v, want [1 0]: validate finds the damaged capture, verify passes the log", codes)
		}
	}

	t.Run("sarif", func(t *testing.T) {
		if !hasReport(t, "sarif", "validate") {
			t.Skip("this toonkit has no --report sarif")
		}
		var steps []workflowStep
		if err := yaml.Unmarshal([]byte(sarif), &steps); err != nil || len(steps) != 2 {
			t.Fatalf("docs/ci.md: the SARIF steps do not parse as two steps (%v):\n%s", err, sarif)
		}
		codes := runDocSteps(t, a, steps, nil)
		if len(codes) != 1 || codes[0] != 1 {
			t.Errorf("exit statuses %v, want [1]", codes)
		}
		upload := steps[1].With["sarif_file"]
		b, err := os.ReadFile(filepath.Join(ws, upload))
		if err != nil {
			t.Fatalf("the upload step's sarif_file: %v", err)
		}
		var log struct{ Version string }
		if err := json.Unmarshal(b, &log); err != nil || log.Version != "2.1.0" {
			t.Errorf("%s: %v: version %q, want SARIF 2.1.0", upload, err, log.Version)
		}
	})
}

// junitFile checks that the file is a JUnit XML report with a test suite.
func junitFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		XMLName xml.Name
		Suites  []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &r); err != nil || r.XMLName.Local != "testsuites" || len(r.Suites) == 0 {
		t.Errorf("%s: %v: root %q with %d test suites, want testsuites with one or more\n%s", filepath.Base(path), err, r.XMLName.Local, len(r.Suites), b)
	}
}

// shell runs a command of a snippet by bash in dir with toonkit on the
// PATH and AUDIT_KEY set, and returns its exit status.
func shell(t *testing.T, dir, key, command string) int {
	t.Helper()
	c := exec.Command("bash", "-c", command)
	c.Dir = dir
	c.Env = append(testbin.Env(testbin.Build(t, ".")), "AUDIT_KEY="+key, "WORKSPACE="+dir)
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	return 0
}

// The GitLab CI job and the Jenkins pipeline of docs/ci.md: their toonkit
// commands run in a checkout holding the files they name, validate failing
// on the damaged capture (exit 1) and verify passing, and each writes the
// JUnit report the CI system is told to read. The go install lines name a
// release of toonkit's module (TestGoInstallAtVersion installs it so), or
// main.
func TestCIDocJUnit(t *testing.T) {
	if !hasReport(t, "junit", "validate", "verify") {
		t.Skip("this toonkit has no --report junit")
	}
	install := regexp.MustCompile(`^(GOBIN="\$WORKSPACE/\.bin" )?go install github\.com/toonkit/toonkit@(v\d+\.\d+\.\d+|main)$`)

	t.Run("GitLab", func(t *testing.T) {
		var job string
		for _, b := range fencedBlocks(t, "docs/ci.md", "yaml") {
			if strings.Contains(b, "artifacts:") {
				job = b
			}
		}
		var jobs map[string]struct {
			Image     string
			Script    []string
			Artifacts struct {
				When    string
				Reports struct{ Junit []string }
			}
		}
		if err := yaml.Unmarshal([]byte(job), &jobs); err != nil || len(jobs) != 1 {
			t.Fatalf("docs/ci.md: no GitLab job (%v):\n%s", err, job)
		}
		for _, j := range jobs {
			ws, key := ciWorkspace(t)
			var codes []int
			for _, line := range j.Script {
				if install.MatchString(line) {
					continue
				}
				if !strings.HasPrefix(line, "toonkit ") {
					t.Fatalf("a script line that is neither go install nor toonkit: %s", line)
				}
				codes = append(codes, shell(t, ws, key, line))
			}
			if len(codes) != 2 || codes[0] != 1 || codes[1] != 0 {
				t.Errorf("exit statuses %v, want [1 0]", codes)
			}
			if j.Artifacts.When != "always" || len(j.Artifacts.Reports.Junit) != 2 {
				t.Errorf("artifacts: %+v, want the two reports, when always", j.Artifacts)
			}
			for _, r := range j.Artifacts.Reports.Junit {
				junitFile(t, filepath.Join(ws, r))
			}
		}
	})

	t.Run("Jenkins", func(t *testing.T) {
		blocks := fencedBlocks(t, "docs/ci.md", "groovy")
		if len(blocks) != 1 {
			t.Fatalf("%d groovy blocks in docs/ci.md, want 1", len(blocks))
		}
		ws, key := ciWorkspace(t)
		if err := os.Mkdir(filepath.Join(ws, ".bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(testbin.Build(t, "."), filepath.Join(ws, ".bin/toonkit")); err != nil {
			t.Fatal(err)
		}
		var codes []int
		for _, m := range regexp.MustCompile(`(?:sh|script:) '([^']*)'`).FindAllStringSubmatch(blocks[0], -1) {
			if install.MatchString(m[1]) {
				continue
			}
			codes = append(codes, shell(t, ws, key, m[1]))
		}
		if len(codes) != 2 || codes[0] != 1 || codes[1] != 0 {
			t.Errorf("exit statuses %v, want [1 0]", codes)
		}
		reports := regexp.MustCompile(`junit '([^']*)'`).FindStringSubmatch(blocks[0])
		if reports == nil {
			t.Fatal("the pipeline has no junit step")
		}
		files, _ := filepath.Glob(filepath.Join(ws, reports[1]))
		if len(files) != 2 {
			t.Errorf("junit '%s' finds %d files, want 2", reports[1], len(files))
		}
		for _, f := range files {
			junitFile(t, f)
		}
	})
}
