package report_test

import (
	"os"
	"time"

	"github.com/toonkit/toonkit/internal/report"
	"github.com/toonkit/toonkit/internal/validate"
)

// A JUnit report of one file with two bad records out of five: a test case
// per bad record, named by its place, and one for the records without
// findings. A fixed clock makes the times reproducible.
func ExampleNewValidate_junit() {
	r := report.NewValidate(os.Stdout, report.Options{Format: report.JUnit, Now: func() time.Time { return time.Unix(0, 0) }})
	r.Begin("bad.toon")
	r.Finding(validate.Finding{File: "bad.toon", Line: 4, Column: 2, Frame: -1, Record: 1, Code: "TAB002", Message: "row has 1 cell, expected 2 (one per key)"})
	r.Finding(validate.Finding{File: "bad.toon", Line: 6, Column: 3, Frame: -1, Record: 3, Code: "TAB003", Message: `an escape \q`})
	r.End("bad.toon", 5, nil)
	r.Close("")
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="toonkit validate">
	//   <testsuite name="bad.toon" tests="3" failures="2" errors="0" skipped="0" time="0.000" timestamp="1970-01-01T00:00:00Z" file="bad.toon">
	//     <properties>
	//       <property name="records" value="5"/>
	//       <property name="errors found" value="2"/>
	//       <property name="warnings found" value="0"/>
	//     </properties>
	//     <testcase name="line 4" classname="bad.toon">
	//       <failure type="TAB002" message="row has 1 cell, expected 2 (one per key)">bad.toon:4:2: error: row has 1 cell, expected 2 (one per key) [TAB002]</failure>
	//     </testcase>
	//     <testcase name="line 6" classname="bad.toon">
	//       <failure type="TAB003" message="an escape \q">bad.toon:6:3: error: an escape \q [TAB003]</failure>
	//     </testcase>
	//     <testcase name="3 records without findings" classname="bad.toon"/>
	//   </testsuite>
	// </testsuites>
}
