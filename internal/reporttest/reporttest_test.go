package reporttest

import (
	"strings"
	"testing"
)

// A report that breaks the schemas is refused: the checks can fail.
func TestChecksRefuseBadReports(t *testing.T) {
	if err := CheckJUnit(t, []byte(`<?xml version="1.0"?><testsuites><testsuite name="x"><nope/></testsuite></testsuites>`)); err == nil {
		t.Error("a junit report with an unknown element validates")
	}
	if err := CheckJUnit(t, []byte(`<?xml version="1.0"?><testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase name="a" classname="x"/></testsuite></testsuites>`)); err != nil {
		t.Errorf("a minimal junit report does not validate: %v", err)
	}
	if _, err := CheckSARIF(t, []byte(`{"version":"2.1.0","runs":[{"tool":{}}]}`)); err == nil || !strings.Contains(err.Error(), "driver") {
		t.Errorf("a sarif run without a tool driver: %v", err)
	}
	if _, err := CheckSARIF(t, []byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"toonkit"}}}]}`)); err != nil {
		t.Errorf("a minimal sarif report does not validate: %v", err)
	}
}
