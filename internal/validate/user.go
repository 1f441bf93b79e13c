package validate

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/records/pcapsrc"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// The codes of a user's schema (UserSchema), unless the schema's own node
// names one with x-code, as toonkit's schemas do.
const (
	// CodeUserRecord: a record that is not JSON (a syntax error, a TOON
	// or table error, a record past the size limit).
	CodeUserRecord = "SCH000"
	// CodeUserRule: a rule of the user's schema is broken.
	CodeUserRule = "SCH001"
)

// UserSchema is a JSON Schema the user gives (validate --schema), compiled
// with the draft its $schema names (draft-04, -06, -07, 2019-09, 2020-12;
// 2020-12 when it names none), formats asserted. A $ref to another file
// resolves relative to the file that holds it (file: URLs); toonkit's own
// schemas (https://toonkit.dev/schemas/NAME.json, see SchemaNames) resolve
// offline; any other URL (http, https, urn: not declared by an $id of the
// files read) is refused, never fetched.
//
// Its findings are those of the built-in protocols: a place (file, line
// and column for text, frame and byte offset for frames), the JSON pointer
// of the field, a code and a message. The code and the message are the
// schema node's x-code and x-message when it has them (the message then
// followed by what was found), else SCH001 and a message made from the
// rule.
type UserSchema struct {
	file   string
	schema *jsonschema.Schema
	docs   map[string]any // the documents read, by URL
}

// SchemaProblem tells what is wrong with a user's schema.
type SchemaProblem int

const (
	// SchemaUnreadable: a schema file (the one given, or one a $ref names)
	// cannot be read.
	SchemaUnreadable SchemaProblem = iota
	// SchemaInvalid: a schema file is not JSON, or not a valid schema (its
	// metaschema refuses it, a $ref names nothing, a pattern is not a
	// regular expression).
	SchemaInvalid
	// SchemaRemoteRef: a $ref (or $schema) names a URL toonkit does not
	// fetch: the schema is not usable offline.
	SchemaRemoteRef
)

// SchemaError is a user's schema that cannot be used: the file and the
// place in it (Line 0 when none is known), the JSON pointer, what.
type SchemaError struct {
	Problem      SchemaProblem
	File         string
	Line, Column int
	Pointer      string
	Ref          string // SchemaRemoteRef: the URL refused
	Msg          string
	Err          error
}

func (e *SchemaError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.Pointer != "" {
		where += ": " + e.Pointer
	}
	return where + ": " + e.Msg
}

func (e *SchemaError) Unwrap() error { return e.Err }

// Hint is the next step to suggest, "" when none.
func (e *SchemaError) Hint() string {
	switch {
	case e.Problem == SchemaRemoteRef:
		return "save the schema it names beside yours and name it by a relative path"
	case strings.HasPrefix(e.Msg, "not a valid schema"):
		return "a schema is checked against the metaschema of its draft (its $schema; 2020-12 when it names none)"
	}
	return ""
}

// remoteRef is the loader's refusal of a URL it does not fetch.
type remoteRef struct{ url string }

func (r *remoteRef) Error() string { return "not fetched: " + r.url }

// userLoader reads the files a schema names and keeps their bytes, for
// the positions of errors; it refuses every other URL. A URL under the
// folder of a file's $id (https://example.com/schemas/item.json under a
// file whose $id is https://example.com/schemas/order.json) is the file at
// the same place under that file's folder, when there is one: schemas
// published with $ids and relative $refs among them work from a checkout,
// and nothing is fetched.
type userLoader struct {
	given map[string][]byte // documents given, not read from files, by URL
	raw   map[string][]byte // by URL
	local map[string]string // the file of each URL read
	ids   map[string]string // a file's $id (an absolute, non-file URL) -> the file
}

func (l *userLoader) Load(u string) (any, error) {
	path, err := l.file(u)
	if err != nil {
		return nil, err
	}
	b, ok := l.given[u]
	if !ok {
		if b, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	l.raw[u], l.local[u] = b, path
	doc, err := parseSchemaDoc(u, b)
	if err != nil {
		return nil, err
	}
	if m, ok := doc.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			base, _ := url.Parse(u)
			if iu, err := base.Parse(id); err == nil && iu.Scheme != "file" {
				iu.Fragment, iu.RawFragment = "", ""
				if p, _ := url.Parse(u); p.Scheme != "file" && iu.String() != u {
					return nil, &remoteRef{u} // another schema than the one asked for
				}
				l.ids[iu.String()] = path
			}
		}
	}
	return doc, nil
}

// file is the file of URL u: a file: URL's, or one beside a file whose $id
// shares u's folder.
func (l *userLoader) file(u string) (string, error) {
	if p, err := url.Parse(u); err == nil && p.Scheme == "file" {
		return jsonschema.FileLoader{}.ToFile(u)
	}
	ids := make([]string, 0, len(l.ids))
	for id := range l.ids {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		dir := id[:strings.LastIndexByte(id, '/')+1]
		rel := strings.TrimPrefix(u, dir)
		if dir == "" || rel == u || strings.Contains(rel, "..") {
			continue
		}
		if unesc, err := url.PathUnescape(rel); err == nil {
			rel = unesc
		}
		p := filepath.Join(filepath.Dir(l.ids[id]), filepath.FromSlash(rel))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", &remoteRef{u}
}

// docError is a schema document that is not JSON, at an offset.
type docError struct {
	url    string
	offset int64
	err    error
}

func (e *docError) Error() string { return e.err.Error() }

func parseSchemaDoc(u string, b []byte) (any, error) {
	v, err := decodeAny(records.TrimBOM(b))
	if err == nil {
		// Nothing after the value but white space.
		d := jsontext.NewDecoder(bytes.NewReader(records.TrimBOM(b)))
		if err = d.SkipValue(); err == nil {
			if _, err2 := d.ReadToken(); err2 != io.EOF {
				return nil, &docError{u, d.InputOffset(), errors.New("more than one JSON value")}
			}
			return v, nil
		}
	}
	var off int64
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = se.ByteOffset
		err = se.Err
	}
	return nil, &docError{u, off, err}
}

// LoadUserSchema reads and compiles the schema file path, and the files
// its $refs name.
func LoadUserSchema(path string) (*UserSchema, error) {
	return loadUserSchema(path, nil)
}

// UserSchemaOf compiles doc, a schema given as text (by an MCP call), as
// the schema file name in the working directory would be: its $refs to
// other files are read beside it.
func UserSchemaOf(name string, doc []byte) (*UserSchema, error) {
	return loadUserSchema(name, doc)
}

// loadUserSchema is LoadUserSchema, of doc instead of the file's bytes
// when doc is not nil.
func loadUserSchema(path string, doc []byte) (*UserSchema, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &SchemaError{Problem: SchemaUnreadable, File: path, Msg: err.Error(), Err: err}
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	ld := &userLoader{raw: map[string][]byte{}, local: map[string]string{}, ids: map[string]string{}}
	if doc != nil {
		ld.given = map[string][]byte{u: doc}
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(ld)
	us := &UserSchema{file: path, docs: map[string]any{}}
	// toonkit's own schemas, offline.
	if err := loadSchemas(); err != nil {
		return nil, err
	}
	for base, doc := range schemas.docs {
		if err := c.AddResource(base, doc); err != nil {
			return nil, err
		}
		us.docs[base] = doc
	}
	root, err := ld.Load(u)
	if err != nil {
		return nil, us.schemaError(ld, u, path, err)
	}
	if err := c.AddResource(u, root); err != nil {
		return nil, us.schemaError(ld, u, path, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		return nil, us.schemaError(ld, u, path, err)
	}
	us.schema = s
	for k := range ld.raw {
		doc, _ := parseSchemaDoc(k, ld.raw[k])
		us.docs[k] = doc
	}
	return us, nil
}

// File is the schema's file, as LoadUserSchema was given it.
func (us *UserSchema) File() string { return us.file }

// fileURLRe finds the file: URLs an error of the schema library quotes.
var fileURLRe = regexp.MustCompile(`"(file://[^"#]*)(#[^"]*)?"`)

// schemaError turns an error of loading or compiling the schema rooted at
// u (the file path) into a *SchemaError with the place it concerns.
func (us *UserSchema) schemaError(ld *userLoader, u, path string, err error) error {
	se := &SchemaError{Problem: SchemaInvalid, File: path, Err: err, Msg: err.Error()}
	// where sets the place: the file of URL fu and the pointer in it.
	where := func(fu, ptr string) {
		se.File = ld.display(fu, u, path)
		se.Pointer = ptr
		if raw, ok := ld.raw[fu]; ok {
			p := advance(jsonv.Position{Line: 1, Column: 1}, raw[:jsonv.PointerOffset(raw, ptr)])
			se.Line, se.Column = p.Line, p.Column
		}
	}
	var de *docError
	var rr *remoteRef
	var le *jsonschema.LoadURLError
	var pe *os.PathError
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &le) {
		// The library's wrapper does not unwrap: its cause is the
		// loader's.
		errors.As(le.Err, &de)
		errors.As(le.Err, &rr)
		errors.As(le.Err, &pe)
	}
	switch {
	case errors.As(err, &de) || de != nil:
		se.File = ld.display(de.url, u, path)
		if raw, ok := ld.raw[de.url]; ok {
			off := min(int(de.offset)+len(raw)-len(records.TrimBOM(raw)), len(raw))
			p := advance(jsonv.Position{Line: 1, Column: 1}, raw[:off])
			se.Line, se.Column = p.Line, p.Column
		}
		se.Msg = "not JSON: " + de.err.Error()
	case rr != nil:
		se.Problem, se.Ref = SchemaRemoteRef, rr.url
		se.Msg = fmt.Sprintf("%s is not a file: toonkit does not fetch schemas (no network)", rr.url)
		if fu, ptr, ok := us.findRef(ld, rr.url, false); ok {
			where(fu, ptr)
		}
	case errors.As(err, &pe) || pe != nil:
		se.Problem = SchemaUnreadable
		fu := u
		if le != nil {
			fu = le.URL
		}
		se.Msg = pe.Err.Error()
		if fu != u {
			se.Msg = fmt.Sprintf("cannot read %s: %v", ld.display(fu, u, path), pe.Err)
			if ru, ptr, ok := us.findRef(ld, fu, false); ok {
				where(ru, ptr)
			}
		}
	case errors.As(err, &sve):
		se.Msg = "not a valid schema"
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			leaf := ve
			for len(leaf.Causes) > 0 {
				leaf = leaf.Causes[0]
			}
			fu, _, _ := strings.Cut(sve.URL, "#")
			where(fu, pointer(leaf.InstanceLocation))
			doc, _ := parseSchemaDoc(fu, ld.raw[fu])
			se.Msg = "not a valid schema: " + generic(leaf.ErrorKind, describe(at(doc, leaf.InstanceLocation)))
		}
	default:
		// An error that quotes a place in a file: a $ref to nothing, a
		// pattern that is not a regular expression.
		if m := fileURLRe.FindStringSubmatch(err.Error()); m != nil {
			ptr, _ := url.PathUnescape(strings.TrimPrefix(m[2], "#"))
			if !strings.HasPrefix(ptr, "/") {
				ptr = ""
			}
			where(m[1], ptr)
			var pnf *jsonschema.JSONPointerNotFoundError
			var anf *jsonschema.AnchorNotFoundError
			if errors.As(err, &pnf) || errors.As(err, &anf) {
				// A $ref to nothing: the place of the $ref.
				if ru, rptr, ok := us.findRef(ld, m[1]+m[2], true); ok {
					where(ru, rptr)
				}
			}
			se.Msg = fileURLRe.ReplaceAllStringFunc(err.Error(), func(q string) string {
				s := fileURLRe.FindStringSubmatch(q)
				return ld.display(s[1], u, path) + s[2]
			})
		}
	}
	return se
}

// display names the file of URL fu as the user named the root schema:
// the root by its path, another file relative to the root's folder.
func (l *userLoader) display(fu, root, rootPath string) string {
	if fu == root {
		return rootPath
	}
	p, ok := l.local[fu]
	if !ok {
		var err error
		if p, err = (jsonschema.FileLoader{}).ToFile(fu); err != nil {
			return fu
		}
	}
	abs, _ := filepath.Abs(rootPath)
	if rel, err := filepath.Rel(filepath.Dir(abs), p); err == nil && !filepath.IsAbs(rootPath) {
		return filepath.Join(filepath.Dir(rootPath), rel)
	}
	return p
}

// findRef finds the $ref, $dynamicRef, $recursiveRef or $schema of the
// files read that resolves to target (fragment aside): the file's URL and
// the keyword's pointer.
func (us *UserSchema) findRef(ld *userLoader, target string, fragment bool) (fileURL, ptr string, ok bool) {
	if !fragment {
		target, _, _ = strings.Cut(target, "#")
	}
	urls := make([]string, 0, len(ld.raw))
	for u := range ld.raw {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, fu := range urls {
		doc, err := parseSchemaDoc(fu, ld.raw[fu])
		if err != nil {
			continue
		}
		base, _ := url.Parse(fu)
		if p, found := refIn(doc, base, target, "", fragment); found {
			return fu, p, true
		}
	}
	return "", "", false
}

func refIn(v any, base *url.URL, target, ptr string, fragment bool) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		if id, ok := x["$id"].(string); ok {
			if b, err := base.Parse(id); err == nil {
				base = b
			}
		}
		for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef", "$schema"} {
			if r, ok := x[k].(string); ok {
				if ru, err := base.Parse(r); err == nil {
					if !fragment {
						ru.Fragment, ru.RawFragment = "", ""
					}
					if ru.String() == target {
						return ptr + "/" + escapePointer(k), true
					}
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := refIn(x[k], base, target, ptr+"/"+escapePointer(k), fragment); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := refIn(e, base, target, fmt.Sprintf("%s/%d", ptr, i), fragment); ok {
				return p, true
			}
		}
	}
	return "", false
}

// check returns the issues of one JSON value against the schema, in the
// order of their places in raw.
func (us *UserSchema) check(raw []byte) ([]issue, error) {
	v, err := decodeAny(raw)
	if err != nil {
		return nil, err
	}
	leaves, err := failedLeaves(us.schema, v)
	if err != nil || leaves == nil {
		return nil, err
	}
	var out []issue
	for _, e := range leaves {
		out = append(out, us.explain(e, v)...)
	}
	offs := make([]int64, len(out))
	for i := range out {
		offs[i] = jsonv.PointerOffset(raw, out[i].Pointer)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return offs[idx[a]] < offs[idx[b]] })
	sorted := make([]issue, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}

// explain is the issues of a failed leaf rule: one per missing field or
// field not allowed, else one.
func (us *UserSchema) explain(e *jsonschema.ValidationError, v any) []issue {
	ptr := pointer(e.InstanceLocation)
	node, path := schemaNodeIn(us.docs, e.SchemaURL)
	code := nearestCode(path)
	if code == "SCHEMA" {
		code = CodeUserRule
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []issue
		for _, name := range k.Missing {
			field := child(node, "properties", name)
			it := issue{Pointer: ptr + "/" + escapePointer(name), Code: xString(field, "x-code"), Severity: Error, Message: "is required (the field is missing)"}
			if m := xString(field, "x-message"); m != "" {
				it.Message = m + ", found nothing (the field is missing)"
			}
			if it.Code == "" {
				it.Code = code
			}
			out = append(out, it)
		}
		return out
	case *kind.AdditionalProperties:
		var out []issue
		for _, name := range k.Properties {
			out = append(out, issue{Pointer: ptr + "/" + escapePointer(name), Code: code, Severity: Error, Message: "is not a field the schema allows here"})
		}
		return out
	}
	found := describe(at(v, e.InstanceLocation))
	it := issue{Pointer: ptr, Code: code, Severity: Error}
	if m := xString(node, "x-message"); m != "" {
		it.Message = m + ", found " + found
	} else {
		it.Message = generic(e.ErrorKind, found)
	}
	return []issue{it}
}

// UserOptions configure UserSchema.Validate.
type UserOptions struct {
	// Format is the input's encoding: json (a value, or values one after
	// another: NDJSON), ndjson, toon, tabular or binary; "" detects it.
	Format codec.Format
	// MaxFrameSize bounds a frame's payload, a line or a record; 0: the
	// readers' defaults.
	MaxFrameSize int
	// Again: a first pass over the input (its format's own rules) has
	// reported what the reader finds wrong (a syntax error, a bad frame):
	// only the schema's findings are emitted.
	Again bool
	// TOONIndent is the spaces per level of a TOON document; 0 means 2.
	TOONIndent int
}

// ErrUserFormat is returned for an input whose records a UserSchema does
// not read (a packet capture); errors.Is tells it.
var ErrUserFormat error = &hinted{"validate --schema reads JSON, NDJSON, TOON, tables and frames", "decode it to NDJSON first"}

// hinted is an error with the next step to suggest.
type hinted struct{ msg, hint string }

func (e *hinted) Error() string { return e.msg }

// Hint is the next step to suggest.
func (e *hinted) Hint() string { return e.hint }

// Validate checks each record of r, the input named name, against the
// schema and emits the findings: each JSON value of a JSON or NDJSON
// stream (a top-level array is one value: a schema of "type": "array"
// checks its elements), a TOON document as one value, each row of a
// table, each frame's payload (the frame's own rules, BIN001-BIN006, are
// checked as Binary checks them; the pointers start with /payload). It
// returns the count of records, and an error when the input cannot be read
// (a *records.Error), or is of a format it does not read (ErrUserFormat).
func (us *UserSchema) Validate(r io.Reader, name string, opts UserOptions, emit Emit) (int, error) {
	format := opts.Format
	switch format {
	case codec.Binary:
		return us.frames(r, name, opts, emit)
	case codec.JSON, codec.Chiffon, codec.Trace, codec.Narratoria:
		format = codec.NDJSON // values one after another, an array one of them
	}
	src, err := records.NewSource(r, name, records.SourceOptions{Format: format, MaxSize: opts.MaxFrameSize, Capture: pcapsrc.Reader(capture.Options{})})
	if err != nil {
		return 0, err
	}
	defer src.Close()
	switch src.Format() {
	case codec.Binary:
		return us.frames(src.Reader(), name, opts, emit)
	case codec.JSON:
		src.Close()
		if src, err = records.NewSource(src.Reader(), name, records.SourceOptions{Format: codec.NDJSON, MaxSize: opts.MaxFrameSize}); err != nil {
			return 0, err
		}
		defer src.Close()
	case codec.Pcap:
		return 0, ErrUserFormat
	}
	src.Raw, src.Whole = true, true
	table := src.Format() == codec.Tabular
	var lines toonLines
	src.TOON.OnLine = lines.add
	if opts.TOONIndent > 0 {
		src.TOON.IndentSize = opts.TOONIndent
	}
	n := 0
	for {
		rec, err := src.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			var re *records.Error
			if errors.As(err, &re) && re.Kind != records.ReadFailed {
				if !opts.Again {
					emit(userRecordFinding(name, n, re))
				}
				return n, nil
			}
			return n, err
		}
		issues, err := us.check(rec)
		if err != nil {
			return n, err
		}
		pos := src.Pos()
		for _, it := range issues {
			f := Finding{File: name, Frame: -1, Record: n, Pointer: it.Pointer, Code: it.Code, Severity: it.Severity, Message: it.Message,
				Line: pos.Line, Column: pos.Column, Offset: pos.Offset}
			switch {
			case table:
				f.Column = 1
			case src.DecodingTOON():
				// TOON: the line the field's JSON was made from, at its
				// content (no byte offset).
				f.Line, f.Column = lines.find(pos.Offset + jsonv.PointerOffset(rec, it.Pointer))
				f.Offset = 0
			default:
				p := advance(pos, rec[:jsonv.PointerOffset(rec, it.Pointer)])
				f.Line, f.Column, f.Offset = p.Line, p.Column, p.Offset
			}
			if !emit(f) {
				return n + 1, nil
			}
		}
		lines.drop(pos.Offset + int64(len(rec)))
		n++
	}
}

// toonLines maps the JSON form of a TOON document, as its decoder makes
// it on another goroutine, to the lines it comes from.
type toonLines struct {
	mu   sync.Mutex
	ends []toonLine
}

type toonLine struct {
	end       int64
	line, col int
}

func (t *toonLines) add(end int64, line, col int) {
	t.mu.Lock()
	t.ends = append(t.ends, toonLine{end, line, col})
	t.mu.Unlock()
}

// find is the line and column of the content whose JSON holds the byte
// at offset off; the last line for the end of the document.
func (t *toonLines) find(off int64) (line, col int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := sort.Search(len(t.ends), func(i int) bool { return t.ends[i].end > off })
	if i == len(t.ends) {
		i--
	}
	if i < 0 {
		return 0, 0
	}
	return t.ends[i].line, t.ends[i].col
}

// drop forgets the lines whose JSON ends at or before off (a record done
// with), so that memory stays bounded.
func (t *toonLines) drop(off int64) {
	t.mu.Lock()
	i := sort.Search(len(t.ends), func(i int) bool { return t.ends[i].end > off })
	t.ends = append(t.ends[:0], t.ends[i:]...)
	t.mu.Unlock()
}

// userRecordFinding is the finding of a record that could not be read.
func userRecordFinding(name string, n int, re *records.Error) Finding {
	f := Finding{File: name, Frame: -1, Record: n, Code: CodeUserRecord, Severity: Error, Message: re.Err.Error()}
	var se *jsonv.SyntaxError
	if errors.As(re.Err, &se) {
		f = textFinding(name, se, n, CodeUserRecord)
	}
	return f
}

// frames checks the payload of each Kado frame; a bad frame is reported
// as Binary reports it and the stream read on from the next plausible
// header.
func (us *UserSchema) frames(r io.Reader, name string, opts UserOptions, emit Emit) (int, error) {
	rd := kado.NewReader(r, kado.ReaderOptions{MaxFrameSize: opts.MaxFrameSize})
	n := 0
	for {
		f, err := rd.Next()
		if err == io.EOF {
			return n, nil
		}
		var fe *kado.FrameError
		if errors.As(err, &fe) {
			femit := emit
			if opts.Again {
				femit = func(Finding) bool { return true }
			}
			more, frame := frameFinding(rd, name, fe, femit)
			if frame {
				n++
			}
			if !more {
				return n, nil
			}
			continue
		}
		if err != nil {
			return n, err
		}
		n++
		js, err := rd.JSON(f)
		if err != nil {
			if errors.As(err, &fe) && !opts.Again && !emit(badPayload(name, fe)) {
				return n, nil
			}
			rd.SkipBadPayload(f)
			continue
		}
		issues, err := us.check(js)
		if err != nil {
			return n, err
		}
		for _, it := range issues {
			fi := Finding{File: name, Frame: f.Index, Offset: f.Offset + kado.HeaderSize, Record: f.Index,
				Pointer: "/payload" + it.Pointer, Code: it.Code, Severity: it.Severity, Message: it.Message}
			if !f.Compressed() {
				fi.Offset += jsonv.PointerOffset(js, it.Pointer)
			}
			if !emit(fi) {
				return n, nil
			}
		}
	}
}
