package validate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toonkit/toonkit/internal/needs"
)

// compileExported compiles every exported schema with the schema library,
// formats asserted, as the embedded ones are.
func compileExported(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	out := map[string]*jsonschema.Schema{}
	for _, name := range SchemaNames() {
		b, err := ExportSchema(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: the exported schema is not JSON: %v", name, err)
		}
		if err := c.AddResource(schemaBase+name+".json", doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range SchemaNames() {
		s, err := c.Compile(schemaBase + name + ".json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// The exported schemas hold no x- keyword and no format, keep the codes and
// messages as $comment, and pass and fail the same messages as the
// embedded ones: the rule seeds and every mutation of them.
func TestExportedSchemasSameVerdicts(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	exported := compileExported(t)
	for _, name := range SchemaNames() {
		b, _ := ExportSchema(name)
		if bytes.Contains(b, []byte(`"x-code"`)) || bytes.Contains(b, []byte(`"x-message"`)) || bytes.Contains(b, []byte(`"format"`)) {
			t.Errorf("%s: the exported schema still holds x-code, x-message or format", name)
		}
		raw, _ := Schema(name)
		if got, want := bytes.Count(b, []byte(`"$comment": "x-code: `)), bytes.Count(raw, []byte(`"x-code"`)); got != want {
			t.Errorf("%s: %d $comment codes for %d x-code", name, got, want)
		}
	}
	if b, _ := ExportSchema("chiffon"); !bytes.Contains(b, []byte(`"$comment": "x-code: CHF040; x-message: must be a UUID (the task)"`)) {
		t.Errorf("chiffon: no $comment for CHF040 in the exported form")
	}
	cases := 0
	for name, seeds := range ruleSeeds {
		for _, seed := range seeds {
			msgs := []string{seed}
			for _, mu := range mutations(seed) {
				msgs = append(msgs, mu.msg)
			}
			for _, m := range msgs {
				v, err := decodeAny([]byte(m))
				if err != nil {
					t.Fatal(err)
				}
				want := schemas.compiled[name].Validate(v) == nil
				got := exported[name].Validate(v) == nil
				if got != want {
					t.Errorf("%s: %s: exported schema valid=%v, embedded valid=%v", name, m, got, want)
				}
				cases++
			}
		}
	}
	// Times, the format made a pattern.
	for _, ts := range []string{"2026-01-19T04:21:04Z", "2026-01-19t04:21:04.5+01:00", "2024-02-29T23:59:60Z", "2026-01-19T04:21:04",
		"2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-19 04:21:04Z", "2026-01-19T24:00:00Z", "2026-01-19T04:21:04+0100", "x"} {
		m := fmt.Sprintf(`{"version":"0","type":"log","level":"info","message":"m","timestamp":%q}`, ts)
		v, _ := decodeAny([]byte(m))
		want := schemas.compiled["narratoria"].Validate(v) == nil
		if got := exported["narratoria"].Validate(v) == nil; got != want {
			t.Errorf("timestamp %q: exported schema valid=%v, embedded valid=%v", ts, got, want)
		}
		cases++
	}
	t.Logf("%d messages, the same verdicts", cases)
}

// ajvVersion is the ajv-cli the exported schemas are compiled with.
const ajvVersion = "5.0.0"

// Every exported schema passes the real ajv-cli from npm in strict mode,
// with no plugin: `ajv compile --spec=draft2020 --strict=true -s FILE`.
// It needs node and npm (and the npm registry); it skips, saying so,
// without them (fails under TOONKIT_CI, where .ci/run installs them).
func TestExportedSchemasPassAjvStrict(t *testing.T) {
	if testing.Short() {
		t.Skip("ajv-cli: skipped in -short mode")
	}
	needs.Program(t, "node", "ajv-cli runs on it")
	npm := needs.Program(t, "npm", "it installs ajv-cli")
	dir := t.TempDir()
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", dir, "ajv-cli@"+ajvVersion)
	if out, err := install.CombinedOutput(); err != nil {
		needs.Missing(t, fmt.Sprintf("ajv-cli: npm could not install ajv-cli@%s (offline?): %v\n%s", ajvVersion, err, out))
	}
	ajv := filepath.Join(dir, "node_modules", ".bin", "ajv")
	for _, name := range SchemaNames() {
		b, err := ExportSchema(name)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(ajv, "compile", "--spec=draft2020", "--strict=true", "-s", file).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "is valid") {
			t.Errorf("ajv compile --spec=draft2020 --strict=true -s %s.json: %v\n%s", name, err, out)
		}
	}
	// The embedded form is what ajv refuses: the test would catch an
	// export that changed nothing.
	raw, _ := Schema("chiffon")
	file := filepath.Join(dir, "embedded-chiffon.json")
	os.WriteFile(file, raw, 0o644)
	if out, err := exec.Command(ajv, "compile", "--spec=draft2020", "--strict=true", "-s", file).CombinedOutput(); err == nil {
		t.Errorf("ajv took the embedded chiffon schema in strict mode:\n%s", out)
	}
}
