package yamlin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/yamlin"
	"github.com/toonkit/toonkit/internal/needs"
)

// pyCompare is the other side of the comparison: PyYAML (Debian's
// python3-yaml) with a loader of the YAML 1.2 core schema (PyYAML's own
// resolvers are YAML 1.1's), floats as Decimal so that no digit is lost.
// For each file it loads every document and compares them with the JSON
// toonkit gave, read back with Decimal numbers, mapping order kept.
const pyCompare = `
import sys, json, re, base64, decimal, yaml
D = decimal.Decimal
class Core(yaml.SafeLoader):
    pass
Core.yaml_implicit_resolvers = {}
def res(tag, rx, first):
    Core.add_implicit_resolver('tag:yaml.org,2002:' + tag, re.compile(rx), list(first))
res('null', r'^(?:~|null|Null|NULL|)$', ['~', 'n', 'N', ''])
res('bool', r'^(?:true|True|TRUE|false|False|FALSE)$', 'tTfF')
res('int', r'^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$', '-+0123456789')
res('float', r'^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$', '-+0123456789.')
res('merge', r'^<<$', '<')
def cint(loader, node):
    v = loader.construct_scalar(node)
    if v.startswith('0o'): return int(v[2:], 8)
    if v.startswith('0x'): return int(v[2:], 16)
    return int(v)
def cfloat(loader, node):
    v = loader.construct_scalar(node)
    if v.lower().lstrip('+-') in ('.inf', '.nan'): return float(v.replace('.', '', 1))
    return D(v)
Core.add_constructor('tag:yaml.org,2002:int', cint)
Core.add_constructor('tag:yaml.org,2002:float', cfloat)
Core.add_constructor('tag:yaml.org,2002:timestamp', lambda l, n: l.construct_scalar(n))
def num(x):
    return ('n', str(D(x).normalize()) if D(x) != 0 else '0')
def key(k):
    if k is True: return 'true'
    if k is False: return 'false'
    if k is None: return 'null'
    if isinstance(k, (int, D)) and not isinstance(k, bool): return str(k)
    return k
def norm(v):
    if isinstance(v, dict): return ('m', [(key(k), norm(x)) for k, x in v.items()])
    if isinstance(v, list): return ('s', [norm(x) for x in v])
    if isinstance(v, bytes): return base64.b64encode(v).decode()
    if isinstance(v, bool) or v is None or isinstance(v, str): return v
    if isinstance(v, (int, D)): return num(v)
    raise TypeError(type(v).__name__)
class Pairs(list): pass
def hook(p):
    r = Pairs(p)
    return r
def normgo(v):
    if isinstance(v, Pairs): return ('m', [(k, normgo(x)) for k, x in v])
    if isinstance(v, list): return ('s', [normgo(x) for x in v])
    if isinstance(v, D): return num(v)
    return v
for line in sys.stdin:
    c = json.loads(line)
    try:
        with open(c['path'], 'rb') as f:
            docs = list(yaml.load_all(f, Loader=Core))
        py = norm(docs[0]) if len(docs) == 1 else norm(docs)
    except Exception as e:
        print(json.dumps({'path': c['path'], 'py_error': '%s: %s' % (type(e).__name__, str(e).splitlines()[0] if str(e) else '')}))
        continue
    if c.get('go') is None:
        print(json.dumps({'path': c['path'], 'go_error': c['goerr']}))
        continue
    go = normgo(json.loads(c['go'], parse_float=D, parse_int=D, object_pairs_hook=hook))
    print(json.dumps({'path': c['path'], 'same': go == py, 'py': repr(py)[:300], 'go': repr(go)[:300]}))
`

// pyResult is what pyCompare says of a file.
type pyResult struct {
	Path    string
	Same    bool
	PyError string `json:"py_error"`
	GoError string `json:"go_error"`
	Py, Go  string
}

// comparePython runs pyCompare over files, whose toonkit outputs it is
// given (or toonkit's error, and its kind).
func comparePython(t *testing.T, files []string) (results []pyResult, goErrs map[string]error) {
	t.Helper()
	py := needs.Program(t, "python3", "the YAML comparison runs PyYAML")
	if err := exec.Command(py, "-c", "import yaml").Run(); err != nil {
		needs.Missing(t, "python3 has no yaml module (Debian: apt-get install python3-yaml)")
	}
	goErrs = map[string]error{}
	var in bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := map[string]any{"path": f}
		out, err := yamlin.ToJSON(data, yamlin.Options{})
		if err != nil {
			goErrs[f] = err
			c["go"], c["goerr"] = nil, err.Error()
		} else {
			c["go"] = string(out)
		}
		line, _ := json.Marshal(c)
		in.Write(append(line, '\n'))
	}
	cmd := exec.Command(py, "-c", pyCompare)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.Bytes())
	}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r pyResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("python3 said %q: %v", line, err)
		}
		results = append(results, r)
	}
	if len(results) != len(files) {
		t.Fatalf("python3 answered for %d files of %d", len(results), len(files))
	}
	return results, goErrs
}

// deliberate reports whether toonkit's error on a file PyYAML reads is
// one of the documented differences: YAML forbids duplicate keys (PyYAML
// keeps the last), JSON has no NaN or infinity, no collection keys, no
// recursive values.
func deliberate(err error) bool {
	var e *yamlin.Error
	if !errors.As(err, &e) {
		return false
	}
	msg := e.Syntax.Msg
	return e.Kind == yamlin.Duplicate || e.Kind == yamlin.Unsupported && (strings.Contains(msg, "which JSON cannot hold") ||
		strings.Contains(msg, "as a mapping key") || strings.Contains(msg, "finite JSON form"))
}

func checkResults(t *testing.T, results []pyResult, goErrs map[string]error) (compared int) {
	t.Helper()
	for _, r := range results {
		switch {
		case r.PyError != "" && goErrs[r.Path] == nil:
			// PyYAML refuses what toonkit reads: its YAML 1.1 parser, or
			// a tag its safe loader does not construct. Said, not failed.
			t.Logf("%s: PyYAML: %s", r.Path, r.PyError)
		case r.PyError != "":
			t.Logf("%s: both refuse it: PyYAML: %s; toonkit: %s", r.Path, r.PyError, r.GoError)
		case r.GoError != "":
			if !deliberate(goErrs[r.Path]) {
				t.Errorf("%s: toonkit: %s; PyYAML reads it", r.Path, r.GoError)
			}
		case !r.Same:
			t.Errorf("%s: toonkit and PyYAML differ:\n toonkit %s\n PyYAML  %s", r.Path, r.Go, r.Py)
		default:
			compared++
		}
	}
	return compared
}

// genYAML writes a random YAML document of the forms people write:
// nested block and flow collections, every core scalar form, quoted and
// block strings, anchors, aliases and merge keys, several documents.
func genYAML(r *rand.Rand) string {
	var b strings.Builder
	anchors, named := 0, 0 // anchors complete (aliases name those), anchors named
	scalars := []string{"1", "-42", "+7", "007", "0o17", "0x1F", "3.25", "-0.5", ".5", "1.", "1e3", "2.5E-3", "-0.0",
		"123456789012345678901234567890", "true", "False", "TRUE", "null", "~", "Null", "yes", "no", "on", "off",
		"2001-12-14", "12:30", "1_000", "hello world", "'quoted: yes'", `"esc\t\u00e9"`, "'it''s'", "\"\"", "é ü",
		"a#b", "x: y", "[flow]"}
	scalar := func() string {
		s := scalars[r.IntN(len(scalars))]
		if s == "x: y" || s == "[flow]" {
			return "'" + s + "'"
		}
		return s
	}
	var node func(indent string, depth int) string
	node = func(indent string, depth int) string {
		switch k := r.IntN(10); {
		case depth > 3 || k < 4:
			return " " + scalar() + "\n"
		case k == 4 && anchors > 0:
			return " *a" + fmt.Sprint(r.IntN(anchors)) + "\n"
		case k == 5:
			return " [" + scalar() + ", " + scalar() + "]\n"
		case k == 6:
			return " |\n" + indent + "  line one\n" + indent + "  line two\n"
		case k < 9:
			var s strings.Builder
			anchor := ""
			if r.IntN(3) == 0 && named == anchors {
				anchor = " &a" + fmt.Sprint(named)
				named++
				defer func() { anchors++ }()
			}
			s.WriteString(anchor + "\n")
			for i := range 1 + r.IntN(4) {
				s.WriteString(indent + "  k" + fmt.Sprint(i) + ":" + node(indent+"  ", depth+1))
			}
			return s.String()
		}
		var s strings.Builder
		s.WriteString("\n")
		for range 1 + r.IntN(4) {
			s.WriteString(indent + "  -" + node(indent+"    ", depth+1))
		}
		return s.String()
	}
	for d := range 1 + r.IntN(3) {
		if d > 0 {
			b.WriteString("---\n")
		}
		anchors, named = 0, 0
		b.WriteString("base: &base\n  x: 1\n  y: two\n")
		for i := range 2 + r.IntN(4) {
			b.WriteString("key" + fmt.Sprint(i) + ":" + node("", 0))
		}
		b.WriteString("merged:\n  <<: *base\n  y: 3\n")
	}
	return b.String()
}

// TestPythonYAMLGenerated compares toonkit with PyYAML's core-schema
// reading on generated documents.
func TestPythonYAMLGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 4))
	dir := t.TempDir()
	var files []string
	for i := range 60 {
		f := filepath.Join(dir, fmt.Sprintf("gen%02d.yaml", i))
		if err := os.WriteFile(f, []byte(genYAML(r)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	results, goErrs := comparePython(t, files)
	if n := checkResults(t, results, goErrs); n < 55 {
		t.Errorf("only %d of %d generated files compared", n, len(files))
	}
}

// TestPythonYAMLRealFiles compares toonkit with PyYAML on the YAML files
// this machine's packages ship (/usr/share, /usr/lib: CI configurations,
// linters' settings, data of Python and Node packages). -short takes the
// first 150 by name; make test-slow all of them.
func TestPythonYAMLRealFiles(t *testing.T) {
	var files []string
	for _, root := range []string{"/usr/share", "/usr/lib"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if ext := filepath.Ext(path); d.Type().IsRegular() && (ext == ".yaml" || ext == ".yml") {
				if info, err := d.Info(); err == nil && info.Size() < 256<<10 {
					files = append(files, path)
				}
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no YAML files under /usr/share or /usr/lib")
	}
	sort.Strings(files)
	if testing.Short() && len(files) > 150 {
		step := len(files) / 150 // spread over the packages
		var some []string
		for i := 0; i < len(files); i += step {
			some = append(some, files[i])
		}
		files = some
	}
	results, goErrs := comparePython(t, files)
	n := checkResults(t, results, goErrs)
	t.Logf("%d of %d files read alike (the others refused by both: tags of their own, such as the Cloud SDK's !REF)", n, len(files))
	if n < min(30, len(files)/2) {
		t.Errorf("only %d of %d files compared", n, len(files))
	}
}

// The YAML 1.1 readings that YAML 1.2's core schema drops, which PyYAML's
// safe_load keeps: toonkit reads them as YAML 1.2 says
// (docs/formats/yaml.md).
func TestPythonYAML11Differences(t *testing.T) {
	py := needs.Program(t, "python3", "the YAML comparison runs PyYAML")
	if err := exec.Command(py, "-c", "import yaml").Run(); err != nil {
		needs.Missing(t, "python3 has no yaml module (Debian: apt-get install python3-yaml)")
	}
	in := "[yes, no, on, off, 0777, 0o17, 1_000, 2001-12-14, 1:30]"
	out, err := exec.Command(py, "-c", "import yaml, sys; print(repr(yaml.safe_load(sys.argv[1])))", in).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "[True, False, True, False, 511, '0o17', 1000, datetime.date(2001, 12, 14), 90]"; got != want {
		t.Errorf("PyYAML read %s as %s, want %s", in, got, want)
	}
	if got := toJSON(t, in); got != `["yes","no","on","off",777,15,"1_000","2001-12-14","1:30"]` {
		t.Errorf("toonkit read %s as %s", in, got)
	}
}
