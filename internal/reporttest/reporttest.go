// Package reporttest checks CI reports against the schemas the CI systems
// use: JUnit XML against Jenkins' JUnit XSD (with xmllint), SARIF against
// the SARIF 2.1.0 JSON Schema. The schemas are the files in
// internal/report/testdata (their sources in testdata/SOURCES.md there); the
// tests of internal/report and of the commands share them through this package.
package reporttest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toonkit/toonkit/internal/needs"
)

// schemaDir is internal/report/testdata, found from this file's place so that
// any package's test can use it.
func schemaDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "internal", "report", "testdata")
}

// JUnitXSD is the path of Jenkins' JUnit XSD (junit-10.xsd).
func JUnitXSD() string { return filepath.Join(schemaDir(), "junit-10.xsd") }

// CheckJUnit validates report by Jenkins' JUnit XSD with xmllint, and
// returns xmllint's complaint, nil when it is valid. Without xmllint the
// test is skipped (failed under TOONKIT_CI).
func CheckJUnit(tb testing.TB, report []byte) error {
	tb.Helper()
	xmllint := needs.Program(tb, "xmllint", "the junit report is checked against Jenkins' JUnit XSD (Debian libxml2-utils)")
	p := filepath.Join(tb.TempDir(), "report.xml")
	if err := os.WriteFile(p, report, 0o644); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", JUnitXSD(), p).CombinedOutput()
	if err != nil {
		return &xmllintError{err: err, out: out}
	}
	return nil
}

type xmllintError struct {
	err error
	out []byte
}

func (e *xmllintError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// SARIF compiles the SARIF 2.1.0 JSON Schema, with formats asserted.
func SARIF(tb testing.TB) *jsonschema.Schema {
	tb.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	f, err := os.Open(filepath.Join(schemaDir(), "sarif-2.1.0-rtm.5.json"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.AddResource("sarif.json", doc); err != nil {
		tb.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		tb.Fatal(err)
	}
	return sch
}

// CheckSARIF validates report by the SARIF 2.1.0 schema and returns the
// decoded report (for further checks) and the schema's complaint.
func CheckSARIF(tb testing.TB, report []byte) (any, error) {
	tb.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(report))
	if err != nil {
		return nil, err
	}
	return v, SARIF(tb).Validate(v)
}
