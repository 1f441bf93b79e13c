// Package schemamap finds the JSON Schema that belongs to a file, for
// validate (and for fmt and an editor, which read the same association).
//
// A schema is named, in order of precedence:
//
//  1. on the command line (validate --schema FILE), which this package
//     does not see;
//
//  2. in the file itself, by a comment line "#:schema PATH" among the
//     comment lines before a TOON document's first content line (taplo's
//     spelling for TOML); PATH is relative to the file's folder;
//
//  3. by the project file .toonkit.yaml, in the file's folder or the
//     nearest folder above it (up to a folder holding .git), which maps
//     globs to schemas:
//
//     schemas:
//     - schema: schemas/users.schema.json
//     files: ["data/users/*.toon", "fixtures/**/users.json"]
//
//     Paths and globs are relative to the folder of .toonkit.yaml, with
//     "/" between names (a leading "./" is dropped); "**" matches any
//     number of folders (github.com/bmatcuk/doublestar). The first entry
//     whose glob matches wins. Symbolic links in a file's folder are
//     resolved first, as the system resolves a "../" through them.
package schemamap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v3"
)

// ConfigName is the project file's name.
const ConfigName = ".toonkit.yaml"

// Association is the schema a file is given, and what gave it.
type Association struct {
	Schema string // the schema's path, as the file system reaches it ("": none)
	// Source says where the association is: "FILE:LINE" of the #:schema
	// comment or of the project file's entry.
	Source string
}

// Config is a project file: its folder, and its entries in order.
type Config struct {
	Path    string
	Dir     string
	Entries []Entry
}

// Entry is one schema and the globs of its files.
type Entry struct {
	Schema string
	Files  []string
	Line   int // of the entry in the project file
}

// ConfigError is a project file that cannot be read as one: its place and
// what is wrong.
type ConfigError struct {
	Path string
	Line int
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// ParseConfig reads the project file at path, whose content is b.
func ParseConfig(path string, b []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, &ConfigError{Path: path, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	c := &Config{Path: path, Dir: filepath.Dir(path)}
	if len(root.Content) == 0 {
		return c, nil // empty: no entry
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, &ConfigError{Path: path, Line: doc.Line, Msg: "expected a mapping with the key schemas"}
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Value != "schemas" {
			return nil, &ConfigError{Path: path, Line: k.Line, Msg: fmt.Sprintf("unknown key %q (expected schemas)", k.Value)}
		}
		if v.Kind != yaml.SequenceNode {
			return nil, &ConfigError{Path: path, Line: v.Line, Msg: "schemas: expected a list of {schema, files} entries"}
		}
		for _, e := range v.Content {
			var entry struct {
				Schema string   `yaml:"schema"`
				Files  []string `yaml:"files"`
			}
			if err := e.Decode(&entry); err != nil || e.Kind != yaml.MappingNode {
				return nil, &ConfigError{Path: path, Line: e.Line, Msg: "an entry is {schema: PATH, files: [GLOB, ...]}"}
			}
			for j := 0; j+1 < len(e.Content); j += 2 {
				if n := e.Content[j].Value; n != "schema" && n != "files" {
					return nil, &ConfigError{Path: path, Line: e.Content[j].Line, Msg: fmt.Sprintf("unknown key %q in an entry (expected schema and files)", n)}
				}
			}
			if entry.Schema == "" || len(entry.Files) == 0 {
				return nil, &ConfigError{Path: path, Line: e.Line, Msg: "an entry needs a schema and at least one glob in files"}
			}
			for _, g := range entry.Files {
				if !doublestar.ValidatePattern(g) {
					return nil, &ConfigError{Path: path, Line: e.Line, Msg: fmt.Sprintf("files: %q is not a valid glob", g)}
				}
			}
			for k, g := range entry.Files {
				entry.Files[k] = strings.TrimPrefix(g, "./") // relative to the folder already
			}
			c.Entries = append(c.Entries, Entry{Schema: entry.Schema, Files: entry.Files, Line: e.Line})
		}
	}
	return c, nil
}

// Match is the entry of c whose glob matches file (a path the file system
// reaches), or nil.
func (c *Config) Match(file string) *Entry {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	if d := realDir(abs); filepath.IsAbs(d) {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil // not under the project file's folder
	}
	rel = filepath.ToSlash(rel)
	for i := range c.Entries {
		for _, g := range c.Entries[i].Files {
			if ok, _ := doublestar.Match(g, rel); ok {
				return &c.Entries[i]
			}
		}
	}
	return nil
}

// Comment finds a "#:schema PATH" comment among the comment and blank
// lines that begin src: the path and its 1-based line.
func Comment(src []byte) (path string, line int, ok bool) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	for n := 1; len(src) > 0; n++ {
		l := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		t := bytes.TrimSpace(l)
		switch {
		case len(t) == 0:
			continue
		case t[0] != '#':
			return "", 0, false // content: the header of comments is over
		case bytes.HasPrefix(t, []byte("#:schema")):
			p := strings.TrimSpace(string(t[len("#:schema"):]))
			if p != "" && (len(t) == len("#:schema") || t[len("#:schema")] == ' ' || t[len("#:schema")] == '\t') {
				return p, n, true
			}
		}
	}
	return "", 0, false
}

// Resolver finds the associations of files, reading each project file
// once.
type Resolver struct {
	configs map[string]*Config // by folder; nil: none there
	errs    map[string]error
}

// For is the association of the file name, whose first bytes are head (a
// TOON document's comment header is read from them). No association is
// an Association with Schema "", and no error. A project file that cannot
// be read is a *ConfigError (or the error of reading it).
func (r *Resolver) For(name string, head []byte) (Association, error) {
	if p, line, ok := Comment(head); ok {
		if !filepath.IsAbs(p) {
			p = filepath.Join(realDir(name), filepath.FromSlash(p))
		}
		return Association{Schema: p, Source: fmt.Sprintf("%s:%d", name, line)}, nil
	}
	c, err := r.ConfigFor(name)
	if err != nil || c == nil {
		return Association{}, err
	}
	e := c.Match(name)
	if e == nil {
		return Association{}, nil
	}
	p := e.Schema
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Dir, filepath.FromSlash(p))
	}
	return Association{Schema: p, Source: fmt.Sprintf("%s:%d", c.Path, e.Line)}, nil
}

// ConfigFor is the project file that applies to name: in its folder or
// the nearest above it, up to a folder holding .git; nil when none.
func (r *Resolver) ConfigFor(name string) (*Config, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	if d := realDir(abs); filepath.IsAbs(d) {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	if r.configs == nil {
		r.configs, r.errs = map[string]*Config{}, map[string]error{}
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		c, seen := r.configs[dir]
		err := r.errs[dir]
		if !seen {
			c, err = r.read(dir, name, abs)
			r.configs[dir], r.errs[dir] = c, err
		}
		if c != nil || err != nil {
			return c, err
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil || filepath.Dir(dir) == dir {
			return nil, nil // the repository's root, or the file system's
		}
	}
}

// read reads the project file of dir, if there is one, naming it as the
// path from name's folder (so that messages use the user's paths).
func (r *Resolver) read(dir, name, abs string) (*Config, error) {
	path := filepath.Join(dir, ConfigName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	shown := path
	if rel, rerr := filepath.Rel(filepath.Dir(abs), dir); rerr == nil {
		shown = filepath.Join(filepath.Dir(name), rel, ConfigName)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", shown, err)
	}
	c, err := ParseConfig(shown, b)
	if c != nil {
		c.Dir = dir
	}
	return c, err
}

// realDir is the folder of name with its symbolic links resolved, as the
// system resolves a path through it ("link/../x" is x beside the link's
// target); name's folder as written when that fails.
func realDir(name string) string {
	d := filepath.Dir(name)
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return r
	}
	return d
}
