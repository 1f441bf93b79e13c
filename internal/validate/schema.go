package validate

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

//go:embed schemas/*.json
var schemaFS embed.FS

// schemaBase is the base of the schemas' $id.
const schemaBase = "https://toonkit.dev/schemas/"

// SchemaNames lists the embedded schemas, for --print-schema.
func SchemaNames() []string {
	entries, _ := fs.ReadDir(schemaFS, "schemas")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Schema returns the text of an embedded schema.
func Schema(name string) ([]byte, error) {
	b, err := schemaFS.ReadFile("schemas/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("no schema %q (schemas: %s)", name, strings.Join(SchemaNames(), ", "))
	}
	return b, nil
}

// schemas are the compiled schemas, made once, on first use.
var schemas struct {
	once     sync.Once
	err      error
	compiled map[string]*jsonschema.Schema
	docs     map[string]any // the schema documents, for x-code and x-message
	fast     map[string]*fastSchema
}

func loadSchemas() error {
	schemas.once.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		c.DefaultDraft(jsonschema.Draft2020)
		schemas.compiled = map[string]*jsonschema.Schema{}
		schemas.docs = map[string]any{}
		schemas.fast = map[string]*fastSchema{}
		names := SchemaNames()
		for _, name := range names {
			b, _ := Schema(name)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				schemas.err = fmt.Errorf("schema %s: %v", name, err)
				return
			}
			schemas.docs[schemaBase+name+".json"] = doc
			schemas.fast[name] = compileFast(doc)
			if err := c.AddResource(schemaBase+name+".json", doc); err != nil {
				schemas.err = fmt.Errorf("schema %s: %v", name, err)
				return
			}
		}
		for _, name := range names {
			s, err := c.Compile(schemaBase + name + ".json")
			if err != nil {
				schemas.err = fmt.Errorf("schema %s: %v", name, err)
				return
			}
			schemas.compiled[name] = s
		}
	})
	return schemas.err
}

// issue is a rule broken within one value: where (a JSON pointer), which
// rule, and what.
type issue struct {
	Pointer  string
	Code     string
	Severity Severity
	Message  string
}

// checkSchema validates the JSON value v (already decoded for the schema
// library) against the named schema and returns what it breaks, one issue
// per failed leaf rule, in document order of their pointers.
func checkSchema(name string, v any) ([]issue, error) {
	if err := loadSchemas(); err != nil {
		return nil, err
	}
	s := schemas.compiled[name]
	if s == nil {
		return nil, fmt.Errorf("no schema %q", name)
	}
	leaves, err := failedLeaves(s, v)
	if err != nil || leaves == nil {
		return nil, err
	}
	out := make([]issue, 0, len(leaves))
	for _, e := range leaves {
		out = append(out, explain(e, v))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out, nil
}

// failedLeaves validates v against s and returns the leaf rules it breaks
// (the validation error's causes, depth first), nil when v is valid.
func failedLeaves(s *jsonschema.Schema, v any) ([]*jsonschema.ValidationError, error) {
	err := s.Validate(v)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	var out []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out, nil
}

// explain turns a failed leaf rule into an issue. The schema node (or, for
// a missing field, the field's node) gives the code (x-code) and the
// message (x-message, "must be ..."), to which what was found is added.
func explain(e *jsonschema.ValidationError, v any) issue {
	ptr := pointer(e.InstanceLocation)
	node, nodePath := schemaNode(e.SchemaURL)
	it := issue{Pointer: ptr, Severity: Error}
	found := describe(at(v, e.InstanceLocation))
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		name := k.Missing[0]
		it.Pointer = ptr + "/" + escapePointer(name)
		field := child(node, "properties", name)
		it.Code, it.Message = xString(field, "x-code"), xString(field, "x-message")
		if it.Message == "" {
			it.Message = "is required"
		} else {
			it.Message += ", found nothing (the field is missing)"
		}
		if it.Code == "" {
			it.Code = nearestCode(nodePath)
		}
		return it
	case *kind.AdditionalProperties:
		it.Pointer = ptr + "/" + escapePointer(k.Properties[0])
		it.Code = nearestCode(nodePath)
		it.Message = "is not a field of this message"
		return it
	}
	it.Code = nearestCode(nodePath)
	if m := xString(node, "x-message"); m != "" {
		it.Message = m + ", found " + found
		return it
	}
	it.Message = generic(e.ErrorKind, found)
	return it
}

// generic is the message of a rule without an x-message.
func generic(k jsonschema.ErrorKind, found string) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s, found %s", strings.Join(k.Want, " or "), found)
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, describe(w))
		}
		return fmt.Sprintf("must be one of %s, found %s", strings.Join(want, ", "), found)
	case *kind.Const:
		return fmt.Sprintf("must be %s, found %s", describe(k.Want), found)
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s, found %s", rat(k.Want), found)
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s, found %s", rat(k.Want), found)
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be more than %s, found %s", rat(k.Want), found)
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %s, found %s", rat(k.Want), found)
	case *kind.Format:
		return fmt.Sprintf("must be a valid %s, found %s", k.Want, found)
	case *kind.Pattern:
		return fmt.Sprintf("must match %s, found %s", k.Want, found)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %d %s, found %s", k.Want, plural(k.Want, "member", "members"), found)
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters long, found %s", k.Want, found)
	case *kind.FalseSchema:
		return "is not allowed here"
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long, found %s", k.Want, found)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d %s, found %s", k.Want, plural(k.Want, "element", "elements"), found)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d %s, found %s", k.Want, plural(k.Want, "element", "elements"), found)
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %d %s, found %s", k.Want, plural(k.Want, "member", "members"), found)
	case *kind.UniqueItems:
		return fmt.Sprintf("must have unique elements, found elements %d and %d equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s, found %s", rat(k.Want), found)
	case *kind.Not:
		return fmt.Sprintf("must not match the schema under not, found %s", found)
	case *kind.DependentRequired:
		return fmt.Sprintf("must have %s when it has %q, found %s", strings.Join(k.Missing, " and "), k.Prop, found)
	}
	return fmt.Sprintf("%s, found %s", k.LocalizedString(english), found)
}

// english prints the schema library's messages of the rules generic does
// not word itself.
var english = message.NewPrinter(language.English)

func rat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}

// pointer is the JSON pointer of an instance location.
func pointer(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(s string) string { return jsonv.EscapePointerToken(s) }

// at is the value at an instance location.
func at(v any, loc []string) any {
	for _, t := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			var i int
			fmt.Sscan(t, &i)
			if i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// describe says what a value is, short: a number or string as JSON, an
// object or an array by its kind.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		if len(x) == 0 {
			return "an empty object"
		}
		return fmt.Sprintf("an object of %d %s", len(x), plural(len(x), "member", "members"))
	case []any:
		return fmt.Sprintf("an array of %d %s", len(x), plural(len(x), "element", "elements"))
	case string:
		r := []rune(x)
		if len(r) > 60 {
			x = string(r[:57]) + "…"
		}
		b, _ := json.Marshal(x)
		return string(b)
	case json.Number:
		return x.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// schemaNode resolves a schema location (URL#fragment) to its node in the
// schema document, and says the path of nodes from the root to it.
func schemaNode(loc string) (any, []any) { return schemaNodeIn(schemas.docs, loc) }

// schemaNodeIn is schemaNode in the schema documents docs, by URL.
func schemaNodeIn(docs map[string]any, loc string) (any, []any) {
	base, frag, _ := strings.Cut(loc, "#")
	doc := docs[base]
	path := []any{doc}
	node := doc
	frag, _ = url.PathUnescape(frag)
	for _, t := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if t == "" {
			continue
		}
		t = jsonv.UnescapePointerToken(t)
		switch x := node.(type) {
		case map[string]any:
			node = x[t]
		case []any:
			var i int
			fmt.Sscan(t, &i)
			if i >= 0 && i < len(x) {
				node = x[i]
			} else {
				node = nil
			}
		default:
			node = nil
		}
		path = append(path, node)
	}
	return node, path
}

func child(node any, keys ...string) any {
	for _, k := range keys {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[k]
	}
	return node
}

func xString(node any, key string) string {
	if m, ok := node.(map[string]any); ok {
		if s, ok := m[key].(string); ok {
			return s
		}
	}
	return ""
}

// nearestCode is the x-code of the deepest node on a path that has one.
func nearestCode(path []any) string {
	for i := len(path) - 1; i >= 0; i-- {
		if c := xString(path[i], "x-code"); c != "" {
			return c
		}
	}
	return "SCHEMA"
}
