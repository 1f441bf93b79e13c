// Package report writes the reports of toonkit validate and toonkit verify:
// text (one line per finding and a summary), json (one object), github
// (GitHub Actions workflow commands), and the CI formats junit (JUnit XML,
// as GitLab, Jenkins, CircleCI, Azure Pipelines and Buildkite read it) and
// sarif (SARIF 2.1.0, as GitHub code scanning reads it; validate only).
//
// A report is written as the findings come: NewValidate or NewVerify, then
// Begin and End around each input file, Finding or Problem for each
// finding, and Close. Memory stays bounded whatever the input's size:
//
//   - junit writes one <testsuite> per input file, whose counts come
//     before its test cases: the cases of a file are spooled (in memory, in
//     a temporary file past 1 MiB) and copied out when the file ends. A
//     record (frame, line, message, event) with findings is one <testcase>
//     named by its place ("frame 3 at byte 1415", "line 17", "seq 16 run
//     550e8400…") with a <failure> per error (type the code, message the
//     pointer and the message) and its warnings as <system-out> lines; the
//     records without findings are one testcase ("1203 records without
//     findings"). Past Options.MaxCases records with findings in a file
//     (default 1000), the others are one testcase that counts them by
//     code. So a file of a million records gives at most MaxCases+2 test
//     cases, however many are bad: a report a CI system loads.
//   - sarif writes its tool part (every rule of validate.Rules as a
//     reportingDescriptor) first and each finding as a result when it
//     comes.
//   - json keeps the findings until Close, as it always has; text and
//     github write each finding at once.
//
// Times in the junit report come from Options.Now; a fixed clock (toonkit
// uses SOURCE_DATE_EPOCH) makes the report reproducible.
package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/errwriter"
	"github.com/toonkit/toonkit/internal/paint"
)

// The report formats.
const (
	Text   = "text"
	JSON   = "json"
	GitHub = "github"
	JUnit  = "junit"
	SARIF  = "sarif"
)

// Formats are the report formats of validate; verify has all but SARIF.
var Formats = []string{Text, JSON, GitHub, JUnit, SARIF}

// DefaultMaxCases is the number of records with findings a junit report
// lists per file by default.
const DefaultMaxCases = 1000

// InformationURI is toonkit's home, named in the SARIF report.
const InformationURI = "https://github.com/toonkit/toonkit"

// Options say how to write a report.
type Options struct {
	Format string           // Text, JSON, GitHub, JUnit or SARIF
	Paint  paint.Func       // colors of the text report; nil: none
	Strict bool             // warnings fail too (and are failures in junit)
	Now    func() time.Time // the clock of junit's times; nil: time.Now
	// MaxCases is the number of records with findings junit lists per
	// file, the others counted in one more test case; 0: DefaultMaxCases,
	// negative: no limit.
	MaxCases int
	Version  string // toonkit's version, for SARIF's tool driver
	TempDir  string // where junit spools the cases of a file; "": os.TempDir
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// CheckFormat refuses a format that is not one of allowed.
func CheckFormat(format string, allowed []string) error {
	for _, a := range allowed {
		if a == format {
			return nil
		}
	}
	return fmt.Errorf("want %s, found %q", orList(allowed), format)
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Names is "text, json, github, junit or sarif", for help texts.
func Names(allowed []string) string { return orList(allowed) }

func itoa(i int) string { return strconv.Itoa(i) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writer keeps the first error of its writes.
type writer struct{ errwriter.Writer }

func newWriter(w io.Writer) *writer { return &writer{errwriter.Writer{W: w}} }

func (w *writer) str(s string) { io.WriteString(w, s) }

func (w *writer) printf(format string, args ...any) { fmt.Fprintf(w, format, args...) }
