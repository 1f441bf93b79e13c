package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toonkit/toonkit/internal/reporttest"
	"github.com/toonkit/toonkit/internal/sign"
	"github.com/toonkit/toonkit/internal/validate"
)

var epoch = func() time.Time { return time.Unix(0, 0) }

// findings of every kind of place: text, frames, a capture's connection, a
// file-level finding, warnings, and characters XML cannot hold as they are.
func sampleFindings() []validate.Finding {
	return []validate.Finding{
		{File: "bad.toon", Line: 4, Column: 2, Frame: -1, Offset: 25, Record: 1, Code: "TAB002", Message: "row has 1 cell, expected 2 (one per key)"},
		{File: "bad.toon", Line: 5, Column: 1, Frame: -1, Offset: 30, Record: 2, Code: "TAB003", Message: "bad escape \"\\q\" <&> ]]> \x01 \xff"},
		{File: "frames.bin", Frame: 0, Offset: 18, Record: 0, Pointer: "/payload/progress", Code: "BIN018", Message: "must be a number from 0 to 1, found 1.5"},
		{File: "frames.bin", Frame: 0, Offset: 4, Record: 0, Pointer: "/header/sequenceId", Code: "BIN030", Severity: validate.Warning, Message: "must be more than 5, found 5"},
		{File: "frames.bin", Frame: 2, Offset: 60, Record: -1, Code: "BIN034", Severity: validate.Warning, Message: "2 bytes after the last frame"},
		{File: "s.pcap", Conn: "10.0.0.1:5>10.0.0.2:7", Dir: "c2s", Frame: 1, Offset: 40, Record: 1, Code: "BIN030", Severity: validate.Warning, Message: "w"},
		{File: "s.pcap", Conn: "10.0.0.1:6>10.0.0.2:7", Dir: "c2s", Frame: 1, Offset: 40, Record: 1, Code: "BIN031", Severity: validate.Warning, Message: "w"},
		{File: "x.json", Frame: -1, Record: -1, Code: "TK001", Message: "cannot tell the format"},
	}
}

// writeValidate reports the sample findings, file by file.
func writeValidate(t *testing.T, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	r := NewValidate(&b, o)
	records := map[string]int{"bad.toon": 5, "frames.bin": 3, "s.pcap": 4, "x.json": 0}
	var file string
	for _, f := range sampleFindings() {
		if f.File != file {
			if file != "" {
				r.End(file, records[file], nil)
			}
			file = f.File
			r.Begin(file)
		}
		r.Finding(f)
	}
	r.End(file, records[file], nil)
	r.Begin("gone.ndjson")
	r.End("gone.ndjson", 0, errors.New("cannot read gone.ndjson: no such file or directory"))
	if err := r.Close(""); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeVerify(t *testing.T, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	r := NewVerify(&b, o, sign.SchemeSpec)
	r.Begin("a.ndjson")
	r.Problem(sign.Problem{Where: sign.Where{File: "a.ndjson", Line: 3, Column: 1, Index: 2}, Run: "550e8400-e29b-41d4-a716-446655440000", Seq: "3", Code: sign.CodeMismatch, Msg: "signature mismatch", Message: []byte("550e8400 3 t a b {}")})
	r.End("a.ndjson", 4, nil)
	r.Begin("b.ndjson")
	r.End("b.ndjson", 2, nil)
	// A gap at the end of a.ndjson, sure only once b.ndjson is read.
	r.Problem(sign.Problem{Where: sign.Where{File: "a.ndjson", Line: 4, Column: 1, Index: 3}, Run: "550e8400-e29b-41d4-a716-446655440000", Seq: "6", Code: sign.CodeGap, Msg: "an event is missing between seq 4 and 6"})
	if err := r.Close(VerifySummary{Events: 6, Runs: 1, Errors: 2}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The junit reports of validate and verify, with every kind of finding,
// the cap on test cases, --strict and an unreadable file, are valid by the
// JUnit XSD of Jenkins (xmllint --schema).
func TestJUnitValidatesAgainstJenkinsXSD(t *testing.T) {
	reports := map[string][]byte{
		"validate.xml":        writeValidate(t, Options{Format: JUnit, Now: epoch}),
		"validate-strict.xml": writeValidate(t, Options{Format: JUnit, Strict: true}),
		"validate-cap.xml":    writeValidate(t, Options{Format: JUnit, MaxCases: 1}),
		"verify.xml":          writeVerify(t, Options{Format: JUnit}),
	}
	for name, b := range reports {
		if err := reporttest.CheckJUnit(t, b); err != nil {
			t.Errorf("%s does not validate: %v\n%s", name, err, b)
		}
	}
}

type xSuites struct {
	Suites []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Time     string `xml:"time,attr"`
		Stamp    string `xml:"timestamp,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name     string `xml:"name,attr"`
			Failures []struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Errors []struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Out string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parse(t *testing.T, b []byte) xSuites {
	t.Helper()
	var s xSuites
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return s
}

// One suite per file; one case per record with findings, named by its
// place, a failure per error, warnings as system-out; the records without
// findings as one case; counts and times on the suite.
func TestJUnitSuitesAndCases(t *testing.T) {
	s := parse(t, writeValidate(t, Options{Format: JUnit, Now: epoch}))
	var got []string
	for _, su := range s.Suites {
		got = append(got, su.Name+" tests="+itoa(su.Tests)+" failures="+itoa(su.Failures)+" errors="+itoa(su.Errors)+" time="+su.Time+" "+su.Stamp+" records="+su.Props[0].Value)
		for _, c := range su.Cases {
			line := "  " + c.Name
			for _, f := range c.Failures {
				line += " [failure " + f.Type + ": " + f.Message + "]"
			}
			for _, e := range c.Errors {
				line += " [error " + e.Message + "]"
			}
			if c.Out != "" {
				line += " [out " + c.Out + "]"
			}
			got = append(got, line)
		}
	}
	want := []string{
		"bad.toon tests=3 failures=2 errors=0 time=0.000 1970-01-01T00:00:00Z records=5",
		"  line 4 [failure TAB002: row has 1 cell, expected 2 (one per key)]",
		"  line 5 [failure TAB003: bad escape \"\\q\" <&> ]]> \uFFFD \uFFFD]",
		"  3 records without findings",
		"frames.bin tests=3 failures=1 errors=0 time=0.000 1970-01-01T00:00:00Z records=3",
		"  frame 0 at byte 18 [failure BIN018: /payload/progress: must be a number from 0 to 1, found 1.5] [out frames.bin: frame 0 at byte 4: warning: /header/sequenceId: must be more than 5, found 5 [BIN030]]",
		"  frame 2 at byte 60 [out frames.bin: frame 2 at byte 60: warning: 2 bytes after the last frame [BIN034]]",
		"  2 records without findings",
		"s.pcap tests=3 failures=0 errors=0 time=0.000 1970-01-01T00:00:00Z records=4",
		"  10.0.0.1:5>10.0.0.2:7 c2s: frame 1 at byte 40 [out s.pcap: 10.0.0.1:5>10.0.0.2:7 c2s: frame 1 at byte 40: warning: w [BIN030]]",
		"  10.0.0.1:6>10.0.0.2:7 c2s: frame 1 at byte 40 [out s.pcap: 10.0.0.1:6>10.0.0.2:7 c2s: frame 1 at byte 40: warning: w [BIN031]]",
		"  2 records without findings",
		"x.json tests=1 failures=1 errors=0 time=0.000 1970-01-01T00:00:00Z records=0",
		"  the file [failure TK001: cannot tell the format]",
		"gone.ndjson tests=1 failures=0 errors=1 time=0.000 1970-01-01T00:00:00Z records=0",
		"  reading the file [error cannot read gone.ndjson: no such file or directory]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// --strict: warnings are failures.
	s = parse(t, writeValidate(t, Options{Format: JUnit, Strict: true}))
	if su := s.Suites[2]; su.Failures != 2 || len(su.Cases[0].Failures) != 1 || su.Cases[0].Failures[0].Type != "BIN030" {
		t.Errorf("strict: %+v", su)
	}
	// Past MaxCases, the records with findings are one case counting them.
	s = parse(t, writeValidate(t, Options{Format: JUnit, MaxCases: 1}))
	su := s.Suites[1]
	if len(su.Cases) != 3 || su.Cases[1].Name != "1 more record with findings (not listed past 1)" || su.Cases[1].Out != "BIN034: 1 finding" {
		t.Errorf("MaxCases 1: %+v", su.Cases)
	}
	su = s.Suites[0]
	if su.Cases[1].Name != "1 more record with findings (not listed past 1)" || su.Cases[1].Failures[0].Message != "TAB003: 1 finding" || su.Failures != 2 {
		t.Errorf("MaxCases 1: %+v", su)
	}
}

// Verify's problems may come after their file ended: the suites are
// written at the end, each with its problems; cases are named by seq and
// run, and the message signed is in the failure.
func TestJUnitVerify(t *testing.T) {
	s := parse(t, writeVerify(t, Options{Format: JUnit}))
	if len(s.Suites) != 2 {
		t.Fatalf("%d suites", len(s.Suites))
	}
	a, b := s.Suites[0], s.Suites[1]
	if a.Name != "a.ndjson" || a.Tests != 3 || a.Failures != 2 || a.Cases[0].Name != "seq 3 run 550e8400…" || a.Cases[1].Name != "seq 6 run 550e8400…" || a.Cases[2].Name != "2 events without findings" {
		t.Errorf("a.ndjson: %+v", a)
	}
	if f := a.Cases[0].Failures[0]; f.Type != "SIG001" || !strings.Contains(f.Text, "the message signed (spec: run_id seq t actor type json.dumps(payload, sort_keys=True)), 19 bytes:") {
		t.Errorf("mismatch: %+v", f)
	}
	if b.Name != "b.ndjson" || b.Tests != 1 || b.Cases[0].Name != "2 events without findings" {
		t.Errorf("b.ndjson: %+v", b)
	}
}

// A file with many cases spools them to a temporary file, removed at the
// end; the report is the same as one kept in memory.
func TestJUnitSpools(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	r := NewValidate(&b, Options{Format: JUnit, MaxCases: -1, TempDir: dir, Now: epoch})
	r.Begin("big.ndjson")
	const n = 20000
	for i := range n {
		r.Finding(validate.Finding{File: "big.ndjson", Line: i + 1, Column: 1, Frame: -1, Record: i, Code: "CHF001", Message: strings.Repeat("m", 60)})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the spool folder, want 1", len(ents))
	}
	r.End("big.ndjson", n, nil)
	if err := r.Close(""); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left in the spool folder", len(ents))
	}
	s := parse(t, b.Bytes())
	if su := s.Suites[0]; su.Tests != n || su.Failures != n || len(su.Cases) != n || su.Cases[n-1].Name != "line 20000" {
		t.Errorf("tests=%d failures=%d cases=%d", su.Tests, su.Failures, len(su.Cases))
	}
	// By default a million bad records give 1000 cases and one more.
	b.Reset()
	r = NewValidate(&b, Options{Format: JUnit, TempDir: dir})
	r.Begin("big.ndjson")
	for i := range 1000000 {
		r.Finding(validate.Finding{File: "big.ndjson", Line: i + 1, Column: 1, Frame: -1, Record: i, Code: "CHF001", Message: "m"})
	}
	r.End("big.ndjson", 1000000, nil)
	r.Close("")
	if su := parse(t, b.Bytes()).Suites[0]; su.Tests != 1001 || su.Cases[1000].Name != "999000 more records with findings (not listed past 1000)" {
		t.Errorf("a million bad records: tests=%d, last %q", su.Tests, su.Cases[len(su.Cases)-1].Name)
	}
}

// The SARIF report is valid by the SARIF 2.1.0 schema; each result names
// its rule (ruleIndex into the driver's rules, which hold every code of
// validate.Rules), a line and column for text, a byte offset for frames.
func TestSARIFValidatesAgainstSchema(t *testing.T) {
	out := writeValidate(t, Options{Format: SARIF, Version: "v1.2.3"})
	v, err := reporttest.CheckSARIF(t, out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	run := v.(map[string]any)["runs"].([]any)[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] != "toonkit" || driver["version"] != "v1.2.3" || driver["informationUri"] != InformationURI {
		t.Errorf("driver %v", driver)
	}
	rules := driver["rules"].([]any)
	if len(rules) != len(validate.Rules()) {
		t.Errorf("%d rules, want %d", len(rules), len(validate.Rules()))
	}
	results := run["results"].([]any)
	if len(results) != len(sampleFindings()) {
		t.Fatalf("%d results", len(results))
	}
	loc := func(i int) string {
		r := results[i].(map[string]any)
		rule := rules[num(r["ruleIndex"])].(map[string]any)
		if rule["id"] != r["ruleId"] {
			t.Errorf("result %d: ruleIndex names %v, ruleId %v", i, rule["id"], r["ruleId"])
		}
		pl := r["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
		s := pl["artifactLocation"].(map[string]any)["uri"].(string)
		if reg, ok := pl["region"].(map[string]any); ok {
			for _, k := range []string{"startLine", "startColumn", "byteOffset"} {
				if v, ok := reg[k]; ok {
					s += " " + k + "=" + itoa(num(v))
				}
			}
		}
		return s + " " + r["level"].(string) + " " + r["message"].(map[string]any)["text"].(string)
	}
	for i, want := range []string{
		"bad.toon startLine=4 startColumn=2 error row has 1 cell, expected 2 (one per key)",
		"frames.bin byteOffset=18 error frame 0 at byte 18: /payload/progress: must be a number from 0 to 1, found 1.5",
		"s.pcap warning 10.0.0.1:5>10.0.0.2:7 c2s: frame 1 at byte 40: w",
	} {
		j := []int{0, 2, 5}[i]
		if got := loc(j); got != want {
			t.Errorf("result %d: %s, want %s", j, got, want)
		}
	}
	inv := run["invocations"].([]any)[0].(map[string]any)
	if inv["executionSuccessful"] != false || len(inv["toolExecutionNotifications"].([]any)) != 1 {
		t.Errorf("invocations %v", inv)
	}
}

func num(v any) int {
	n, _ := v.(json.Number).Int64()
	return int(n)
}
