package schemamap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestComment(t *testing.T) {
	for _, c := range []struct {
		src, path string
		line      int
	}{
		{"#:schema users.schema.json\nusers[1]: a\n", "users.schema.json", 1},
		{"\ufeff# users\n\n#:schema  ../s.json \r\na: 1\n", "../s.json", 3},
		{"a: 1\n#:schema late.json\n", "", 0},  // after content: no
		{"#:schemafoo.json\na: 1\n", "", 0},    // no space
		{"#:schema\na: 1\n", "", 0},            // no path
		{"  #:schema in.json\n", "in.json", 1}, // indented comment
		{"#:schema a.json\n#:schema b.json\n", "a.json", 1},
	} {
		p, line, ok := Comment([]byte(c.src))
		if p != c.path || line != c.line || ok != (c.path != "") {
			t.Errorf("Comment(%q) = %q %d %v, want %q %d", c.src, p, line, ok, c.path, c.line)
		}
	}
}

// write lays out files under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, b := range files {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolver(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		".git/HEAD":            "ref: main\n",
		ConfigName:             "schemas:\n  - schema: schemas/users.json\n    files: [\"data/**/users*.toon\", \"fixtures/*.json\"]\n  - schema: /abs/any.json\n    files: [\"**/*.toon\"]\n",
		"data/eu/users-1.toon": "a: 1\n",
		"data/other.toon":      "a: 1\n",
		"fixtures/u.json":      "{}",
		"fixtures/deep/u.json": "{}",
		"own/x.toon":           "#:schema ../schemas/x.json\na: 1\n",
		"nested/" + ConfigName: "schemas: []\n",
		"nested/n.toon":        "a: 1\n",
	})
	var r Resolver
	for _, c := range []struct{ file, schema, source string }{
		{"data/eu/users-1.toon", "schemas/users.json", ConfigName + ":2"},
		{"fixtures/u.json", "schemas/users.json", ConfigName + ":2"},
		{"data/other.toon", "/abs/any.json", ConfigName + ":4"},
		{"fixtures/deep/u.json", "", ""},
		{"own/x.toon", "schemas/x.json", "own/x.toon:1"}, // the comment wins
		{"nested/n.toon", "", ""},                        // the nearest project file, with no entry
	} {
		name := filepath.Join(dir, c.file)
		head, _ := os.ReadFile(name)
		a, err := r.For(name, head)
		if err != nil {
			t.Fatal(err)
		}
		want := c.schema
		if want != "" && !filepath.IsAbs(want) {
			want = filepath.Join(dir, want)
		}
		if a.Schema != want || (c.source != "" && a.Source != filepath.Join(dir, c.source)) {
			t.Errorf("%s: %+v, want %s from %s", c.file, a, want, c.source)
		}
	}
	// Above the repository's root nothing is read.
	up := t.TempDir()
	write(t, up, map[string]string{ConfigName: "schemas:\n  - schema: s.json\n    files: [\"**\"]\n", "repo/.git/HEAD": "x", "repo/a.toon": "a: 1\n"})
	if a, err := r.For(filepath.Join(up, "repo/a.toon"), nil); err != nil || a.Schema != "" {
		t.Errorf("a project file above .git was read: %+v %v", a, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"schemas: x\n", "p:1: schemas: expected a list"},
		{"schema:\n  - x\n", `p:1: unknown key "schema"`},
		{"schemas:\n  - schema: s.json\n", "p:2: an entry needs a schema and at least one glob"},
		{"schemas:\n  - schema: s.json\n    file: [a]\n", `p:3: unknown key "file" in an entry`},
		{"schemas:\n  - schema: s.json\n    files: [\"[\"]\n", `p:2: files: "[" is not a valid glob`},
		{"schemas: [\n", "p: "},
		{"- a\n", "p:1: expected a mapping"},
	} {
		_, err := ParseConfig("p", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseConfig(%q): %v, want %q", c.src, err, c.want)
		}
	}
	if c, err := ParseConfig("p", nil); err != nil || len(c.Entries) != 0 {
		t.Errorf("an empty project file: %v %v", c, err)
	}
}

// Names that begin with "..", globs written "./x", and a folder reached
// through a symbolic link (its "../" is the target's parent, as for the
// system).
func TestResolverPaths(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"real/proj/.git/HEAD":      "x",
		"real/proj/" + ConfigName:  "schemas:\n  - schema: s.json\n    files: [\"./data/*.toon\", \"**/..*.toon\"]\n",
		"real/proj/data/x.toon":    "#:schema ../schemas/u.json\na: 1\n",
		"real/proj/data/y.toon":    "a: 1\n",
		"real/proj/..dots.toon":    "a: 1\n",
		"real/proj/schemas/u.json": "{}",
		"work/schemas/u.json":      "{}",
		"work/.git/HEAD":           "x",
	})
	if err := os.Symlink(filepath.Join(dir, "real/proj/data"), filepath.Join(dir, "work/data")); err != nil {
		t.Skip(err)
	}
	var r Resolver
	real := func(p string) string { s, _ := filepath.EvalSymlinks(filepath.Join(dir, p)); return s }
	for _, c := range []struct{ file, schema string }{
		{"work/data/x.toon", real("real/proj/schemas") + "/u.json"},
		{"real/proj/data/y.toon", real("real/proj") + "/s.json"},
		{"work/data/y.toon", real("real/proj") + "/s.json"},
		{"real/proj/..dots.toon", real("real/proj") + "/s.json"},
	} {
		name := filepath.Join(dir, c.file)
		head, _ := os.ReadFile(name)
		a, err := r.For(name, head)
		if err != nil || a.Schema != c.schema {
			t.Errorf("%s: %+v %v, want %s", c.file, a, err, c.schema)
		}
	}
}
