// Package validate checks messages against the rules of their format and
// protocol and reports findings: where (file, line and column or frame and
// byte offset, record, JSON pointer), a stable code, a severity, and what was
// expected and what was found. Message rules are JSON Schemas (draft
// 2020-12) embedded in schemas/; what a schema cannot say (order,
// uniqueness, rules across records) is checked in Go over the stream.
//
// A user's own JSON Schema (UserSchema, validate --schema) checks the
// records of any JSON, NDJSON, TOON, table or frame input with the same
// findings and places. ExportSchema writes the embedded schemas in the form
// strict validators such as ajv take.
package validate

import (
	"fmt"
)

// Severity is how bad a finding is.
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Finding is one rule broken by one record.
type Finding struct {
	File     string
	Line     int   // 1-based line of text input; 0 for binary input
	Column   int   // 1-based column (in characters) of text input
	Frame    int   // 0-based frame index of binary input; -1 for text
	Offset   int64 // absolute byte offset in the file
	Record   int   // 0-based index of the record (frame, row, message); -1 when none
	Pointer  string
	Code     string
	Severity Severity
	Message  string
	// Conn and Dir name the connection ("10.0.0.1:51234>10.0.0.2:7000",
	// client>server) and the direction ("c2s" or "s2c") of a frame read
	// from a packet capture; Frame and Offset then count in that
	// direction's stream. Empty for other input.
	Conn, Dir string
}

// Where is the finding's place as FILE:LINE:COL or FILE: frame N at byte X,
// and in a capture FILE: CONN DIR: frame N at byte X.
func (f Finding) Where() string {
	file := f.File
	if f.Conn != "" {
		file += ": " + f.connection()
	}
	switch {
	case f.Frame >= 0:
		return fmt.Sprintf("%s: frame %d at byte %d", file, f.Frame, f.Offset)
	case f.Line > 0:
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	return file
}

// connection is "CONN DIR", or "" outside captures.
func (f Finding) connection() string {
	if f.Conn == "" {
		return ""
	}
	if f.Dir == "" {
		return f.Conn
	}
	return f.Conn + " " + f.Dir
}

// Text is the finding as one line of the text report, without color:
// "FILE:LINE:COL: error: /pointer: message [CODE]".
func (f Finding) Text() string {
	ptr := ""
	if f.Pointer != "" {
		ptr = f.Pointer + ": "
	}
	return fmt.Sprintf("%s: %s: %s%s [%s]", f.Where(), f.Severity, ptr, f.Message, f.Code)
}

// Summary counts what a run looked at and found.
type Summary struct {
	Files, Records   int
	Errors, Warnings int
	Strict           bool
}

// OK reports whether the run passes: no error, and with Strict no warning.
func (s Summary) OK() bool { return s.Errors == 0 && (!s.Strict || s.Warnings == 0) }

// Add counts a finding.
func (s *Summary) Add(f Finding) {
	if f.Severity == Warning {
		s.Warnings++
	} else {
		s.Errors++
	}
}

// Line is the closing summary: "checked 3 files, 1204 records: 3 errors, 1 warning".
func (s Summary) Line() string {
	return fmt.Sprintf("checked %d %s, %d %s: %d %s, %d %s", s.Files, plural(s.Files, "file", "files"),
		s.Records, plural(s.Records, "record", "records"), s.Errors, plural(s.Errors, "error", "errors"),
		s.Warnings, plural(s.Warnings, "warning", "warnings"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
